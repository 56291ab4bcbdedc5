"""A custom Python LeafSystem controller on a discrete plant: the Acrobot.urdf links, made into a fully actuated
2-link arm by adding a shoulder actuator, are driven to a target pose by a PD with gravity compensation written as
a LeafSystem and sampled at 200 Hz by a ZeroOrderHold, while the MultibodyPlant steps at 1 kHz (time_step > 0);
prints a summary and saves a plot.

    python examples/discrete_pd_leafsystem.py [--duration SECONDS] [--out discrete_pd_leafsystem.png]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.drawing import plot_vector_log
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.primitives import ConstantVectorSource, LogVectorOutput, ZeroOrderHold

from gallery import models_dir, parse_args, save_plot

PLANT_TIME_STEP = 1e-3     # s: the discrete MultibodyPlant's step
CONTROL_PERIOD = 1 / 200   # s: the controller's sample-and-hold period
Q_TARGET = np.array([1.2, -0.9])  # rad: [shoulder, elbow]; shoulder 0 hangs straight down


class GravityCompensatedPD(LeafSystem):
    """u = B⁻¹ (kp ⊙ (q_d − q) − kd ⊙ v − τ_g(q)): a joint-space PD plus gravity compensation.

    Inputs `estimated_state` [q; v] (rad, rad/s) and `desired_position` q_d (rad); output `actuation` u (N·m) in
    the plant's actuator order. τ_g is the plant's CalcGravityGeneralizedForces at q (its own context), and
    B = MakeActuationMatrix() maps actuator efforts to generalized forces.
    """

    def __init__(self, plant: MultibodyPlant, kp, kd):
        super().__init__()
        nq, nv, nu = plant.num_positions(), plant.num_velocities(), plant.num_actuators()
        self._kp, self._kd = np.asarray(kp, float), np.asarray(kd, float)
        if self._kp.shape != (nq,) or self._kd.shape != (nv,):
            raise ValueError(f"GravityCompensatedPD: kp must have {nq} entries and kd {nv}, got {self._kp.shape} and "
                             f"{self._kd.shape}")
        B = plant.MakeActuationMatrix()
        if B.shape != (nv, nv):
            raise ValueError(f"GravityCompensatedPD: the plant must be fully actuated ({nv} velocities, {nu} "
                             "actuators)")
        self._B_inv = np.linalg.inv(B)
        self._plant, self._plant_context, self._num_positions = plant, plant.CreateDefaultContext(), nq
        self.DeclareVectorInputPort("estimated_state", nq + nv)
        self.DeclareVectorInputPort("desired_position", nq)
        self.DeclareVectorOutputPort("actuation", nu, self.CalcActuation)

    def CalcActuation(self, context, output) -> None:
        x = self.GetInputPort("estimated_state").Eval(context)
        q_d = self.GetInputPort("desired_position").Eval(context)
        q, v = x[:self._num_positions], x[self._num_positions:]
        self._plant.SetPositions(self._plant_context, q)
        tau_g = self._plant.CalcGravityGeneralizedForces(self._plant_context)
        tau = self._kp * (q_d - q) - self._kd * v - tau_g
        output.SetFromVector(self._B_inv @ tau)


def add_two_link_arm(builder: DiagramBuilder) -> MultibodyPlant:
    """A discrete plant holding Acrobot.urdf plus a shoulder actuator (the URDF actuates the elbow only)."""
    plant, _ = AddMultibodyPlantSceneGraph(builder, PLANT_TIME_STEP)
    Parser(plant).AddModels(str(models_dir() / "drake_examples" / "Acrobot.urdf"))
    plant.AddJointActuator("shoulder", plant.GetJointByName("shoulder"))
    plant.Finalize()
    return plant


def run(duration: float = 4.0, out: str | Path = "discrete_pd_leafsystem.png", kp=(200.0, 100.0),
        kd=(50.0, 20.0)) -> dict:
    builder = DiagramBuilder()
    plant = add_two_link_arm(builder)
    controller = builder.AddNamedSystem("pd", GravityCompensatedPD(plant, kp, kd))
    target = builder.AddNamedSystem("q_d", ConstantVectorSource(Q_TARGET))
    hold = builder.AddNamedSystem("zoh", ZeroOrderHold(CONTROL_PERIOD, plant.num_actuators()))
    builder.Connect(plant.get_state_output_port(), controller.GetInputPort("estimated_state"))
    builder.Connect(target.get_output_port(0), controller.GetInputPort("desired_position"))
    builder.Connect(controller.GetOutputPort("actuation"), hold.get_input_port())
    builder.Connect(hold.get_output_port(), plant.get_actuation_input_port())
    state_log = LogVectorOutput(plant.get_state_output_port(), builder, publish_period=CONTROL_PERIOD)
    actuation_log = LogVectorOutput(hold.get_output_port(), builder, publish_period=CONTROL_PERIOD)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant.SetPositionsAndVelocities(plant.GetMyContextFromRoot(context), np.zeros(4))
    simulator.AdvanceTo(duration)

    state, actuation = state_log.FindLog(context), actuation_log.FindLog(context)
    final = state.data()[:, -1]
    error = np.abs(state.data()[:2] - Q_TARGET[:, None])
    settled = np.flatnonzero(np.max(error, axis=0) > 0.01)  # 1 % of a radian
    summary = {"final_position_error": float(np.max(np.abs(final[:2] - Q_TARGET))),
               "final_rate": float(np.max(np.abs(final[2:]))),
               "settling_time": float(state.sample_times()[min(settled[-1] + 1, state.num_samples() - 1)])
               if settled.size else 0.0,
               "max_abs_actuation": float(np.max(np.abs(actuation.data()))),
               "plant_steps": int(round(duration / PLANT_TIME_STEP)), "samples": state.num_samples()}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    t = state.sample_times()
    for i, name in enumerate(plant.GetPositionNames(add_model_instance_prefix=False)):
        line, = axes[0].plot(t, state.data()[i], label=f"{name} (rad)")
        axes[0].axhline(Q_TARGET[i], color=line.get_color(), lw=0.8, ls="--")
    axes[0].legend(loc="best", fontsize="small")
    axes[0].grid(True, alpha=0.3)
    axes[0].set_title("2-link arm, discrete plant at 1 kHz: 200 Hz Python PD + gravity compensation",
                      fontsize="medium")
    names = [f"{name} u (N·m)" for name in plant.GetActuatorNames(add_model_instance_prefix=False)]
    plot_vector_log(actuation, names=names, ax=axes[1], drawstyle="steps-post")
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 4.0, "discrete_pd_leafsystem.png")
    s = run(args.duration, args.out)
    print(f"2-link arm settled (within 0.01 rad) at t = {s['settling_time']:.2f} s; after {args.duration:g} s position "
          f"error {s['final_position_error']:.1e} rad, rate {s['final_rate']:.1e} rad/s ({s['plant_steps']} plant "
          f"steps, 200 Hz control) -> {s['plot']}")


if __name__ == "__main__":
    main()
