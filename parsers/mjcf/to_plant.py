"""MjcfModel → MultibodyPlant: the builder calls that make a plant simulate an MJCF model as MuJoCo does.

Mapping (pydrake's MJCF parser conventions where they exist, MuJoCo's semantics everywhere):

* one model instance named after the model (`<mujoco model=...>`);
* each MuJoCo body becomes a RigidBody with its mass properties at the inertial frame (ipos/iquat);
  a body with no joint is welded to its parent at its MJCF pose;
* hinge → RevoluteJoint, slide → PrismaticJoint, ball → BallQuaternionJoint, free → QuaternionFloatingJoint.
  A joint's parent frame is placed so that the plant's q equals MuJoCo's qpos (the `ref` offset is built
  into the frame: the body is at its MJCF pose when q = ref). A body with k > 1 joints gets k − 1 massless
  intermediate bodies named `<body>0`, `<body>1`, ... as Drake's MJCF parser names them (MuJoCo applies a
  body's joints in order, each about the body frame moved by the previous ones, which these bodies
  reproduce exactly); unnamed elements get Drake's default names (`body<i>`, `<parent>-<child>`, `geom<i>`);
* damping, armature, range (limited hinge/slide) → position limits, stiffness/springref →
  RevoluteSpring / PrismaticSpring (ball / free joints: MjcfBallFreeSprings); limit/friction solver
  parameters → mujoco_parameters; option density / viscosity / wind → FluidForces (fluid.py);
* named sites become FixedOffsetFrames; geoms are registered (when the plant is a SceneGraph source) as
  collision geometry with their MuJoCo contact parameters ("mujoco" ProximityProperties group) and as
  visual geometry with their rgba;
* option gravity is applied; the plant's time_step cannot change, so a different MJCF timestep is a warning;
  solver options and equality constraints go to the plant's constraint API (to_plant_constraints.py).

State conventions differ for ball and free joints; see `mallard.multibody.mjcf.state`.
"""
from __future__ import annotations

import os
import re
import warnings

import numpy as np

from .errors import MjcfUnsupportedWarning
from .model import MjcfModel
from .rotations import quat_to_mat

__all__ = ["AddMjcfModelToPlant", "AddMjcfToPlant", "MjcfPlantMap"]


def _X(R: np.ndarray, p: np.ndarray):
    from mallard.multibody.math import RigidTransform, RotationMatrix
    return RigidTransform(RotationMatrix(np.asarray(R, float)), np.asarray(p, float))


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """R(axis, angle) by Rodrigues' formula (axis is a unit vector)."""
    k = np.asarray(axis, float)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


def _where(el) -> str:
    return f"{el.where}: " if getattr(el, "where", None) is not None else "MJCF: "


class MjcfPlantMap:
    """Where each MJCF element went in the plant: body/joint/site/geom ids → plant elements.

    Kept on the plant (plant._mjcf_maps) for actuators, sensors, keyframes and state conversion.
    """

    def __init__(self, model: MjcfModel, instance):
        self.model = model
        self.instance = instance
        self.bodies: list = []  #: MuJoCo body id → RigidBody (the last body of a multi-joint chain)
        self.joints: list = []  #: MuJoCo joint id → Joint
        self.sites: list = []  #: MuJoCo site id → Frame
        self.geoms: list = []  #: MuJoCo geom id → (collision GeometryId or None, visual GeometryId or None)
        self.constraints: list = []  #: MuJoCo equality id → ConstraintIndex (None when not mapped)
        self.mocap: list = []  #: MuJoCo mocap id → the RigidBody welded to the world (its pose an input, multibody/mjcf/mocap.py)


def _unique(name: str, taken: set) -> str:
    out = name
    while out in taken:
        out = "_" + out
    taken.add(out)
    return out


def _inertia(body, label: str):
    from mallard.multibody.tree import RotationalInertia, SpatialInertia
    R = quat_to_mat(np.asarray(body.iquat, float))
    I = R @ np.diag(np.asarray(body.inertia, float)) @ R.T
    I = 0.5 * (I + I.T)
    try:
        return SpatialInertia.MakeFromCentralInertia(
            float(body.mass), np.asarray(body.ipos, float),
            RotationalInertia(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]))
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"{_where(body)}body '{label}': {exc}") from None


def AddMjcfModelToPlant(plant, model: MjcfModel, instance_name: str, scene_graph_ok: bool) -> MjcfPlantMap:
    """Add `model` to `plant` (not finalized) as model instance `instance_name`; returns the element map.

    Raises ValueError naming the file, line and element when the plant rejects an element.
    """
    from mallard.multibody.tree import FixedOffsetFrame, SpatialInertia
    instance = plant.AddModelInstance(instance_name)
    pm = MjcfPlantMap(model, instance)
    body_names: set = set()
    joint_names: set = set()
    frame_names: set = set()
    pm.bodies.append(plant.world_body())
    pm.joints = [None] * model.njnt
    for b, body in enumerate(model.bodies[1:], start=1):
        label = body.name or f"body{b}"
        name = _unique(label, body_names)
        parent = pm.bodies[body.parent]
        X_PB0 = (quat_to_mat(np.asarray(body.quat, float)), np.asarray(body.pos, float))
        joints = list(range(body.jntadr, body.jntadr + body.jntnum)) if body.jntnum > 0 else []
        links = []  # intermediate massless bodies first
        for i in range(len(joints) - 1):  # Drake's MJCF parser names them <body>0, <body>1, ...
            links.append(plant.AddRigidBody(_unique(f"{name}{i}", body_names), instance, SpatialInertia.Zero()))
        M_BBo_B = _inertia(body, label)
        try:
            rb = plant.AddRigidBody(name, instance, M_BBo_B)
        except ValueError as exc:
            raise ValueError(f"{_where(body)}body '{label}': {exc}") from None
        links.append(rb)
        pm.bodies.append(rb)
        if not joints:
            plant.WeldFrames(parent.body_frame(), rb.body_frame(), _X(*X_PB0))
            if body.mocap:  # the weld's pose follows the plant's mocap_pose input (multibody/mjcf/mocap.py)
                pm.mocap.append(rb)
            continue
        prev = parent
        for i, k in enumerate(joints):
            jr = model.joints[k]
            child = links[i]
            X_P = X_PB0 if i == 0 else (np.eye(3), np.zeros(3))
            pm.joints[k] = _AddJoint(plant, model, jr, k, prev, child, X_P, instance, joint_names, frame_names,
                                     body_names)
            prev = child
    for s, site in enumerate(model.sites):
        body = pm.bodies[site.body]
        if not site.name:
            pm.sites.append(None)
            continue
        X_BS = _X(quat_to_mat(np.asarray(site.quat, float)), site.pos)
        name = site.name if site.name not in body_names else f"{site.name}_site"
        frame = plant.AddFrame(FixedOffsetFrame(_unique(name, frame_names | body_names), body.body_frame(), X_BS,
                                                model_instance=instance))
        frame_names.add(frame.name())
        pm.sites.append(frame)
    _ApplyOptions(plant, model)
    _AddPassiveForces(plant, model, pm)  # ball / free joint springs, explicit joint dampers
    from .fluid import AddMjcfFluidForces
    AddMjcfFluidForces(plant, model, pm)
    _WarnUnsimulated(plant, model)
    from .to_plant_constraints import AddMjcfEqualities, ApplyMjcfSolverOptions
    ApplyMjcfSolverOptions(plant, model)
    AddMjcfEqualities(plant, model, pm)
    if scene_graph_ok:
        from .to_plant_geometry import RegisterMjcfGeometries
        RegisterMjcfGeometries(plant, model, pm)
    return pm


def _AddJoint(plant, model, jr, k, parent, child, X_P, instance, joint_names, frame_names, body_names):
    """One MJCF joint between `parent` and `child`; `X_P` = child's pose in parent at zero joint motion."""
    from mallard.multibody.contact.mujoco_parameters import SetJointMujocoParameters
    from mallard.multibody.tree import (BallQuaternionJoint, FixedOffsetFrame, PrismaticJoint, PrismaticSpring,
                                        QuaternionFloatingJoint, RevoluteJoint, RevoluteSpring)
    name = _unique(jr.name or f"{parent.name()}-{child.name()}", joint_names)  # Drake's default joint name
    R0, p0 = X_P
    anchor = np.asarray(jr.pos, float)
    axis = np.asarray(jr.axis, float)
    try:
        if jr.type == "free":
            if int(parent.index()) != 0:
                raise ValueError("a free joint must belong to a top-level body (child of the world)")
            joint = plant.AddJoint(QuaternionFloatingJoint(name, plant.world_frame(), child.body_frame()))
            q0 = np.asarray(jr.qpos0, float)
            joint.set_default_positions(np.concatenate([q0[3:7], q0[:3]]))
        else:
            # F on the parent: the anchor at the zero-motion pose, minus the `ref` offset (so q = qpos).
            R_PF, p_PF = R0, p0 + R0 @ anchor
            if jr.type == "hinge":
                R_PF = R0 @ _axis_rotation(axis, -float(jr.ref))
            elif jr.type == "slide":
                p_PF = p_PF - float(jr.ref) * (R0 @ axis)
            taken = frame_names | body_names
            F = plant.AddFrame(FixedOffsetFrame(_unique(f"{name}_parent", taken), parent.body_frame(),
                                                _X(R_PF, p_PF), model_instance=instance))
            M = plant.AddFrame(FixedOffsetFrame(_unique(f"{name}_child", taken), child.body_frame(),
                                                _X(np.eye(3), anchor), model_instance=instance))
            frame_names.update((F.name(), M.name()))
            if jr.type == "hinge":
                joint = plant.AddJoint(RevoluteJoint(name, F, M, axis, damping=float(jr.damping)))
            elif jr.type == "slide":
                joint = plant.AddJoint(PrismaticJoint(name, F, M, axis, damping=float(jr.damping)))
            elif jr.type == "ball":
                joint = plant.AddJoint(BallQuaternionJoint(name, F, M, damping=float(jr.damping)))
            else:
                raise ValueError(f"joint type '{jr.type}' is not supported")
            joint.set_default_positions(np.asarray(jr.qpos0, float))
        nv = joint.num_velocities()
        if jr.type == "free" and jr.damping:
            joint.set_default_damping_vector(np.full(nv, float(jr.damping)))
        if jr.armature:
            joint.set_default_armature(np.full(nv, float(jr.armature)))
        if jr.limited and jr.type in ("hinge", "slide"):
            joint.set_position_limits(np.array([jr.range[0]]), np.array([jr.range[1]]))
        SetJointMujocoParameters(plant, joint, solreflimit=jr.solref_limit, solimplimit=jr.solimp_limit,
                                 margin=max(float(jr.margin), 0.0), frictionloss=float(jr.frictionloss),
                                 solreffriction=jr.solref_friction, solimpfriction=jr.solimp_friction)
    except (ValueError, RuntimeError, TypeError) as exc:
        raise ValueError(f"{_where(jr)}joint '{name}': {exc}") from None
    if jr.stiffness:
        if jr.type == "hinge":
            plant.AddForceElement(RevoluteSpring(joint, float(jr.springref), float(jr.stiffness)))
        elif jr.type == "slide":
            plant.AddForceElement(PrismaticSpring(joint, float(jr.springref), float(jr.stiffness)))
    if jr.limited and jr.type in ("ball", "free"):
        warnings.warn(f"{_where(jr)}joint '{name}': the range of a {jr.type} joint (cone limit) is not "
                      "simulated; the limit is ignored", MjcfUnsupportedWarning, stacklevel=4)
    return joint


def _AddPassiveForces(plant, model: MjcfModel, pm) -> None:
    """The MJCF passive forces the plant's joints lack: ball / free joint springs (MjcfBallFreeSprings, unless the
    spring flag is off), and under Euler with `eulerdamp` disabled the joints' damping as an explicit force
    (ExplicitJointDamping). Fluid forces: parsers/mjcf/fluid.py."""
    from mallard.multibody.tree.explicit_damping import ExplicitJointDamping
    from mallard.multibody.tree.force_element import MjcfBallFreeSprings
    flags = model.option.flags
    springs = []
    if flags.get("spring", True):
        for jr, joint in zip(model.joints, pm.joints):
            if jr.stiffness and jr.type in ("ball", "free") and joint is not None:
                springs.append((joint, jr.type, float(jr.stiffness), np.asarray(jr.qpos_spring, float)))
    if springs:
        plant.AddForceElement(MjcfBallFreeSprings(springs, pm.instance))
    opt = model.option
    if not flags.get("eulerdamp", True) and opt.integrator.lower() == "euler" and plant.time_step() > 0:
        # MuJoCo's Euler without implicit damping: the joints' damping becomes an explicit force
        dampers = []
        for joint in pm.joints:
            if joint is not None and np.any(joint.default_damping_vector()):
                dampers.append((joint, joint.default_damping_vector()))
                joint.set_default_damping_vector(np.zeros(joint.num_velocities()))
        if dampers:
            plant.AddForceElement(ExplicitJointDamping(dampers, pm.instance))


def _WarnUnsimulated(plant, model: MjcfModel) -> None:
    """One warning per kind of MJCF feature the plant does not simulate (tendon limits / friction on continuous
    plants, integrators other than Euler where they matter)."""
    def warn(el, text):
        where = f"{el.where}: " if getattr(el, "where", None) is not None else f"MJCF model '{model.name}': "
        warnings.warn(where + text, MjcfUnsupportedWarning, stacklevel=4)

    for t, ten in enumerate(model.tendons):
        rows = plant.time_step() > 0  # limit / friction rows of the discrete step
        missing = [what for what, on in (("limits", ten.limited and not rows),
                                          ("frictionloss", ten.frictionloss and not rows)) if on]
        if missing:
            warn(ten, f"tendon '{ten.name or t}': {', '.join(missing)} not simulated by MultibodyPlant")
    opt = model.option
    if plant.time_step() > 0 and opt.integrator.lower() == "rk4" and model.plugins:  # see _ApplyOptions
        warn(None, f"<option integrator='{opt.integrator}'> with engine plugins: the discrete plant steps this "
             "model with MuJoCo's Euler integrator (joint damping implicit); results will differ from MuJoCo's")


def _ApplyOptions(plant, model: MjcfModel) -> None:
    """Gravity (zero when the gravity flag is off); a warning when the MJCF timestep differs from the plant's."""
    opt = model.option
    g = np.asarray(opt.gravity, float) if opt.flags.get("gravity", True) else np.zeros(3)
    plant.mutable_gravity_field().set_gravity_vector(g)
    h = plant.time_step()
    if h > 0 and opt.integrator.lower() in ("implicit", "implicitfast"):  # the discrete step's scheme
        plant._mjcf_integrator = opt.integrator.lower()  # (multibody/mjcf/implicit.py)
    elif h > 0 and opt.integrator.lower() == "rk4" and not model.plugins:  # (multibody/mjcf/rk4.py)
        plant._mjcf_integrator = "RK4"  # plugin state / activations would need advancing per stage: Euler
    if h > 0 and abs(h - float(opt.timestep)) > 1e-15 * max(1.0, h):
        warnings.warn(f"MJCF model '{model.name}': <option timestep={opt.timestep}> differs from the "
                      f"MultibodyPlant time_step {h}; the plant's time_step is used (construct the plant with "
                      f"time_step={opt.timestep} to match MuJoCo)", MjcfUnsupportedWarning, stacklevel=4)


_LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+): <(?P<tag>[^>]+)>:? ?(?P<detail>.*)$", re.S)


def _located(exc: Exception, source: str):
    """A ParseError (file, line, element) from an MJCF compiler / mapping error message."""
    from mallard.parsers.errors import ParseError
    text = str(exc)
    m = _LOCATED.match(text)
    if m:
        return ParseError(m.group("detail"), m.group("file"), int(m.group("line")), m.group("tag"))
    return ParseError(text.removeprefix("MJCF: "), source)


def AddMjcfToPlant(parser, filename: str | None, file_contents: str | None) -> list:
    """Parser's MJCF branch: compile, name the instance (prefix, auto-renaming), build; returns [instance].

    Every compiler or plant error reaches the user as a ParseError naming file, line and element.
    """
    from mallard.multibody.mjcf.plant_maps import AttachMjcfModel
    from .compiler import load_mjcf
    from .errors import MjcfError
    source = filename or "<string>"
    strict = parser._strict
    try:
        with warnings.catch_warnings():
            if strict:
                warnings.simplefilter("error", MjcfUnsupportedWarning)
            model = load_mjcf(filename if filename is not None else file_contents, strict=strict)
    except (MjcfError, MjcfUnsupportedWarning) as exc:
        raise _located(exc, source) from None
    plant = parser.plant()
    base = model.name or (os.path.splitext(os.path.basename(filename))[0] if filename else "mujoco_model")
    if parser._prefix:
        base = f"{parser._prefix}::{base}"
    name = base
    if parser.GetAutoRenaming():
        k = 0
        while plant.HasModelInstanceNamed(name):
            k += 1
            name = f"{base}_{k}"
    elif plant.HasModelInstanceNamed(name):
        raise RuntimeError(f"{source}: this model already contains a model instance named '{name}'. Model "
                           "instance names must be unique within a given model; call parser.SetAutoRenaming(True) "
                           "or construct the Parser with a model_name_prefix to load it again")
    try:
        with warnings.catch_warnings():
            if strict:
                warnings.simplefilter("error", MjcfUnsupportedWarning)
            pm = AddMjcfModelToPlant(plant, model, name, parser._CanRegisterGeometry())
    except (ValueError, MjcfUnsupportedWarning) as exc:
        raise _located(exc, source) from None
    from mallard.multibody.mjcf.actuation import CheckMjcfActuators
    from mallard.multibody.mjcf.sensors import CheckMjcfSensors
    for msg in CheckMjcfActuators(model) + CheckMjcfSensors(model):
        if strict:
            raise _located(ValueError(msg), source)
        warnings.warn(msg, MjcfUnsupportedWarning, stacklevel=3)
    AttachMjcfModel(plant, pm)
    return [pm.instance]
