"""Geometry properties and roles (pydrake.geometry): ProximityProperties, IllustrationProperties,
PerceptionProperties, Role, CoulombFriction, AddContactMaterial, and MuJoCo contact parameters
carried in the "mujoco" property group.

Properties are (group, name) -> value tables. SceneGraph gives a geometry a role by attaching the
role's properties; the proximity role makes it collide.
"""
from __future__ import annotations

import copy
import enum
import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from mallard.common.overloads import Overload, declares, resolve
from mallard.common.value import AbstractValue, Value
from mallard.geometry.identifiers import GeometryLookupError

_MISSING = object()


class Role(enum.IntEnum):
    """What a geometry is for: proximity (collision/distance), illustration, perception."""

    kUnassigned = 0
    kProximity = 1
    kIllustration = 2
    kPerception = 4


class RoleAssign(enum.IntEnum):
    """How AssignRole treats existing properties: add a new role, or replace the properties."""

    kNew = 0
    kReplace = 1


class GeometryProperties:
    """A table of typed properties organized in named groups."""

    _DEFAULT_GROUP = "__default__"

    def __init__(self, other: "GeometryProperties | None" = None):
        self._groups: dict[str, dict[str, Any]] = {self._DEFAULT_GROUP: {}}
        if other is not None:
            self._groups = copy.deepcopy(other._groups)

    @staticmethod
    def default_group_name() -> str:
        return GeometryProperties._DEFAULT_GROUP

    def HasGroup(self, group_name: str) -> bool:
        return group_name in self._groups

    def num_groups(self) -> int:
        return len(self._groups)

    def GetGroupNames(self) -> set[str]:
        return set(self._groups)

    def GetPropertiesInGroup(self, group_name: str) -> dict[str, AbstractValue]:
        """The properties of one group as {name: AbstractValue} (pydrake's form; ``.get_value()`` gives each)."""
        return {k: Value(v) for k, v in self._group(group_name).items()}

    def _group(self, group_name: str) -> dict[str, Any]:
        """The raw {name: value} table of one group (mallard's internal, unwrapped access)."""
        if group_name not in self._groups:
            raise GeometryLookupError(f"{type(self).__name__}: no group '{group_name}'; groups: "
                                      f"{sorted(self._groups)}")
        return self._groups[group_name]

    def HasProperty(self, group_name: str, name: str) -> bool:
        return name in self._groups.get(group_name, {})

    def AddProperty(self, group_name: str, name: str, value: Any) -> None:
        """Add a new property; raises RuntimeError if (group, name) already exists (use UpdateProperty)."""
        grp = self._groups.setdefault(group_name, {})
        if name in grp:
            raise RuntimeError(f"{type(self).__name__}.AddProperty: property ('{group_name}', '{name}') "
                               "already exists; use UpdateProperty to change it")
        grp[name] = value

    def UpdateProperty(self, group_name: str, name: str, value: Any) -> None:
        """Add or replace a property; replacing with a value of a different type raises ValueError."""
        grp = self._groups.setdefault(group_name, {})
        if name in grp and not _same_kind(grp[name], value):
            raise ValueError(f"{type(self).__name__}.UpdateProperty: property ('{group_name}', '{name}') "
                             f"holds a {type(grp[name]).__name__}; cannot replace it with a "
                             f"{type(value).__name__}")
        grp[name] = value

    def GetProperty(self, group_name: str, name: str) -> Any:
        """The value of (group, name); raises GeometryLookupError (KeyError/RuntimeError) if missing."""
        grp = self._groups.get(group_name)
        if grp is None:
            raise GeometryLookupError(f"{type(self).__name__}.GetProperty: no group '{group_name}' "
                                      f"(looking for '{name}'); groups: {sorted(self._groups)}")
        if name not in grp:
            raise GeometryLookupError(f"{type(self).__name__}.GetProperty: no property '{name}' in group "
                                      f"'{group_name}'; it has: {sorted(grp)}")
        return grp[name]

    def GetPropertyOrDefault(self, group_name: str, name: str, default_value: Any) -> Any:
        """The value of (group, name), or ``default_value`` if it does not exist."""
        return self._groups.get(group_name, {}).get(name, default_value)

    def RemoveProperty(self, group_name: str, name: str) -> bool:
        """Remove (group, name); returns whether it existed."""
        grp = self._groups.get(group_name)
        if grp is None or name not in grp:
            return False
        del grp[name]
        return True

    def __eq__(self, other) -> bool:
        if type(other) is not type(self) or set(self._groups) != set(other._groups):
            return False
        for g, props in self._groups.items():
            o = other._groups[g]
            if set(props) != set(o):
                return False
            for k, v in props.items():
                if not _values_equal(v, o[k]):
                    return False
        return True

    def __str__(self) -> str:
        """Drake's listing: '[group]' lines, each followed by '  name: type' lines (C++ type names)."""
        lines = []
        for g, props in self._groups.items():
            lines.append(f"[{g}]")
            lines.extend(f"  {k}: {_cpp_type_name(v)}" for k, v in props.items())
        return "\n".join(lines)

    def __repr__(self) -> str:
        body = ", ".join(f"('{g}', '{k}'): {v!r}" for g, props in self._groups.items() for k, v in props.items())
        return f"{type(self).__name__}({{{body}}})"


def _cpp_type_name(value: Any) -> str:
    """The C++ type Drake reports for a stored value (pydrake stores other Python objects as Object)."""
    if isinstance(value, HydroelasticType):
        return "drake::geometry::internal::HydroelasticType"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "std::string"
    names = {"CoulombFriction": "drake::multibody::CoulombFriction<double>", "Rgba": "drake::geometry::Rgba"}
    return names.get(type(value).__name__, "drake::pydrake::Object")


def _same_kind(a, b) -> bool:
    num = (int, float, np.floating, np.integer)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, num) and isinstance(b, num):
        return True
    if isinstance(a, (np.ndarray, list, tuple)) and isinstance(b, (np.ndarray, list, tuple)):
        return True
    return type(a) is type(b)


def _values_equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return bool(a == b)


class ProximityProperties(GeometryProperties):
    """Properties of the proximity role (contact materials, MuJoCo contact parameters)."""


class IllustrationProperties(GeometryProperties):
    """Properties of the illustration role, e.g. ("phong", "diffuse") -> Rgba."""


class PerceptionProperties(GeometryProperties):
    """Properties of the perception role, e.g. ("phong", "diffuse") and ("label", "id")."""


def MakePhongIllustrationProperties(diffuse) -> IllustrationProperties:
    """IllustrationProperties with ("phong", "diffuse") set from an Rgba or 4 numbers in [0, 1]."""
    from mallard.geometry.rgba import Rgba

    props = IllustrationProperties()
    if not isinstance(diffuse, Rgba):
        d = np.asarray(diffuse, dtype=float).reshape(-1)
        if d.size not in (3, 4):
            raise ValueError(f"diffuse color needs 3 or 4 values in [0, 1]; given {d.size}")
        diffuse = Rgba(*d)
    props.AddProperty("phong", "diffuse", diffuse)
    return props


class CoulombFriction:
    """Static and dynamic Coulomb friction coefficients (pydrake.multibody.plant.CoulombFriction);
    both >= 0 and dynamic <= static."""

    __slots__ = ("_s", "_d")

    def __init__(self, static_friction: float = 0.0, dynamic_friction: float = 0.0):
        s, d = float(static_friction), float(dynamic_friction)
        if not (math.isfinite(s) and math.isfinite(d)) or s < 0 or d < 0:
            raise ValueError(f"CoulombFriction coefficients must be finite and >= 0; given static={s}, dynamic={d}")
        if d > s:
            raise ValueError(f"CoulombFriction: dynamic friction ({d}) must not exceed static friction ({s})")
        self._s, self._d = s, d

    def static_friction(self) -> float:
        return self._s

    def dynamic_friction(self) -> float:
        return self._d

    def __eq__(self, other) -> bool:
        return isinstance(other, CoulombFriction) and self._s == other._s and self._d == other._d

    def __hash__(self):
        return hash((self._s, self._d))

    def __repr__(self) -> str:
        return f"CoulombFriction(static_friction={self._s!r}, dynamic_friction={self._d!r})"

    def __getstate__(self):
        return (self._s, self._d)

    def __setstate__(self, state):
        self._s, self._d = state


def CalcContactFrictionFromSurfaceProperties(surface_properties1: CoulombFriction,
                                             surface_properties2: CoulombFriction) -> CoulombFriction:
    """Drake's pair friction: mu = 2 mu1 mu2 / (mu1 + mu2), for static and dynamic separately."""

    def comb(a, b):
        return 0.0 if a + b == 0 else 2.0 * a * b / (a + b)

    return CoulombFriction(comb(surface_properties1.static_friction(), surface_properties2.static_friction()),
                           comb(surface_properties1.dynamic_friction(), surface_properties2.dynamic_friction()))


def AddContactMaterial(*args, **kwargs) -> ProximityProperties:
    """Add Drake point-contact material properties (group "material"): hunt_crossley_dissipation (s/m, >= 0),
    point_contact_stiffness (N/m, > 0), coulomb_friction. Either of pydrake's forms:
    AddContactMaterial(dissipation, point_stiffness, friction, properties) or
    AddContactMaterial(properties, dissipation=None, point_stiffness=None, friction=None). Returns
    ``properties`` (mallard also accepts no properties and returns a new ProximityProperties)."""
    _, a = resolve("AddContactMaterial", _MATERIAL_OVERLOADS, args, kwargs)
    dissipation, point_stiffness, friction = a["dissipation"], a["point_stiffness"], a["friction"]
    properties = a["properties"]
    if properties is None:
        properties = ProximityProperties()
    if not isinstance(properties, ProximityProperties):
        raise ValueError(f"AddContactMaterial needs ProximityProperties; given {type(properties).__name__}")
    if dissipation is not None:
        if not (math.isfinite(dissipation) and dissipation >= 0):
            raise ValueError(f"AddContactMaterial: dissipation must be >= 0; given {dissipation}")
        properties.AddProperty("material", "hunt_crossley_dissipation", float(dissipation))
    if point_stiffness is not None:
        if not (math.isfinite(point_stiffness) and point_stiffness > 0):
            raise ValueError(f"AddContactMaterial: point_stiffness must be > 0; given {point_stiffness}")
        properties.AddProperty("material", "point_contact_stiffness", float(point_stiffness))
    if friction is not None:
        if not isinstance(friction, CoulombFriction):
            raise ValueError(f"AddContactMaterial: friction must be a CoulombFriction; given {type(friction).__name__}")
        properties.AddProperty("material", "coulomb_friction", friction)
    return properties


_NUMBER = (int, float, np.floating, np.integer)
_MATERIAL_OVERLOADS = (
    Overload(("dissipation", _NUMBER, None), ("point_stiffness", _NUMBER, None), ("friction", CoulombFriction, None),
             ("properties", ProximityProperties, None)),
    Overload(("properties", ProximityProperties), ("dissipation", _NUMBER, None), ("point_stiffness", _NUMBER, None),
             ("friction", CoulombFriction, None)))
declares(_MATERIAL_OVERLOADS)(AddContactMaterial)


# ------------------------------------------------------------------------------------------------
# Hydroelastic contact properties (group "hydroelastic"), written exactly as Drake's proximity_properties.cc.

HYDRO_GROUP = "hydroelastic"


class HydroelasticType(str, enum.Enum):
    """The value of ("hydroelastic", "compliance_type") (Drake's internal::HydroelasticType); a str enum, so
    it compares equal to the names "undefined", "rigid", "compliant" that the parsers write."""

    kUndefined = "undefined"
    kRigid = "rigid"
    kCompliant = "compliant"

    def __str__(self) -> str:
        return self.value


def _add_hydro(properties: ProximityProperties, name: str, value, who: str) -> None:
    if not isinstance(properties, ProximityProperties):
        raise TypeError(f"{who} needs ProximityProperties; given {type(properties).__name__}")
    properties.AddProperty(HYDRO_GROUP, name, value)


def _add_compliant(hydroelastic_modulus: float, properties: ProximityProperties, who: str) -> None:
    if not hydroelastic_modulus > 0:
        raise RuntimeError(f"The hydroelastic modulus must be positive; given {hydroelastic_modulus}")
    _add_hydro(properties, "hydroelastic_modulus", float(hydroelastic_modulus), who)
    _add_hydro(properties, "compliance_type", HydroelasticType.kCompliant, who)


def AddRigidHydroelasticProperties(*args, **kwargs) -> None:
    """AddRigidHydroelasticProperties([resolution_hint,] properties): mark the geometry rigid for hydroelastic
    contact ("hydroelastic" group: compliance_type, and resolution_hint [m] when given)."""
    k, a = resolve("AddRigidHydroelasticProperties", _RIGID_OVERLOADS, args, kwargs)
    if k == 0:
        _add_hydro(a["properties"], "resolution_hint", float(a["resolution_hint"]), "AddRigidHydroelasticProperties")
    _add_hydro(a["properties"], "compliance_type", HydroelasticType.kRigid, "AddRigidHydroelasticProperties")


_RIGID_OVERLOADS = (Overload(("resolution_hint", _NUMBER), ("properties", ProximityProperties)),
                    Overload(("properties", ProximityProperties)))
declares(_RIGID_OVERLOADS)(AddRigidHydroelasticProperties)


def AddCompliantHydroelasticProperties(resolution_hint: float, hydroelastic_modulus: float,
                                       properties: ProximityProperties) -> None:
    """Mark the geometry compliant for hydroelastic contact: resolution_hint [m], hydroelastic_modulus [Pa]
    (> 0) and compliance_type in the "hydroelastic" group."""
    _add_hydro(properties, "resolution_hint", float(resolution_hint), "AddCompliantHydroelasticProperties")
    _add_compliant(hydroelastic_modulus, properties, "AddCompliantHydroelasticProperties")


def AddCompliantHydroelasticPropertiesForHalfSpace(slab_thickness: float, hydroelastic_modulus: float,
                                                   properties: ProximityProperties) -> None:
    """Mark a half space compliant for hydroelastic contact: slab_thickness [m], hydroelastic_modulus [Pa]
    (> 0) and compliance_type in the "hydroelastic" group."""
    _add_hydro(properties, "slab_thickness", float(slab_thickness), "AddCompliantHydroelasticPropertiesForHalfSpace")
    _add_compliant(hydroelastic_modulus, properties, "AddCompliantHydroelasticPropertiesForHalfSpace")


# ------------------------------------------------------------------------------------------------
# MuJoCo contact parameters, carried in the "mujoco" group of ProximityProperties.

MUJOCO_GROUP = "mujoco"


@dataclass(frozen=True)
class MujocoContactParameters:
    """A geom's MuJoCo contact parameters with MuJoCo's defaults (see spec/mjcf.md §7.6, §8.3)."""

    condim: int = 3
    contype: int = 1
    conaffinity: int = 1
    priority: int = 0
    solmix: float = 1.0
    margin: float = 0.0
    gap: float = 0.0
    friction: tuple = (1.0, 0.005, 0.0001)
    solref: tuple = (0.02, 1.0)
    solimp: tuple = (0.9, 0.95, 0.001, 0.5, 2.0)


_MJ_DEFAULTS = MujocoContactParameters()


def _check_mujoco(name: str, value):
    if name == "condim":
        if int(value) != value or int(value) not in (1, 3, 4, 6):
            raise ValueError(f"mujoco condim must be 1, 3, 4 or 6; given {value!r}")
        return int(value)
    if name in ("contype", "conaffinity"):
        if int(value) != value or not (0 <= int(value) < 2 ** 32):
            raise ValueError(f"mujoco {name} must be a 32-bit non-negative integer mask; given {value!r}")
        return int(value)
    if name == "priority":
        if int(value) != value:
            raise ValueError(f"mujoco priority must be an integer; given {value!r}")
        return int(value)
    if name in ("solmix", "margin", "gap"):
        v = float(value)
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"mujoco {name} must be finite and >= 0; given {value!r}")
        return v
    sizes = {"friction": 3, "solref": 2, "solimp": 5}
    if name in sizes:
        v = np.asarray(value, dtype=float).reshape(-1)
        if v.size != sizes[name] or not np.all(np.isfinite(v)):
            raise ValueError(f"mujoco {name} needs {sizes[name]} finite values; given {np.asarray(value).tolist()}")
        if name == "friction" and np.any(v < 0):
            raise ValueError(f"mujoco friction values must be >= 0; given {v.tolist()}")
        return tuple(float(x) for x in v)
    raise ValueError(f"unknown mujoco contact parameter '{name}'; valid: "
                     f"{', '.join(MujocoContactParameters.__dataclass_fields__)}")


def AddMujocoContactParameters(properties: ProximityProperties | None = None, **params) -> ProximityProperties:
    """Set MuJoCo contact parameters (condim, contype, conaffinity, priority, solmix, margin, gap,
    friction (3), solref (2), solimp (5)) in the "mujoco" group, validated; returns ``properties``."""
    if properties is None:
        properties = ProximityProperties()
    for name, value in params.items():
        properties.UpdateProperty(MUJOCO_GROUP, name, _check_mujoco(name, value))
    return properties


def GetMujocoContactParameters(properties: GeometryProperties | None) -> MujocoContactParameters:
    """The MuJoCo contact parameters in ``properties`` with MuJoCo's defaults for missing ones."""
    if properties is None or not properties.HasGroup(MUJOCO_GROUP):
        return _MJ_DEFAULTS
    given = properties._group(MUJOCO_GROUP)
    vals = {}
    for name in MujocoContactParameters.__dataclass_fields__:
        if name in given:
            vals[name] = _check_mujoco(name, given[name])
    return MujocoContactParameters(**vals)


def _iter_roles(role: Role) -> Iterable[Role]:
    for r in (Role.kProximity, Role.kIllustration, Role.kPerception):
        if role & r:
            yield r


_ATOMIC = (int, float, bool, str, type(None))


def copy_properties(props: GeometryProperties) -> GeometryProperties:
    """A deep copy of a properties table, equal to copy.deepcopy(props) but without deepcopy's per-value
    machinery for numbers, strings and tuples of them (immutable, so shared); other values are deep-copied."""
    cls = type(props)
    plain = (getattr(cls, "__deepcopy__", None) is None and getattr(cls, "__setstate__", None) is None
             and cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
             and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__
             and type(getattr(props, "__dict__", None)) is dict)
    if not plain:  # a class with its own copy / pickling protocol: let deepcopy honour it
        return copy.deepcopy(props)
    from mallard.geometry.rgba import Rgba
    memo: dict = {}

    def value(v):
        t = type(v)
        if t in _ATOMIC or (t is tuple and all(type(x) in _ATOMIC for x in v)):
            return v
        if (t is Rgba or t is CoulombFriction) and id(v) not in memo:  # their whole state, as deepcopy copies it
            out = object.__new__(t)
            if t is Rgba:
                out._v = v._v.copy()
            else:
                out._s, out._d = v._s, v._d
            memo[id(v)] = out
            return out
        return copy.deepcopy(v, memo)

    new = object.__new__(cls)
    for k, v in props.__dict__.items():
        if k == "_groups" and type(v) is dict:
            new._groups = {g: {n: value(x) for n, x in grp.items()} for g, grp in v.items()}
        else:
            setattr(new, k, copy.deepcopy(v, memo))
    return new
