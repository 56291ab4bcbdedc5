"""Build the same multibody models in mallard and in pydrake (the oracle), from one description.

Each model is a list of bodies and joints; `build(engine, spec, time_step)` applies it through the
engine's public builder API, so both plants have identical topology, inertias and joint frames.
"""
from __future__ import annotations

import types

import numpy as np


def engine_mallard():
    from mallard.multibody import math as mm
    from mallard.multibody import plant as mp
    from mallard.multibody import tree as mt
    return types.SimpleNamespace(name="mallard", MultibodyPlant=mp.MultibodyPlant, RigidTransform=mm.RigidTransform,
                                 RollPitchYaw=mm.RollPitchYaw, SpatialInertia=mt.SpatialInertia,
                                 RotationalInertia=mt.RotationalInertia, tree=mt, plant=mp, math=mm)


def engine_drake():
    import pydrake.math as dm
    import pydrake.multibody.math as dmm
    import pydrake.multibody.plant as dp
    import pydrake.multibody.tree as dt
    return types.SimpleNamespace(name="drake", MultibodyPlant=dp.MultibodyPlant, RigidTransform=dm.RigidTransform,
                                 RollPitchYaw=dm.RollPitchYaw, SpatialInertia=dt.SpatialInertia,
                                 RotationalInertia=dt.RotationalInertia, tree=dt, plant=dp, math=dmm)


def _X(E, rpy_xyz):
    if rpy_xyz is None:
        return None
    rpy, xyz = rpy_xyz
    return E.RigidTransform(E.RollPitchYaw(np.array(rpy, float)), np.array(xyz, float))


def _inertia(E, mass, com, diag, off=(0.0, 0.0, 0.0)):
    I = E.RotationalInertia(diag[0], diag[1], diag[2], off[0], off[1], off[2])
    return E.SpatialInertia.MakeFromCentralInertia(mass, np.array(com, float), I)


def build(E, spec: dict, time_step: float = 0.0, finalize: bool = True):
    """Build `spec` in engine E; returns (plant, dict of bodies, dict of joints)."""
    plant = E.MultibodyPlant(time_step)
    bodies = {"world": plant.world_body()}
    for name, mass, com, diag, off in spec["bodies"]:
        bodies[name] = plant.AddRigidBody(name, _inertia(E, mass, com, diag, off))
    joints = {}
    for jtype, name, parent, X_PF, child, X_BM, args, kwargs in spec["joints"]:
        P, C = bodies[parent], bodies[child]
        F = P.body_frame() if X_PF is None else plant.AddFrame(
            E.tree.FixedOffsetFrame(f"{name}_parent", P.body_frame(), _X(E, X_PF)))
        M = C.body_frame() if X_BM is None else plant.AddFrame(
            E.tree.FixedOffsetFrame(f"{name}_child", C.body_frame(), _X(E, X_BM)))
        if jtype == "WeldJoint":
            joints[name] = plant.AddJoint(E.tree.WeldJoint(name, F, M, _X(E, args[0])))
        else:
            joints[name] = plant.AddJoint(getattr(E.tree, jtype)(name, F, M, *args, **kwargs))
    for name, joint, rotor, gear in spec.get("actuators", []):
        a = plant.AddJointActuator(name, joints[joint])
        if rotor:
            a.set_default_rotor_inertia(rotor)
            a.set_default_gear_ratio(gear)
    if finalize:
        plant.Finalize()
    return plant, bodies, joints


def _body(name, mass, com, diag, off=(0.0, 0.0, 0.0)):
    return (name, mass, com, diag, off)


def double_pendulum() -> dict:
    return {
        "bodies": [_body("upper", 1.3, (0, 0, -0.5), (0.11, 0.12, 0.013)),
                   _body("lower", 0.7, (0, 0, -0.4), (0.05, 0.055, 0.01))],
        "joints": [("RevoluteJoint", "shoulder", "world", None, "upper", None, ([0, 1, 0],), {}),
                   ("RevoluteJoint", "elbow", "upper", ((0, 0, 0), (0, 0, -1.0)), "lower", None, ([0, 1, 0],), {})],
        "actuators": [("shoulder_act", "shoulder", 0, 0), ("elbow_act", "elbow", 0, 0)],
    }


def triple_pendulum() -> dict:
    s = double_pendulum()
    s["bodies"].append(_body("third", 0.4, (0.02, 0, -0.3), (0.02, 0.022, 0.004)))
    s["joints"].append(("RevoluteJoint", "wrist", "lower", ((0, 0, 0), (0, 0, -0.8)), "third", None,
                        ([0.3, 1, 0.1],), {}))
    s["actuators"] = []
    return s


def serial_arm() -> dict:
    """7 links, offsets on both joint sides, mixed revolute/prismatic axes, rotor inertia on two joints."""
    rng = np.random.default_rng(7)
    bodies, joints = [], []
    parent = "world"
    kinds = ["RevoluteJoint", "RevoluteJoint", "PrismaticJoint", "RevoluteJoint", "PrismaticJoint",
             "RevoluteJoint", "RevoluteJoint"]
    for i, kind in enumerate(kinds):
        name = f"link{i}"
        bodies.append(_body(name, 0.5 + rng.random(), tuple(0.1 * rng.standard_normal(3)),
                            tuple(0.03 + 0.02 * rng.random(3)), tuple(0.002 * rng.standard_normal(3))))
        axis = rng.standard_normal(3)
        X_PF = (tuple(0.5 * rng.standard_normal(3)), tuple(0.3 * rng.standard_normal(3)))
        X_BM = (tuple(0.3 * rng.standard_normal(3)), tuple(0.1 * rng.standard_normal(3)))
        kwargs = {"damping": 0.1 * i} if kind == "RevoluteJoint" else {}
        joints.append((kind, f"j{i}", parent, X_PF, name, X_BM, (axis / np.linalg.norm(axis),), kwargs))
        parent = name
    return {"bodies": bodies, "joints": joints,
            "actuators": [(f"a{i}", f"j{i}", 0.01 * (i % 3 == 0), 3.0) for i in range(7)]}


def free_body() -> dict:
    return {"bodies": [_body("tumbler", 2.0, (0.01, -0.02, 0.03), (0.15, 0.2, 0.3), (0.01, -0.02, 0.005))],
            "joints": []}


def branched_tree() -> dict:
    """World → base (planar) → two branches: ball (rpy) then universal, and universal then screw/weld."""
    b = [_body("base", 3.0, (0, 0, 0.1), (0.2, 0.3, 0.4)),
         _body("armA1", 1.0, (0.1, 0, 0), (0.02, 0.05, 0.05), (0.001, 0, 0)),
         _body("armA2", 0.8, (0.1, 0.02, 0), (0.02, 0.04, 0.04)),
         _body("armB1", 1.2, (0, 0.1, 0), (0.05, 0.02, 0.05)),
         _body("armB2", 0.6, (0, 0.1, 0.01), (0.03, 0.01, 0.03)),
         _body("tool", 0.3, (0.0, 0.0, 0.05), (0.005, 0.005, 0.002)),
         _body("floater", 0.9, (0.0, 0.01, 0.0), (0.03, 0.02, 0.04))]
    j = [("PlanarJoint", "base_planar", "world", ((0.1, 0.0, 0.2), (0, 0, 0.5)), "base", None, (),
          {"damping": [0.0, 0.0, 0.0]}),
         ("BallRpyJoint", "ballA", "base", ((0.0, 0.2, 0.0), (0.2, 0.0, 0.1)), "armA1", ((0.1, 0, 0), (-0.05, 0, 0)),
          (), {}),
         ("UniversalJoint", "uniA", "armA1", ((0, 0, 0.3), (0.3, 0.0, 0.0)), "armA2", None, (), {}),
         ("UniversalJoint", "uniB", "base", ((0.2, 0.1, 0.0), (-0.2, 0.1, 0.0)), "armB1", None, (), {}),
         ("ScrewJoint", "screwB", "armB1", ((0, 0, 0), (0, 0.3, 0)),
          "armB2", None, ([0.0, 1.0, 0.0], 0.05, 0.0), {}),
         ("WeldJoint", "tool_weld", "armB2", ((0, 0, 0), (0, 0.2, 0)), "tool", None, (((0.1, 0.2, 0.3), (0, 0, 0.05)),),
          {}),
         ("RpyFloatingJoint", "float_rpy", "armA2", ((0, 0, 0), (0.3, 0, 0)), "floater", None, (), {})]
    return {"bodies": b, "joints": j}


MODELS = {"double_pendulum": double_pendulum, "serial_arm": serial_arm, "free_body": free_body,
          "branched_tree": branched_tree}


def random_state(plant_drake, context_drake, rng) -> tuple[np.ndarray, np.ndarray]:
    """A random [q, v] valid for the drake plant (unit quaternions for free bodies)."""
    nq, nv = plant_drake.num_positions(), plant_drake.num_velocities()
    q = rng.uniform(-1.0, 1.0, nq)
    names = plant_drake.GetPositionNames(False)
    for i, n in enumerate(names):
        if n.endswith("_qw"):
            quat = rng.standard_normal(4)
            q[i:i + 4] = quat / np.linalg.norm(quat)
    return q, rng.uniform(-2.0, 2.0, nv)
