"""A pile of boxes dropped into a small bin on a discrete MultibodyPlant (2 ms steps, MuJoCo-style soft contact):
a Python LeafSystem turns the plant's contact_results (ContactResults) into the net vertical contact force on
each box and the bin's total support, logged with LogVectorOutput; prints a summary and saves a plot of the
forces settling to each box's weight.

    python examples/contact_box_pile.py [--duration SECONDS] [--out contact_box_pile.png]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mallard.geometry import AddMujocoContactParameters, Box, CoulombFriction, HalfSpace, ProximityProperties
from mallard.multibody.math import RigidTransform, RollPitchYaw
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.multibody.tree import SpatialInertia
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.primitives import LogVectorOutput

from gallery import parse_args, save_plot

PLANT_TIME_STEP = 2e-3  # s
LOG_PERIOD = 0.01       # s: the force log's sample period
MU = 0.8                # Coulomb friction of every contact
# name, half sizes (m), mass (kg), initial position (m), initial roll-pitch-yaw (rad)
BOXES = [("crate", (0.10, 0.08, 0.06), 2.0, (0.00, 0.00, 0.08), (0.0, 0.0, 0.3)),
         ("slab", (0.12, 0.06, 0.02), 1.5, (0.01, -0.01, 0.25), (0.05, -0.05, 0.8)),
         ("brick", (0.08, 0.04, 0.03), 1.0, (0.02, 0.01, 0.40), (0.1, 0.0, -0.4)),
         ("cube", (0.05, 0.05, 0.05), 0.5, (-0.12, 0.12, 0.30), (0.3, 0.2, 0.0))]
BIN_HALF_WIDTH = 0.2    # m: inner half width of the square bin
WALL = (0.01, 0.15)     # m: half thickness and half height of its walls


def contact_properties() -> ProximityProperties:
    """Friction MU with MuJoCo's default soft-contact parameters (solref 0.02 s time constant, damping ratio 1)."""
    props = ProximityProperties()
    props.AddProperty("material", "coulomb_friction", CoulombFriction(MU, MU))
    return AddMujocoContactParameters(props, friction=(MU, 0.005, 0.0001), solref=(0.02, 1.0))


def add_box_pile(builder: DiagramBuilder) -> MultibodyPlant:
    """A discrete plant with the ground, four bin walls (world geometry) and the free BOXES, finalized."""
    plant, _ = AddMultibodyPlantSceneGraph(builder, PLANT_TIME_STEP)
    world = plant.world_body()
    plant.RegisterCollisionGeometry(world, RigidTransform(), HalfSpace(), "ground", contact_properties())
    w, t, h = BIN_HALF_WIDTH, WALL[0], WALL[1]
    for i, (x, y) in enumerate([(w + t, 0.0), (-w - t, 0.0), (0.0, w + t), (0.0, -w - t)]):
        size = (2 * t, 2 * (w + 2 * t), 2 * h) if x else (2 * (w + 2 * t), 2 * t, 2 * h)
        X_WG = RigidTransform([x, y, h])
        plant.RegisterCollisionGeometry(world, X_WG, Box(*size), f"wall{i}", contact_properties())
        plant.RegisterVisualGeometry(world, X_WG, Box(*size), f"wall{i}", [0.6, 0.6, 0.6, 0.4])
    for name, half, mass, _, _ in BOXES:
        size = [2 * s for s in half]
        body = plant.AddRigidBody(name, SpatialInertia.SolidBoxWithMass(mass, *size))
        plant.RegisterCollisionGeometry(body, RigidTransform(), Box(*size), name, contact_properties())
        plant.RegisterVisualGeometry(body, RigidTransform(), Box(*size), name, [0.8, 0.5, 0.2, 1.0])
    plant.Finalize()
    return plant


class VerticalContactForces(LeafSystem):
    """Input `contact_results` (ContactResults); output `vertical_force` (N): the world-z component of the net
    contact force on each of `bodies` (summing every contact where the body is A or B), then the total vertical
    force the world (ground and bin) exerts. At rest each body's entry is its weight m·g and the last is Σ m·g."""

    def __init__(self, plant: MultibodyPlant, bodies):
        super().__init__()
        self._row = {body.index(): i for i, body in enumerate(bodies)}
        self._world = plant.world_body().index()
        self._n = len(bodies)
        self.DeclareAbstractInputPort("contact_results",
                                      plant.get_contact_results_output_port().Allocate())
        self.DeclareVectorOutputPort("vertical_force", self._n + 1, self.CalcVerticalForce)

    def CalcVerticalForce(self, context, output) -> None:
        results = self.get_input_port(0).Eval(context)
        f = np.zeros(self._n + 1)
        for i in range(results.num_point_pair_contacts()):
            info = results.point_pair_contact_info(i)
            fz_B = info.contact_force()[2]  # on body B; body A gets −f
            for body, fz in ((info.bodyB_index(), fz_B), (info.bodyA_index(), -fz_B)):
                if body in self._row:
                    f[self._row[body]] += fz
                elif body == self._world:
                    f[self._n] -= fz  # reaction: the world pushes the pile with the opposite force
        output.SetFromVector(f)


def run(duration: float = 2.0, out: str | Path = "contact_box_pile.png") -> dict:
    builder = DiagramBuilder()
    plant = add_box_pile(builder)
    bodies = [plant.GetBodyByName(name) for name, *_ in BOXES]
    forces = builder.AddNamedSystem("vertical_forces", VerticalContactForces(plant, bodies))
    builder.Connect(plant.get_contact_results_output_port(), forces.get_input_port(0))
    force_log = LogVectorOutput(forces.get_output_port(0), builder, publish_period=LOG_PERIOD)
    state_log = LogVectorOutput(plant.get_state_output_port(), builder, publish_period=LOG_PERIOD)
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant_context = plant.GetMyMutableContextFromRoot(context)
    for body, (_, _, _, p, rpy) in zip(bodies, BOXES):
        plant.SetFreeBodyPose(plant_context, body, RigidTransform(RollPitchYaw(*rpy), list(p)))
    simulator.AdvanceTo(duration)

    g = np.linalg.norm(plant.gravity_field().gravity_vector())
    weights = np.array([mass * g for _, _, mass, _, _ in BOXES])
    log = force_log.FindLog(context)
    t, f = log.sample_times(), log.data()
    window = t >= duration - 0.2  # the last 0.2 s: a settled pile carries its weight on average
    v = plant.GetVelocities(plant_context)
    summary = {"total_weight": float(weights.sum()),
               "final_support": float(np.mean(f[-1, window])),
               "support_error": float(abs(np.mean(f[-1, window]) - weights.sum()) / weights.sum()),
               "body_force_errors": (np.abs(np.mean(f[:-1, window], axis=1) - weights) / weights).tolist(),
               "max_final_speed": float(np.max(np.abs(v))),
               "final_heights": [float(plant.EvalBodyPoseInWorld(plant_context, b).translation()[2]) for b in bodies],
               "peak_support": float(np.max(f[-1])),
               "plant_steps": int(round(duration / PLANT_TIME_STEP)), "samples": log.num_samples(),
               "num_contacts": plant.get_contact_results_output_port().Eval(plant_context).num_point_pair_contacts()}
    state = state_log.FindLog(context)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5), gridspec_kw={"height_ratios": [2, 1]})
    for i, (name, *_rest) in enumerate(BOXES):
        line, = axes[0].plot(t, f[i], lw=1.0, label=f"{name} ({BOXES[i][2]:g} kg)")
        axes[0].axhline(weights[i], color=line.get_color(), lw=0.8, ls="--")
    axes[0].plot(t, f[-1], color="k", lw=1.4, label="bin support (total)")
    axes[0].axhline(weights.sum(), color="k", lw=0.8, ls="--")
    axes[0].set_ylim(-2.0, 2.0 * weights.sum())
    axes[0].set_ylabel("vertical contact force (N)")
    axes[0].legend(loc="upper right", fontsize="small", ncol=2)
    axes[0].grid(True, alpha=0.3)
    axes[0].set_title("Box pile in a bin, discrete plant at 2 ms: net contact force per box (dashed: m·g)",
                      fontsize="medium")
    nq = plant.num_positions()
    names = plant.GetStateNames(add_model_instance_prefix=False)
    for body in bodies:
        z_row = names.index(f"{body.name()}_z")
        axes[1].plot(state.sample_times(), state.data()[z_row], lw=1.0, label=body.name())
    axes[1].set_ylabel("height z (m)")
    axes[1].set_xlabel("time (s)")
    axes[1].grid(True, alpha=0.3)
    summary["num_positions"] = nq
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 2.0, "contact_box_pile.png")
    s = run(args.duration, args.out)
    print(f"{len(BOXES)} boxes settled in the bin: support {s['final_support']:.2f} N for a weight of "
          f"{s['total_weight']:.2f} N ({100 * s['support_error']:.2f} % off), max speed {s['max_final_speed']:.1e}, "
          f"{s['num_contacts']} contacts ({s['plant_steps']} plant steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
