"""Rgba: a color with red, green, blue, alpha channels in [0, 1] (pydrake.geometry.Rgba)."""
from __future__ import annotations

import numpy as np


class Rgba:
    """An RGBA color, each channel in [0, 1]; alpha defaults to 1 (opaque)."""

    __slots__ = ("_v",)

    def __init__(self, r: float = 1.0, g: float = 1.0, b: float = 1.0, a: float = 1.0):
        self._v = np.empty(4)
        self.set(r, g, b, a)

    @staticmethod
    def _check(v: np.ndarray) -> None:
        if not np.all(np.isfinite(v)) or np.any(v < 0.0) or np.any(v > 1.0):
            raise ValueError(f"Rgba values must all lie in [0, 1]; given {v.tolist()}")

    def r(self) -> float:
        return float(self._v[0])

    def g(self) -> float:
        return float(self._v[1])

    def b(self) -> float:
        return float(self._v[2])

    def a(self) -> float:
        return float(self._v[3])

    @property
    def rgba(self) -> np.ndarray:
        """The four channels as a fresh numpy array."""
        return self._v.copy()

    @rgba.setter
    def rgba(self, value) -> None:
        v = np.asarray(value, dtype=float).reshape(-1)
        if v.size == 3:
            v = np.append(v, 1.0)
        if v.size != 4:
            raise ValueError(f"Rgba needs 3 or 4 values; given {v.size}")
        self.set(*v)

    def set(self, r: float, g: float, b: float, a: float = 1.0) -> None:
        """Set all channels; raises ValueError if any is outside [0, 1]."""
        v = np.array([r, g, b, a], dtype=float)
        self._check(v)
        self._v[:] = v

    def update(self, r=None, g=None, b=None, a=None) -> None:
        """Set only the channels given."""
        v = self._v.copy()
        for i, x in enumerate((r, g, b, a)):
            if x is not None:
                v[i] = x
        self._check(v)
        self._v[:] = v

    def scale_rgb(self, scale: float) -> "Rgba":
        """A copy with r, g, b multiplied by ``scale`` (clamped to 1), alpha unchanged."""
        if scale < 0:
            raise ValueError(f"Rgba.scale_rgb needs a non-negative scale; given {scale}")
        v = self._v.copy()
        v[:3] = np.minimum(v[:3] * scale, 1.0)
        return Rgba(*v)

    def __eq__(self, other) -> bool:
        return isinstance(other, Rgba) and bool(np.all(self._v == other._v))

    def __hash__(self):
        return hash(tuple(self._v))

    def __repr__(self) -> str:
        r, g, b, a = self._v
        return f"Rgba(r={r:g}, g={g:g}, b={b:g}, a={a:g})"

    def __getstate__(self):
        return self._v.copy()

    def __setstate__(self, state):
        self._v = np.array(state, dtype=float)
