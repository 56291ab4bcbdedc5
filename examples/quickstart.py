"""Quick start: a KUKA iiwa arm, loaded from its URDF with Parser, sweeps a box across a table in closed loop.

A gravity-compensated PD controller written as a Python LeafSystem tracks a PiecewisePolynomial through six
joint-space waypoints; the arm, the table and the box make contact on a discrete MultibodyPlant (2 ms steps).
The arm's state, the torques the plant applies and the box's pose are logged; the script prints a summary,
saves a plot of the logged signals and a self-contained HTML replay (open it in any browser).

    python examples/quickstart.py [--duration SECONDS] [--out quickstart.png] [--html quickstart.html]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

from mallard.geometry import Box, Meshcat, MeshcatParams, MeshcatVisualizer, ProximityProperties, Sphere
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, CoulombFriction, MultibodyPlant
from mallard.multibody.tree import SpatialInertia
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.drawing import plot_logged_signals
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.primitives import LogVectorOutput, TrajectorySource
from mallard.systems.trajectories import PiecewisePolynomial

from gallery import models_dir, parse_args

IIWA = "drake_models/iiwa_description/urdf/iiwa14_spheres_collision.urdf"  # collision: spheres on each link
TIME_STEP = 2e-3               # s: the discrete plant's step
KP, KD = 400.0, 40.0           # the PD gains, N·m/rad and N·m·s/rad
TABLE_TOP = 0.2                # m: height of the table's top surface
BOX_SIZE, BOX_MASS = 0.1, 0.5  # m, kg
BOX_START = (0.611, -0.108)    # m: the box's centre on the table, on the arc the wrist sweeps
# Joint-space waypoints (rad) and their times (s): home, above the box's left, down to table level, sweep joint 1
# through 55° (the wrist pushes the box along an arc of radius 0.62 m), lift, home.
TIMES = np.array([0.0, 0.6, 1.0, 2.3, 2.7, 3.3])
WAYPOINTS = np.array([[0.0, 0.4, 0.0, -1.4, 0.0, 1.0, 0.0],
                      [-0.56, 0.69, -0.22, -1.38, 0.15, 1.09, 0.0],
                      [-0.58, 0.88, -0.17, -1.43, 0.17, 0.85, 0.0],
                      [0.38, 0.88, -0.17, -1.43, 0.17, 0.85, 0.0],
                      [0.21, 0.65, 0.08, -1.35, -0.05, 1.14, 0.0],
                      [0.0, 0.4, 0.0, -1.4, 0.0, 1.0, 0.0]]).T


class GravityCompensatedPD(LeafSystem):
    """τ = −τ_g(q) + Kp (q_d − q) + Kd (v_d − v) (N·m): a joint-space PD on top of gravity compensation.

    Inputs `state` [q; v] and `desired_state` [q_d; v_d] of the arm; output `torque`. τ_g comes from `plant`,
    a model of the arm alone (the controller knows nothing of the box or the table).
    """

    def __init__(self, plant: MultibodyPlant, kp: float, kd: float):
        super().__init__()
        self._plant, self._plant_context = plant, plant.CreateDefaultContext()
        self._kp, self._kd, n = kp, kd, plant.num_positions()
        self.DeclareVectorInputPort("state", 2 * n)
        self.DeclareVectorInputPort("desired_state", 2 * n)
        self.DeclareVectorOutputPort("torque", n, self.CalcTorque)

    def CalcTorque(self, context, output):
        n = self._plant.num_positions()
        x, x_d = self.get_input_port(0).Eval(context), self.get_input_port(1).Eval(context)
        self._plant.SetPositions(self._plant_context, x[:n])
        tau_g = self._plant.CalcGravityGeneralizedForces(self._plant_context)
        output.SetFromVector(-tau_g + self._kp * (x_d[:n] - x[:n]) + self._kd * (x_d[n:] - x[n:]))


def add_iiwa(plant: MultibodyPlant):
    """Parse the iiwa into `plant` (its meshes through the drake_models package) and weld its base to the world."""
    parser = Parser(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # pydrake pre-registers a download of it: use the local copy
        package_map.Remove("drake_models")
    package_map.AddPackageXml(str(models_dir() / "drake_models" / "package.xml"))
    iiwa = parser.AddModels(str(models_dir() / IIWA))[0]
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base", iiwa))
    return iiwa


def add_table_and_box(plant: MultibodyPlant):
    """A table (world geometry) and a free box on it, both with friction 0.5; returns the box's body.

    Point contact gives one contact point per pair of geometries, so tiny spheres at the box's bottom corners
    give it four supports on the table (as Drake's YCB models do), and with them friction against turning."""
    friction = ProximityProperties()
    friction.AddProperty("material", "coulomb_friction", CoulombFriction(0.5, 0.5))
    X_WT = RigidTransform([0.6, 0.0, TABLE_TOP / 2])
    table = Box(0.5, 1.2, TABLE_TOP)
    plant.RegisterCollisionGeometry(plant.world_body(), X_WT, table, "table", friction)
    plant.RegisterVisualGeometry(plant.world_body(), X_WT, table, "table", [0.55, 0.42, 0.3, 1.0])
    box = plant.AddRigidBody("box", plant.AddModelInstance("box"),
                             SpatialInertia.SolidBoxWithMass(BOX_MASS, BOX_SIZE, BOX_SIZE, BOX_SIZE))
    cube = Box(BOX_SIZE, BOX_SIZE, BOX_SIZE)
    plant.RegisterCollisionGeometry(box, RigidTransform(), cube, "box", friction)
    h = BOX_SIZE / 2
    for i, (x, y) in enumerate([(h, h), (h, -h), (-h, h), (-h, -h)]):
        plant.RegisterCollisionGeometry(box, RigidTransform([x, y, -h]), Sphere(1e-5), f"corner{i}", friction)
    plant.RegisterVisualGeometry(box, RigidTransform(), cube, "box", [0.15, 0.45, 0.9, 1.0])
    return box


def run(duration: float = 3.6, out: str | Path = "quickstart.png", html: str | Path | None = "quickstart.html",
        show_progress: bool = False) -> dict:
    """Build, simulate `duration` s, plot to `out`, record the replay to `html`; returns the summary numbers."""
    built = time.perf_counter()
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, TIME_STEP)
    iiwa = add_iiwa(plant)
    box = add_table_and_box(plant)
    plant.Finalize()

    arm_model = MultibodyPlant(TIME_STEP)  # the controller's model: the arm alone (for its gravity forces)
    add_iiwa(arm_model)
    arm_model.Finalize()
    q_d = PiecewisePolynomial.CubicShapePreserving(TIMES, WAYPOINTS, zero_end_point_derivatives=True)
    reference = builder.AddNamedSystem("reference", TrajectorySource(q_d, output_derivative_order=1))
    controller = builder.AddNamedSystem("controller", GravityCompensatedPD(arm_model, KP, KD))
    builder.Connect(plant.get_state_output_port(iiwa), controller.get_input_port(0))
    builder.Connect(reference.get_output_port(0), controller.get_input_port(1))
    builder.Connect(controller.get_output_port(0), plant.get_actuation_input_port(iiwa))

    logs = {"arm": LogVectorOutput(plant.get_state_output_port(iiwa), builder, 0.01),
            "torque": LogVectorOutput(plant.get_net_actuation_output_port(iiwa), builder, 0.01),
            "box": LogVectorOutput(plant.get_state_output_port(box.model_instance()), builder, 0.01),
            "reference": LogVectorOutput(reference.get_output_port(0), builder, 0.01)}
    meshcat = Meshcat(MeshcatParams(port=0)) if html else None
    visualizer = MeshcatVisualizer.AddToBuilder(builder, scene_graph, meshcat) if html else None
    if meshcat is not None:  # the viewer's camera looks at (0.35, -0.05, 0.4) m from 1.3 m, in front to the right
        meshcat.SetTransform("/Cameras/default", RigidTransform([0.35, -0.05, 0.4]))
        meshcat.SetProperty("/Cameras/default/rotated/<object>", "position", [0.85, 0.45, 0.9])  # three.js axes: y up
    diagram = builder.Build()

    simulator = Simulator(diagram)
    context = simulator.get_mutable_context()
    plant_context = plant.GetMyMutableContextFromRoot(context)
    plant.SetPositions(plant_context, iiwa, WAYPOINTS[:, 0])
    plant.SetFreeBodyPose(plant_context, box, RigidTransform([*BOX_START, TABLE_TOP + BOX_SIZE / 2]))
    if visualizer is not None:
        visualizer.StartRecording()
    started = time.perf_counter()
    simulator.AdvanceTo(duration, show_progress=show_progress)
    simulated = time.perf_counter()
    if visualizer is not None:
        visualizer.StopRecording()
        visualizer.PublishRecording()
        Path(html).write_text(meshcat.StaticHtml(), encoding="utf-8")
        meshcat.Close()

    arm, box_log = logs["arm"].FindLog(context), logs["box"].FindLog(context)
    error = logs["reference"].FindLog(context).data()[:7] - arm.data()[:7]
    p_start, p_end = box_log.data()[4:7, 0], box_log.data()[4:7, -1]
    summary = {"box_start": p_start.tolist(), "box_end": p_end.tolist(),
               "box_moved": float(np.linalg.norm((p_end - p_start)[:2])),
               "max_tracking_error": float(np.max(np.abs(error))),
               "final_tracking_error": float(np.max(np.abs(error[:, -1]))),
               "max_torque": float(np.max(np.abs(logs["torque"].FindLog(context).data()))),
               "steps": simulator.get_num_steps_taken(), "duration": float(duration),
               "build_seconds": started - built, "simulate_seconds": simulated - started}

    # One call plots the loggers in panels named after the logged ports; the reference q_d is added dashed.
    fig = plot_logged_signals([logs["arm"], logs["torque"], logs["box"]], context,
                              panels=["iiwa14 positions q", "iiwa14 efforts (actuation)", "box positions q"],
                              title="iiwa14 sweeps a box across a table (dashed: the reference q_d)")
    reference_log = logs["reference"].FindLog(context)
    for line, row in zip(fig.axes[0].get_lines(), reference_log.data()[:7]):
        fig.axes[0].plot(reference_log.sample_times(), row, color=line.get_color(), ls="--", lw=0.8)
    fig.savefig(out, dpi=90)
    summary.update(plot=str(out), html=str(html) if html else None, output_seconds=time.perf_counter() - simulated)
    return summary


def main() -> None:
    args = parse_args(__doc__, 3.6, "quickstart.png", extra=[
        (("--html",), {"default": "quickstart.html", "help": "HTML file for the replay (default quickstart.html)"})])
    print("building the diagram and simulating (the first run also compiles mallard's numba kernels, once)",
          file=sys.stderr, flush=True)
    s = run(args.duration, args.out, args.html, show_progress=True)
    (x0, y0, _), (x1, y1, _) = s["box_start"], s["box_end"]
    total = s["build_seconds"] + s["simulate_seconds"] + s["output_seconds"]
    lines = [
        f"mallard quick start: an iiwa arm pushes a box, in closed loop ({s['duration']:g} s simulated)",
        f"  model       {IIWA.rsplit('/', 1)[-1]} (Parser), a table, a {BOX_MASS:g} kg box; discrete plant, "
        f"{TIME_STEP * 1e3:g} ms steps",
        f"  controller  gravity-compensated PD in a Python LeafSystem (kp {KP:g}, kd {KD:g}), "
        f"tracking a PiecewisePolynomial",
        f"  result      box pushed {s['box_moved'] * 100:.1f} cm: ({x0:.2f}, {y0:.2f}) -> ({x1:.2f}, {y1:.2f}) m; "
        f"tracking error max {s['max_tracking_error']:.3f} rad,",
        f"              {s['final_tracking_error']:.4f} rad at the end; peak torque {s['max_torque']:.0f} N·m",
        f"  time        simulation {s['simulate_seconds']:.1f} s ({s['steps']} steps, "
        f"{s['duration'] / s['simulate_seconds']:.2f}× real time); build {s['build_seconds']:.1f} s, "
        f"plot and replay {s['output_seconds']:.1f} s; {total:.1f} s after imports",
        f"  plot        {os.path.abspath(s['plot'])}"]
    if s["html"]:
        lines.append(f"  replay      {os.path.abspath(s['html'])}  (open it in a browser)")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
