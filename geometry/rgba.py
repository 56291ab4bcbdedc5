"""Rgba: a color with red, green, blue, alpha channels in [0, 1] (pydrake.geometry.Rgba)."""
from __future__ import annotations

import numpy as np

from mallard.geometry.identifiers import GeometryValueError


def _fmt(x: float) -> str:
    return f"{x:g}"


class Rgba:
    """An RGBA color, each channel in [0, 1]; alpha defaults to 1 (opaque). ``Rgba()`` is opaque white."""

    __slots__ = ("_v",)

    def __init__(self, r: float = 1.0, g: float = 1.0, b: float = 1.0, a: float = 1.0):
        self._v = np.empty(4)
        self._set(np.array([r, g, b, a], dtype=float))

    def _set(self, v: np.ndarray) -> None:
        if not np.all(np.isfinite(v)) or np.any(v < 0.0) or np.any(v > 1.0):
            raise GeometryValueError("Rgba values must be within the range [0, 1]. Values provided: "
                                     f"(r={_fmt(v[0])}, g={_fmt(v[1])}, b={_fmt(v[2])}, a={_fmt(v[3])})")
        self._v[:] = v

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
        """The four channels as a fresh numpy array; assign 3 or 4 values to set them (alpha 1 for 3)."""
        return self._v.copy()

    @rgba.setter
    def rgba(self, value) -> None:
        self.set(rgba=value)

    def set(self, r=None, g=None, b=None, a: float = 1.0, *, rgba=None) -> None:
        """set(r, g, b, a=1.0) or set(rgba=[r, g, b(, a)]); raises if any channel is outside [0, 1]."""
        if rgba is not None or (r is not None and np.ndim(r) == 1):
            v = np.asarray(rgba if rgba is not None else r, dtype=float).reshape(-1)
            if v.size not in (3, 4):
                raise GeometryValueError(f"Rgba must contain either 3 or 4 elements (given [{v.size}])")
            self._set(np.append(v, 1.0) if v.size == 3 else v)
            return
        if r is None or g is None or b is None:
            raise TypeError("Rgba.set(r, g, b, a=1.0) or Rgba.set(rgba=[...])")
        self._set(np.array([r, g, b, a], dtype=float))

    def update(self, r=None, g=None, b=None, a=None) -> None:
        """Set only the channels given."""
        v = self._v.copy()
        for i, x in enumerate((r, g, b, a)):
            if x is not None:
                v[i] = x
        self._set(v)

    def scale_rgb(self, scale: float) -> "Rgba":
        """A copy with r, g, b multiplied by ``scale`` (clamped to 1), alpha unchanged."""
        if not scale >= 0:
            raise GeometryValueError(f"Rgba.scale_rgb needs a non-negative scale; given {scale}")
        v = self._v.copy()
        v[:3] = np.minimum(v[:3] * scale, 1.0)
        return Rgba(*v)

    def __mul__(self, other: "Rgba") -> "Rgba":
        """The channel-wise product (modulation) of two colors."""
        if not isinstance(other, Rgba):
            return NotImplemented
        return Rgba(*(self._v * other._v))

    def __eq__(self, other) -> bool:
        return isinstance(other, Rgba) and bool(np.all(self._v == other._v))

    def __hash__(self):
        return hash(tuple(self._v))

    def __repr__(self) -> str:
        r, g, b, a = (repr(float(x)) for x in self._v)
        return f"Rgba(r={r}, g={g}, b={b}, a={a})"

    def __copy__(self) -> "Rgba":
        return Rgba(*self._v)

    def __deepcopy__(self, memo) -> "Rgba":
        return Rgba(*self._v)

    def __getstate__(self):
        return self._v.copy()

    def __setstate__(self, state):
        self._v = np.array(state, dtype=float)
