"""iiwa14 Monte Carlo on a Dask LocalCluster: 1000 closed-loop runs of a joint-space PD controller (no gravity
compensation) holding a posture, each from a random initial posture and with a random payload mass at the
flange; saves a histogram of the final tracking errors.

The randomness lives in the diagram, as Drake's MonteCarloSimulation expects: each joint has a random initial
angle distribution and the payload system a random mass parameter, drawn by SetRandomContext from sample i's
RandomGenerator. The same script on one process (--workers 1) gives the same errors, bit for bit.

    python examples/iiwa_monte_carlo.py [--samples 1000] [--duration 2] [--workers 2] [--out iiwa_monte_carlo.png]
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from mallard.common import RandomGenerator
from mallard.multibody.math import SpatialForce
from mallard.multibody.plant import ExternallyAppliedSpatialForce, MultibodyPlant
from mallard.systems.analysis import MonteCarloSimulation, Simulator
from mallard.systems.controllers import PidController
from mallard.systems.framework import BasicVector, DiagramBuilder, LeafSystem
from mallard.systems.primitives import ConstantVectorSource

from gallery import parse_args, save_plot
from iiwa_inverse_dynamics import add_iiwa

Q_D = np.array([0.0, 0.6, 0.0, -1.2, 0.0, 0.8, 0.0])   # rad: the posture the PD holds
KP = np.array([800.0, 800.0, 600.0, 600.0, 300.0, 200.0, 100.0])   # N·m/rad
KD = 2.0 * np.sqrt(KP)                                   # N·m·s/rad (about critical for a unit inertia)
INITIAL_SPREAD = 0.15   # rad: initial angles uniform in Q_D ± this
PAYLOAD_MASS = (0.0, 5.0)   # kg: uniform payload mass range (the iiwa14 carries up to 14 kg)
PAYLOAD_OFFSET = np.array([0.0, 0.0, 0.1])   # m: the payload's center of mass from the link-7 origin, in link 7


class Payload(LeafSystem):
    """The weight of a point payload on a body, m·g downward at p_BoBq_B, for the plant's applied_spatial_force
    input; its mass m (kg) is a numeric parameter that SetRandomContext draws uniformly from `mass_range`."""

    def __init__(self, body_index, mass_range: tuple[float, float], p_BoBq_B: np.ndarray) -> None:
        super().__init__()
        self._body_index, self._mass_range, self._p_BoBq_B = body_index, mass_range, np.asarray(p_BoBq_B, float)
        self._mass = self.DeclareNumericParameter(BasicVector([np.mean(mass_range)]))
        self.DeclareAbstractOutputPort("spatial_forces", lambda: [], self._calc_forces)

    def _calc_forces(self, context, output) -> None:
        weight = context.get_numeric_parameter(self._mass).GetAtIndex(0) * 9.81
        output.set_value([ExternallyAppliedSpatialForce(self._body_index, self._p_BoBq_B,
                                                         SpatialForce(np.zeros(3), np.array([0.0, 0.0, -weight])))])

    def SetRandomParameters(self, context, parameters, generator) -> None:
        parameters.get_mutable_numeric_parameter(self._mass).SetAtIndex(0, generator.uniform(*self._mass_range))


def _initial_angle(mean: float):
    """A random initial angle distribution around `mean` (rad), sampled by the plant's SetRandomState."""
    return lambda generator: mean + generator.uniform(-INITIAL_SPREAD, INITIAL_SPREAD)


def add_random_iiwa(builder: DiagramBuilder) -> MultibodyPlant:
    """The continuous iiwa14 of iiwa_inverse_dynamics.py, each joint with a random initial angle around Q_D."""
    plant = add_iiwa(builder)
    for k in range(7):
        plant.GetJointByName(f"iiwa_joint_{k + 1}").set_random_angle_distribution(_initial_angle(Q_D[k]))
    return plant


def build_diagram():
    """(diagram, plant): the iiwa under PD toward Q_D, with the random payload on link 7."""
    builder = DiagramBuilder()
    plant = add_random_iiwa(builder)
    pd = builder.AddNamedSystem("pd", PidController(KP, np.zeros(7), KD))
    target = builder.AddNamedSystem("q_d", ConstantVectorSource(np.concatenate([Q_D, np.zeros(7)])))
    payload = builder.AddNamedSystem("payload", Payload(plant.GetBodyByName("iiwa_link_7").index(), PAYLOAD_MASS,
                                                        PAYLOAD_OFFSET))
    builder.Connect(plant.get_state_output_port(), pd.get_input_port_estimated_state())
    builder.Connect(target.get_output_port(0), pd.get_input_port_desired_state())
    builder.Connect(pd.get_output_port_control(), plant.get_actuation_input_port())
    builder.Connect(payload.get_output_port(0), plant.get_applied_spatial_force_input_port())
    return builder.Build(), plant


class MakeSimulator:
    """make_simulator(generator): a new Simulator (and context) over the one diagram; SetRandomContext then draws
    the sample's initial posture and payload mass."""

    def __init__(self) -> None:
        self.diagram, self.plant = build_diagram()

    def __call__(self, generator) -> Simulator:
        return Simulator(self.diagram)


def final_tracking_error(system, context) -> float:
    """|q(T) − q_d| (rad): the PD's steady-state error grows with the payload's weight."""
    plant = system.GetSubsystemByName("plant")
    return float(np.linalg.norm(plant.GetPositions(plant.GetMyContextFromRoot(context)) - Q_D))


def payload_mass(snapshot: RandomGenerator, make_simulator: MakeSimulator) -> float:
    """The payload mass (kg) that sample's generator snapshot draws (replaying its SetRandomContext)."""
    simulator = make_simulator(snapshot)
    context = simulator.get_mutable_context()
    make_simulator.diagram.SetRandomContext(context, snapshot)
    payload = make_simulator.diagram.GetSubsystemByName("payload")
    return payload.GetMyContextFromRoot(context).get_numeric_parameter(0).GetAtIndex(0)


def run(samples: int = 1000, duration: float = 2.0, workers: int = 2, out: str | Path = "iiwa_monte_carlo.png",
        executor=None, seed: int = 1) -> dict:
    """Runs the Monte Carlo on `executor` (a Dask Client), or on a LocalCluster of `workers` processes it starts
    (workers=1: serially, here); saves the histogram and returns a summary."""
    import matplotlib.pyplot as plt

    make_simulator = MakeSimulator()
    start = time.perf_counter()
    if executor is None and workers > 1:
        from dask.distributed import Client, LocalCluster
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as \
                cluster, Client(cluster) as client:
            results = MonteCarloSimulation(make_simulator, final_tracking_error, duration, samples,
                                           RandomGenerator(seed), executor=client)
    else:
        results = MonteCarloSimulation(make_simulator, final_tracking_error, duration, samples,
                                       RandomGenerator(seed), executor=executor)
    elapsed = time.perf_counter() - start
    errors = np.array([r.output for r in results])
    masses = np.array([payload_mass(r.generator_snapshot, make_simulator) for r in results])

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.hist(np.degrees(errors), bins=min(40, max(5, samples // 20)), color="tab:blue")
    left.set_xlabel("final tracking error |q(T) − q_d| (deg)")
    left.set_ylabel("samples")
    left.set_title(f"iiwa14 PD, {samples} samples, T = {duration:g} s")
    right.scatter(masses, np.degrees(errors), s=6)
    right.set_xlabel("payload mass (kg)")
    right.set_ylabel("final tracking error (deg)")
    right.set_title("error grows with the payload's weight")
    summary = {"samples": samples, "seconds": elapsed, "errors": errors, "masses": masses,
               "mean_error_deg": float(np.degrees(errors.mean())), "max_error_deg": float(np.degrees(errors.max()))}
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 2.0, "iiwa_monte_carlo.png", extra=(
        (("--samples",), {"type": int, "default": 1000, "help": "number of Monte Carlo samples (default 1000)"}),
        (("--workers",), {"type": int, "default": 2, "help": "Dask worker processes; 1 runs serially (default 2)"})))
    summary = run(args.samples, args.duration, args.workers, args.out)
    print(f"{summary['samples']} samples in {summary['seconds']:.1f} s: final tracking error mean "
          f"{summary['mean_error_deg']:.3f} deg, max {summary['max_error_deg']:.3f} deg; plot: {summary['plot']}")


if __name__ == "__main__":
    main()
