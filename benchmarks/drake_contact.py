"""Drake contact benchmark: mallard vs pydrake on the same scripts, in one process.

Scenes (1 ms discrete plants with pydrake's defaults unless said): a 2 kg box dropped on a half space for each
discrete approximation (kLagged, the default; kSap; kSimilar; kTamsi), a Hunt–Crossley ball thrown onto a half space;
hydroelastic contact: a compliant box dropped on a rigid half space, a compliant ball (resolution 1 cm) dropped on a
rigid box, two compliant spheres resting on each other ('two spheres'), two rigid fingers squeezing a compliant box
that they hold ('fingers', issue #16's gripper); the quick start's iiwa pushing a box under a Python PD controller
('iiwa push', 3.3 s at 2 ms, kLagged); the hydroelastic box once more on a continuous plant (time_step = 0, the
Simulator's default error-controlled RK3, 0.3 s), and the box drop with point contact on a continuous plant ('box ct').
Each engine simulates the scene from a fresh context (after one warm-up run, so mallard's numba cache loading and
Finalize are not counted); the wall time of Simulator.AdvanceTo is the median over alternating rounds. Prints
per-scene times, the final heights of the scene's moving body (they agree) and the ratio pydrake/mallard (> 1: mallard
faster). The machine may be shared: the numbers are noisy.

With --first, each engine instead runs the kLagged box drop in fresh processes (never this one): the import, then
the first simulation of the process (model building, Finalize, loading compiled code, AdvanceTo) and a second
identical one; first minus second is the one-time loading cost issue #15 bounds (under 0.5 s).

Run: python benchmarks/drake_contact.py [--rounds 3] [--seconds 1.5] [--only NAME] [--first]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def box_scene(lib, approx: str, time_step: float = 0.001):
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, time_step)
    if time_step > 0:
        plant.set_discrete_contact_approximation(getattr(lib.DiscreteContactApproximation, approx))
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.2, 0.2, 0.2), "box",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, box, lib.RigidTransform([0.0, 0.0, 0.3]))
    return diagram, plant, init, box


def ball_scene(lib, approx: str = "kLagged"):
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.001)
    ball = plant.AddRigidBody("ball", lib.SpatialInertia.SolidSphereWithMass(1.0, 0.05))
    for body, shape, name in ((ball, lib.Sphere(0.05), "ball"), (plant.world_body(), lib.HalfSpace(), "ground")):
        props = lib.ProximityProperties()
        lib.AddContactMaterial(0.5, 1e5, lib.CoulombFriction(0.3, 0.3), props)
        plant.RegisterCollisionGeometry(body, lib.RigidTransform(), shape, name, props)
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, ball, lib.RigidTransform([0.0, 0.0, 0.5]))
        plant.SetFreeBodySpatialVelocity(ctx, ball, lib.SpatialVelocity([0.0, 0.0, 0.0], [0.5, 0.0, 0.0]))
    return diagram, plant, init, ball


def hydro_scene(lib, shape: str = "box", time_step: float = 0.001):
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, time_step)
    mass = lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.3, 0.1) if shape == "box" else \
        lib.SpatialInertia.SolidSphereWithMass(0.5, 0.05)
    body = plant.AddRigidBody("body", mass)
    soft, rigid = lib.ProximityProperties(), lib.ProximityProperties()
    for p in (soft, rigid):
        lib.AddContactMaterial(dissipation=1.0, friction=lib.CoulombFriction(0.5, 0.5), properties=p)
    lib.AddCompliantHydroelasticProperties(0.02 if shape == "box" else 0.01, 1e6, soft)
    lib.AddRigidHydroelasticProperties(rigid)
    geometry = lib.Box(0.2, 0.3, 0.1) if shape == "box" else lib.Sphere(0.05)
    plant.RegisterCollisionGeometry(body, lib.RigidTransform(), geometry, "body", soft)
    if shape == "box":
        plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground", rigid)
    else:
        plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0.0, 0.0, -0.1]),
                                        lib.Box(0.5, 0.5, 0.2), "table", rigid)
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, body, lib.RigidTransform(lib.RollPitchYaw(0.02, 0.01, 0.3), [0.0, 0.0, 0.06]))
    return diagram, plant, init, body


def _hydro_props(lib, compliant: bool, modulus: float = 1e5, mu: float = 0.5):
    """Hydroelastic proximity properties (resolution 1 cm, Hunt–Crossley dissipation 1 s/m)."""
    props = lib.ProximityProperties()
    lib.AddContactMaterial(dissipation=1.0, friction=lib.CoulombFriction(mu, mu), properties=props)
    if compliant:
        lib.AddCompliantHydroelasticProperties(0.01, modulus, props)
    else:
        lib.AddRigidHydroelasticProperties(0.01, props)
    return props


def spheres_scene(lib, _=""):
    """A compliant ball (0.5 kg, r 4 cm) dropped onto a fixed compliant sphere (r 5 cm)."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.001)
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.Sphere(0.05), "fixed",
                                    _hydro_props(lib, True, 2e5))
    ball = plant.AddRigidBody("ball", lib.SpatialInertia.SolidSphereWithMass(0.5, 0.04))
    plant.RegisterCollisionGeometry(ball, lib.RigidTransform(), lib.Sphere(0.04), "ball", _hydro_props(lib, True))
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, ball, lib.RigidTransform([0.0, 0.0, 0.091]))
    return diagram, plant, init, ball


def fingers_scene(lib, _=""):
    """Two rigid fingers on prismatic joints squeeze a compliant 5 cm box (0.1 kg) with 10 N each: it is held."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.001)
    joints = []
    for k in range(2):
        finger = plant.AddRigidBody(f"finger{k}", lib.SpatialInertia.SolidBoxWithMass(0.2, 0.02, 0.06, 0.1))
        plant.RegisterCollisionGeometry(finger, lib.RigidTransform(), lib.Box(0.02, 0.06, 0.1), f"finger{k}",
                                        _hydro_props(lib, False, mu=1.0))
        joints.append(plant.AddJoint(lib.PrismaticJoint(f"slide{k}", plant.world_frame(), finger.body_frame(),
                                                        [1.0, 0.0, 0.0])))
        plant.AddJointActuator(f"act{k}", joints[-1])
    obj = plant.AddRigidBody("object", lib.SpatialInertia.SolidBoxWithMass(0.1, 0.05, 0.05, 0.05))
    plant.RegisterCollisionGeometry(obj, lib.RigidTransform(), lib.Box(0.05, 0.05, 0.05), "object",
                                    _hydro_props(lib, True, mu=1.0))
    plant.Finalize()
    builder.ExportInput(plant.get_actuation_input_port(), "u")
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        diagram.get_input_port(0).FixValue(root, [10.0, -10.0])
        for j, side in zip(joints, (-1.0, 1.0)):
            j.set_translation(ctx, side * 0.0345)
    return diagram, plant, init, obj



def _pd_controller(lib):
    """The quick start's gravity-compensated PD written as a Python LeafSystem of `lib` (what a pydrake user writes)."""

    class GravityCompensatedPD(lib.LeafSystem):
        def __init__(self, plant, kp: float, kd: float):
            super().__init__()
            self._plant, self._context = plant, plant.CreateDefaultContext()
            self._kp, self._kd, n = kp, kd, plant.num_positions()
            self.DeclareVectorInputPort("state", 2 * n)
            self.DeclareVectorInputPort("desired_state", 2 * n)
            self.DeclareVectorOutputPort("torque", n, self.CalcTorque)

        def CalcTorque(self, context, output):
            n = self._plant.num_positions()
            x, x_d = self.get_input_port(0).Eval(context), self.get_input_port(1).Eval(context)
            self._plant.SetPositions(self._context, x[:n])
            tau_g = self._plant.CalcGravityGeneralizedForces(self._context)
            output.SetFromVector(-tau_g + self._kp * (x_d[:n] - x[:n]) + self._kd * (x_d[n:] - x[n:]))

    return GravityCompensatedPD


def _quickstart():
    """mallard's quick start module (its scene constants, the shared models' folder). Imported on first use: it
    imports mallard, which --first's fresh pydrake and mallard processes must not have loaded before they time it."""
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    return __import__("quickstart")


def _add_iiwa(lib, plant):
    """The iiwa14 (sphere collision) of the shared models' drake_models, welded to the world."""
    gallery, quickstart = __import__("gallery"), _quickstart()
    parser = lib.Parser(plant)
    if parser.package_map().Contains("drake_models"):  # pydrake pre-registers a download: use the local copy
        parser.package_map().Remove("drake_models")
    parser.package_map().AddPackageXml(str(gallery.models_dir() / "drake_models" / "package.xml"))
    iiwa = parser.AddModels(str(gallery.models_dir() / quickstart.IIWA))[0]
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base", iiwa))
    return iiwa


def iiwa_push_scene(lib, _=""):
    """Issue #16's iiwa pushing a box: the quick start's scene (kLagged at 2 ms, a 0.5 kg box on four corner spheres on
    a table) under a gravity-compensated PD LeafSystem tracking the quick start's joint trajectory."""
    qs = _quickstart()
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, qs.TIME_STEP)
    iiwa = _add_iiwa(lib, plant)
    friction = lib.ProximityProperties()
    friction.AddProperty("material", "coulomb_friction", lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0.6, 0.0, qs.TABLE_TOP / 2]),
                                    lib.Box(0.5, 1.2, qs.TABLE_TOP), "table", friction)
    size, h = qs.BOX_SIZE, qs.BOX_SIZE / 2
    box = plant.AddRigidBody("box", plant.AddModelInstance("box"),
                             lib.SpatialInertia.SolidBoxWithMass(qs.BOX_MASS, size, size, size))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(size, size, size), "box", friction)
    for i, (x, y) in enumerate([(h, h), (h, -h), (-h, h), (-h, -h)]):
        plant.RegisterCollisionGeometry(box, lib.RigidTransform([x, y, -h]), lib.Sphere(1e-5), f"corner{i}", friction)
    plant.Finalize()
    arm = lib.MultibodyPlant(qs.TIME_STEP)
    _add_iiwa(lib, arm)
    arm.Finalize()
    q_d = lib.PiecewisePolynomial.CubicShapePreserving(qs.TIMES, qs.WAYPOINTS, zero_end_point_derivatives=True)
    reference = builder.AddSystem(lib.TrajectorySource(q_d, output_derivative_order=1))
    controller = builder.AddSystem(_pd_controller(lib)(arm, qs.KP, qs.KD))
    builder.Connect(plant.get_state_output_port(iiwa), controller.get_input_port(0))
    builder.Connect(reference.get_output_port(0), controller.get_input_port(1))
    builder.Connect(controller.get_output_port(0), plant.get_actuation_input_port(iiwa))
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetPositions(ctx, iiwa, qs.WAYPOINTS[:, 0])
        plant.SetFreeBodyPose(ctx, box, lib.RigidTransform([qs.BOX_START[0], qs.BOX_START[1], qs.TABLE_TOP + h]))
    return diagram, plant, init, box

SCENES = {"box kLagged": (box_scene, "kLagged"), "box kSap": (box_scene, "kSap"),
          "box kSimilar": (box_scene, "kSimilar"), "box kTamsi": (box_scene, "kTamsi"),
          "ball kLagged": (ball_scene, "kLagged"), "hydro box": (hydro_scene, "box"),
          "hydro ball": (hydro_scene, "ball"), "two spheres": (spheres_scene, ""), "fingers": (fingers_scene, ""),
          "iiwa push": (iiwa_push_scene, ""),
          "hydro box ct": (lambda lib, shape: hydro_scene(lib, shape, 0.0), "box"),
          "box ct": (lambda lib, approx: box_scene(lib, approx, 0.0), "")}
DURATION = {"hydro box ct": 0.3, "iiwa push": 3.3}  # s, else --seconds


def run(lib, scene, approx, seconds):
    diagram, plant, init, body = scene(lib, approx)
    root = diagram.CreateDefaultContext()
    init(root)
    sim = lib.Simulator(diagram, root)
    t0 = time.perf_counter()
    sim.AdvanceTo(seconds)
    ctx = plant.GetMyContextFromRoot(root)
    return time.perf_counter() - t0, float(plant.EvalBodyPoseInWorld(ctx, body).translation()[2])


def first_simulation(engine: str, seconds: float) -> dict:
    """In this (fresh) process: seconds to import `engine`.all, to build and run the first box drop, and a second."""
    t0 = time.perf_counter()
    lib = __import__(f"{engine}.all", fromlist=["all"])
    out = {"import": time.perf_counter() - t0}
    for key in ("first", "second"):
        t0 = time.perf_counter()
        run(lib, box_scene, "kLagged", seconds)
        out[key] = time.perf_counter() - t0
    return out


def main_first(rounds: int, seconds: float) -> None:
    """The --first table: medians over `rounds` fresh processes per engine."""
    print(f"box drop (kLagged, {seconds:g} s) in fresh processes, median of {rounds}; load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'engine':<8} {'import [s]':>11} {'first sim [s]':>14} {'second [s]':>11} {'loading [s]':>12}")
    for engine in ("pydrake", "mallard"):
        rows = [json.loads(subprocess.run([sys.executable, __file__, "--_child", engine, "--seconds", str(seconds)],
                                          check=True, capture_output=True, text=True).stdout.splitlines()[-1])
                for _ in range(rounds)]
        med = {k: float(np.median([r[k] for r in rows])) for k in rows[0]}
        print(f"{engine:<8} {med['import']:11.3f} {med['first']:14.3f} {med['second']:11.3f} "
              f"{med['first'] - med['second']:12.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--first", action="store_true", help="the first simulation in fresh processes")
    ap.add_argument("--only", default="", help="run only the scenes whose name contains this text")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:
        print(json.dumps(first_simulation(args._child, args.seconds)))
        return
    if args.first:
        main_first(args.rounds, args.seconds)
        return
    import mallard.all as ma
    import pydrake.all as pd
    print(f"{'scene':<14} {'pydrake [s]':>12} {'mallard [s]':>12} {'z pydrake':>10} {'z mallard':>10} {'ratio':>7}")
    for name, (scene, approx) in SCENES.items():
        if args.only not in name:
            continue
        run(ma, scene, approx, 0.01)  # warm-up (numba cache loading)
        td, tm = [], []
        seconds = DURATION.get(name, args.seconds)
        for _ in range(args.rounds):
            t, zd = run(pd, scene, approx, seconds)
            td.append(t)
            t, zm = run(ma, scene, approx, seconds)
            tm.append(t)
        d, m = float(np.median(td)), float(np.median(tm))
        print(f"{name:<14} {d:12.4f} {m:12.4f} {zd:10.6f} {zm:10.6f} {d / m:7.2f}")


if __name__ == "__main__":
    main()
