"""MeshcatPointCloudVisualizer (pydrake.geometry): draws the point cloud on its ``cloud`` input in Meshcat,
posed by its optional ``X_ParentPointCloud`` input, every publish period.

The cloud is any value with ``xyzs()`` (3, N) [m] and, optionally, ``has_rgbs()`` / ``rgbs()`` (3, N) 0..255
(pydrake.perception.PointCloud's interface), or a plain 3xN array of points.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.meshcat import Meshcat
from mallard.geometry.rgba import Rgba
from mallard.multibody.math import RigidTransform
from mallard.systems.framework import LeafSystem, Value

__all__ = ["MeshcatPointCloudVisualizer", "MeshcatPointCloudVisualizer_"]


class MeshcatPointCloudVisualizer(LeafSystem):
    """Publishes a point cloud to ``path`` of a Meshcat every ``publish_period`` (s)."""

    def __init__(self, meshcat: Meshcat, path: str, publish_period: float = 1.0 / 32.0):
        super().__init__()
        if not isinstance(meshcat, Meshcat):
            raise ValueError(f"MeshcatPointCloudVisualizer needs a Meshcat; given {type(meshcat).__name__}")
        if not (math.isfinite(float(publish_period)) and float(publish_period) > 0):
            raise ValueError(f"MeshcatPointCloudVisualizer: publish_period must be finite and > 0 s; given "
                             f"{publish_period!r}")
        self._meshcat = meshcat
        self._path = str(path)
        self._point_size = 0.001
        self._rgba = Rgba(0.9, 0.9, 0.9, 1.0)
        self._cloud_port = self.DeclareAbstractInputPort("cloud", Value(np.zeros((3, 0))))
        self._pose_port = self.DeclareAbstractInputPort("X_ParentPointCloud", Value(RigidTransform()), required=False)
        self.DeclarePeriodicPublishEvent(float(publish_period), 0.0, self._publish)
        self.DeclareForcedPublishEvent(self._publish)

    def set_point_size(self, point_size: float) -> None:
        """The drawn size of each point [m]."""
        if not float(point_size) > 0:
            raise ValueError(f"MeshcatPointCloudVisualizer.set_point_size: need > 0; given {point_size!r}")
        self._point_size = float(point_size)

    def set_default_rgba(self, rgba: Rgba) -> None:
        """The color of clouds without per-point colors."""
        if not isinstance(rgba, Rgba):
            raise ValueError(f"MeshcatPointCloudVisualizer.set_default_rgba needs an Rgba; given {type(rgba).__name__}")
        self._rgba = rgba

    def cloud_input_port(self):
        return self._cloud_port

    def pose_input_port(self):
        """The optional pose X_ParentPointCloud of the cloud in the parent of ``path`` (identity if unconnected)."""
        return self._pose_port

    def Delete(self) -> None:
        """Remove the drawn cloud from the Meshcat scene."""
        self._meshcat.Delete(self._path)

    def _publish(self, context) -> None:
        cloud = self._cloud_port.Eval(context)
        self._meshcat.SetObject(self._path, cloud, self._point_size, self._rgba)
        if self._pose_port.HasValue(context):
            self._meshcat.SetTransform(self._path, self._pose_port.Eval(context), context.get_time())


MeshcatPointCloudVisualizer_ = ScalarTemplate("MeshcatPointCloudVisualizer_", MeshcatPointCloudVisualizer)
