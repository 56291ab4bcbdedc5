"""Geometry side of Parser: ShapeRecord → Shape, Drake's proximity properties, registration of
visual / collision GeometryRecords with a MultibodyPlant, and collision filter groups."""
from __future__ import annotations

import numpy as np

from .errors import ParseError
from .model_records import GeometryRecord, ShapeRecord

__all__ = ["CollisionFilterGroups", "MakeShape", "MakeProximityProperties", "RegisterGeometryRecord",
           "ApplyCollisionFilterGroups"]


class CollisionFilterGroups:
    """Drake's collision filter groups found while parsing: group name → set of body names (both
    scoped, "model::group", "model::link"), and the (sorted) pairs of groups whose members must not
    collide (a group paired with itself filters collisions among its own members)."""

    def __init__(self) -> None:
        self._groups: dict = {}
        self._pairs: set = set()

    def AddGroup(self, name: str, members: set) -> None:
        """Add group `name` with `members` (scoped body names); a name may be added once."""
        if name in self._groups:
            raise ValueError(f"collision filter group '{name}' already exists")
        self._groups[name] = set(members)

    def AddExclusionPair(self, pair) -> None:
        """Exclude collisions between the members of the two groups of `pair`."""
        a, b = pair
        self._pairs.add(tuple(sorted((str(a), str(b)))))

    def empty(self) -> bool:
        """True if there are no groups and no exclusion pairs."""
        return not self._groups and not self._pairs

    def groups(self) -> dict:
        """A copy of the group name → member names map."""
        return {k: set(v) for k, v in self._groups.items()}

    def exclusion_pairs(self) -> set:
        """A copy of the set of excluded (group, group) pairs, each sorted."""
        return set(self._pairs)

    def __repr__(self) -> str:
        lines = ["", "Collision filter groups:"]
        for name in sorted(self._groups):
            lines.append(f"    {name}")
            lines += [f"        {m}" for m in sorted(self._groups[name])]
        lines.append("Collision filter exclusion pairs:")
        lines += [f"    {a}, {b}" for a, b in sorted(self._pairs)]
        return "\n".join(lines) + "\n"


def RegisterGeometryRecord(plant, body, geom: GeometryRecord, filename: str):
    """Register one GeometryRecord on `body` (a collision gets its friction and contact material;
    a visual its diffuse color when the file gives one); returns the GeometryId."""
    from mallard.multibody.math import RigidTransform, RotationMatrix
    try:
        shape = MakeShape(geom.shape)
        X_BG = RigidTransform(RotationMatrix(np.array(geom.X_BG[:3, :3], float)), np.array(geom.X_BG[:3, 3], float))
        if geom.role == "collision":
            return plant.RegisterCollisionGeometry(body, X_BG, shape, geom.name, MakeProximityProperties(geom))
        if geom.rgba is not None:
            return plant.RegisterVisualGeometry(body, X_BG, shape, geom.name, np.asarray(geom.rgba, float))
        return plant.RegisterVisualGeometry(body, X_BG, shape, geom.name)
    except (ValueError, OSError, RuntimeError) as exc:
        raise ParseError(f"{geom.role} '{geom.name}': {exc}", filename, geom.line, geom.role) from None


def ApplyCollisionFilterGroups(plant, groups: dict, exclusions: set, bodies_by_name: dict) -> None:
    """Exclude collisions between the registered geometries of each excluded pair of groups.

    `groups` maps a scoped group name to scoped body names, `bodies_by_name` scoped body names to
    the plant's bodies (members not among them, e.g. from other files, are skipped)."""
    def geometry_set(group):
        return plant.CollectRegisteredGeometries([bodies_by_name[m] for m in sorted(groups[group])
                                                  if m in bodies_by_name])
    for a, b in sorted(exclusions):
        plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair((a, geometry_set(a)), (b, geometry_set(b)))


def MakeShape(shape: ShapeRecord):
    """The mallard.geometry Shape described by a ShapeRecord (a plane becomes a HalfSpace)."""
    from mallard.geometry import Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, Mesh, Sphere
    kind = shape.type
    if kind == "box":
        return Box(*np.asarray(shape.size, float))
    if kind == "sphere":
        return Sphere(shape.radius)
    if kind == "cylinder":
        return Cylinder(shape.radius, shape.length)
    if kind == "capsule":
        return Capsule(shape.radius, shape.length)
    if kind == "ellipsoid":
        return Ellipsoid(*np.asarray(shape.radii, float))
    if kind == "plane":
        return HalfSpace()
    if kind == "mesh":
        cls = Convex if shape.convex else Mesh
        return cls(shape.filename, scale3=np.asarray(shape.scale, float))
    raise ValueError(f"shape type '{kind}' is not supported")


def MakeProximityProperties(geom: GeometryRecord):
    """ProximityProperties of a collision GeometryRecord: Coulomb friction (drake:mu_static /
    mu_dynamic, else SDFormat's mu / mu2) and Drake's point-contact material values."""
    from mallard.geometry import AddContactMaterial, CoulombFriction, ProximityProperties
    prox = dict(geom.proximity)
    props = ProximityProperties()
    mu_s = prox.get("mu_static", prox.get("mu"))
    mu_d = prox.get("mu_dynamic", prox.get("mu2", mu_s))
    mu_s = mu_d if mu_s is None else mu_s
    friction = CoulombFriction(1.0, 1.0) if mu_s is None else CoulombFriction(float(mu_s), float(mu_d))
    AddContactMaterial(prox.get("hunt_crossley_dissipation"), prox.get("point_contact_stiffness"), friction,
                       props)
    for key, (group, name) in _PROXIMITY_KEYS.items():
        if prox.get(key) is not None:
            props.AddProperty(group, name, float(prox[key]))
    for flag, compliance in (("rigid_hydroelastic", "rigid"), ("compliant_hydroelastic", "compliant"),
                             ("soft_hydroelastic", "compliant")):
        if flag in prox:
            props.AddProperty("hydroelastic", "compliance_type", compliance)
    return props


#: drake:proximity_properties values stored as (group, property), as Drake's parsers do.
_PROXIMITY_KEYS = {"relaxation_time": ("material", "relaxation_time"),
                   "hydroelastic_modulus": ("hydroelastic", "hydroelastic_modulus"),
                   "mesh_resolution_hint": ("hydroelastic", "resolution_hint"),
                   "hydroelastic_margin": ("hydroelastic", "margin")}
