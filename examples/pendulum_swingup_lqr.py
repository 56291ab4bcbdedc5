"""Pendulum swing-up: energy shaping pumps the Pendulum.urdf arm up from hanging, then an LQR (designed on the
MultibodyPlant linearized at the upright) catches and balances it; prints a summary and saves a plot.

    python examples/pendulum_swingup_lqr.py [--duration SECONDS] [--out pendulum_swingup_lqr.png]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.controllers import LinearQuadraticRegulator
from mallard.systems.drawing import plot_vector_log
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.primitives import Linearize, LogVectorOutput

from gallery import models_dir, parse_args, save_plot

TAU_MAX = 2.0  # N·m: well below m g l = 4.9 N·m, so the controller has to pump energy over several swings


def wrap_to_pi(angle: float) -> float:
    """The angle (rad) mapped into [-π, π)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


class SwingUpController(LeafSystem):
    """Energy shaping far from the top, LQR near it; input the plant state [θ, θ̇], output τ (N·m), saturated.

    Energy shaping: τ = k θ̇ (E_top − E) + b θ̇ drives the total energy E (from the plant's own
    CalcKineticEnergy/CalcPotentialEnergy) to the upright's energy and cancels the joint damping b.
    Inside the LQR basin (cost-to-go x̃ᵀ S x̃ below `switch_cost`, x̃ = [wrap(θ − π), θ̇]) it applies
    τ = −K x̃ instead.
    """

    def __init__(self, plant: MultibodyPlant, K: np.ndarray, S: np.ndarray, k_energy: float = 2.0,
                 switch_cost: float = 3.0, tau_max: float = TAU_MAX):
        super().__init__()
        self._plant = plant
        self._plant_context = plant.CreateDefaultContext()
        self._K, self._S = np.asarray(K, float).reshape(1, 2), np.asarray(S, float)
        self._k_energy, self._switch_cost, self._tau_max = k_energy, switch_cost, tau_max
        self._damping = float(plant.GetJointByName("theta").default_damping_vector()[0])  # N·m·s/rad
        plant.SetPositionsAndVelocities(self._plant_context, [np.pi, 0.0])
        self._E_top = plant.CalcPotentialEnergy(self._plant_context)
        self.DeclareVectorInputPort("state", 2)
        self.DeclareVectorOutputPort("tau", 1, self.CalcTau)
        self.DeclareVectorOutputPort("mode", 1, self.CalcMode)  # 1 = LQR, 0 = energy shaping

    def _in_basin(self, x: np.ndarray) -> bool:
        x_tilde = np.array([wrap_to_pi(x[0] - np.pi), x[1]])
        return float(x_tilde @ self._S @ x_tilde) < self._switch_cost

    def CalcTau(self, context, output) -> None:
        x = self.get_input_port(0).Eval(context)
        if self._in_basin(x):
            tau = -(self._K @ np.array([wrap_to_pi(x[0] - np.pi), x[1]]))[0]
        else:
            plant, plant_context = self._plant, self._plant_context
            plant.SetPositionsAndVelocities(plant_context, x)
            E = plant.CalcKineticEnergy(plant_context) + plant.CalcPotentialEnergy(plant_context)
            tau = self._k_energy * x[1] * (self._E_top - E) + self._damping * x[1]
        output.SetAtIndex(0, float(np.clip(tau, -self._tau_max, self._tau_max)))

    def CalcMode(self, context, output) -> None:
        output.SetAtIndex(0, 1.0 if self._in_basin(self.get_input_port(0).Eval(context)) else 0.0)


def upright_lqr(plant: MultibodyPlant) -> tuple[np.ndarray, np.ndarray]:
    """K (1×2) and cost-to-go S (2×2) of the LQR about the upright θ = π, from the plant linearized there."""
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, [np.pi, 0.0])
    plant.get_actuation_input_port().FixValue(context, [0.0])
    linear = Linearize(plant, context, input_port_index=plant.get_actuation_input_port().get_index(),
                       output_port_index=plant.get_state_output_port().get_index())
    return LinearQuadraticRegulator(linear.A(), linear.B(), Q=np.diag([10.0, 1.0]), R=np.array([[1.0]]))


def run(duration: float = 10.0, out: str | Path = "pendulum_swingup_lqr.png", theta0: float = 0.1) -> dict:
    builder = DiagramBuilder()
    # No SceneGraph: nothing is drawn, and a plant without one can be linearized from its own context.
    plant = builder.AddNamedSystem("plant", MultibodyPlant(0.0))
    Parser(plant).AddModels(str(models_dir() / "drake_examples" / "Pendulum.urdf"))
    plant.Finalize()

    K, S = upright_lqr(plant)
    controller = builder.AddNamedSystem("swing_up", SwingUpController(plant, K, S))
    builder.Connect(plant.get_state_output_port(), controller.get_input_port(0))
    builder.Connect(controller.GetOutputPort("tau"), plant.get_actuation_input_port())
    state_log = LogVectorOutput(plant.get_state_output_port(), builder, publish_period=0.01)
    tau_log = LogVectorOutput(controller.GetOutputPort("tau"), builder, publish_period=0.01)
    mode_log = LogVectorOutput(controller.GetOutputPort("mode"), builder, publish_period=0.01)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant.SetPositionsAndVelocities(plant.GetMyContextFromRoot(context), [theta0, 0.0])
    simulator.AdvanceTo(duration)

    state, tau, mode = (log.FindLog(context) for log in (state_log, tau_log, mode_log))
    final = state.data()[:, -1]
    switched = np.flatnonzero(mode.data()[0] > 0.5)
    summary = {"final_angle_error": float(wrap_to_pi(final[0] - np.pi)), "final_rate": float(final[1]),
               "lqr_engaged_at": float(mode.sample_times()[switched[0]]) if switched.size else float("nan"),
               "max_abs_tau": float(np.max(np.abs(tau.data()))), "K": K.ravel().tolist(),
               "samples": state.num_samples(), "steps": simulator.get_num_steps_taken()}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    plot_vector_log(state, names=["θ (rad)", "θ̇ (rad/s)"], ax=axes[0])
    for upright in (-np.pi, np.pi):
        axes[0].axhline(upright, color="k", lw=0.5, ls="--")
    axes[0].set_xlabel("")
    axes[0].set_title("Pendulum.urdf: energy-shaping swing-up, then LQR balance")
    plot_vector_log(tau, names=["τ (N·m)"], ax=axes[1])
    if switched.size:
        for ax in axes:
            ax.axvline(summary["lqr_engaged_at"], color="tab:red", lw=0.8, ls=":")
        axes[1].annotate("LQR engaged", (summary["lqr_engaged_at"], -TAU_MAX), xytext=(4, 4),
                         textcoords="offset points", color="tab:red", fontsize="small")
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 10.0, "pendulum_swingup_lqr.png")
    s = run(args.duration, args.out)
    print(f"pendulum swung up with |τ| <= {TAU_MAX:g} N·m, LQR engaged at t = {s['lqr_engaged_at']:.2f} s; after "
          f"{args.duration:g} s: angle error {s['final_angle_error']:+.2e} rad, rate {s['final_rate']:+.2e} rad/s "
          f"({s['steps']} steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
