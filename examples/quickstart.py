"""Quick start: a pendulum written as a Python LeafSystem, stabilized upright by a 200 Hz discrete PD
controller, simulated in closed loop; prints a summary and saves a plot of the logged signals.

    python examples/quickstart.py [--duration SECONDS] [--out quickstart.png]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mallard.systems.analysis import Simulator
from mallard.systems.drawing import plot_vector_log
from mallard.systems.framework import BasicVector, DiagramBuilder, LeafSystem
from mallard.systems.primitives import LogVectorOutput, ZeroOrderHold

from gallery import parse_args, save_plot


class Pendulum(LeafSystem):
    """θ̈ = -(g/l) sin θ - b θ̇ + τ/(m l²); θ = 0 hangs down. State [θ, θ̇] (rad, rad/s), input τ (N·m)."""

    def __init__(self, mass=1.0, length=0.5, damping=0.1, gravity=9.81):
        super().__init__()
        self.DeclareVectorInputPort("tau", 1)
        self.DeclareNumericParameter(BasicVector([mass, length, damping, gravity]))
        state = self.DeclareContinuousState(1, 1, 0)
        self.DeclareStateOutputPort("state", state)

    def DoCalcTimeDerivatives(self, context, derivatives):
        theta, theta_dot = context.get_continuous_state_vector().CopyToVector()
        m, l, b, g = context.get_numeric_parameter(0).CopyToVector()
        tau = self.get_input_port(0).Eval(context)[0]
        theta_ddot = -(g / l) * np.sin(theta) - b * theta_dot + tau / (m * l * l)
        derivatives.get_mutable_vector().SetFromVector([theta_dot, theta_ddot])


class UprightPD(LeafSystem):
    """τ = -kp (θ - π) - kd θ̇ + m g l sin θ (gravity compensation), saturated at ±tau_max (N·m)."""

    def __init__(self, kp=20.0, kd=4.0, tau_max=6.0, mgl=1.0 * 9.81 * 0.5):
        super().__init__()
        self.kp, self.kd, self.tau_max, self.mgl = kp, kd, tau_max, mgl
        self.DeclareVectorInputPort("state", 2)
        self.DeclareVectorOutputPort("tau", 1, self.CalcTau)

    def CalcTau(self, context, output):
        theta, theta_dot = self.get_input_port(0).Eval(context)
        tau = -self.kp * (theta - np.pi) - self.kd * theta_dot + self.mgl * np.sin(theta)
        output.SetAtIndex(0, np.clip(tau, -self.tau_max, self.tau_max))


def run(duration: float = 5.0, out: str | Path = "quickstart.png") -> dict:
    builder = DiagramBuilder()
    pendulum = builder.AddNamedSystem("pendulum", Pendulum())
    controller = builder.AddNamedSystem("controller", UprightPD())
    hold = builder.AddNamedSystem("zoh", ZeroOrderHold(0.005, 1))  # 200 Hz
    builder.Connect(pendulum.get_output_port(0), controller.get_input_port(0))
    builder.Connect(controller.get_output_port(0), hold.get_input_port())
    builder.Connect(hold.get_output_port(), pendulum.get_input_port(0))
    state_log = LogVectorOutput(pendulum.get_output_port(0), builder)
    torque_log = LogVectorOutput(hold.get_output_port(), builder)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    pendulum.GetMyContextFromRoot(context).SetContinuousState([np.pi - 0.8, 0.0])
    simulator.AdvanceTo(duration)

    state = state_log.FindLog(context)
    torque = torque_log.FindLog(context)
    final = state.data()[:, -1]
    summary = {"final_angle_error": float(final[0] - np.pi), "final_rate": float(final[1]),
               "samples": state.num_samples(), "steps": simulator.get_num_steps_taken()}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    plot_vector_log(state, names=["θ (rad)", "θ̇ (rad/s)"], ax=axes[0])
    axes[0].axhline(np.pi, color="k", lw=0.5, ls="--")
    axes[0].set_title("pendulum held upright by a 200 Hz PD controller")
    plot_vector_log(torque, names=["τ (N·m)"], ax=axes[1], drawstyle="steps-post")
    return save_plot(fig, out, summary, dpi=110)


def main() -> None:
    args = parse_args(__doc__, 5.0, "quickstart.png")
    s = run(args.duration, args.out)
    print(f"pendulum upright after {args.duration:g} s: angle error {s['final_angle_error']:+.2e} rad, "
          f"rate {s['final_rate']:+.2e} rad/s ({s['steps']} steps, {s['samples']} logged samples) -> {s['plot']}")


if __name__ == "__main__":
    main()
