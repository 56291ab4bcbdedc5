"""Shared compile state: compiler settings, default classes, assets and the orientation rules."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .defaults import DefaultClasses
from .errors import MjcfUnsupportedWarning, Where, error_at
from .model import MjcfMesh
from .rotations import MJ_EPS, euler_quat, mat_to_quat, quat_normalize, z_to_quat


@dataclass
class CompileContext:
    """Everything the compiler passes around: settings from <compiler>, classes, meshes, warnings."""

    compiler: dict
    defaults: DefaultClasses
    model_dir: Path | str  #: folder (Path) or resource-provider directory (str) for relative asset names
    strict: bool
    meshes: dict[str, int] = field(default_factory=dict)
    mesh_list: list[MjcfMesh] = field(default_factory=list)
    hfields: dict[str, dict] = field(default_factory=dict)
    materials: dict[str, dict] = field(default_factory=dict)
    textures: list[dict] = field(default_factory=list)
    warned: set[str] = field(default_factory=set)
    unsupported: list[str] = field(default_factory=list)
    submodels: dict[str, object] = field(default_factory=dict)
    attach_stack: list[str] = field(default_factory=list)
    attached: list = field(default_factory=list)  #: attach.Attached records, in attach order
    plugins: object = None  #: plugins.PluginTable of the main model (None inside attached sub-models)
    body_plugins: list = field(default_factory=list)  #: (body id, <plugin> element) met in the tree walk

    @property
    def degree(self) -> bool:
        return self.compiler["angle"] == "degree"

    def angle(self, value: float) -> float:
        """Convert an angle given in the file to radians (compiler angle)."""
        return value / 180.0 * math.pi if self.degree else value

    def warn(self, where: Where | None, message: str, kind: str) -> None:
        """Report an unsupported feature once per kind (an error in strict mode)."""
        if self.strict:
            raise error_at(where, message + " (strict mode)")
        text = f"{where}: {message}" if where else f"MJCF: {message}"
        self.unsupported.append(text)
        if kind not in self.warned:
            self.warned.add(kind)
            warnings.warn(text, MjcfUnsupportedWarning, stacklevel=3)

    def orientation(self, attrs: dict, where: Where) -> np.ndarray:
        """Quaternion of the orientation alternative in effect in `attrs` (quat, axisangle, xyaxes, zaxis, euler)."""
        kind = attrs.get("__orient__", "quat")
        if kind == "quat" or attrs.get(kind) is None:
            q = np.asarray(attrs.get("quat") or (1.0, 0.0, 0.0, 0.0), dtype=float)
            if not np.all(np.isfinite(q)):
                raise error_at(where, f"quat {q.tolist()} is not finite")
            if float(q @ q) < MJ_EPS:
                raise error_at(where, "quat has zero length")
            return quat_normalize(q)
        v = np.asarray(attrs[kind], dtype=float)
        if not np.all(np.isfinite(v)):
            raise error_at(where, f"{kind} {v.tolist()} is not finite")
        if kind == "axisangle":
            axis = v[:3]
            n = float(np.linalg.norm(axis))
            if n < MJ_EPS:
                raise error_at(where, "axisangle: axis too small")
            ang = self.angle(v[3])
            return quat_normalize(np.concatenate([[math.cos(ang / 2)], math.sin(ang / 2) * axis / n]))
        if kind == "xyaxes":
            x = v[:3]
            nx = float(np.linalg.norm(x))
            if nx < MJ_EPS:
                raise error_at(where, "xyaxes: x axis too small")
            x = x / nx
            y = v[3:] - x * float(x @ v[3:])
            ny = float(np.linalg.norm(y))
            if ny < MJ_EPS:
                raise error_at(where, "xyaxes: y axis too small or parallel to x")
            y = y / ny
            z = np.cross(x, y)
            z = z / np.linalg.norm(z)
            return mat_to_quat(np.column_stack([x, y, z]))
        if kind == "zaxis":
            if float(np.linalg.norm(v)) < MJ_EPS:
                raise error_at(where, "zaxis too small")
            return z_to_quat(v)
        seq = self.compiler["eulerseq"]
        if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
            raise error_at(where, f"compiler eulerseq '{seq}' must be 3 characters from x, y, z, X, Y, Z")
        return euler_quat([self.angle(e) for e in v], seq)
