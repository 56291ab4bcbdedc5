"""Propeller: thrust and moment of propellers fixed to bodies, from a command per propeller (Drake's Propeller).

Propeller i on body B at frame P (pose X_BP) pushes with f = thrust_ratio·command along +Pz and twists with
τ = moment_ratio·command about +Pz; the forces go to MultibodyPlant's applied_spatial_force input.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...systems.framework import LeafSystem, Value
from ..math import RigidTransform, SpatialForce
from ..tree.indices import BodyIndex
from .externally_applied_spatial_force import ExternallyAppliedSpatialForce

__all__ = ["Propeller", "PropellerInfo"]


@dataclass
class PropellerInfo:
    """One propeller: its body, pose X_BP of the propeller frame P in the body frame B, thrust_ratio (N per unit
    command) and moment_ratio (N·m per unit command)."""
    body_index: BodyIndex = BodyIndex(0)
    X_BP: RigidTransform = field(default_factory=RigidTransform)
    thrust_ratio: float = 1.0
    moment_ratio: float = 0.0


class Propeller(LeafSystem):
    """Inputs `command` (one value per propeller) and `body_poses` (the plant's body_poses output); output
    `spatial_forces`, a list of ExternallyAppliedSpatialForce for the plant's applied_spatial_force input."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        if len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)):
            self._info = [PropellerInfo(i.body_index, i.X_BP, float(i.thrust_ratio), float(i.moment_ratio))
                          for i in args[0]]
        elif "propeller_info" in kwargs and not args:
            self._info = list(kwargs["propeller_info"])
        else:
            self._info = [PropellerInfo(*args, **kwargs)]
        self._command = self.DeclareVectorInputPort("command", self.num_propellers())
        self._poses = self.DeclareAbstractInputPort("body_poses", Value([]))
        self._forces = self.DeclareAbstractOutputPort("spatial_forces", lambda: Value([]), self._CalcSpatialForces)

    def num_propellers(self) -> int:
        return len(self._info)

    def get_command_input_port(self):
        return self._command

    def get_body_poses_input_port(self):
        return self._poses

    def get_spatial_forces_output_port(self):
        return self._forces

    def _CalcSpatialForces(self, context, value) -> None:
        command = np.asarray(self._command.Eval(context), dtype=float)
        poses = self._poses.Eval(context)
        out = []
        for i, prop in enumerate(self._info):
            X_WP = poses[int(prop.body_index)] @ prop.X_BP
            R_WP = X_WP.rotation().matrix()
            F_W = np.concatenate([R_WP @ [0.0, 0.0, command[i] * prop.moment_ratio],
                                  R_WP @ [0.0, 0.0, command[i] * prop.thrust_ratio]])
            out.append(ExternallyAppliedSpatialForce(prop.body_index, np.array(prop.X_BP.translation()),
                                                     SpatialForce(F_W[:3], F_W[3:])))
        value.set_value(out)
