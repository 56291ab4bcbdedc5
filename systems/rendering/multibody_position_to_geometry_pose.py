"""MultibodyPositionToGeometryPose: a plant's geometry poses from positions alone (pydrake.systems.rendering).

Drives a SceneGraph (and so a visualizer) from a trajectory or a planner's positions without simulating the plant:
the system keeps its own context of the plant, sets its positions from the input and reports the plant's
`geometry_pose` output for them.
"""
from __future__ import annotations

from typing import Any

from mallard.common.scalar_template import ScalarTemplate
from mallard.systems.framework import LeafSystem, PortDataType

__all__ = ["MultibodyPositionToGeometryPose", "MultibodyPositionToGeometryPose_"]


class MultibodyPositionToGeometryPose(LeafSystem):
    """`MultibodyPositionToGeometryPose(plant, input_multibody_state=False)`: input "position" (the plant's nq
    positions, or its nq + nv state when `input_multibody_state`), output "geometry_pose" (the FramePoseVector the
    plant's geometry_pose port gives at those positions). The plant must be finalized and registered with a
    SceneGraph; it is kept alive by this system."""

    def __init__(self, plant: Any, input_multibody_state: bool = False) -> None:
        super().__init__()
        if not plant.is_finalized():
            raise RuntimeError("MultibodyPositionToGeometryPose requires a MultibodyPlant that has been finalized")
        if not plant.geometry_source_is_registered():
            raise RuntimeError("MultibodyPositionToGeometryPose requires a MultibodyPlant that has been registered "
                               "with a SceneGraph")
        self._plant = plant
        self._plant_context = plant.CreateDefaultContext()
        self._nq = plant.num_positions()
        size = plant.num_multibody_states() if input_multibody_state else self._nq
        self._position = self.DeclareInputPort("position", PortDataType.kVectorValued, size)
        poses = plant.get_geometry_pose_output_port()
        self.DeclareAbstractOutputPort("geometry_pose", poses.Allocate, self._CalcGeometryPose,
                                       {self._position.ticket()})

    def _CalcGeometryPose(self, context, output) -> None:
        """X_WF of every frame the plant registered, at the input's positions (set in the kept plant context)."""
        self._plant.SetPositions(self._plant_context, self._position.Eval(context)[:self._nq])
        output.SetFrom(self._plant.get_geometry_pose_output_port().EvalAbstract(self._plant_context))


MultibodyPositionToGeometryPose_ = ScalarTemplate("MultibodyPositionToGeometryPose_", MultibodyPositionToGeometryPose)
