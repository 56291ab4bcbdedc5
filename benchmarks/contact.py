"""Contact simulation benchmark: mallard's discrete plant vs. MuJoCo and pydrake, steps per second.

Two scenes, each described once and built in all three engines, stepped at 2 ms for 2 s:
* pile: 27 free bodies (spheres and boxes) falling into a walled bin;
* figure: a humanoid-like capsule figure (free torso + 21 hinges = 27 DOF) falling on a plane,
  colliding with the floor only.
mallard and MuJoCo use MuJoCo's contact parameters (Newton, pyramidal cones); pydrake uses its
default point-contact materials with the SAP solver. Each engine's wall time covers its own full
step loop (mallard: Simulator.AdvanceTo on the diagram). Ratios are printed (> 1: mallard faster).

Run: python benchmarks/contact.py [--seconds 2.0]
"""
from __future__ import annotations

import argparse
import os
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # threaded BLAS stalls on small matrices (set before numpy loads)

import numpy as np  # noqa: E402

H = 0.002


# ---- scene descriptions -------------------------------------------------------------------------------
def pile_scene(n: int = 27) -> dict:
    rng = np.random.default_rng(0)
    bodies = []
    for i in range(n):
        x, y = rng.uniform(-0.15, 0.15, 2)
        z = 0.15 + 0.12 * i
        if i % 2:
            bodies.append(dict(kind="box", size=[rng.uniform(.03, .05), rng.uniform(.03, .05), .04], pos=[x, y, z]))
        else:
            bodies.append(dict(kind="sphere", size=[rng.uniform(.03, .05)], pos=[x, y, z]))
    walls = [dict(size=[sx, sy, .2], pos=[px, py, .2]) for sx, sy, px, py in
             ((.02, .3, .3, 0), (.02, .3, -.3, 0), (.3, .02, 0, .3), (.3, .02, 0, -.3))]
    return dict(bodies=bodies, walls=walls)


def figure_scene() -> dict:
    """Links: (name, parent, hinge axis, offset of the joint in the parent, capsule half-length, direction)."""
    links = []

    def chain(prefix, parent, start, axes, direction, half):
        p, off = parent, start
        for k, ax in enumerate(axes):
            name = f"{prefix}{k}"
            links.append(dict(name=name, parent=p, axis=ax, pos=off, half=half, dir=direction))
            p, off = name, list(2 * half * np.asarray(direction)) if k < len(axes) - 1 else None
            off = off if off is not None else [0, 0, 0]
    chain("waist", "torso", [0, 0, -0.2], ["z", "y", "x"], [0, 0, -1], 0.05)
    chain("neck", "torso", [0, 0, 0.2], ["y", "x"], [0, 0, 1], 0.06)
    for side, s in (("l", 1), ("r", -1)):
        chain(f"{side}arm", "torso", [0, 0.2 * s, 0.15], ["x", "y", "y"], [0, 0, -1], 0.12)
        chain(f"{side}leg", "waist2", [0, 0.1 * s, -0.05], ["x", "y", "z", "y", "y"], [0, 0, -1], 0.1)
    return dict(links=links, torso_pos=[0.0, 0.0, 1.1], torso_half=0.2, torso_quat=_quat_xyz(0.4, 0.3, 0.0))


def _quat_xyz(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """[w, x, y, z] of the body-fixed roll-pitch-yaw rotation Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = (np.cos(roll / 2), np.sin(roll / 2), np.cos(pitch / 2), np.sin(pitch / 2),
                              np.cos(yaw / 2), np.sin(yaw / 2))
    return np.array([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                     cr * cp * sy - sr * sp * cy])


AXES = {"x": [1, 0, 0], "y": [0, 1, 0], "z": [0, 0, 1]}


# ---- MuJoCo -----------------------------------------------------------------------------------------
def _f(v):
    return " ".join(f"{x:.6g}" for x in np.ravel(v))


def mujoco_xml(name: str, scene: dict) -> str:
    opt = f'<compiler angle="radian"/><option timestep="{H}" cone="pyramidal" solver="Newton"/>'
    floor = '<geom name="floor" type="plane" size="3 3 .1"/>'
    if name == "pile":
        walls = "".join(f'<geom type="box" size="{_f(w["size"])}" pos="{_f(w["pos"])}"/>' for w in scene["walls"])
        bodies = "".join(f'<body pos="{_f(b["pos"])}"><freejoint/><geom type="{b["kind"]}" size="{_f(b["size"])}"/>'
                         f'</body>' for b in scene["bodies"])
        return f"<mujoco>{opt}<worldbody>{floor}{walls}{bodies}</worldbody></mujoco>"
    kids = {}
    for link in scene["links"]:
        kids.setdefault(link["parent"], []).append(link)

    def body(link):
        d = np.asarray(link["dir"]) * 2 * link["half"]
        inner = "".join(body(k) for k in kids.get(link["name"], []))
        return (f'<body name="{link["name"]}" pos="{_f(link["pos"])}">'
                f'<joint type="hinge" axis="{_f(AXES[link["axis"]])}" '
                f'range="-1 1" limited="true"/><geom type="capsule" fromto="0 0 0 {_f(d)}" size=".04" contype="2" '
                f'conaffinity="1"/>{inner}</body>')
    t = scene["torso_half"]
    torso = (f'<body name="torso" pos="{_f(scene["torso_pos"])}" quat="{_f(scene["torso_quat"])}"><freejoint/>'
             f'<geom type="capsule" '
             f'fromto="0 0 {-t} 0 0 {t}" size=".08" contype="2" conaffinity="1"/>'
             + "".join(body(k) for k in kids["torso"]) + "</body>")
    floor = '<geom name="floor" type="plane" size="3 3 .1" contype="1" conaffinity="2"/>'
    return f"<mujoco>{opt}<worldbody>{floor}{torso}</worldbody></mujoco>"


def run_mujoco(name, scene, seconds):
    import mujoco
    m = mujoco.MjModel.from_xml_string(mujoco_xml(name, scene))
    d = mujoco.MjData(m)
    n = int(round(seconds / H))
    t0 = time.perf_counter()
    for _ in range(n):
        mujoco.mj_step(m, d)
    return n / (time.perf_counter() - t0), m.nv


# ---- mallard / pydrake (same builder over the two APIs) ---------------------------------------------------
def build(lib, name, scene, mujoco_params: bool):
    """lib: a namespace with the pydrake-named classes (pydrake.all or the mallard modules)."""
    builder = lib.DiagramBuilder()
    plant, sg = lib.AddMultibodyPlantSceneGraph(builder, H)
    if hasattr(plant, "set_contact_model") and not mujoco_params:
        plant.set_contact_model(lib.ContactModel.kPoint)
        plant.set_discrete_contact_approximation(lib.DiscreteContactApproximation.kSap)

    def props(contype=1, conaffinity=1):
        p = lib.ProximityProperties()
        p.AddProperty("material", "coulomb_friction", lib.CoulombFriction(1.0, 1.0))
        if mujoco_params:
            lib.AddMujocoContactParameters(p, condim=3, contype=contype, conaffinity=conaffinity)
        return p
    I = lib.RigidTransform()
    figure_ids = []
    if name == "pile":
        plant.RegisterCollisionGeometry(plant.world_body(), I, lib.HalfSpace(), "floor", props())
        for k, w in enumerate(scene["walls"]):
            plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(w["pos"]),
                                            lib.Box(*(2 * np.asarray(w["size"]))), f"wall{k}", props())
        for k, b in enumerate(scene["bodies"]):
            if b["kind"] == "box":
                sz = 2 * np.asarray(b["size"])
                M = lib.SpatialInertia.SolidBoxWithDensity(1000.0, *sz)
                shape = lib.Box(*sz)
            else:
                M = lib.SpatialInertia.SolidSphereWithDensity(1000.0, b["size"][0])
                shape = lib.Sphere(b["size"][0])
            body = plant.AddRigidBody(f"b{k}", M)
            plant.RegisterCollisionGeometry(body, I, shape, f"g{k}", props())
            plant.SetDefaultFloatingBaseBodyPose(body, lib.RigidTransform(b["pos"]))
    else:
        plant.RegisterCollisionGeometry(plant.world_body(), I, lib.HalfSpace(), "floor", props(1, 2))
        t = scene["torso_half"]
        torso = plant.AddRigidBody("torso", lib.SpatialInertia.SolidCapsuleWithDensity(1000.0, 0.08, 2 * t, [0, 0, 1]))
        figure_ids.append(plant.RegisterCollisionGeometry(torso, I, lib.Capsule(0.08, 2 * t), "torso", props(2, 1)))
        plant.SetDefaultFloatingBaseBodyPose(torso, lib.RigidTransform(lib.RotationMatrix(lib.Quaternion(scene["torso_quat"])),
                                                               scene["torso_pos"]))
        bodies = {"torso": torso}
        for link in scene["links"]:
            half = link["half"]
            d = np.asarray(link["dir"], float)
            M = lib.SpatialInertia.SolidCapsuleWithDensity(1000.0, 0.04, 2 * half, d)
            M = M.Shift(-d * half)  # about the joint (body origin), center at half the length
            body = plant.AddRigidBody(link["name"], M)
            bodies[link["name"]] = body
            X_BG = lib.RigidTransform(d * half)  # capsule axis is z, the links point along -z or +z
            figure_ids.append(plant.RegisterCollisionGeometry(body, X_BG, lib.Capsule(0.04, 2 * half), link["name"],
                                                              props(2, 1)))
            F = plant.AddFrame(lib.FixedOffsetFrame(link["name"] + "_F", bodies[link["parent"]].body_frame(),
                                                    lib.RigidTransform(link["pos"])))
            plant.AddJoint(lib.RevoluteJoint(link["name"], F, body.body_frame(), AXES[link["axis"]], -1.0, 1.0))
        if not mujoco_params:
            sg.collision_filter_manager().Apply(
                lib.CollisionFilterDeclaration().ExcludeWithin(lib.GeometrySet(figure_ids)))
    plant.Finalize()
    diagram = builder.Build()
    return diagram, plant


def run_engine(lib, name, scene, seconds, mujoco_params):
    diagram, plant = build(lib, name, scene, mujoco_params)
    # warm-up on a throwaway context through the first contacts, so one-time work (mallard: loading the
    # compiled contact kernels from numba's cache at the first contact) stays outside the timing, as for
    # MuJoCo and pydrake whose code is compiled ahead of time
    lib.Simulator(diagram, diagram.CreateDefaultContext()).AdvanceTo(min(seconds, 0.6))
    context = diagram.CreateDefaultContext()
    sim = lib.Simulator(diagram, context)
    sim.AdvanceTo(H)  # first step outside the timing (allocation)
    t0 = time.perf_counter()
    sim.AdvanceTo(seconds)
    return (int(round(seconds / H)) - 1) / (time.perf_counter() - t0), plant.num_velocities()


def mallard_lib():
    import types

    import mallard.geometry as g
    import mallard.multibody.math as mm
    import mallard.multibody.plant as mp
    import mallard.multibody.tree as mt
    import mallard.systems.analysis as sa
    import mallard.systems.framework as sf
    lib = types.SimpleNamespace()
    for mod in (g, mm, mp, mt, sa, sf):
        for k in dir(mod):
            if not k.startswith("_"):
                setattr(lib, k, getattr(mod, k))
    return lib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    scenes = {"pile": pile_scene(), "figure": figure_scene()}
    lib = mallard_lib()
    try:
        import pydrake.all as pd
    except ImportError:
        pd = None
    print(f"{'scene':8s} {'nv':>4s} {'mallard':>10s} {'MuJoCo':>10s} {'pydrake':>10s}"
          "   mallard/MuJoCo  mallard/pydrake")
    for name, scene in scenes.items():
        sps_m, nv = run_engine(lib, name, scene, args.seconds, mujoco_params=True)
        sps_mj, _ = run_mujoco(name, scene, args.seconds)
        sps_d = run_engine(pd, name, scene, args.seconds, mujoco_params=False)[0] if pd is not None else float("nan")
        print(f"{name:8s} {nv:4d} {sps_m:10.1f} {sps_mj:10.1f} {sps_d:10.1f}   {sps_m / sps_mj:14.4f}  "
              f"{sps_m / sps_d:15.3f}   (steps/s)")


if __name__ == "__main__":
    main()
