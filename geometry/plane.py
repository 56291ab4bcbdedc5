"""Plane (pydrake.geometry.Plane): the plane n̂·p = d in a frame F, with the box-overlap test the bounding
volumes use."""
from __future__ import annotations

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.multibody.math import RotationMatrix

__all__ = ["Plane", "Plane_"]


class Plane:
    """The plane through ``point_on_plane`` (p_FP) normal to ``normal`` (n_F, normalized unless
    ``already_normalized``); heights are measured along the unit normal, positive above."""

    def __init__(self, normal, point_on_plane, already_normalized: bool = False):
        n = np.asarray(normal, dtype=float).reshape(3)
        if not already_normalized:
            magnitude = float(np.linalg.norm(n))
            if not magnitude >= 1e-10:
                raise RuntimeError(f"Cannot instantiate plane from normal n_F = [{' '.join(map(str, n))}]; its "
                                   f"magnitude is too small: {magnitude}")
            n = n / magnitude
        self._nhat = n
        self._d = float(n @ np.asarray(point_on_plane, dtype=float).reshape(3))

    def unit_normal(self) -> np.ndarray:
        return self._nhat.copy()

    def reference_point(self) -> np.ndarray:
        """A point of the plane (n̂ d, the point nearest Fo), in F."""
        return self._nhat * self._d

    def CalcHeight(self, point) -> float:
        """Signed height of p_FQ above the plane [m]."""
        return float(self._nhat @ np.asarray(point, dtype=float).reshape(3) - self._d)

    def BoxOverlaps(self, half_width, box_center_in_plane, box_orientation_in_plane) -> bool:
        """Whether the box of ``half_width`` centered at p_PBo with orientation R_PB meets the plane."""
        R = box_orientation_in_plane
        R = np.asarray(R.matrix() if isinstance(R, RotationMatrix) else R, dtype=float)
        extent = float(np.abs(R.T @ self._nhat) @ np.asarray(half_width, dtype=float).reshape(3))
        return abs(self.CalcHeight(box_center_in_plane)) <= extent

    def __copy__(self) -> "Plane":
        return self

    def __deepcopy__(self, memo) -> "Plane":
        return self  # immutable

    def __getstate__(self):
        return (self._nhat.copy(), self.reference_point())

    def __setstate__(self, state) -> None:
        n, p = state
        self._nhat = np.asarray(n, dtype=float).reshape(3).copy()
        self._d = float(self._nhat @ np.asarray(p, dtype=float).reshape(3))

    def __repr__(self) -> str:
        return f"Plane(normal={self._nhat.tolist()}, point_on_plane={self.reference_point().tolist()})"


Plane_ = ScalarTemplate("Plane_", Plane)  # pydrake's Plane_[float]
