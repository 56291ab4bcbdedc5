"""`SpatialInertia` M_SP_E, mirroring `pydrake.multibody.tree.SpatialInertia`.

M_SP_E describes the mass distribution of a body (or composite body) S about a point P, expressed in frame
E, by three quantities: mass m (kg), position p_PScm_E of S's center of mass from P (m), and unit inertia
G_SP_E (m²). As a 6x6 matrix it maps spatial velocity to spatial momentum and spatial acceleration to
spatial force: [I_SP, m [p]ₓ; −m [p]ₓ, m 1] with I_SP = m G_SP. The constructor and every factory check
`IsPhysicallyValid()` and raise ValueError (also a RuntimeError, as pydrake raises) naming what failed.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.multibody.math import RotationMatrix, SpatialAcceleration, SpatialForce, SpatialMomentum, SpatialVelocity
from mallard.multibody.math import functions as F
from mallard.multibody.math._validation import MathValueError, as_float, as_vector3, positive_finite, unit_vector
from mallard.multibody.tree.rotational_inertia import RotationalInertia, principal_moments_and_axes
from mallard.multibody.tree.unit_inertia import UnitInertia

__all__ = ["SpatialInertia"]


def _fmt_vec(v) -> str:
    return "[" + "  ".join(f"{x:g}" for x in v) + "]"


class SpatialInertia:
    """Mass, center of mass and unit inertia of a body S about a point P, expressed in frame E."""

    __slots__ = ("_m", "_p", "_G")

    def __init__(self, mass: float, p_PScm_E, G_SP_E: UnitInertia, skip_validity_check: bool = False) -> None:
        self._m = as_float(mass, "mass", "SpatialInertia")
        self._p = as_vector3(p_PScm_E, "p_PScm_E", "SpatialInertia")
        if not isinstance(G_SP_E, RotationalInertia):
            raise TypeError(f"SpatialInertia(): G_SP_E must be a UnitInertia, got {type(G_SP_E).__name__}.")
        self._G = G_SP_E._I.copy()
        if not skip_validity_check:
            self._ThrowIfNotPhysicallyValid()

    @classmethod
    def _make(cls, mass: float, p: np.ndarray, G: np.ndarray, check: bool = False) -> "SpatialInertia":
        obj = object.__new__(cls)
        obj._m, obj._p, obj._G = float(mass), p, G
        if check:
            obj._ThrowIfNotPhysicallyValid()
        return obj

    # ---- validity --------------------------------------------------------------------------------
    def IsNaN(self) -> bool:
        return bool(math.isnan(self._m) or np.any(np.isnan(self._p)) or np.any(np.isnan(self._G)))

    def IsZero(self) -> bool:
        return bool(self._m == 0.0 and not np.any(self._p) and not np.any(self._G))

    def _central_inertia(self) -> RotationalInertia:
        """I_SScm_E = m (G_SP − G_point(p_PScm))."""
        return RotationalInertia._wrap(self._m * (self._G - F.point_mass_unit_inertia(self._p)))

    def IsPhysicallyValid(self) -> bool:
        """True if not NaN, mass >= 0 and the central rotational inertia could be physically valid."""
        # (NaN is not finite, so the finiteness tests cover IsNaN())
        if not math.isfinite(self._m) or self._m < 0.0:
            return False
        if not (np.isfinite(self._p).all() and np.isfinite(self._G).all()):
            return False
        return self._central_inertia().CouldBePhysicallyValid()

    def _ThrowIfNotPhysicallyValid(self) -> None:
        if self.IsPhysicallyValid():
            return
        head = "Spatial inertia fails SpatialInertia::IsPhysicallyValid()."
        if not (math.isfinite(self._m) and self._m >= 0.0):
            raise MathValueError(f"{head}\nmass = {self._m:g} is negative or not finite.")
        if self.IsNaN() or not (np.all(np.isfinite(self._p)) and np.all(np.isfinite(self._G))):
            raise MathValueError(f"{head}\nThe center of mass or the unit inertia contains NaN or infinity.")
        I_SP = self._m * self._G
        msg = (f"{head}\n mass = {self._m:g}\n Center of mass = {_fmt_vec(self._p)}\n"
               f" Inertia about point P, I_BP =\n" + "".join(_fmt_vec(r) + "\n" for r in I_SP))
        if np.any(self._p):
            msg += " Inertia about center of mass, I_BBcm =\n" + "".join(
                _fmt_vec(r) + "\n" for r in self._central_inertia()._I)
        moments = principal_moments_and_axes(self._central_inertia()._I)[0]
        msg += f" Principal moments of inertia about Bcm (center of mass) =\n{_fmt_vec(moments)}\n"
        if np.any(moments < 0.0):
            msg += ("At least one principal moment of inertia is negative: the central inertia is not "
                    "positive semidefinite.")
        else:
            msg += "The principal moments of inertia do not satisfy the triangle inequality."
        raise MathValueError(msg)

    # ---- factories -------------------------------------------------------------------------------
    @staticmethod
    def Zero() -> "SpatialInertia":
        """Zero mass, center of mass at P, zero inertia."""
        return SpatialInertia._make(0.0, np.zeros(3), np.zeros((3, 3)))

    @staticmethod
    def NaN() -> "SpatialInertia":
        """All entries NaN (uninitialized)."""
        return SpatialInertia._make(math.nan, np.full(3, np.nan), np.full((3, 3), np.nan))

    @staticmethod
    def PointMass(mass: float, position) -> "SpatialInertia":
        """A particle of `mass` at `position` p_PQ_E, about P."""
        p = as_vector3(position, "position", "SpatialInertia.PointMass")
        return SpatialInertia._make(as_float(mass, "mass", "SpatialInertia.PointMass"), p,
                                    F.point_mass_unit_inertia(p), check=True)

    @staticmethod
    def MakeFromCentralInertia(mass: float, p_PScm_E, I_SScm_E: RotationalInertia) -> "SpatialInertia":
        """M_SP_E from the mass, p_PScm_E and the rotational inertia about the center of mass I_SScm_E."""
        func = "SpatialInertia.MakeFromCentralInertia"
        m = as_float(mass, "mass", func)
        p = as_vector3(p_PScm_E, "p_PScm_E", func)
        if not (math.isfinite(m) and m > 0.0):
            if m == 0.0 and not np.any(I_SScm_E._I):
                return SpatialInertia._make(0.0, p, np.zeros((3, 3)))
            raise MathValueError(f"{func}(): mass = {m:g} must be positive and finite for a non-zero inertia.")
        G = I_SScm_E._I * (1.0 / m) + F.point_mass_unit_inertia(p)  # Drake divides by multiplying by 1/m
        return SpatialInertia._make(m, p, G, check=True)

    @staticmethod
    def _about_center(mass: float, G: UnitInertia) -> "SpatialInertia":
        return SpatialInertia._make(mass, np.zeros(3), G._I.copy(), check=True)

    @staticmethod
    def SolidBoxWithMass(mass: float, lx: float, ly: float, lz: float) -> "SpatialInertia":
        """Uniform solid box with edge lengths lx, ly, lz (m), about its center (kg)."""
        func = "SolidBoxWithMass"
        m = positive_finite(mass, "mass", func)
        dims = [positive_finite(v, n, func) for v, n in ((lx, "x-length"), (ly, "y-length"), (lz, "z-length"))]
        return SpatialInertia._about_center(m, UnitInertia.SolidBox(*dims))

    @staticmethod
    def SolidBoxWithDensity(density: float, lx: float, ly: float, lz: float) -> "SpatialInertia":
        """Uniform solid box of the given density (kg/m³), about its center."""
        func = "SolidBoxWithDensity"
        rho = positive_finite(density, "density", func)
        dims = [positive_finite(v, n, func) for v, n in ((lx, "x-length"), (ly, "y-length"), (lz, "z-length"))]
        return SpatialInertia.SolidBoxWithMass(rho * dims[0] * dims[1] * dims[2], *dims)

    @staticmethod
    def SolidCubeWithDensity(density: float, length: float) -> "SpatialInertia":
        """Uniform solid cube of edge `length` (m) and density (kg/m³), about its center."""
        func = "SolidCubeWithDensity"
        rho = positive_finite(density, "density", func)
        L = positive_finite(length, "length", func)
        return SpatialInertia._about_center(rho * L ** 3, UnitInertia.SolidCube(L))

    @staticmethod
    def SolidSphereWithMass(mass: float, radius: float) -> "SpatialInertia":
        """Uniform solid sphere, about its center."""
        func = "SolidSphereWithMass"
        m = positive_finite(mass, "mass", func)
        r = positive_finite(radius, "radius", func)
        return SpatialInertia._about_center(m, UnitInertia.SolidSphere(r))

    @staticmethod
    def SolidSphereWithDensity(density: float, radius: float) -> "SpatialInertia":
        """Uniform solid sphere of the given density (kg/m³), about its center."""
        func = "SolidSphereWithDensity"
        rho = positive_finite(density, "density", func)
        r = positive_finite(radius, "radius", func)
        return SpatialInertia._about_center(rho * 4.0 / 3.0 * math.pi * r ** 3, UnitInertia.SolidSphere(r))

    @staticmethod
    def HollowSphereWithMass(mass: float, radius: float) -> "SpatialInertia":
        """Thin uniform spherical shell, about its center."""
        func = "HollowSphereWithMass"
        m = positive_finite(mass, "mass", func)
        r = positive_finite(radius, "radius", func)
        return SpatialInertia._about_center(m, UnitInertia.HollowSphere(r))

    @staticmethod
    def HollowSphereWithDensity(area_density: float, radius: float) -> "SpatialInertia":
        """Thin spherical shell of the given area density (kg/m²), about its center."""
        func = "HollowSphereWithDensity"
        rho = positive_finite(area_density, "area_density", func)
        r = positive_finite(radius, "radius", func)
        return SpatialInertia._about_center(rho * 4.0 * math.pi * r * r, UnitInertia.HollowSphere(r))

    @staticmethod
    def SolidEllipsoidWithMass(mass: float, a: float, b: float, c: float) -> "SpatialInertia":
        """Uniform solid ellipsoid with semi-axes a, b, c along x, y, z, about its center."""
        func = "SolidEllipsoidWithMass"
        m = positive_finite(mass, "mass", func)
        axes = [positive_finite(v, n, func) for v, n in ((a, "semi-axis a"), (b, "semi-axis b"), (c, "semi-axis c"))]
        return SpatialInertia._about_center(m, UnitInertia.SolidEllipsoid(*axes))

    @staticmethod
    def SolidEllipsoidWithDensity(density: float, a: float, b: float, c: float) -> "SpatialInertia":
        """Uniform solid ellipsoid of the given density (kg/m³), about its center."""
        func = "SolidEllipsoidWithDensity"
        rho = positive_finite(density, "density", func)
        axes = [positive_finite(v, n, func) for v, n in ((a, "semi-axis a"), (b, "semi-axis b"), (c, "semi-axis c"))]
        volume = 4.0 / 3.0 * math.pi * axes[0] * axes[1] * axes[2]
        return SpatialInertia._about_center(rho * volume, UnitInertia.SolidEllipsoid(*axes))

    @staticmethod
    def SolidCylinderWithMass(mass: float, radius: float, length: float, unit_vector) -> "SpatialInertia":
        """Uniform solid cylinder whose axis is `unit_vector` (in E), about its center."""
        func = "SolidCylinderWithMass"
        m = positive_finite(mass, "mass", func)
        r = positive_finite(radius, "radius", func)
        L = positive_finite(length, "length", func)
        u = _unit(unit_vector, func)
        return SpatialInertia._about_center(m, UnitInertia.SolidCylinder(r, L, u))

    @staticmethod
    def SolidCylinderWithDensity(density: float, radius: float, length: float, unit_vector) -> "SpatialInertia":
        """Uniform solid cylinder of the given density (kg/m³), about its center."""
        func = "SolidCylinderWithDensity"
        rho = positive_finite(density, "density", func)
        r = positive_finite(radius, "radius", func)
        L = positive_finite(length, "length", func)
        return SpatialInertia.SolidCylinderWithMass(rho * math.pi * r * r * L, r, L, _unit(unit_vector, func))

    @staticmethod
    def SolidCylinderWithMassAboutEnd(mass: float, radius: float, length: float, unit_vector) -> "SpatialInertia":
        """Uniform solid cylinder about the center of one end face; the center of mass is at (L/2) u."""
        func = "SolidCylinderWithMassAboutEnd"
        m = positive_finite(mass, "mass", func)
        r = positive_finite(radius, "radius", func)
        L = positive_finite(length, "length", func)
        u = _unit(unit_vector, func)
        G = UnitInertia.SolidCylinderAboutEnd(r, L, u)
        return SpatialInertia._make(m, 0.5 * L * u, G._I, check=True)

    @staticmethod
    def SolidCylinderWithDensityAboutEnd(density: float, radius: float, length: float,
                                         unit_vector) -> "SpatialInertia":
        """Uniform solid cylinder of the given density, about the center of one end face."""
        func = "SolidCylinderWithDensityAboutEnd"
        rho = positive_finite(density, "density", func)
        r = positive_finite(radius, "radius", func)
        L = positive_finite(length, "length", func)
        return SpatialInertia.SolidCylinderWithMassAboutEnd(rho * math.pi * r * r * L, r, L, _unit(unit_vector, func))

    @staticmethod
    def SolidCapsuleWithMass(mass: float, radius: float, length: float, unit_vector) -> "SpatialInertia":
        """Uniform solid capsule (cylinder `length` plus two hemispheres) along `unit_vector`, about its center."""
        func = "SolidCapsuleWithMass"
        m = positive_finite(mass, "mass", func)
        r = positive_finite(radius, "radius", func)
        L = positive_finite(length, "length", func)
        return SpatialInertia._about_center(m, UnitInertia.SolidCapsule(r, L, _unit(unit_vector, func)))

    @staticmethod
    def SolidCapsuleWithDensity(density: float, radius: float, length: float, unit_vector) -> "SpatialInertia":
        """Uniform solid capsule of the given density (kg/m³), about its center."""
        func = "SolidCapsuleWithDensity"
        rho = positive_finite(density, "density", func)
        r = positive_finite(radius, "radius", func)
        L = positive_finite(length, "length", func)
        volume = math.pi * r * r * L + 4.0 / 3.0 * math.pi * r ** 3
        return SpatialInertia.SolidCapsuleWithMass(rho * volume, r, L, _unit(unit_vector, func))

    @staticmethod
    def ThinRodWithMass(mass: float, length: float, unit_vector) -> "SpatialInertia":
        """Thin uniform rod along `unit_vector`, about its center."""
        func = "ThinRodWithMass"
        m = positive_finite(mass, "mass", func)
        L = positive_finite(length, "length", func)
        return SpatialInertia._about_center(m, UnitInertia.ThinRod(L, _unit(unit_vector, func)))

    @staticmethod
    def ThinRodWithMassAboutEnd(mass: float, length: float, unit_vector) -> "SpatialInertia":
        """Thin uniform rod about one end; the center of mass is at (L/2) u."""
        func = "ThinRodWithMassAboutEnd"
        m = positive_finite(mass, "mass", func)
        L = positive_finite(length, "length", func)
        u = _unit(unit_vector, func)
        return SpatialInertia._make(m, 0.5 * L * u, UnitInertia.StraightLine(L * L / 3.0, u)._I, check=True)

    # ---- accessors -------------------------------------------------------------------------------
    def get_mass(self) -> float:
        return self._m

    def get_com(self) -> np.ndarray:
        """p_PScm_E (a copy)."""
        return self._p.copy()

    def CalcComMoment(self) -> np.ndarray:
        """m p_PScm_E (kg·m)."""
        return self._m * self._p

    def get_unit_inertia(self) -> UnitInertia:
        """G_SP_E (a copy)."""
        return UnitInertia._wrap(self._G.copy())

    def CalcRotationalInertia(self) -> RotationalInertia:
        """I_SP_E = m G_SP_E."""
        return RotationalInertia._wrap(self._m * self._G)

    def CopyToFullMatrix6(self) -> np.ndarray:
        """The 6x6 matrix [[m G, m [p]ₓ], [−m [p]ₓ, m 1]]."""
        M = np.zeros((6, 6))
        mS = self._m * F.skew(self._p)
        M[:3, :3] = self._m * self._G
        M[:3, 3:] = mS
        M[3:, :3] = -mS
        M[3:, 3:] = self._m * np.eye(3)
        return M

    def CalcPrincipalSemiDiametersAndPoseForSolidEllipsoid(self):
        """(abc, X_EA): semi-diameters a >= b >= c (m) and pose in E of the uniform solid ellipsoid that has
        this mass distribution. X_EA's origin is the center of mass; its axes Ax, Ay, Az are the principal
        axes with the smallest, middle and largest moments, along which the semi-diameters a, b, c lie.
        Principal-axis signs follow `RotationalInertia.CalcPrincipalMomentsAndAxesOfInertia`.
        """
        from mallard.multibody.math import RigidTransform
        G_central = self._G - F.point_mass_unit_inertia(self._p)
        (g_min, g_med, g_max), R_EA = principal_moments_and_axes(G_central)
        squares = 2.5 * np.array([g_med + g_max - g_min, g_min + g_max - g_med, g_min + g_med - g_max])
        abc = np.sqrt(np.maximum(squares, 0.0))
        return abc, RigidTransform(RotationMatrix._from_trusted(R_EA), self._p.copy())

    def SetNaN(self) -> None:
        self._m, self._p, self._G = math.nan, np.full(3, np.nan), np.full((3, 3), np.nan)

    # ---- point and frame changes -----------------------------------------------------------------
    def Shift(self, p_PQ_E) -> "SpatialInertia":
        """M_SQ_E from this M_SP_E and p_PQ_E: the same mass about the new point Q.

        E.g. `M_BBo_E.Shift(p_BoBcm_E)` gives M_BBcm_E, the inertia about the center of mass.
        """
        d = as_vector3(p_PQ_E, "p_PQ_E", "SpatialInertia.Shift")
        p_QScm = self._p - d
        G = self._G - F.point_mass_unit_inertia(self._p) + F.point_mass_unit_inertia(p_QScm)
        return SpatialInertia._make(self._m, p_QScm, G)

    def ReExpress(self, R_AE: RotationMatrix) -> "SpatialInertia":
        """M_SP_A from this M_SP_E: p → R_AE p, G → R_AE G R_AEᵀ."""
        R = R_AE._R
        return SpatialInertia._make(self._m, R @ self._p, R @ self._G @ R.T)

    # ---- operators -------------------------------------------------------------------------------
    def __iadd__(self, other: "SpatialInertia") -> "SpatialInertia":
        """Combines two inertias about the same point P and in the same frame E (composite body)."""
        result = self.__add__(other)
        if result is NotImplemented:
            return NotImplemented
        self._m, self._p, self._G = result._m, result._p, result._G
        return self

    def __add__(self, other: "SpatialInertia") -> "SpatialInertia":
        if not isinstance(other, SpatialInertia):
            return NotImplemented
        m = self._m + other._m
        if m == 0.0:  # as Drake: a massless composite has its center of mass at P and zero inertia
            return SpatialInertia._make(0.0, np.zeros(3), np.zeros((3, 3)))
        p = (self._m * self._p + other._m * other._p) / m
        G = (self._m * self._G + other._m * other._G) / m
        return SpatialInertia._make(m, p, G)

    def __mul__(self, other):
        """M_SP_E * A_WS_E -> SpatialForce F_SP_E; M_SP_E * V_WP_E -> SpatialMomentum L_WSP_E."""
        if isinstance(other, SpatialVelocity):
            return SpatialMomentum._wrap(self._apply(other._V))
        if isinstance(other, SpatialAcceleration):
            return SpatialForce._wrap(self._apply(other._V))
        return NotImplemented

    def _apply(self, V: np.ndarray) -> np.ndarray:
        w, v = V[:3], V[3:]
        out = np.empty(6)
        out[:3] = self._m * (self._G @ w + np.cross(self._p, v))
        out[3:] = self._m * (v - np.cross(self._p, w))
        return out

    def __repr__(self) -> str:
        """pydrake's form: "SpatialInertia.Zero()" for the zero inertia, else <mallard.multibody.tree.SpatialInertia
        ...> with the mass (kg), p_PScm_E (m) and the unit inertia G_SP_E's moments and products (m²)."""
        if self.IsZero():
            return "SpatialInertia.Zero()"
        G = self._G
        return (f"<mallard.multibody.tree.SpatialInertia mass={self._m!r} p_PScm_E={self._p.tolist()} "
                f"G_SP_E=[Ixx={float(G[0, 0])!r}, Iyy={float(G[1, 1])!r}, Izz={float(G[2, 2])!r}, "
                f"Ixy={float(G[0, 1])!r}, Ixz={float(G[0, 2])!r}, Iyz={float(G[1, 2])!r}]>")

    def __getstate__(self):
        """pydrake's pickle state: (mass, p_PScm_E, G_SP_E)."""
        return self._m, self._p.copy(), UnitInertia._wrap(self._G.copy())

    def __setstate__(self, state) -> None:
        m, p, G = state
        self._m, self._p = float(m), np.array(p, dtype=float).reshape(3)
        self._G = np.array(G.CopyToFullMatrix3() if hasattr(G, "CopyToFullMatrix3") else G, dtype=float)


def _unit(value, func: str) -> np.ndarray:
    """The factory's unit_vector argument, checked to be unit length within 1e-14."""
    return unit_vector(value, "unit_vector", func)
