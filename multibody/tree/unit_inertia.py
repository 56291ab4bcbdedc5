"""`UnitInertia` G_BP_E, mirroring `pydrake.multibody.tree.UnitInertia`.

A unit inertia is a rotational inertia per unit mass (m²): I_BP_E = m G_BP_E. Its factories give the unit
inertias of common solids about their centroids; lengths in m, `unit_vector` the symmetry axis in E.
Arithmetic inherited from RotationalInertia (+, −, * scalar) returns a plain RotationalInertia, as in pydrake.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.multibody.math import functions as F
from mallard.multibody.math._validation import (
    MathValueError,
    as_float,
    as_vector3,
    nonnegative_finite,
    positive_finite,
    unit_vector as _unit_vector,
)
from mallard.multibody.tree.rotational_inertia import RotationalInertia

__all__ = ["UnitInertia"]


class UnitInertia(RotationalInertia):
    """Rotational inertia per unit mass G_BP_E (m²) of a body B about a point P, expressed in frame E."""

    __slots__ = ()

    def __init__(self, *args, **kwargs) -> None:
        if len(args) == 1 and not kwargs and isinstance(args[0], RotationalInertia):
            self._I = args[0]._I.copy()
            return
        if "I" in kwargs and not args and len(kwargs) == 1:
            self.__init__(kwargs["I"])
            return
        if len(args) == 2 or ({"mass", "p_PQ_E"} & set(kwargs)):
            raise TypeError("UnitInertia(): expected (), (Ixx, Iyy, Izz), (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) or "
                            "(I: RotationalInertia); for a point mass use UnitInertia.PointMass(p_FQ).")
        super().__init__(*args, **kwargs)

    def SetFromRotationalInertia(self, I: RotationalInertia, mass: float) -> "UnitInertia":
        """Sets G = I / mass and returns self; mass must be positive."""
        m = positive_finite(mass, "mass", "UnitInertia.SetFromRotationalInertia")
        self._I = I._I / m
        return self

    def ShiftFromCenterOfMass(self, p_BcmQ_E) -> "UnitInertia":  # type: ignore[override]
        """G_BQ_E from this G_BBcm_E: G + |p|² I − p pᵀ."""
        p = as_vector3(p_BcmQ_E, "p_BcmQ_E", "UnitInertia.ShiftFromCenterOfMass")
        return UnitInertia._wrap(self._I + F.point_mass_unit_inertia(p))

    def ShiftToCenterOfMass(self, p_QBcm_E) -> "UnitInertia":  # type: ignore[override]
        """G_BBcm_E from this G_BQ_E: G − (|p|² I − p pᵀ)."""
        p = as_vector3(p_QBcm_E, "p_QBcm_E", "UnitInertia.ShiftToCenterOfMass")
        return UnitInertia._wrap(self._I - F.point_mass_unit_inertia(p))

    # ---- factories -------------------------------------------------------------------------------
    @staticmethod
    def _diag(a: float, b: float, c: float) -> "UnitInertia":
        return UnitInertia._wrap(np.diag([a, b, c]).astype(np.float64))

    @staticmethod
    def TriaxiallySymmetric(I_triaxial: float) -> "UnitInertia":  # type: ignore[override]
        """G = I_triaxial · Identity."""
        v = as_float(I_triaxial, "I_triaxial", "UnitInertia.TriaxiallySymmetric")
        return UnitInertia(v, v, v)

    @staticmethod
    def PointMass(p_FQ) -> "UnitInertia":
        """Unit inertia about Fo of a unit point mass at Q: |p|² I − p pᵀ."""
        return UnitInertia._wrap(F.point_mass_unit_inertia(as_vector3(p_FQ, "p_FQ", "UnitInertia.PointMass")))

    @staticmethod
    def SolidEllipsoid(a: float, b: float, c: float) -> "UnitInertia":
        """Solid ellipsoid with semi-axes a, b, c along x, y, z, about its center."""
        func = "UnitInertia.SolidEllipsoid"
        a, b, c = (nonnegative_finite(v, n, func) for v, n in ((a, "a"), (b, "b"), (c, "c")))
        return UnitInertia._diag((b * b + c * c) / 5.0, (a * a + c * c) / 5.0, (a * a + b * b) / 5.0)

    @staticmethod
    def SolidSphere(r: float) -> "UnitInertia":
        """Solid sphere of radius r about its center: (2/5) r² I."""
        r = nonnegative_finite(r, "radius", "UnitInertia.SolidSphere")
        v = 0.4 * r * r
        return UnitInertia._diag(v, v, v)

    @staticmethod
    def HollowSphere(r: float) -> "UnitInertia":
        """Thin spherical shell of radius r about its center: (2/3) r² I."""
        r = nonnegative_finite(r, "radius", "UnitInertia.HollowSphere")
        v = 2.0 / 3.0 * r * r
        return UnitInertia._diag(v, v, v)

    @staticmethod
    def SolidBox(Lx: float, Ly: float, Lz: float) -> "UnitInertia":
        """Solid box with edge lengths Lx, Ly, Lz about its center."""
        func = "UnitInertia.SolidBox"
        x, y, z = (nonnegative_finite(v, n, func) for v, n in ((Lx, "Lx"), (Ly, "Ly"), (Lz, "Lz")))
        x2, y2, z2 = x * x, y * y, z * z
        return UnitInertia._diag((y2 + z2) / 12.0, (x2 + z2) / 12.0, (x2 + y2) / 12.0)

    @staticmethod
    def SolidCube(L: float) -> "UnitInertia":
        """Solid cube of edge length L about its center: L²/6 I."""
        L = nonnegative_finite(L, "L", "UnitInertia.SolidCube")
        return UnitInertia.SolidBox(L, L, L)

    @staticmethod
    def AxiallySymmetric(moment_parallel: float, moment_perpendicular: float, unit_vector) -> "UnitInertia":
        """G = K I + (J − K) b bᵀ: moment J about the unit axis b and K about any perpendicular axis."""
        func = "UnitInertia.AxiallySymmetric"
        J = nonnegative_finite(moment_parallel, "moment_parallel", func)
        K = nonnegative_finite(moment_perpendicular, "moment_perpendicular", func)
        if J > 2.0 * K * (1.0 + 4.0 * np.finfo(float).eps):
            raise MathValueError(f"{func}(): moment_parallel = {J:g} exceeds twice moment_perpendicular = {K:g}, "
                                 "which violates the triangle inequality.")
        b = _unit_vector(unit_vector, "unit_vector", func)
        return UnitInertia._wrap(K * np.eye(3) + (J - K) * np.outer(b, b))

    @staticmethod
    def StraightLine(moment_perpendicular: float, unit_vector) -> "UnitInertia":
        """A body whose mass lies on the line through the origin along the unit vector (zero parallel moment)."""
        return UnitInertia.AxiallySymmetric(0.0, moment_perpendicular, unit_vector)

    @staticmethod
    def ThinRod(length: float, unit_vector) -> "UnitInertia":
        """Thin rod of the given length along the unit vector, about its center: L²/12 perpendicular."""
        L = nonnegative_finite(length, "length", "UnitInertia.ThinRod")
        return UnitInertia.StraightLine(L * L / 12.0, unit_vector)

    @staticmethod
    def SolidCylinder(radius: float, length: float, unit_vector) -> "UnitInertia":
        """Solid cylinder (axis along the unit vector) about its center: J = r²/2, K = (3r² + L²)/12."""
        func = "UnitInertia.SolidCylinder"
        r = nonnegative_finite(radius, "radius", func)
        L = nonnegative_finite(length, "length", func)
        return UnitInertia.AxiallySymmetric(r * r / 2.0, (3.0 * r * r + L * L) / 12.0, unit_vector)

    @staticmethod
    def SolidCylinderAboutEnd(radius: float, length: float, unit_vector) -> "UnitInertia":
        """Solid cylinder about the center of one end face: K = (3r² + 4L²)/12 perpendicular."""
        func = "UnitInertia.SolidCylinderAboutEnd"
        r = nonnegative_finite(radius, "radius", func)
        L = nonnegative_finite(length, "length", func)
        return UnitInertia.AxiallySymmetric(r * r / 2.0, (3.0 * r * r + 4.0 * L * L) / 12.0, unit_vector)

    @staticmethod
    def SolidCapsule(radius: float, length: float, unit_vector) -> "UnitInertia":
        """Solid capsule (cylinder of the given length capped by two hemispheres) about its center."""
        func = "UnitInertia.SolidCapsule"
        r = nonnegative_finite(radius, "radius", func)
        L = nonnegative_finite(length, "length", func)
        v_cyl = math.pi * r * r * L
        v_sph = 4.0 / 3.0 * math.pi * r ** 3
        total = v_cyl + v_sph
        if total == 0.0:
            return UnitInertia.AxiallySymmetric(0.0, 0.0, unit_vector)
        f_cyl, f_sph = v_cyl / total, v_sph / total
        J = f_cyl * r * r / 2.0 + f_sph * 0.4 * r * r
        K = f_cyl * (3.0 * r * r + L * L) / 12.0 + f_sph * (0.4 * r * r + L * L / 4.0 + 3.0 / 8.0 * L * r)
        return UnitInertia.AxiallySymmetric(J, K, unit_vector)
