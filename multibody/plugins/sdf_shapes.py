"""First-party SDF plugins: MuJoCo's `mujoco.sdf.bowl` and `mujoco.sdf.torus` (same names, configs, math).

Their distance and gradient run in the compiled kernels of `mallard.geometry.collision.sdf`
(`sdf_kernel` gives the kernel id and parameters), so SDF collisions with them need no Python
callbacks per iteration.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from mallard.geometry.collision.sdf import SDF_BOWL, SDF_TORUS, shape_distance, shape_gradient

from .plugin import Capability, ConfigAttribute, Plugin, PluginInstance

__all__ = ["BowlSdf", "TorusSdf"]


class _KernelSdf(Plugin):
    """An SDF evaluated by a compiled kernel; plugin data is the kernel parameter vector."""

    capabilities = Capability.SDF
    kernel: int = -1
    keys: tuple[str, ...] = ()

    def params(self, config: Mapping[str, Any]) -> np.ndarray:
        """Kernel parameters (floats in `keys` order) of a validated config."""
        return np.array([float(config[k]) for k in self.keys])

    def init(self, instance: PluginInstance, state: np.ndarray) -> np.ndarray:
        return self.params(instance.config)

    def compute(self, capability, instance, data, frame) -> None:
        """Nothing to compute per step: the shape is static."""

    def sdf_distance(self, p: np.ndarray, data: np.ndarray) -> float:
        return shape_distance(self.kernel, data, np.asarray(p, float))

    def sdf_gradient(self, p: np.ndarray, data: np.ndarray) -> np.ndarray:
        return shape_gradient(self.kernel, data, np.asarray(p, float))

    def sdf_staticdistance(self, p: np.ndarray, config: Mapping[str, Any]) -> float:
        return shape_distance(self.kernel, self.params(self.ValidateConfig(config)), np.asarray(p, float))

    def sdf_kernel(self, config: Mapping[str, Any]) -> tuple[int, np.ndarray]:
        return self.kernel, self.params(self.ValidateConfig(config))


class BowlSdf(_KernelSdf):
    """A hollow spherical cap (bowl) of sphere radius `radius`, wall half-thickness `thickness`, open
    above the plane z = `height` (the rim); the sphere centre is the frame origin [m].

    Inside the bowl (|p| < radius - thickness) a ball of radius a rests at depth
    -(radius - thickness - a) on the z axis.
    """

    name = "mujoco.sdf.bowl"
    kernel = SDF_BOWL
    keys = ("height", "radius", "thickness")
    attributes = (
        ConfigAttribute("height", "real", default=0.4, doc="rim height above the sphere centre [m]"),
        ConfigAttribute("radius", "real", default=1.0, low=0.0, open_low=True, doc="sphere radius [m]"),
        ConfigAttribute("thickness", "real", default=0.02, low=0.0, open_low=True, doc="wall half-thickness [m]"),
    )

    def CheckConfig(self, config: dict[str, Any]) -> None:
        if abs(config["height"]) >= config["radius"]:
            raise ValueError(f"plugin '{self.name}': config attribute 'height' ({config['height']:g}) must be "
                             f"smaller in magnitude than 'radius' ({config['radius']:g})")

    def sdf_aabb(self, config: Mapping[str, Any]) -> np.ndarray:
        c = self.ValidateConfig(config)
        half = c["radius"] + c["thickness"]
        return np.array([0.0, 0.0, 0.0, half, half, half])


class TorusSdf(_KernelSdf):
    """A torus about the frame z axis: ring radius `radius1`, tube radius `radius2` [m]."""

    name = "mujoco.sdf.torus"
    kernel = SDF_TORUS
    keys = ("radius1", "radius2")
    attributes = (
        ConfigAttribute("radius1", "real", default=0.35, low=0.0, open_low=True, doc="ring radius [m]"),
        ConfigAttribute("radius2", "real", default=0.15, low=0.0, open_low=True, doc="tube radius [m]"),
    )

    def sdf_aabb(self, config: Mapping[str, Any]) -> np.ndarray:
        c = self.ValidateConfig(config)
        r = c["radius1"] + c["radius2"]
        return np.array([0.0, 0.0, 0.0, r, r, c["radius2"]])
