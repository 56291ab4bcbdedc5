"""Cart-pole LQR with a step in the cart reference: cart_pole.sdf is linearized at the upright, and the LQR gain
acts on the error between the plant state and a reference whose cart position steps from 0 to 1 m; prints a
summary and saves a plot.

    python examples/cart_pole_lqr.py [--duration SECONDS] [--step-time SECONDS] [--out cart_pole_lqr.png]
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
from mallard.systems.primitives import Adder, Gain, Linearize, LogVectorOutput, MatrixGain, TrajectorySource
from mallard.systems.trajectories import PiecewisePolynomial

from gallery import models_dir, parse_args, save_plot

UPRIGHT = np.array([0.0, np.pi, 0.0, 0.0])  # [CartSlider_x, PolePin_q, CartSlider_v, PolePin_w]; q = 0 hangs down
Q = np.diag([100.0, 100.0, 1.0, 1.0])
R = np.array([[0.01]])


def add_cart_pole(builder: DiagramBuilder) -> MultibodyPlant:
    """A continuous (time_step = 0) plant holding cart_pole.sdf (the cart slider is the only actuator), finalized."""
    # No SceneGraph: nothing is drawn, and a plant without one can be linearized from its own context.
    plant = builder.AddNamedSystem("plant", MultibodyPlant(0.0))
    Parser(plant).AddModels(str(models_dir() / "drake_examples" / "cart_pole.sdf"))
    plant.Finalize()
    return plant


def upright_lqr_gain(plant: MultibodyPlant) -> tuple[np.ndarray, np.ndarray]:
    """(K, S) of the LQR about the upright, from the plant's linearization (A, B) there."""
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, UPRIGHT)
    plant.get_actuation_input_port().FixValue(context, [0.0])
    linear = Linearize(plant, context, input_port_index=plant.get_actuation_input_port().get_index(),
                       output_port_index=plant.get_state_output_port().get_index())
    return LinearQuadraticRegulator(linear.A(), linear.B(), Q, R)


def run(duration: float = 6.0, out: str | Path = "cart_pole_lqr.png", step_time: float = 1.0,
        cart_target: float = 1.0) -> dict:
    builder = DiagramBuilder()
    plant = add_cart_pole(builder)
    K, _ = upright_lqr_gain(plant)

    # x_d(t): the upright with the cart at 0 m before step_time and at cart_target after it.
    x_after = UPRIGHT + np.array([cart_target, 0.0, 0.0, 0.0])
    reference = PiecewisePolynomial.ZeroOrderHold([0.0, step_time, max(duration, step_time) + 1.0],
                                                  np.column_stack([UPRIGHT, x_after, x_after]))
    x_d = builder.AddNamedSystem("reference", TrajectorySource(reference))
    negate = builder.AddNamedSystem("−x_d", Gain(-1.0, 4))
    error = builder.AddNamedSystem("x − x_d", Adder(2, 4))
    lqr = builder.AddNamedSystem("lqr", MatrixGain(-K))  # u = −K (x − x_d)
    builder.Connect(x_d.get_output_port(0), negate.get_input_port(0))
    builder.Connect(plant.get_state_output_port(), error.get_input_port(0))
    builder.Connect(negate.get_output_port(0), error.get_input_port(1))
    builder.Connect(error.get_output_port(0), lqr.get_input_port(0))
    builder.Connect(lqr.get_output_port(0), plant.get_actuation_input_port())
    state_log = LogVectorOutput(plant.get_state_output_port(), builder, publish_period=0.01)
    reference_log = LogVectorOutput(x_d.get_output_port(0), builder, publish_period=0.01)
    force_log = LogVectorOutput(lqr.get_output_port(0), builder, publish_period=0.01)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant.SetPositionsAndVelocities(plant.GetMyContextFromRoot(context), UPRIGHT)
    simulator.AdvanceTo(duration)

    state, ref, force = (log.FindLog(context) for log in (state_log, reference_log, force_log))
    final = state.data()[:, -1]
    summary = {"K": K.ravel().tolist(), "final_cart_error": float(final[0] - cart_target),
               "final_pole_error": float(final[1] - np.pi), "final_rates": final[2:].tolist(),
               "min_pole_deviation": float(np.min(state.data()[1] - np.pi)),
               "max_abs_force": float(np.max(np.abs(force.data()))),
               "samples": state.num_samples(), "steps": simulator.get_num_steps_taken()}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 6))
    t = state.sample_times()
    axes[0].plot(t, state.data()[0], label="CartSlider_x (m)")
    axes[0].plot(ref.sample_times(), ref.data()[0], "k--", lw=0.8, label="reference (m)")
    axes[0].set_title("cart_pole.sdf: LQR tracking a 1 m step in the cart reference")
    axes[1].plot(t, state.data()[1] - np.pi, label="PolePin_q − π (rad)", color="tab:orange")
    plot_vector_log(force, names=["cart force (N)"], ax=axes[2], color="tab:green")
    for ax in axes[:2]:
        ax.legend(loc="best", fontsize="small")
        ax.grid(True, alpha=0.3)
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 6.0, "cart_pole_lqr.png", extra=[(("--step-time",), dict(
        type=float, default=1.0, help="time of the reference step in seconds"))])
    s = run(args.duration, args.out, step_time=args.step_time)
    print(f"cart-pole after a 1 m reference step at t = {args.step_time:g} s: "
          f"cart error {s['final_cart_error']:+.2e} m, "
          f"pole error {s['final_pole_error']:+.2e} rad after {args.duration:g} s, peak |force| "
          f"{s['max_abs_force']:.1f} N ({s['steps']} steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
