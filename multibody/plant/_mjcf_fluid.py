"""MuJoCo's fluid forces (MJCF `<option density viscosity wind>`) as a plant force element.

Two models, chosen per body as MuJoCo's mj_fluid does: the inertia-box model (a body's equivalent box from its
principal inertia: viscous Stokes drag on the equivalent sphere plus quadratic drag on the box faces, at the
center of mass, in the inertial frame) and, when any geom of the body has fluidshape="ellipsoid", the ellipsoid
model per geom (added-mass gyroscopic terms, Magnus and Kutta lift, blunt / slender / angular drag with the
geom's fluidcoef, in the geom frame). Velocities are relative to the wind. Bodies lighter than 1e-15 kg feel
nothing. The virtual masses and inertias of the ellipsoid model are MuJoCo's compile-time quantities: its
15-point Gauss–Kronrod quadrature of the added-mass integrals.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..tree.force_element import ForceElement

__all__ = ["MjcfFluidForces", "FluidEllipsoidCoefficients", "GeomSemiAxes"]

_MINVAL = 1e-15
_EPS = 1e-14

# Gauss–Kronrod 15-point nodes on [-1, 1] (positive half) and weights; MuJoCo maps them to [0, 1] with nodes
# and weights rounded to 8 digits, then to [0, inf) by l = x³/(1 − x)².
_K15_T = (0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
          0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
          0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
          0.207784955007898467600689403773245, 0.0)
_K15_W = (0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
          0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
          0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
          0.204432940075298892414161999234649, 0.209482141084727828012999174891714)


def _k15_rule():
    t = np.array([-v for v in _K15_T[:7]] + [0.0] + list(_K15_T[:7])[::-1])
    w = np.array(list(_K15_W[:7]) + [_K15_W[7]] + list(_K15_W[:7])[::-1])
    x = np.round(0.5 * (1.0 + t), 8)
    w = np.round(0.5 * w, 8)
    lam = x ** 3 / (1.0 - x) ** 2
    dlam = x ** 2 * (3.0 - x) / (1.0 - x) ** 3
    return lam, dlam, w


_K15_L, _K15_D, _K15_WT = _k15_rule()


def _kappa(dx: float, dy: float, dz: float) -> float:
    """∫₀^∞ dx·dy·dz / sqrt((dx² + l)³ (dy² + l)(dz² + l)) dl, scaled as MuJoCo (non-dimensionalized)."""
    ix, iy, iz = 1.0 / (dx * dx), 1.0 / (dy * dy), 1.0 / (dz * dz)
    scale = (dx ** 3 * dy * dz) ** 0.4
    lam = scale * _K15_L
    denom = (1.0 + lam * ix) * np.sqrt((1.0 + lam * ix) * (1.0 + lam * iy) * (1.0 + lam * iz))
    return float(np.sum(scale * _K15_D / denom * _K15_WT)) * ix


def GeomSemiAxes(geom_type: str, size) -> np.ndarray:
    """Semi-axes of a geom's equivalent ellipsoid [m] (sphere r r r; capsule r r h+r; cylinder r r h; else size)."""
    s = np.asarray(size, float)
    if geom_type == "sphere":
        return np.array([s[0], s[0], s[0]])
    if geom_type == "capsule":
        return np.array([s[0], s[0], s[1] + s[0]])
    if geom_type == "cylinder":
        return np.array([s[0], s[0], s[1]])
    return s[:3].copy()


def FluidEllipsoidCoefficients(geom_type: str, size) -> tuple[np.ndarray, np.ndarray]:
    """(virtual mass (3) [m³], virtual inertia (3) [m⁵]) of the geom's ellipsoid, per unit fluid density."""
    dx, dy, dz = GeomSemiAxes(geom_type, size)
    volume = 4.0 / 3.0 * math.pi * dx * dy * dz
    kx, ky, kz = _kappa(dx, dy, dz), _kappa(dy, dz, dx), _kappa(dz, dx, dy)

    def fac(a, b, ka, kb):
        return (a * a - b * b) ** 2 * abs(kb - ka) / max(_EPS, abs(2 * (a * a - b * b) + (a * a + b * b) * (ka - kb)))

    mass = np.array([volume * k / max(_EPS, 2.0 - k) for k in (kx, ky, kz)])
    inertia = volume / 5.0 * np.array([fac(dy, dz, ky, kz), fac(dz, dx, kz, kx), fac(dx, dy, kx, ky)])
    return mass, inertia


@njit(cache=True)
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def _box_force(w, v, box, density, viscosity):
    """Local [torque; force] of the inertia-box model for local angular velocity w and relative velocity v."""
    f = np.zeros(6)
    if viscosity > 0:
        diam = (box[0] + box[1] + box[2]) / 3.0
        for i in range(3):
            f[i] = -math.pi * diam ** 3 * viscosity * w[i]
            f[3 + i] = -3.0 * math.pi * diam * viscosity * v[i]
    if density > 0:
        f[3] -= 0.5 * density * box[1] * box[2] * abs(v[0]) * v[0]
        f[4] -= 0.5 * density * box[0] * box[2] * abs(v[1]) * v[1]
        f[5] -= 0.5 * density * box[0] * box[1] * abs(v[2]) * v[2]
        f[0] -= density * box[0] * (box[1] ** 4 + box[2] ** 4) * abs(w[0]) * w[0] / 64.0
        f[1] -= density * box[1] * (box[0] ** 4 + box[2] ** 4) * abs(w[1]) * w[1] / 64.0
        f[2] -= density * box[2] * (box[0] ** 4 + box[1] ** 4) * abs(w[2]) * w[2] / 64.0
    return f


@njit(cache=True)
def _ellipsoid_force(w, v, s, coef, density, viscosity):
    """Local [torque; force] of the ellipsoid model: coef = [interaction, blunt, slender, angular, kutta, magnus,
    virtual mass (3), virtual inertia (3)], s = semi-axes."""
    f = np.zeros(6)
    # added mass: gyroscopic terms of the fluid moving with the body
    p_lin = density * coef[6:9] * v
    p_ang = density * coef[9:12] * w
    f[3:] += _cross(p_lin, w)
    f[:3] += _cross(p_lin, v) + _cross(p_ang, w)
    volume = 4.0 / 3.0 * math.pi * s[0] * s[1] * s[2]
    d_max = max(s[0], s[1], s[2])
    d_min = min(s[0], s[1], s[2])
    d_mid = s[0] + s[1] + s[2] - d_max - d_min
    a_max = math.pi * d_max * d_mid
    magnus = coef[5] * density * volume * _cross(w, v)
    yz, zx, xy = s[1] * s[2], s[2] * s[0], s[0] * s[1]
    proj_denom = yz ** 4 * v[0] ** 2 + zx ** 4 * v[1] ** 2 + xy ** 4 * v[2] ** 2
    proj_num = (yz * v[0]) ** 2 + (zx * v[1]) ** 2 + (xy * v[2]) ** 2
    a_proj = math.pi * math.sqrt(proj_denom / max(_MINVAL, proj_num))
    normal = np.array([yz ** 2 * v[0], zx ** 2 * v[1], xy ** 2 * v[2]])
    speed = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
    cos_alpha = proj_num / max(_MINVAL, speed * proj_denom)
    kutta = _cross(coef[4] * density * cos_alpha * a_proj * _cross(normal, v), v)
    d_eq = 2.0 / 3.0 * (s[0] + s[1] + s[2])
    i_max = 8.0 / 15.0 * math.pi * d_mid * d_max ** 4
    mom = np.zeros(3)
    for i in range(3):
        d1, d2 = s[(i + 1) % 3], s[(i + 2) % 3]
        ii = 8.0 / 15.0 * math.pi * s[i] * max(d1, d2) ** 4
        mom[i] = w[i] * (coef[3] * ii + coef[2] * (i_max - ii))
    drag_lin = viscosity * 3.0 * math.pi * d_eq + density * speed * (a_proj * coef[1] + coef[2] * (a_max - a_proj))
    drag_ang = viscosity * math.pi * d_eq ** 3 + density * math.sqrt(mom[0] ** 2 + mom[1] ** 2 + mom[2] ** 2)
    for i in range(3):
        f[i] -= drag_ang * w[i]
        f[3 + i] += magnus[i] + kutta[i] - drag_lin * v[i]
    return f * coef[0]


@njit(cache=True)
def FluidBodyForces(body, kind, R_BO, p_BO, params, R_WB, p_WB, V, wind, density, viscosity, F_Bo_W):
    """Add every fluid item's wrench to F_Bo_W (nb × 6, [torque; force] at Bo in W). Item i acts in frame O
    (R_BO[i], p_BO[i]) of plant body body[i]: kind 0 inertia box (params[:3] box sides), 1 ellipsoid geom
    (params[:3] semi-axes, params[3:15] coefficients). V: Plücker velocities at Wo."""
    for i in range(body.shape[0]):
        b = body[i]
        R_WO = R_WB[b] @ R_BO[i]
        r = R_WB[b] @ p_BO[i]
        p_WO = p_WB[b] + r
        w_W = V[b, :3]
        v_W = V[b, 3:] + _cross(w_W, p_WO) - wind
        w = R_WO.T @ w_W
        v = R_WO.T @ v_W
        if kind[i] == 0:
            f = _box_force(w, v, params[i, :3], density, viscosity)
        else:
            f = _ellipsoid_force(w, v, params[i, :3], params[i, 3:15], density, viscosity)
        tau_W = R_WO @ f[:3]
        f_W = R_WO @ f[3:]
        F_Bo_W[b, :3] += tau_W + _cross(r, f_W)
        F_Bo_W[b, 3:] += f_W


def _quat_R(q) -> np.ndarray:
    from mallard.parsers.mjcf.rotations import quat_to_mat
    return np.asarray(quat_to_mat(np.asarray(q, float)), float)


class MjcfFluidForces(ForceElement):
    """Fluid forces of one MJCF model (MuJoCo's mj_fluid) on the plant bodies of its MjcfPlantMap."""

    def __init__(self, model, plant_bodies, model_instance=None):
        super().__init__(model_instance, "mjcf_fluid")
        opt = model.option
        self._density, self._viscosity = float(opt.density), float(opt.viscosity)
        self._wind = np.ascontiguousarray(np.asarray(opt.wind, float))
        self._mj_bodies = []  # (MuJoCo body id, kind, R_BO, p_BO, params)
        for b, body in enumerate(model.bodies):
            if b == 0 or float(body.mass) < _MINVAL:
                continue
            geoms = [g for g in model.geoms if g.body == b]
            if any(g.fluidshape == "ellipsoid" for g in geoms):
                for g in geoms:
                    if g.fluidshape != "ellipsoid":
                        continue
                    vm, vi = FluidEllipsoidCoefficients(g.type, g.size)
                    coef = np.concatenate([[1.0], np.asarray(g.fluidcoef, float)[:5], vm, vi])
                    params = np.concatenate([GeomSemiAxes(g.type, g.size), coef])
                    self._mj_bodies.append((b, 1, _quat_R(g.quat), np.asarray(g.pos, float), params))
            else:
                I, m = np.asarray(body.inertia, float), float(body.mass)
                box = np.sqrt(np.maximum(_MINVAL, np.array([I[1] + I[2] - I[0], I[0] + I[2] - I[1],
                                                             I[0] + I[1] - I[2]])) / m * 6.0)
                params = np.concatenate([box, np.zeros(12)])
                self._mj_bodies.append((b, 0, _quat_R(body.iquat), np.asarray(body.ipos, float), params))
        n = len(self._mj_bodies)
        self._plant_bodies = plant_bodies
        self._kind = np.array([it[1] for it in self._mj_bodies], np.int64)
        self._R_BO = np.ascontiguousarray(np.array([it[2] for it in self._mj_bodies], float).reshape(n, 3, 3))
        self._p_BO = np.ascontiguousarray(np.array([it[3] for it in self._mj_bodies], float).reshape(n, 3))
        self._params = np.ascontiguousarray(np.array([it[4] for it in self._mj_bodies], float).reshape(n, 15))
        self._body = None  # plant body indices, resolved at the first evaluation (after Finalize)

    def num_items(self) -> int:
        """Number of inertia boxes and fluid ellipsoids acted on."""
        return len(self._mj_bodies)

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        if self._body is None:
            self._body = np.array([int(self._plant_bodies[it[0]].index()) for it in self._mj_bodies], np.int64)
        if self._body.shape[0]:
            FluidBodyForces(self._body, self._kind, self._R_BO, self._p_BO, self._params, kin.R_WB, kin.p_WB,
                            kin.V, self._wind, self._density, self._viscosity, F_Bo_W)

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        F = np.zeros((kin.V.shape[0], 6))
        self._CalcAndAddForceContribution(context, kin, q, v, F, None)
        # F at Bo; power = Σ τ·w + f·v_Bo
        v_Bo = kin.V[:, 3:] + np.cross(kin.V[:, :3], kin.p_WB)
        return float(np.sum(F[:, :3] * kin.V[:, :3]) + np.sum(F[:, 3:] * v_Bo))
