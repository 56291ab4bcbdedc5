"""An MJCF model driven through the plant's MuJoCo `ctrl` input port: MuJoCo's humanoid.xml, its root welded 1.5 m
above the floor (the free joint removed), holds a pose under a PD plus the pose's holding torque, written as a
Python LeafSystem that outputs the 21 motor ctrl values (ctrlrange ±1, force = gear · ctrl). When the `mujoco`
package is installed the same controller runs in a plain mj_step loop and its trajectory is overlaid; prints a
summary and saves a plot.

    python examples/mjcf_ctrl.py [--duration SECONDS] [--out mjcf_ctrl.png]
"""
from __future__ import annotations

from pathlib import Path

import re
import warnings

import numpy as np

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.multibody.tree import MultibodyForces
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import BasicVector, DiagramBuilder, LeafSystem
from mallard.systems.primitives import LogVectorOutput

from gallery import models_dir, parse_args, save_plot

TIME_STEP = 0.005  # s: humanoid.xml's <option timestep>; the controller runs at the same rate
ROOT_HEIGHT = 1.5  # m: the welded torso's height, so the feet clear the floor
OMEGA, ZETA = 15.0, 1.0  # rad/s, 1: each joint's closed-loop natural frequency and damping ratio
# target joint angles (rad), by actuated joint name (every one of the model's 21 motors)
TARGETS = {"abdomen_z": 0.2, "abdomen_y": -0.1, "abdomen_x": 0.05,
           "hip_x_right": -0.2, "hip_z_right": -0.3, "hip_y_right": -0.4, "knee_right": -1.2,
           "ankle_y_right": 0.3, "ankle_x_right": 0.0,
           "hip_x_left": -0.1, "hip_z_left": 0.2, "hip_y_left": -0.3, "knee_left": -0.6,
           "ankle_y_left": -0.2, "ankle_x_left": 0.1,
           "shoulder1_right": 0.8, "shoulder2_right": -0.8, "elbow_right": -1.2,
           "shoulder1_left": -0.5, "shoulder2_left": 0.5, "elbow_left": -0.3}


def hanging_humanoid_xml() -> str:
    """humanoid.xml with the torso welded at ROOT_HEIGHT: the free joint and the (28-value) keyframes removed."""
    xml = (models_dir() / "mujoco" / "model" / "humanoid.xml").read_text()
    xml = re.sub(r"<keyframe>.*?</keyframe>", "", xml, flags=re.S)
    xml, n_free = re.subn(r"<freejoint[^>]*/>", "", xml)
    xml, n_torso = re.subn(r'(<body name="torso" pos=")[^"]*"', rf'\g<1>0 0 {ROOT_HEIGHT}"', xml)
    if (n_free, n_torso) != (1, 1):
        raise ValueError("mjcf_ctrl: humanoid.xml no longer has exactly one <freejoint> and one torso body")
    return xml


def add_humanoid(builder: DiagramBuilder) -> MultibodyPlant:
    """A discrete plant (TIME_STEP) holding the hanging humanoid, finalized."""
    plant, _ = AddMultibodyPlantSceneGraph(builder, TIME_STEP)
    with warnings.catch_warnings():
        # The hamstring tendons' length limits are not simulated by the plant (it says so); the pose held here
        # keeps both tendons inside their ranges, so the limits never engage (in MuJoCo either).
        warnings.filterwarnings("ignore", message=".*tendon 'hamstring_(left|right)': limits not simulated")
        Parser(plant).AddModelsFromString(hanging_humanoid_xml(), "xml")
    plant.Finalize()
    return plant


def pd_gains(plant: MultibodyPlant, joint_names: list[str], gears: np.ndarray,
             targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kp, kd, u_hold) for each joint, in ctrl units (per rad, per rad/s, and 1).

    kp = m·OMEGA² / gear and kd = 2·ZETA·OMEGA·m / gear with m = 1 / (M⁻¹)_jj the joint's effective inertia
    (kg·m²) from the plant's mass matrix at the target pose: every joint gets the same bandwidth and the explicit
    step stays stable (h·kd·gear/m = 2·ZETA·OMEGA·h = 0.15 ≪ 2) although the abdomen swings the whole lower body
    and an ankle only a foot. u_hold = τ_hold / gear, where τ_hold = CalcInverseDynamics(v̇ = 0) with gravity and
    the joints' springs (CalcForceElementsContribution) at q_d, v = 0, makes the target an exact equilibrium.
    """
    context = plant.CreateDefaultContext()
    q = plant.GetPositions(context).copy()
    v_rows = [plant.GetJointByName(n).velocity_start() for n in joint_names]
    for name, q_d in zip(joint_names, targets):
        q[plant.GetJointByName(name).position_start()] = q_d
    plant.SetPositions(context, q)
    m = 1.0 / np.diag(np.linalg.inv(plant.CalcMassMatrix(context)))[v_rows]
    forces = MultibodyForces(plant)
    plant.CalcForceElementsContribution(context, forces)
    tau_hold = plant.CalcInverseDynamics(context, np.zeros(plant.num_velocities()), forces)[v_rows]
    return m * OMEGA**2 / gears, 2.0 * ZETA * OMEGA * m / gears, tau_hold / gears


def pd_ctrl(q_d: np.ndarray, q: np.ndarray, v: np.ndarray, gains) -> np.ndarray:
    """ctrl = kp (q_d − q) − kd v + u_hold (dimensionless; the plant clamps it to ctrlrange ±1)."""
    kp, kd, u_hold = gains
    return kp * (q_d - q) - kd * v + u_hold


class JointPdCtrl(LeafSystem):
    """Input `estimated_state` [q; v] of the plant; output `ctrl` (one value per MuJoCo motor, in actuator order):
    a joint-space PD plus the constant torque that holds the target pose (see pd_gains)."""

    def __init__(self, plant: MultibodyPlant, joint_names: list[str], targets: np.ndarray, gains):
        super().__init__()
        self._q_rows = np.array([plant.GetJointByName(n).position_start() for n in joint_names])
        self._v_rows = plant.num_positions() + np.array([plant.GetJointByName(n).velocity_start()
                                                         for n in joint_names])
        self._q_d = np.asarray(targets, dtype=float)
        self._gains = tuple(np.asarray(g, dtype=float) for g in gains)
        if self._q_d.shape != (len(joint_names),) or any(g.shape != self._q_d.shape for g in self._gains):
            raise ValueError(f"JointPdCtrl: {len(joint_names)} targets and gains needed, got shapes "
                             f"{self._q_d.shape} and {[g.shape for g in self._gains]}")
        self.DeclareVectorInputPort("estimated_state", plant.num_multibody_states())
        self.DeclareVectorOutputPort("ctrl", len(joint_names), self.CalcCtrl)

    def CalcCtrl(self, context, output: BasicVector) -> None:
        x = self.get_input_port(0).Eval(context)
        output.SetFromVector(pd_ctrl(self._q_d, x[self._q_rows], x[self._v_rows], self._gains))


def motor_joints() -> tuple[list[str], np.ndarray]:
    """The joint each MJCF motor drives and its gear (N·m per unit ctrl), in the ctrl port's (MuJoCo actuator)
    order."""
    from mallard.parsers.mjcf import load_mjcf
    model = load_mjcf(hanging_humanoid_xml())
    if any(a.trntype != "joint" for a in model.actuators):
        raise ValueError("mjcf_ctrl: every humanoid actuator must drive a joint")
    return [model.joints[a.trnid[0]].name for a in model.actuators], np.array([a.gear[0] for a in model.actuators])


def run_mujoco(duration: float, joint_names: list[str], targets: np.ndarray,
               gains) -> tuple[np.ndarray, np.ndarray] | None:
    """(times, joint angles in `joint_names` order) of the same PD in a plain mj_step loop; None without mujoco."""
    try:
        import mujoco
    except ImportError:
        return None
    model = mujoco.MjModel.from_xml_string(hanging_humanoid_xml())
    data = mujoco.MjData(model)
    qadr = np.array([model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n)] for n in joint_names])
    vadr = np.array([model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n)] for n in joint_names])
    steps = int(round(duration / model.opt.timestep))
    t, q = [0.0], [data.qpos[qadr].copy()]
    for _ in range(steps):
        data.ctrl[:] = pd_ctrl(targets, data.qpos[qadr], data.qvel[vadr], gains)
        mujoco.mj_step(model, data)
        t.append(data.time)
        q.append(data.qpos[qadr].copy())
    return np.array(t), np.array(q).T


def run(duration: float = 4.0, out: str | Path = "mjcf_ctrl.png", with_mujoco: bool = True) -> dict:
    builder = DiagramBuilder()
    plant = add_humanoid(builder)
    instance = plant.GetModelInstanceByName("Humanoid")
    joints, gears = motor_joints()
    targets = np.array([TARGETS[n] for n in joints])
    gains = pd_gains(plant, joints, gears, targets)
    controller = builder.AddNamedSystem("pd", JointPdCtrl(plant, joints, targets, gains))
    ctrl_port = plant.GetInputPort(f"{plant.GetModelInstanceName(instance)}_ctrl")
    builder.Connect(plant.get_state_output_port(), controller.get_input_port(0))
    builder.Connect(controller.get_output_port(0), ctrl_port)
    state_log = LogVectorOutput(plant.get_state_output_port(), builder)  # every step, like the mj_step loop
    ctrl_log = LogVectorOutput(controller.get_output_port(0), builder)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    simulator.AdvanceTo(duration)
    context = simulator.get_context()
    log = state_log.FindLog(context)
    rows = [plant.GetJointByName(n).position_start() for n in joints]
    t, q = log.sample_times(), log.data()[rows]
    ctrl = ctrl_log.FindLog(context).data()
    error = np.abs(q - targets[:, None])
    summary = {"joints": joints, "final_errors": error[:, -1].tolist(),
               "max_final_error": float(np.max(error[:, -1])),
               "settling_time": float(t[min(np.flatnonzero(np.max(error, axis=0) > 0.02)[-1] + 1, t.size - 1)]),
               "saturated_fraction": float(np.mean(np.abs(ctrl) >= 1.0)),
               "steps": int(round(duration / TIME_STEP)), "samples": int(t.size)}
    # fixed tendons hamstring_<side> = ½ hip_y − ½ knee (range [−0.3, 2] in the file, limits not simulated)
    hamstrings = [0.5 * (q[joints.index(f"hip_y_{side}")] - q[joints.index(f"knee_{side}")])
                  for side in ("right", "left")]
    summary["hamstring_range"] = (float(np.min(hamstrings)), float(np.max(hamstrings)))
    reference = run_mujoco(duration, joints, targets, gains) if with_mujoco else None
    if reference is not None:
        t_mj, q_mj = reference
        summary["max_diff_vs_mujoco"] = float(np.max(np.abs(q_mj - q))) if q_mj.shape == q.shape else float("inf")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = ["hip_y_right", "knee_right", "shoulder1_right", "elbow_right", "abdomen_y", "hip_y_left"]
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5), gridspec_kw={"height_ratios": [3, 1.4]})
    for name in shown:
        i = joints.index(name)
        line, = axes[0].plot(t, q[i], lw=1.4, label=name)
        axes[0].axhline(targets[i], color=line.get_color(), lw=0.8, ls="--")
        if reference is not None:
            axes[0].plot(t_mj, q_mj[i], color="k", lw=0.8, ls=":")
    if reference is not None:
        axes[0].plot([], [], color="k", lw=0.8, ls=":", label="MuJoCo mj_step")
    axes[0].set_ylabel("joint angle (rad)")
    axes[0].legend(loc="lower right", fontsize="small", ncol=2)
    axes[0].grid(True, alpha=0.3)
    axes[0].set_title("MJCF humanoid (root welded) via its ctrl port: Python PD, 6 of 21 joints", fontsize="medium")
    axes[1].semilogy(t, np.maximum(np.max(error, axis=0), 1e-12), color="C3", lw=1.0, label="max |q_d − q| (rad)")
    if reference is not None and q_mj.shape == q.shape:
        axes[1].semilogy(t, np.maximum(np.max(np.abs(q_mj - q), axis=0), 1e-17), color="k", lw=1.0,
                         label="max |q − q_MuJoCo| (rad)")
    axes[1].set_xlabel("time (s)")
    axes[1].legend(loc="center right", fontsize="small")
    axes[1].grid(True, alpha=0.3)
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 4.0, "mjcf_ctrl.png")
    s = run(args.duration, args.out)
    vs = (f", max difference from MuJoCo {s['max_diff_vs_mujoco']:.1e} rad" if "max_diff_vs_mujoco" in s
          else " (install mujoco to compare)")
    print(f"humanoid: 21 joints within 0.02 rad of their targets from t = {s['settling_time']:.2f} s; after "
          f"{args.duration:g} s max error {s['max_final_error']:.1e} rad{vs} ({s['steps']} steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
