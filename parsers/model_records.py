"""Format-neutral records of what a URDF or SDFormat file declares.

The readers turn a file into a list of `ModelRecord`s (one per model instance: a URDF robot, an
SDFormat model, each nested/included model with its scoped name `outer::inner`). Everything is
already resolved: URLs are absolute file paths, SDFormat `relative_to` poses are expressed in the
frames MultibodyPlant wants, inertias are in the link frame. The plant front end turns a record
into builder calls (AddModelInstance, AddRigidBody, AddJoint, AddJointActuator, Register*Geometry).

Poses are 4x4 homogeneous transforms as numpy arrays, named with monogram notation (X_PJ is the
pose of frame J in frame P). Lengths are meters, masses kilograms, angles radians.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .errors import ParseError

__all__ = [
    "InertialRecord", "ShapeRecord", "GeometryRecord", "LinkRecord", "MimicRecord",
    "JointRecord", "ActuatorRecord", "FrameRecord", "BushingRecord", "BallConstraintRecord",
    "CollisionFilterGroupRecord", "ModelRecord",
    "JOINT_TYPES", "WORLD", "CalcLinkPosesInWorld", "CalcCollisionFilterGroups",
]

#: Joint types a record may carry (Drake's vocabulary plus URDF's "continuous"/"floating").
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar", "ball",
               "universal", "screw")

#: The name of the world link/body that joints may name as parent (or child).
WORLD = "world"


def _eye4() -> np.ndarray:
    return np.eye(4)


@dataclass
class InertialRecord:
    """Mass properties of a link: mass [kg], center of mass p_BoBcm_B [m] and the rotational
    inertia about the center of mass I_BBcm_B [kg m²], both expressed in the link frame B."""

    mass: float = 0.0
    p_BoBcm_B: np.ndarray = field(default_factory=lambda: np.zeros(3))
    I_BBcm_B: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))

    def CalcRotationalInertiaAboutBodyOrigin(self) -> np.ndarray:
        """I_BBo_B: the rotational inertia about the link origin Bo, expressed in B (parallel axis)."""
        p = self.p_BoBcm_B
        return self.I_BBcm_B + self.mass * (float(p @ p) * np.eye(3) - np.outer(p, p))


@dataclass
class ShapeRecord:
    """A geometric shape. `type` is one of box, sphere, cylinder, capsule, ellipsoid, plane, mesh.

    Fields used per type: box `size` (3); sphere `radius`; cylinder/capsule `radius`, `length`;
    ellipsoid `radii` (3); plane `normal` (3, in the geometry frame) and `size` (2, visual extent);
    mesh `filename` (absolute, resolved), `scale` (3) and `convex` (Drake's declare_convex).
    """

    type: str
    size: Optional[np.ndarray] = None
    radius: float = 0.0
    length: float = 0.0
    radii: Optional[np.ndarray] = None
    normal: Optional[np.ndarray] = None
    filename: str = ""
    scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    convex: bool = False


@dataclass
class GeometryRecord:
    """A visual or collision geometry attached to a link, at pose X_BG in the link frame B.

    `rgba` is the visual's diffuse color (None if the file gives none), `material_name` and
    `texture` (a resolved path) come from URDF materials. `proximity` holds Drake's
    `drake:proximity_properties` (keys without the `drake:` prefix, e.g. "mu_dynamic",
    "hunt_crossley_dissipation", "point_contact_stiffness", "compliant_hydroelastic": None) and,
    for SDFormat, the `//surface/friction/ode/mu`/`mu2` values as "mu"/"mu2".
    """

    name: str
    role: str  # "visual" or "collision"
    shape: ShapeRecord
    X_BG: np.ndarray = field(default_factory=_eye4)
    rgba: Optional[np.ndarray] = None
    material_name: str = ""
    texture: str = ""
    proximity: dict = field(default_factory=dict)
    line: Optional[int] = None


@dataclass
class LinkRecord:
    """A link (rigid body). `X_MB` is the link's pose in its model frame M at the initial
    configuration (SDFormat `//link/pose`; identity for URDF), used for bodies that end up free."""

    name: str
    inertial: InertialRecord = field(default_factory=InertialRecord)
    X_MB: np.ndarray = field(default_factory=_eye4)
    visuals: list = field(default_factory=list)
    collisions: list = field(default_factory=list)
    line: Optional[int] = None


@dataclass
class MimicRecord:
    """URDF `<mimic>`: q = multiplier * q_joint + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass
class JointRecord:
    """A joint between a parent and a child link.

    `parent`/`child` are link names; `parent_model`/`child_model` are the scoped names of the
    models owning those links (the parent model is "" when the parent is the world).
    X_PJ is the joint frame J's pose in the parent link frame P, X_CJ its pose in the child link
    frame C (identity for URDF). `axis` is a unit vector in J: the rotation/translation/screw
    axis, or a planar joint's plane normal. Universal joints turn about `axis` then `axis2`
    (orthogonal, both in J; Drake's joint frame has x = axis, y = axis2).
    Limits are arrays with one entry per degree of freedom (±inf when absent); `effort` is the
    actuation limit (inf when absent). Screw joints carry `screw_thread_pitch` [m/rev].
    """

    name: str
    type: str
    parent: str
    child: str
    parent_model: str = ""
    child_model: str = ""
    X_PJ: np.ndarray = field(default_factory=_eye4)
    X_CJ: np.ndarray = field(default_factory=_eye4)
    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    axis2: Optional[np.ndarray] = None
    lower: np.ndarray = field(default_factory=lambda: np.zeros(0))
    upper: np.ndarray = field(default_factory=lambda: np.zeros(0))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(0))
    acceleration: np.ndarray = field(default_factory=lambda: np.zeros(0))
    effort: float = float("inf")
    damping: np.ndarray = field(default_factory=lambda: np.zeros(0))
    friction: float = 0.0
    spring_reference: float = 0.0
    spring_stiffness: float = 0.0
    screw_thread_pitch: float = 0.0
    mimic: Optional[MimicRecord] = None
    line: Optional[int] = None


@dataclass
class ActuatorRecord:
    """A joint actuator: its name, the joint it drives, its effort limit [N or N·m] and Drake's
    reflected-inertia parameters (gear ratio and rotor inertia [kg m²])."""

    name: str
    joint: str
    effort_limit: float = float("inf")
    gear_ratio: float = 1.0
    rotor_inertia: float = 0.0
    line: Optional[int] = None


@dataclass
class FrameRecord:
    """A named frame F fixed to link `body` (in model `body_model`) at pose X_BF. The frame goes
    in model `model`'s instance; when `model` is empty, in its body's instance (the world
    instance when `body` is the world). pydrake puts an SDFormat frame in the instance of the
    frame it is attached to, so a model frame `__model__` (and a frame attached to it) stays in
    its own model even when the canonical link is a nested model's."""

    name: str
    body: str
    body_model: str = ""
    X_BF: np.ndarray = field(default_factory=_eye4)
    line: Optional[int] = None
    model: str = ""


@dataclass
class BushingRecord:
    """Drake's `drake:linear_bushing_rpy`: a LinearBushingRollPitchYaw between frames A and C,
    named in the model's scope ("frame" or "nested::frame", looked up in the plant as Drake
    does). Torque stiffness [N·m/rad] and damping [N·m·s/rad], force stiffness [N/m] and
    damping [N·s/m]: 3 non-negative values each."""

    frameA: str
    frameC: str
    torque_stiffness: np.ndarray = field(default_factory=lambda: np.zeros(3))
    torque_damping: np.ndarray = field(default_factory=lambda: np.zeros(3))
    force_stiffness: np.ndarray = field(default_factory=lambda: np.zeros(3))
    force_damping: np.ndarray = field(default_factory=lambda: np.zeros(3))
    line: Optional[int] = None


@dataclass
class BallConstraintRecord:
    """Drake's `drake:ball_constraint`: point P of body A (p_AP, in A [m]) and point Q of body B
    (p_BQ, in B [m]) coincide. Bodies are named in the model's scope ("link" or "nested::link")."""

    body_A: str
    body_B: str
    p_AP: np.ndarray = field(default_factory=lambda: np.zeros(3))
    p_BQ: np.ndarray = field(default_factory=lambda: np.zeros(3))
    line: Optional[int] = None


@dataclass
class CollisionFilterGroupRecord:
    """Drake's collision filter group: member links (scoped relative to the model), member groups,
    and the groups (possibly itself) whose members must not collide with this group's."""

    name: str
    members: list = field(default_factory=list)
    member_groups: list = field(default_factory=list)
    ignored_groups: list = field(default_factory=list)
    line: Optional[int] = None


@dataclass
class ModelRecord:
    """One model instance: everything the plant needs to build it.

    `name` is the (scoped) instance name. `X_WM` is the model frame's pose in world. `static`
    models are welded to the world (the readers add the weld joints). Joints whose parent is
    `WORLD` attach the model to the world; links with no inboard joint are free. Geometries the
    file attaches to the world link itself are in `world_geometries`; `materials` maps URDF
    material names to (rgba, texture). `bushings` and `ball_constraints` are Drake's
    `drake:linear_bushing_rpy` and `drake:ball_constraint` elements.
    """

    name: str
    filename: str = "<string>"
    format: str = ""  # "urdf" or "sdf"
    links: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    actuators: list = field(default_factory=list)
    frames: list = field(default_factory=list)
    collision_filter_groups: list = field(default_factory=list)
    X_WM: np.ndarray = field(default_factory=_eye4)
    static: bool = False
    materials: dict = field(default_factory=dict)
    world_geometries: list = field(default_factory=list)
    bushings: list = field(default_factory=list)
    ball_constraints: list = field(default_factory=list)

    def link(self, name: str) -> LinkRecord:
        """The link named `name`; raises KeyError listing the link names."""
        for lk in self.links:
            if lk.name == name:
                return lk
        raise KeyError(f"model '{self.name}' has no link '{name}'; links: "
                       f"{[lk.name for lk in self.links]}")

    def joint(self, name: str) -> JointRecord:
        """The joint named `name`; raises KeyError listing the joint names."""
        for j in self.joints:
            if j.name == name:
                return j
        raise KeyError(f"model '{self.name}' has no joint '{name}'; joints: "
                       f"{[j.name for j in self.joints]}")


def CalcLinkPosesInWorld(models: list) -> dict:
    """X_WB of every link at q = 0, keyed by (model name, link name).

    Walks the joint tree: for a joint, X_WC = X_WP · X_PJ · X_CJ⁻¹ (the joint's mobilizer is at its
    zero configuration). Links with no inboard joint sit at X_WM · X_MB (their default free pose).
    Raises ValueError if a link has two inboard joints (a kinematic loop).
    """
    inboard: dict = {}
    for m in models:
        for j in m.joints:
            key = (j.child_model, j.child)
            if key in inboard:
                raise ValueError(f"link '{j.child}' of model '{j.child_model}' is the child of two "
                                 f"joints ('{inboard[key].name}' and '{j.name}'): kinematic loop")
            inboard[key] = j
    link_models = {}
    for m in models:
        for lk in m.links:
            link_models[(m.name, lk.name)] = (m, lk)
    poses: dict = {}

    def pose(key, depth=0):
        if key in poses:
            return poses[key]
        if key[1] == WORLD and key not in link_models:
            return np.eye(4)
        if depth > len(link_models) + 1:
            raise ValueError(f"joint cycle through link '{key[1]}' of model '{key[0]}'")
        j = inboard.get(key)
        if j is None:
            m, lk = link_models[key]
            X = m.X_WM @ lk.X_MB
        else:
            X_WP = pose((j.parent_model, j.parent), depth + 1)
            X_JC = np.linalg.inv(j.X_CJ)
            X = X_WP @ j.X_PJ @ X_JC
        poses[key] = X
        return X

    for key in link_models:
        pose(key)
    return poses


def CalcCollisionFilterGroups(models: list) -> tuple:
    """Drake's collision filter groups of `models`, with fully scoped names.

    Returns (groups, exclusions): `groups` maps "model::group" to the set of "model::link"
    members (member groups expanded); `exclusions` is the set of (group, group) pairs whose
    members must not collide (a group paired with itself filters collisions within it).
    Raises ParseError, located at the group that names it, for a reference to a group that does not
    exist or for groups that include each other.
    """
    declared: dict = {}
    for m in models:
        for g in m.collision_filter_groups:
            declared[f"{m.name}::{g.name}"] = (m, g)
    groups: dict = {}
    exclusions: set = set()
    for name, (model, g) in declared.items():
        _FilterGroupMembers(name, (), (model, g), declared, groups)
        for other in g.ignored_groups:
            other_name = f"{model.name}::{other}"
            _FilterGroupMembers(other_name, (), (model, g), declared, groups)
            exclusions.add(tuple(sorted((name, other_name))))
    return groups, exclusions


def _FilterGroupError(detail: str, by) -> ParseError:
    model, g = by
    return ParseError(f"collision filter group '{g.name}': {detail}", model.filename, g.line,
                      "drake:collision_filter_group")


def _FilterGroupMembers(name: str, stack: tuple, by, declared: dict, groups: dict) -> set:
    """The links of group `name` (member groups expanded, memoized in `groups`); `by` is the group naming it.
    A module function rather than a recursive closure (which would keep the records in a reference cycle)."""
    if name in groups:
        return groups[name]
    if name not in declared:
        raise _FilterGroupError(f"names group '{name}', which is not defined; groups: {sorted(declared)}", by)
    if name in stack:
        raise _FilterGroupError(f"collision filter groups include each other: {' -> '.join(stack + (name,))}", by)
    model, g = declared[name]
    out = {f"{model.name}::{link}" for link in g.members}
    for sub in g.member_groups:
        out |= _FilterGroupMembers(f"{model.name}::{sub}", stack + (name,), (model, g), declared, groups)
    groups[name] = out
    return out
