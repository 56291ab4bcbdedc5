"""Force density fields (pydrake.multibody.tree.ForceDensityField / GravityForceField): a force per unit volume
f(Q) [N/m³] at a point Q of space, evaluated with a plant Context. Drake applies them to deformable bodies (which
mallard does not model); the fields themselves are plain values users subclass and evaluate."""
from __future__ import annotations

import copy
import enum

import numpy as np

__all__ = ["ForceDensityType", "ForceDensityField", "GravityForceField"]


class ForceDensityType(enum.IntEnum):
    """Whether a field's density is per unit of the current (deformed) or the reference (undeformed) volume."""

    kPerCurrentVolume = 0
    kPerReferenceVolume = 1


class ForceDensityField:
    """Base of force density fields: subclasses implement DoEvaluateAt(context, p_WQ) → f [N/m³] (3,) and
    DoClone() → a copy."""

    def __init__(self, density_type: ForceDensityType = ForceDensityType.kPerCurrentVolume) -> None:
        self._density_type = ForceDensityType(density_type)
        self._tree_system = None  # the owning plant, once a deformable model declares the field's resources

    def density_type(self) -> ForceDensityType:
        """Whether EvaluateAt's density is per current or per reference volume."""
        return self._density_type

    def has_parent_system(self) -> bool:
        """True iff a MultibodyPlant owns this field."""
        return self._tree_system is not None

    def parent_system_or_throw(self):
        """The owning MultibodyPlant; raises when no plant owns this field."""
        if self._tree_system is None:
            raise RuntimeError("ForceDensityField.parent_system_or_throw: this force density field is not owned "
                               "by a MultibodyPlant")
        return self._tree_system

    def EvaluateAt(self, context, p_WQ) -> np.ndarray:
        """The force density f [N/m³], expressed in World, at the point Q (p_WQ [m] in World)."""
        p = np.asarray(p_WQ, dtype=float).reshape(-1)
        if p.shape != (3,):
            raise ValueError(f"ForceDensityField.EvaluateAt: p_WQ must have 3 entries, got shape {np.shape(p_WQ)}")
        return np.asarray(self.DoEvaluateAt(context, p), dtype=float).reshape(3).copy()

    def DoEvaluateAt(self, context, p_WQ) -> np.ndarray:
        raise RuntimeError(f"{type(self).__name__} must override DoEvaluateAt(context, p_WQ)")

    def Clone(self) -> "ForceDensityField":
        """A copy of this field (DoClone())."""
        return self.DoClone()

    def DoClone(self) -> "ForceDensityField":
        """A deep copy of the field's data (subclasses may override); the copy has no owning plant."""
        clone = object.__new__(type(self))
        clone.__dict__.update({k: copy.deepcopy(v) for k, v in self.__dict__.items() if k != "_tree_system"})
        clone._tree_system = None
        return clone

    def __copy__(self) -> "ForceDensityField":
        return self.Clone()

    def __deepcopy__(self, memo) -> "ForceDensityField":
        return self.Clone()

    # Resources a context-dependent field declares on its owning plant (Drake's protected static helpers).
    @staticmethod
    def DeclareCacheEntry(plant, description: str, value_producer, prerequisites_of_calc):
        return plant.DeclareCacheEntry(description, value_producer, prerequisites_of_calc)

    @staticmethod
    def DeclareAbstractInputPort(plant, name: str, model_value):
        return plant.DeclareAbstractInputPort(name, model_value)

    @staticmethod
    def DeclareVectorInputPort(plant, name: str, model_vector):
        return plant.DeclareVectorInputPort(name, model_vector)


class GravityForceField(ForceDensityField):
    """Uniform gravity on a uniform-density body: f = ρ g [N/m³] per reference volume (gravity_vector g [m/s²],
    mass_density ρ [kg/m³])."""

    def __init__(self, gravity_vector, mass_density: float) -> None:
        super().__init__(ForceDensityType.kPerReferenceVolume)
        g = np.asarray(gravity_vector, dtype=float).reshape(-1)
        if g.shape != (3,):
            raise ValueError(f"GravityForceField: gravity_vector must have 3 entries, got shape "
                             f"{np.shape(gravity_vector)}")
        self._force_density = float(mass_density) * g

    def DoEvaluateAt(self, context, p_WQ) -> np.ndarray:
        return self._force_density

