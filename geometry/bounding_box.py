"""Bounding boxes (pydrake.geometry.Aabb, Obb): an axis-aligned box and an oriented box posed in a hierarchy
frame H, their overlap tests against each other, half spaces and planes (Gottschalk's separating-axis test,
as Drake), and their volume."""
from __future__ import annotations

import numpy as np

from mallard.common.overloads import Overload, declares, resolve
from mallard.geometry.plane import Plane
from mallard.geometry.shapes import HalfSpace
from mallard.multibody.math import RigidTransform

__all__ = ["Aabb", "Obb", "BoxesOverlap"]

_EPS_PARALLEL = 1e-6  # Gottschalk's robustness epsilon on |R| (parallel edges)


def _half_width(half_width, who: str) -> np.ndarray:
    h = np.array(half_width, dtype=float).reshape(3)
    if not np.all(h >= 0.0):
        raise ValueError(f"{who}: half_width must be non-negative; given {h.tolist()}")
    return h


def _Rp(X: RigidTransform) -> tuple[np.ndarray, np.ndarray]:
    return X.rotation().matrix(), X.translation()


def BoxesOverlap(half_size_a, half_size_b, R_AB: np.ndarray, p_AB: np.ndarray) -> bool:
    """Whether box a (centered at Ao, axes A) and box b (center p_AB, axes R_AB) overlap: the 15 separating
    axes of Gottschalk's test, each padded by 1e-6 |R| against parallel edges."""
    a = np.asarray(half_size_a, dtype=float)
    b = np.asarray(half_size_b, dtype=float)
    r, t = np.asarray(R_AB, dtype=float), np.asarray(p_AB, dtype=float)
    abs_r = np.abs(r) + _EPS_PARALLEL
    if np.any(np.abs(t) > a + abs_r @ b):  # a's axes
        return False
    if np.any(np.abs(t @ r) > b + a @ abs_r):  # b's axes
        return False
    for i in range(3):  # the cross products of a's and b's axes
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            if abs(t[i2] * r[i1, j] - t[i1] * r[i2, j]) > (a[i1] * abs_r[i2, j] + a[i2] * abs_r[i1, j]
                                                           + b[j1] * abs_r[i, j2] + b[j2] * abs_r[i, j1]):
                return False
    return True


def _overlaps_half_space(half_width, R_CB: np.ndarray, p_CB: np.ndarray) -> bool:
    """A box (axes R_CB, center p_CB) overlaps the half space z <= 0 of C when its center is no higher than
    its extent along Cz."""
    clearance = float(np.abs(R_CB[2]) @ half_width)
    return float(p_CB[2]) <= clearance


class Aabb:
    """An axis-aligned box of frame H: center p_HoBo and non-negative ``half_width`` [m]."""

    def __init__(self, p_HoBo, half_width):
        self._center = np.array(p_HoBo, dtype=float).reshape(3)
        self._half_width = _half_width(half_width, "Aabb")

    def center(self) -> np.ndarray:
        return self._center.copy()

    def half_width(self) -> np.ndarray:
        return self._half_width.copy()

    def lower(self) -> np.ndarray:
        return self._center - self._half_width

    def upper(self) -> np.ndarray:
        return self._center + self._half_width

    def pose(self) -> RigidTransform:
        """X_HB: a pure translation to the center."""
        return RigidTransform(self._center)

    def CalcVolume(self) -> float:
        h = self._half_width
        return float(h[0] * h[1] * h[2] * 8)

    def Equal(self, other: "Aabb") -> bool:
        """Exactly the same center and half widths."""
        return np.array_equal(self._center, other._center) and np.array_equal(self._half_width, other._half_width)

    @staticmethod
    def HasOverlap(*args, **kwargs) -> bool:
        """HasOverlap(a_G, b_H, X_GH) for two Aabb or an Aabb and an Obb, (bv_H, hs_C, X_CH) for a half space,
        (bv_H, plane_P, X_PH) for a Plane."""
        k, a = resolve("Aabb.HasOverlap", Aabb._OVERLOADS, args, kwargs)
        if k <= 1:
            box, other, X = (a["a_G"], a["b_H"], a["X_GH"]) if k == 0 else (a["aabb_G"], a["obb_H"], a["X_GH"])
            R_GH, p_GH = _Rp(X)
            if k == 0:
                return BoxesOverlap(box._half_width, other._half_width, R_GH, R_GH @ other._center + p_GH
                                    - box._center)
            R_HO, p_HO = _Rp(other._pose)
            return BoxesOverlap(box._half_width, other._half_width, R_GH @ R_HO, R_GH @ p_HO + p_GH - box._center)
        box = a["bv_H"]
        if k == 2:
            R_CH, p_CH = _Rp(a["X_CH"])
            return _overlaps_half_space(box._half_width, R_CH, p_CH + R_CH @ box._center)
        R_PH, p_PH = _Rp(a["X_PH"])
        return a["plane_P"].BoxOverlaps(box._half_width, R_PH @ box._center + p_PH, R_PH)

    def __copy__(self) -> "Aabb":
        return Aabb(self._center, self._half_width)

    def __deepcopy__(self, memo) -> "Aabb":
        return self.__copy__()

    def __getstate__(self):
        return (self._center.copy(), self._half_width.copy())

    def __setstate__(self, state) -> None:
        self._center = np.array(state[0], dtype=float).reshape(3)
        self._half_width = np.array(state[1], dtype=float).reshape(3)

    def __repr__(self) -> str:
        return f"Aabb(p_HoBo={self._center.tolist()}, half_width={self._half_width.tolist()})"


class Obb:
    """An oriented box: its pose X_HB in frame H (Bo at the center, axes along the box) and non-negative
    ``half_width`` [m]. As Drake, the half widths are padded by max(2e-14, ε·scale) so the box contains its
    points despite round-off."""

    _TOLERANCE = 2e-14

    def __init__(self, X_HB: RigidTransform, half_width):
        if not isinstance(X_HB, RigidTransform):
            raise TypeError(f"Obb: X_HB must be a RigidTransform; given {type(X_HB).__name__}")
        self._pose = RigidTransform(X_HB)
        h = _half_width(half_width, "Obb")
        scale = max(float(np.max(np.abs(X_HB.translation()))), float(h.max()))
        self._half_width = h + max(scale * np.finfo(float).eps, self._TOLERANCE)

    def center(self) -> np.ndarray:
        return self._pose.translation()

    def half_width(self) -> np.ndarray:
        return self._half_width.copy()

    def pose(self) -> RigidTransform:
        return RigidTransform(self._pose)

    def CalcVolume(self) -> float:
        h = self._half_width
        return float(h[0] * h[1] * h[2] * 8)

    def Equal(self, other: "Obb") -> bool:
        """Exactly the same pose and half widths."""
        return self._pose.IsExactlyEqualTo(other._pose) and np.array_equal(self._half_width, other._half_width)

    @staticmethod
    def HasOverlap(*args, **kwargs) -> bool:
        """HasOverlap(a_G, b_H, X_GH) for two Obb or an Obb and an Aabb, (bv_H, hs_C, X_CH) for a half space,
        (bv_H, plane_P, X_PH) for a Plane."""
        k, a = resolve("Obb.HasOverlap", Obb._OVERLOADS, args, kwargs)
        if k <= 1:
            box, other, X = (a["a_G"], a["b_H"], a["X_GH"]) if k == 0 else (a["obb_G"], a["aabb_H"], a["X_GH"])
            R_GH, p_GH = _Rp(X)
            R_GA, p_GA = _Rp(box._pose)
            if k == 0:
                R_HB, p_HB = _Rp(other._pose)
                R_AB = R_GA.T @ R_GH @ R_HB
                p_AB = R_GA.T @ (R_GH @ p_HB + p_GH - p_GA)
                return BoxesOverlap(box._half_width, other._half_width, R_AB, p_AB)
            # The Aabb (its frame aligned with H) is the first box: R_AO = R_HG R_GO.
            R_HG = R_GH.T
            p_HO = R_HG @ (p_GA - p_GH)
            return BoxesOverlap(other._half_width, box._half_width, R_HG @ R_GA, p_HO - other._center)
        box = a["bv_H"]
        R_HB, p_HB = _Rp(box._pose)
        if k == 2:
            R_CH, p_CH = _Rp(a["X_CH"])
            return _overlaps_half_space(box._half_width, R_CH @ R_HB, p_CH + R_CH @ p_HB)
        R_PH, p_PH = _Rp(a["X_PH"])
        return a["plane_P"].BoxOverlaps(box._half_width, R_PH @ p_HB + p_PH, R_PH @ R_HB)

    def __copy__(self) -> "Obb":
        new = Obb.__new__(Obb)
        new._pose, new._half_width = RigidTransform(self._pose), self._half_width.copy()
        return new

    def __deepcopy__(self, memo) -> "Obb":
        return self.__copy__()

    def __getstate__(self):
        return (self._pose.GetAsMatrix4(), self._half_width.copy())

    def __setstate__(self, state) -> None:
        self._pose = RigidTransform(np.asarray(state[0], dtype=float))
        self._half_width = np.array(state[1], dtype=float).reshape(3)

    def __repr__(self) -> str:
        R = self._pose.rotation().matrix()
        return f"Obb(X_HB=RigidTransform(R={R.tolist()}, p={self.center().tolist()}), " \
               f"half_width={self._half_width.tolist()})"


# pydrake's HasOverlap overloads (defined once both box types exist).
Aabb._OVERLOADS = (Overload(("a_G", Aabb), ("b_H", Aabb), ("X_GH", RigidTransform)),
                   Overload(("aabb_G", Aabb), ("obb_H", Obb), ("X_GH", RigidTransform)),
                   Overload(("bv_H", Aabb), ("hs_C", HalfSpace), ("X_CH", RigidTransform)),
                   Overload(("bv_H", Aabb), ("plane_P", Plane), ("X_PH", RigidTransform)))
Obb._OVERLOADS = (Overload(("a_G", Obb), ("b_H", Obb), ("X_GH", RigidTransform)),
                  Overload(("obb_G", Obb), ("aabb_H", Aabb), ("X_GH", RigidTransform)),
                  Overload(("bv_H", Obb), ("hs_C", HalfSpace), ("X_CH", RigidTransform)),
                  Overload(("bv_H", Obb), ("plane_P", Plane), ("X_PH", RigidTransform)))
declares(Aabb._OVERLOADS)(Aabb.HasOverlap)
declares(Obb._OVERLOADS)(Obb.HasOverlap)
