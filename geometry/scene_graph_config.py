"""SceneGraphConfig and DefaultProximityProperties (pydrake.geometry): SceneGraph-wide contact defaults for
geometries whose model files say nothing more specific (Drake's values)."""
from __future__ import annotations

import dataclasses
import math
from typing import Optional

from mallard.geometry.shapes import fmt_double

__all__ = ["DefaultProximityProperties", "SceneGraphConfig"]

_COMPLIANCE_TYPES = ("undefined", "rigid", "compliant")
# Each numeric field's condition, as Drake's DefaultProximityProperties::ValidateOrThrow checks it.
_CONDITIONS = {
    "hydroelastic_modulus": ("positive", lambda v: v > 0),
    "resolution_hint": ("positive, finite", lambda v: math.isfinite(v) and v > 0),
    "slab_thickness": ("positive, finite", lambda v: math.isfinite(v) and v > 0),
    "margin": ("non-negative, finite", lambda v: math.isfinite(v) and v >= 0),
    "dynamic_friction": ("non-negative", lambda v: v >= 0),
    "static_friction": ("non-negative", lambda v: v >= 0),
    "hunt_crossley_dissipation": ("non-negative", lambda v: v >= 0),
    "relaxation_time": ("non-negative, finite", lambda v: math.isfinite(v) and v >= 0),
    "point_stiffness": ("positive", lambda v: v > 0),
}


@dataclasses.dataclass
class DefaultProximityProperties:
    """Defaults for proximity properties: hydroelastic (compliance_type "undefined" / "rigid" / "compliant",
    hydroelastic_modulus [Pa], resolution_hint [m], slab_thickness [m], margin [m]) and general contact
    (friction, hunt_crossley_dissipation [s/m], relaxation_time [s], point_stiffness [N/m]); None = unset."""

    compliance_type: str = "undefined"
    hydroelastic_modulus: Optional[float] = 1e7
    resolution_hint: Optional[float] = 0.02
    slab_thickness: Optional[float] = None
    margin: Optional[float] = None
    dynamic_friction: Optional[float] = 0.5
    static_friction: Optional[float] = 0.5
    hunt_crossley_dissipation: Optional[float] = 50.0
    relaxation_time: Optional[float] = 0.1
    point_stiffness: Optional[float] = 1e6

    def __setattr__(self, name: str, value) -> None:
        if name in _CONDITIONS and value is not None:  # numbers are stored as floats, as in pydrake
            value = float(value)
        elif name == "compliance_type":
            value = str(value)
        object.__setattr__(self, name, value)

    def ValidateOrThrow(self) -> None:
        """Raises RuntimeError for an unknown compliance_type or a value outside its range."""
        if self.compliance_type not in _COMPLIANCE_TYPES:
            raise RuntimeError(f"Unknown hydroelastic_type: '{self.compliance_type}'")
        for name, (condition, ok) in _CONDITIONS.items():
            value = getattr(self, name)
            if value is not None and not ok(float(value)):
                raise RuntimeError(f"Invalid scene graph configuration: '{name}' ({fmt_double(value)}) must be a {condition} "
                                   "value.")
        if (self.dynamic_friction is None) != (self.static_friction is None):
            raise RuntimeError("Invalid scene graph configuration: either both dynamic_friction and static_friction "
                               "must be set, or neither.")


@dataclasses.dataclass
class SceneGraphConfig:
    """The configurable properties of a SceneGraph."""

    default_proximity_properties: DefaultProximityProperties = dataclasses.field(
        default_factory=DefaultProximityProperties)

    def ValidateOrThrow(self) -> None:
        self.default_proximity_properties.ValidateOrThrow()
