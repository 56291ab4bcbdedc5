"""InertiaVisualizer: shows each body's spatial inertia as an ellipsoid (Drake's visualization::InertiaVisualizer).

Every body not welded to the world gets a SceneGraph frame at its center of mass holding an illustration
Ellipsoid, accepted only by the Meshcat visualizer whose prefix is "inertia". The ellipsoid is the solid of
water density (1000 kg/m³) with the body's mass and rotational inertia: a point mass shows as a sphere of
radius 0.062 m·(m/1 kg)^(1/3), and no semi-axis is drawn smaller than 1/100 of the largest.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.geometry import Ellipsoid, FramePoseVector, GeometryFrame, GeometryInstance, IllustrationProperties, Rgba
from mallard.multibody.math import RigidTransform
from mallard.systems.framework import LeafSystem, Value

__all__ = ["InertiaVisualizer", "CalculateInertiaGeometry"]

_WATER_DENSITY = 1000.0  # kg/m³


def CalculateInertiaGeometry(body, plant_context) -> tuple[Ellipsoid, RigidTransform]:
    """(ellipsoid E, its pose X_BE in the body frame) illustrating ``body``'s spatial inertia."""
    M_BBo_B = body.CalcSpatialInertiaInBodyFrame(plant_context)
    mass = float(M_BBo_B.get_mass())
    p_BoBcm = np.asarray(M_BBo_B.get_com(), dtype=float)
    if mass == 0.0:
        return Ellipsoid(0.001, 0.001, 0.001), RigidTransform(p_BoBcm)
    radii, X_BE = M_BBo_B.CalcPrincipalSemiDiametersAndPoseForSolidEllipsoid()
    radii = np.asarray(radii, dtype=float)
    if radii.max() == 0.0:  # a point mass
        r = math.cbrt(mass) * 0.062
        return Ellipsoid(r, r, r), RigidTransform(p_BoBcm)
    radii = np.maximum(radii, 1e-2 * radii.max())
    unit_mass = _WATER_DENSITY * 4.0 / 3.0 * math.pi * float(np.prod(radii))
    abc = radii * math.cbrt(mass / unit_mass)
    return Ellipsoid(*abc), RigidTransform(X_BE)


class InertiaVisualizer(LeafSystem):
    """Registers the inertia ellipsoids with ``scene_graph`` and poses them from the plant's geometry poses
    (input ``plant_geometry_pose``, output ``geometry_pose`` to the SceneGraph source it registered)."""

    def __init__(self, plant, scene_graph):
        super().__init__()
        self._source_id = scene_graph.RegisterSource("inertia_visualizer")
        welded = {b.index() for b in plant.GetBodiesWeldedTo(plant.world_body())}
        self._items = []  # (body index, Bo geometry frame, Bcm geometry frame, geometry id)
        for i in range(plant.num_bodies()):
            if i in welded:
                continue
            body = plant.get_body(i)
            frame_name = f"InertiaVisualizer::{plant.GetModelInstanceName(body.model_instance())}::{body.name()}"
            Bcm = scene_graph.RegisterFrame(self._source_id, GeometryFrame(frame_name))
            geometry = GeometryInstance(RigidTransform(), Ellipsoid(0.001, 0.001, 0.001), f"$inertia({i})")
            props = IllustrationProperties()
            props.AddProperty("meshcat", "accepting", "inertia")
            props.AddProperty("phong", "diffuse", Rgba(0.0, 0.0, 1.0, 1.0))
            geometry.set_illustration_properties(props)
            gid = scene_graph.RegisterGeometry(self._source_id, Bcm, geometry)
            self._items.append((i, plant.GetBodyFrameIdIfExists(body.index()), Bcm, gid))
        plant_context = plant.CreateDefaultContext()
        self._X_BBcm = {}
        for i, _, _, gid in self._items:
            ellipsoid, X_BE = CalculateInertiaGeometry(plant.get_body(i), plant_context)
            self._X_BBcm[i] = X_BE
            scene_graph.ChangeShape(self._source_id, gid, ellipsoid)
        self.DeclareAbstractInputPort("plant_geometry_pose", Value(FramePoseVector()))
        self.DeclareAbstractOutputPort("geometry_pose", lambda: Value(FramePoseVector()), self._calc_poses)

    def source_id(self):
        return self._source_id

    def _calc_poses(self, context, value) -> None:
        plant_poses = self.get_input_port().Eval(context)
        poses = FramePoseVector()
        for i, Bo, Bcm, _ in self._items:
            poses.set_value(Bcm, plant_poses.value(Bo) @ self._X_BBcm[i])
        value.set_value(poses)

    @staticmethod
    def AddToBuilder(builder, plant, scene_graph) -> "InertiaVisualizer":
        """Add an InertiaVisualizer named "inertia_visualizer", wired between ``plant`` and ``scene_graph``."""
        visualizer = builder.AddSystem(InertiaVisualizer(plant, scene_graph))
        visualizer.set_name("inertia_visualizer")
        builder.Connect(plant.get_geometry_pose_output_port(), visualizer.get_input_port())
        builder.Connect(visualizer.get_output_port(), scene_graph.get_source_pose_port(visualizer.source_id()))
        return visualizer
