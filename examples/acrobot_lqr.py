"""Acrobot LQR balance: the Acrobot.urdf plant (elbow actuated only) is linearized at the upright, and the
AffineSystem returned by LinearQuadraticRegulator catches it from a perturbed upright state; prints a summary and
saves a plot.

    python examples/acrobot_lqr.py [--duration SECONDS] [--out acrobot_lqr.png]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.controllers import LinearQuadraticRegulator
from mallard.systems.drawing import plot_vector_log
from mallard.systems.framework import DiagramBuilder
from mallard.systems.primitives import AffineSystem, LogVectorOutput

from gallery import models_dir, parse_args, save_plot

UPRIGHT = np.array([np.pi, 0.0, 0.0, 0.0])  # [shoulder_q, elbow_q, shoulder_w, elbow_w]: both links straight up
Q = np.diag([10.0, 10.0, 1.0, 1.0])
R = np.array([[1.0]])


def add_acrobot(builder: DiagramBuilder) -> MultibodyPlant:
    """A continuous (time_step = 0) plant holding Acrobot.urdf, finalized."""
    # No SceneGraph: nothing is drawn, and a plant without one can be linearized from its own context.
    plant = builder.AddNamedSystem("plant", MultibodyPlant(0.0))
    Parser(plant).AddModels(str(models_dir() / "drake_examples" / "Acrobot.urdf"))
    plant.Finalize()
    return plant


def upright_lqr(plant: MultibodyPlant) -> AffineSystem:
    """The LQR controller u = −K (x − x_upright): input the plant's full state, output the elbow torque (N·m)."""
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, UPRIGHT)
    plant.get_actuation_input_port().FixValue(context, [0.0])
    return LinearQuadraticRegulator(plant, context, Q, R,
                                    input_port_index=int(plant.get_actuation_input_port().get_index()))


def run(duration: float = 5.0, out: str | Path = "acrobot_lqr.png",
        perturbation=(0.05, -0.1, 0.0, 0.0)) -> dict:
    builder = DiagramBuilder()
    plant = add_acrobot(builder)
    controller = builder.AddNamedSystem("lqr", upright_lqr(plant))
    builder.Connect(plant.get_state_output_port(), controller.get_input_port(0))
    builder.Connect(controller.get_output_port(0), plant.get_actuation_input_port())
    state_log = LogVectorOutput(plant.get_state_output_port(), builder, publish_period=0.01)
    torque_log = LogVectorOutput(controller.get_output_port(0), builder, publish_period=0.01)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant.SetPositionsAndVelocities(plant.GetMyContextFromRoot(context), UPRIGHT + np.asarray(perturbation, float))
    simulator.AdvanceTo(duration)

    state, torque = state_log.FindLog(context), torque_log.FindLog(context)
    error = state.data() - UPRIGHT[:, None]
    summary = {"K": (-controller.D()).ravel().tolist(),
               "final_angle_error": float(np.max(np.abs(error[:2, -1]))),
               "final_rate": float(np.max(np.abs(error[2:, -1]))),
               "max_abs_tau": float(np.max(np.abs(torque.data()))),
               "samples": state.num_samples(), "steps": simulator.get_num_steps_taken()}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    t = state.sample_times()
    for name, row in zip(plant.GetStateNames(False), error):  # deviations from the upright
        axes[0].plot(t, row, label=f"{name} − upright")
    axes[0].legend(loc="best", fontsize="small")
    axes[0].grid(True, alpha=0.3)
    axes[0].set_xlabel("")
    axes[0].set_ylabel("rad, rad/s")
    axes[0].set_title("Acrobot.urdf balanced by LinearQuadraticRegulator(plant, context, Q, R)")
    plot_vector_log(torque, names=["elbow τ (N·m)"], ax=axes[1])
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 5.0, "acrobot_lqr.png")
    s = run(args.duration, args.out)
    K = ", ".join(f"{k:.2f}" for k in s["K"])
    print(f"acrobot balanced by LQR K = [{K}]: after {args.duration:g} s max angle error "
          f"{s['final_angle_error']:.2e} rad, max rate {s['final_rate']:.2e} rad/s, "
          f"peak |τ| {s['max_abs_tau']:.1f} N·m "
          f"({s['steps']} steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
