"""`RotationalInertia` I_BP_E, mirroring `pydrake.multibody.tree.RotationalInertia`.

I_BP_E is body (or composite body) B's 3x3 inertia matrix about a point P, expressed in frame E, in kg·m².
As in pydrake (release builds), constructors and arithmetic do not check physical validity, so that
intermediate sums, differences and shifts may be non-physical; call `CouldBePhysicallyValid()` to test
(principal moments non-negative and satisfying the triangle inequality). `SpatialInertia` checks on
construction and raises ValueError naming the failed condition.
"""
from __future__ import annotations

import numpy as np

from mallard.multibody.math import RotationMatrix
from mallard.multibody.math import functions as F
from mallard.multibody.math._validation import MathValueError, as_float, as_vector3
from mallard.multibody.math.symmetric_eigen import symmetric_eigen3

__all__ = ["RotationalInertia"]

_EPS = np.finfo(float).eps


def _matrix_from_moments(Ixx, Iyy, Izz, Ixy=0.0, Ixz=0.0, Iyz=0.0) -> np.ndarray:
    return np.array([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]], dtype=np.float64)


def principal_moments_and_axes(I: np.ndarray):
    """(moments ascending, R_EA) of a symmetric 3x3 inertia, following Drake's conventions.

    Diagonal inputs (products within 4 ε · trace/2) are sorted without an eigen-solve and get axes made of
    ±unit vectors; the triaxially symmetric case returns the identity axes; otherwise the eigenvectors of
    the first two moments (signed as Eigen's solver signs them) are kept and the third axis is their cross
    product (right-handed). For distinct moments the axes therefore equal pydrake's exactly.
    """
    tol = 4.0 * _EPS * 0.5 * float(np.trace(I))
    if abs(I[1, 0]) <= tol and abs(I[2, 0]) <= tol and abs(I[2, 1]) <= tol:
        d = np.diag(I)
        order = sorted(range(3), key=lambda k: (d[k], k))
        moments = d[order].astype(np.float64)
        E = np.eye(3)
        c0, c1, c2 = E[:, order[0]], E[:, order[1]], E[:, order[2]]
        if np.dot(np.cross(c0, c1), c2) <= 0.0:
            c2 = -c2
        R = np.column_stack((c0, c1, c2))
    else:
        moments, vecs = symmetric_eigen3(I)
        R = np.column_stack((vecs[:, 0], vecs[:, 1], np.cross(vecs[:, 0], vecs[:, 1])))
    if moments[2] - moments[0] <= 2.0 * tol:
        R = np.eye(3)
    return moments, R


def _near_positive_and_triangle(p: np.ndarray, epsilon: float) -> bool:
    return bool(np.all(p >= -epsilon) and p[0] + p[1] + epsilon >= p[2] and p[0] + p[2] + epsilon >= p[1]
                and p[1] + p[2] + epsilon >= p[0])


def _clearly_valid(I: np.ndarray) -> bool:
    """True when LAPACK's eigenvalues pass the positivity and triangle tests by a margin (1e-9 of their sum)
    far above any eigen-solver's error (~1e-15 of it), so the exact test would pass too; False means
    "not sure" and the caller runs the exact (Drake-convention) test. A fast path for parsing many bodies."""
    if not I.any():  # zero inertia (massless bodies): principal moments all zero, which pass
        return True
    q = np.linalg.eigvalsh(I)  # ascending
    margin = 1e-9 * float(abs(q[0]) + abs(q[1]) + abs(q[2]))
    return bool(margin > 0.0 and q[0] > margin and q[0] + q[1] > q[2] + margin)


class RotationalInertia:
    """Symmetric 3x3 inertia matrix I_BP_E (kg·m²) of a body B about a point P, expressed in frame E."""

    __slots__ = ("_I",)

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            order = ("Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")
            if set(kwargs) <= set(order):
                args = tuple(args) + tuple(kwargs[k] for k in order[len(args):] if k in kwargs)
            elif set(kwargs) <= {"mass", "p_PQ_E"}:
                args = tuple(args) + tuple(kwargs[k] for k in ("mass", "p_PQ_E")[len(args):])
            else:
                raise TypeError(f"{type(self).__name__}(): unsupported keyword arguments {sorted(kwargs)}.")
        cls = type(self).__name__
        if len(args) == 0:
            self._I = np.full((3, 3), np.nan)
        elif len(args) == 2:
            mass = as_float(args[0], "mass", cls)
            self._I = mass * F.point_mass_unit_inertia(as_vector3(args[1], "p_PQ_E", cls))
        elif len(args) in (3, 6):
            names = ("Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")
            self._I = _matrix_from_moments(*(as_float(a, n, cls) for a, n in zip(args, names)))
        else:
            raise TypeError(f"{cls}(): expected (), (Ixx, Iyy, Izz), (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) or "
                            f"(mass, p_PQ_E), got {len(args)} arguments.")

    @classmethod
    def _wrap(cls, I: np.ndarray):
        """Wraps a trusted symmetric 3x3 array (no copy, no check); for internal use."""
        obj = object.__new__(cls)
        obj._I = I
        return obj

    @staticmethod
    def TriaxiallySymmetric(I_triaxial: float) -> "RotationalInertia":
        """I·Identity, e.g. a solid sphere's inertia about its center."""
        return RotationalInertia(I_triaxial, I_triaxial, I_triaxial)

    # ---- accessors -------------------------------------------------------------------------------
    def rows(self) -> int:
        return 3

    def cols(self) -> int:
        return 3

    def get_moments(self) -> np.ndarray:
        """[Ixx, Iyy, Izz]."""
        return np.diag(self._I).copy()

    def get_products(self) -> np.ndarray:
        """[Ixy, Ixz, Iyz]."""
        return np.array([self._I[0, 1], self._I[0, 2], self._I[1, 2]])

    def Trace(self) -> float:
        return float(np.trace(self._I))

    def CalcMaximumPossibleMomentOfInertia(self) -> float:
        """Trace/2: no moment of inertia about any axis through P can exceed it."""
        return 0.5 * float(np.trace(self._I))

    def CopyToFullMatrix3(self) -> np.ndarray:
        """A copy of the full symmetric 3x3 matrix."""
        return self._I.copy()

    def __getitem__(self, index) -> float:
        """I[i, j] for ints 0 <= i, j <= 2 (the messages match pydrake's for other indices)."""
        cls = type(self).__name__
        if not isinstance(index, tuple):
            raise TypeError(f"{cls}[]: incompatible function arguments: index with [i, j] (two ints), got {index!r}")
        if len(index) != 2:
            raise IndexError(f"{cls}[]: Expected [i,j], got {len(index)} indices {index!r}")
        if not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in index):
            raise TypeError(f"{cls}[]: Unable to cast {index!r} to (int, int) indices")
        i, j = index
        return float(self._I[i, j])

    def SetZero(self) -> None:
        self._I = np.zeros((3, 3))

    def SetToNaN(self) -> None:
        self._I = np.full((3, 3), np.nan)

    def IsNaN(self) -> bool:
        return bool(np.any(np.isnan(self._I)))

    def IsZero(self) -> bool:
        return not bool(np.any(self._I))

    # ---- physical validity and principal axes ----------------------------------------------------
    def CalcPrincipalMomentsOfInertia(self) -> np.ndarray:
        """Principal moments of inertia, sorted ascending (kg·m²)."""
        return principal_moments_and_axes(self._checked_finite("CalcPrincipalMomentsOfInertia"))[0]

    def CalcPrincipalMomentsAndAxesOfInertia(self):
        """(moments ascending, R_EA): columns of R_EA are the principal axes Ax, Ay, Az expressed in E."""
        moments, R = principal_moments_and_axes(self._checked_finite("CalcPrincipalMomentsAndAxesOfInertia"))
        return moments, RotationMatrix._from_trusted(R)

    def _checked_finite(self, func: str) -> np.ndarray:
        if not np.all(np.isfinite(self._I)):
            raise MathValueError(f"{type(self).__name__}.{func}(): the inertia contains NaN or infinity.")
        return self._I

    def CouldBePhysicallyValid(self) -> bool:
        """False if NaN, if a principal moment is negative, or if the triangle inequality fails (16 ε slack)."""
        if not np.isfinite(self._I).all():  # NaN included
            return False
        if _clearly_valid(self._I):
            return True
        epsilon = 16.0 * _EPS * max(1.0, self.CalcMaximumPossibleMomentOfInertia())
        return _near_positive_and_triangle(self.CalcPrincipalMomentsOfInertia(), epsilon)

    def IsNearlyEqualTo(self, other: "RotationalInertia", precision: float) -> bool:
        """True if all moments and products agree within precision · (largest possible moment of either)."""
        scale = max(self.CalcMaximumPossibleMomentOfInertia(), other.CalcMaximumPossibleMomentOfInertia())
        return bool(np.max(np.abs(self._I - other._I)) <= precision * scale)

    # ---- frame and point changes -----------------------------------------------------------------
    def ReExpress(self, R_AE: RotationMatrix):
        """I_BP_A = R_AE I_BP_E R_AEᵀ."""
        R = R_AE._R
        return self._wrap(R @ self._I @ R.T)

    def ShiftFromCenterOfMass(self, mass: float, p_BcmQ_E) -> "RotationalInertia":
        """I_BQ_E from this I_BBcm_E: I_BBcm + m (|p|² I − p pᵀ)."""
        p = as_vector3(p_BcmQ_E, "p_BcmQ_E", "ShiftFromCenterOfMass")
        return RotationalInertia._wrap(self._I + mass * F.point_mass_unit_inertia(p))

    def ShiftToCenterOfMass(self, mass: float, p_QBcm_E) -> "RotationalInertia":
        """I_BBcm_E from this I_BQ_E: I_BQ − m (|p|² I − p pᵀ)."""
        p = as_vector3(p_QBcm_E, "p_QBcm_E", "ShiftToCenterOfMass")
        return RotationalInertia._wrap(self._I - mass * F.point_mass_unit_inertia(p))

    def ShiftToThenAwayFromCenterOfMass(self, mass: float, p_PBcm_E, p_QBcm_E) -> "RotationalInertia":
        """I_BQ_E from this I_BP_E, shifting through Bcm."""
        func = "ShiftToThenAwayFromCenterOfMass"
        p1 = as_vector3(p_PBcm_E, "p_PBcm_E", func)
        p2 = as_vector3(p_QBcm_E, "p_QBcm_E", func)
        return RotationalInertia._wrap(
            self._I + mass * (F.point_mass_unit_inertia(p2) - F.point_mass_unit_inertia(p1)))

    # ---- arithmetic (results are RotationalInertia, unchecked) -----------------------------------
    def __add__(self, other):
        if not isinstance(other, RotationalInertia):
            return NotImplemented
        return RotationalInertia._wrap(self._I + other._I)

    def __sub__(self, other):
        if not isinstance(other, RotationalInertia):
            return NotImplemented
        return RotationalInertia._wrap(self._I - other._I)

    def __iadd__(self, other):
        if not isinstance(other, RotationalInertia):
            return NotImplemented
        self._I = self._I + other._I
        return self

    def __isub__(self, other):
        if not isinstance(other, RotationalInertia):
            return NotImplemented
        self._I = self._I - other._I
        return self

    def __mul__(self, other):
        """I * scalar -> RotationalInertia; I * w (3-vector) -> I w."""
        if isinstance(other, (int, float, np.floating, np.integer)):
            return RotationalInertia._wrap(self._I * float(other))
        if isinstance(other, RotationalInertia):
            return NotImplemented
        return self._I @ as_vector3(other, "w", "RotationalInertia.__mul__")

    def __rmul__(self, scalar):
        if isinstance(scalar, (int, float, np.floating, np.integer)):
            return RotationalInertia._wrap(self._I * float(scalar))
        return NotImplemented

    def __imul__(self, scalar):
        self._I = self._I * as_float(scalar, "scalar", "RotationalInertia.__imul__")
        return self

    def __truediv__(self, scalar):
        s = as_float(scalar, "scalar", "RotationalInertia.__truediv__")
        if s == 0.0:
            raise ZeroDivisionError("RotationalInertia / 0: division of an inertia by zero.")
        return RotationalInertia._wrap(self._I / s)

    def __itruediv__(self, scalar):
        result = self.__truediv__(scalar)
        self._I = result._I
        return self

    # ---- python protocol -------------------------------------------------------------------------
    def _matrix_str(self) -> str:
        return "".join("[" + "  ".join(f"{x:g}" for x in row) + "]\n" for row in self._I)

    def __repr__(self) -> str:
        m, p = self.get_moments(), self.get_products()
        m, p = [float(x) for x in m], [float(x) for x in p]
        return (f"{type(self).__name__}(Ixx={m[0]!r}, Iyy={m[1]!r}, Izz={m[2]!r}, "
                f"Ixy={p[0]!r}, Ixz={p[1]!r}, Iyz={p[2]!r})")

    def __getstate__(self) -> np.ndarray:
        """pydrake's pickle state: the 3x3 matrix."""
        return self._I.copy()

    def __setstate__(self, state) -> None:
        self._I = np.array(state, dtype=np.float64).reshape(3, 3)
