"""MuJoCo's body gravity compensation (MJCF body `gravcomp`): a force −gravcomp·m·g at each such body's center
of mass, mapped to the dofs by the COM Jacobian. As MuJoCo, the part on dofs of joints with
`actuatorgravcomp` counts as actuation (before their actuatorfrcrange clamp), the rest as a passive force.
"""
from __future__ import annotations

import numpy as np

from .plant_maps import GetMjcfPlantMaps
from ..tree.indices import JacobianWrtVariable

__all__ = ["MjcfGravityCompensation"]


class MjcfGravityCompensation:
    """The gravcomp bodies of every MJCF model of a plant."""

    def __init__(self, plant):
        self.bodies = []  # (RigidBody, gravcomp factor)
        self.actuated = np.zeros(plant.num_velocities(), dtype=bool)
        for pm in GetMjcfPlantMaps(plant):
            for b, body in enumerate(pm.model.bodies):
                if b and body.gravcomp:
                    self.bodies.append((pm.bodies[b], float(body.gravcomp)))
            for jr, J in zip(pm.model.joints, pm.joints):
                if jr.actgravcomp:
                    self.actuated[J.velocity_start():J.velocity_start() + J.num_velocities()] = True

    def __bool__(self) -> bool:
        return bool(self.bodies)

    def CalcGeneralizedForces(self, plant, context) -> np.ndarray:
        """qfrc_gravcomp (plant nv) [N or N·m]."""
        tau = np.zeros(plant.num_velocities())
        g = plant.gravity_field().gravity_vector()
        world = plant.world_frame()
        for body, factor in self.bodies:
            p_com = body.CalcCenterOfMassInBodyFrame(context)
            J = plant.CalcJacobianTranslationalVelocity(context, JacobianWrtVariable.kV, body._body_frame, p_com,
                                                         world, world)
            tau -= J.T @ (factor * body.get_mass(context) * g)
        return tau
