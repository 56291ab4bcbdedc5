"""iiwa14 joint-space tracking with InverseDynamicsController: a PiecewisePolynomial reference through
TrajectorySource drives the arm, once with the reference acceleration fed forward and once without it (pydrake's
has_reference_acceleration=False, which lags); prints a summary and saves a plot of the tracking errors.

    python examples/iiwa_inverse_dynamics.py [--duration SECONDS] [--out iiwa_inverse_dynamics.png]
"""
from __future__ import annotations

from pathlib import Path

import warnings

import numpy as np

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.controllers import InverseDynamicsController
from mallard.systems.framework import DiagramBuilder
from mallard.systems.primitives import LogVectorOutput, TrajectorySource
from mallard.systems.trajectories import PiecewisePolynomial

from gallery import models_dir, parse_args, save_plot

IIWA_URL = "package://drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf"
KP = np.full(7, 100.0)     # 1/s²: each joint's error obeys ë + kd ė + kp e = (v̇_d − v̇_cmd feedforward gap)
KD = 2.0 * np.sqrt(KP)     # 1/s: critically damped
KI = np.zeros(7)
# Joint-space waypoints (rad), inside the iiwa14 limits (±170°, ±120°, ±170°, ±120°, ±170°, ±120°, ±175°).
WAYPOINTS = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                      [0.5, 0.6, 0.0, -1.2, 0.0, 0.8, 0.0],
                      [-0.5, 0.9, 0.3, -1.5, 0.2, 0.5, 0.4],
                      [0.3, 0.4, -0.3, -0.9, -0.2, 1.0, -0.4],
                      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]).T


def add_iiwa(builder: DiagramBuilder) -> MultibodyPlant:
    """A continuous plant with iiwa14 (drake_models, through the package map) welded to the world, finalized."""
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
    parser = Parser(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # pydrake pre-registers a remote copy; use the local one instead
        package_map.Remove("drake_models")
    package_map.AddPackageXml(str(models_dir() / "drake_models" / "package.xml"))
    parser.AddModelsFromUrl(IIWA_URL)
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base"))
    with warnings.catch_warnings():
        # A continuous plant does not enforce joint limits and says so; the reference stays inside them.
        warnings.filterwarnings("ignore", message=".*joint limits.*ignored by a continuous plant")
        plant.Finalize()
    return plant


def reference_trajectory(duration: float) -> PiecewisePolynomial:
    """q_d(t) (rad): a C¹ shape-preserving cubic through WAYPOINTS, at rest at both ends, spanning `duration` s."""
    times = np.linspace(0.0, duration, WAYPOINTS.shape[1])
    return PiecewisePolynomial.CubicShapePreserving(times, WAYPOINTS, zero_end_point_derivatives=True)


def simulate(q_d: PiecewisePolynomial, feed_forward: bool) -> dict:
    """Closed-loop run over q_d's time span; returns the logs of q, q_d and the joint torques."""
    builder = DiagramBuilder()
    plant = add_iiwa(builder)
    controller = builder.AddNamedSystem("controller", InverseDynamicsController(
        plant, KP, KI, KD, has_reference_acceleration=feed_forward))
    desired_state = builder.AddNamedSystem("q_d", TrajectorySource(q_d, output_derivative_order=1))
    builder.Connect(plant.get_state_output_port(), controller.get_input_port_estimated_state())
    builder.Connect(desired_state.get_output_port(0), controller.get_input_port_desired_state())
    if feed_forward:
        desired_acceleration = builder.AddNamedSystem("qddot_d", TrajectorySource(q_d.MakeDerivative(2)))
        builder.Connect(desired_acceleration.get_output_port(0), controller.get_input_port_desired_acceleration())
    builder.Connect(controller.get_output_port_control(), plant.get_actuation_input_port())
    logs = {"state": LogVectorOutput(plant.get_state_output_port(), builder, publish_period=0.01),
            "desired": LogVectorOutput(desired_state.get_output_port(0), builder, publish_period=0.01),
            "torque": LogVectorOutput(controller.get_output_port_control(), builder, publish_period=0.01)}
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant.SetPositions(plant.GetMyContextFromRoot(context), q_d.value(q_d.start_time()).ravel())
    simulator.AdvanceTo(q_d.end_time())
    result = {name: log.FindLog(context) for name, log in logs.items()}
    result["steps"] = simulator.get_num_steps_taken()
    return result


def run(duration: float = 4.0, out: str | Path = "iiwa_inverse_dynamics.png") -> dict:
    q_d = reference_trajectory(duration)
    runs = {mode: simulate(q_d, mode == "feed_forward") for mode in ("feed_forward", "no_feed_forward")}
    errors = {mode: r["desired"].data()[:7] - r["state"].data()[:7] for mode, r in runs.items()}
    samples = np.linspace(q_d.start_time(), q_d.end_time(), 2001)
    max_qddot_d = np.max(np.abs(q_d.MakeDerivative(2).vector_values(samples)), axis=1)
    summary = {"max_error_feed_forward": float(np.max(np.abs(errors["feed_forward"]))),
               "max_error_no_feed_forward": float(np.max(np.abs(errors["no_feed_forward"]))),
               "max_joint_error_no_feed_forward": np.max(np.abs(errors["no_feed_forward"]), axis=1).tolist(),
               "lag_bound": (max_qddot_d / KP).tolist(),
               "max_abs_torque": float(np.max(np.abs(runs["feed_forward"]["torque"].data()))),
               "steps": runs["feed_forward"]["steps"] + runs["no_feed_forward"]["steps"]}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    ff = runs["feed_forward"]
    t = ff["state"].sample_times()
    for j in range(7):
        line, = axes[0].plot(t, ff["state"].data()[j], label=f"joint {j + 1}")
        axes[0].plot(t, ff["desired"].data()[j], color=line.get_color(), ls="--", lw=0.8)
    axes[0].set_ylabel("q (rad)")
    axes[0].set_ylim(-2.7, 1.3)
    axes[0].set_title("iiwa14 + InverseDynamicsController (dashed: reference q_d)")
    for ax, mode, label in ((axes[1], "no_feed_forward", "q_d − q (rad), has_reference_acceleration=False"),
                            (axes[2], "feed_forward", "q_d − q (rad), reference acceleration fed forward")):
        for j in range(7):
            ax.plot(runs[mode]["state"].sample_times(), errors[mode][j], label=f"joint {j + 1}")
        ax.set_title(label, fontsize="medium")
    axes[0].legend(loc="lower left", fontsize="x-small", ncol=4)
    axes[2].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 4.0, "iiwa_inverse_dynamics.png", duration_help="length of the reference trajectory in seconds")
    s = run(args.duration, args.out)
    print(f"iiwa14 tracked a {args.duration:g} s joint trajectory: "
          f"max error {s['max_error_feed_forward']:.1e} rad with "
          f"the reference acceleration fed forward, {s['max_error_no_feed_forward']:.1e} rad without "
          f"(bound max|q̈_d|/kp = {max(s['lag_bound']):.1e} rad), peak |τ| {s['max_abs_torque']:.0f} N·m "
          f"({s['steps']} steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
