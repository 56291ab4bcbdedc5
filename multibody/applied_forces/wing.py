"""Wing: a flat plate's aerodynamic force on a body (Drake's Wing).

With v the velocity of the wing relative to the wind expressed in the wing frame W (its x-y plane is the plate),
the force at the aerodynamic center is f = −ρ·A·v_z·|(v_x, v_z)| along +Wz (fluid density ρ in kg/m³, plate area
A in m²), as Drake's model: lift and drag of a flat plate at any angle of attack.
"""
from __future__ import annotations

import numpy as np

from ...systems.framework import LeafSystem, Value
from ..math import RigidTransform, SpatialForce
from .externally_applied_spatial_force import ExternallyAppliedSpatialForce

__all__ = ["Wing"]


class Wing(LeafSystem):
    """Inputs body_poses and body_spatial_velocities (the plant's outputs), optional
    wind_velocity_at_aerodynamic_center (m/s, world) and fluid_density (kg/m³); outputs spatial_force (a list of one
    ExternallyAppliedSpatialForce) and aerodynamic_center (its world position, m)."""

    kDefaultFluidDensity = 1.204

    def __init__(self, body_index, surface_area: float, X_BodyWing: RigidTransform | None = None,
                 fluid_density: float = kDefaultFluidDensity) -> None:
        super().__init__()
        self._body_index = body_index
        self._area, self._density = float(surface_area), float(fluid_density)
        self._X_BodyWing = RigidTransform() if X_BodyWing is None else X_BodyWing
        self._poses = self.DeclareAbstractInputPort("body_poses", Value([]))
        self._velocities = self.DeclareAbstractInputPort("body_spatial_velocities", Value([]))
        self._wind = self.DeclareVectorInputPort("wind_velocity_at_aerodynamic_center", 3, required=False)
        self._rho = self.DeclareVectorInputPort("fluid_density", 1, required=False)
        self._force = self.DeclareAbstractOutputPort("spatial_force", lambda: Value([]), self._CalcSpatialForce)
        self._center = self.DeclareVectorOutputPort("aerodynamic_center", 3, self._CalcAerodynamicCenter,
                                                    prerequisites_of_calc={self._poses.ticket()})

    @staticmethod
    def AddToBuilder(builder, plant, body_index, surface_area: float, X_BodyWing: RigidTransform | None = None,
                     fluid_density: float = kDefaultFluidDensity) -> "Wing":
        """Add a Wing to `builder` and connect it to `plant` (poses, velocities in; spatial force out)."""
        wing = builder.AddSystem(Wing(body_index, surface_area, X_BodyWing, fluid_density))
        builder.Connect(plant.get_body_poses_output_port(), wing.get_body_poses_input_port())
        builder.Connect(plant.get_body_spatial_velocities_output_port(), wing.get_body_spatial_velocities_input_port())
        builder.Connect(wing.get_spatial_force_output_port(), plant.get_applied_spatial_force_input_port())
        return wing

    def get_body_poses_input_port(self):
        return self._poses

    def get_body_spatial_velocities_input_port(self):
        return self._velocities

    def get_wind_velocity_input_port(self):
        return self._wind

    def get_fluid_density_input_port(self):
        return self._rho

    def get_spatial_force_output_port(self):
        return self._force

    def get_aerodynamic_center_output_port(self):
        return self._center

    def _CalcSpatialForce(self, context, value) -> None:
        b = int(self._body_index)
        X_WB = self._poses.Eval(context)[b]
        V_WB = self._velocities.Eval(context)[b]
        rho = float(self._rho.Eval(context)[0]) if self._rho.HasValue(context) else self._density
        wind = np.asarray(self._wind.Eval(context), dtype=float) if self._wind.HasValue(context) else np.zeros(3)
        R = (X_WB.rotation() @ self._X_BodyWing.rotation()).matrix()
        v = R.T @ (np.asarray(V_WB.translational()) - wind)
        f_wing = np.array([0.0, 0.0, -rho * self._area * v[2] * np.hypot(v[0], v[2])])
        value.set_value([ExternallyAppliedSpatialForce(self._body_index, np.array(self._X_BodyWing.translation()),
                                                       SpatialForce(np.zeros(3), R @ f_wing))])

    def _CalcAerodynamicCenter(self, context, output) -> None:
        X_WB = self._poses.Eval(context)[int(self._body_index)]
        output.SetFromVector(X_WB @ np.array(self._X_BodyWing.translation()))
