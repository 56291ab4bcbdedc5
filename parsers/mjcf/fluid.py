"""MJCF fluid forces (`<option density viscosity wind>`) mapped onto a plant: MuJoCo's per-body choice of model
(mj_fluid: the ellipsoid model on the geoms with fluidshape="ellipsoid" when a body has any, else the inertia box
of its principal inertia) and the compile-time quantities of the ellipsoid model (MuJoCo's 15-point Gauss–Kronrod
quadrature of the added-mass integrals). The force element is multibody/tree/fluid_forces.py."""
from __future__ import annotations

import math

import numpy as np

from ...multibody.tree.fluid_forces import FluidForces
from .rotations import quat_to_mat

__all__ = ["AddMjcfFluidForces", "FluidEllipsoidCoefficients", "GeomSemiAxes"]

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


def FluidItems(model) -> list[tuple]:
    """(MJCF body id, kind (0 inertia box, 1 ellipsoid), R_BO, p_BO, params (15)) of every body MuJoCo's fluid
    model acts on (bodies lighter than 1e-15 kg feel nothing)."""
    items = []
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
                items.append((b, 1, quat_to_mat(np.asarray(g.quat, float)), np.asarray(g.pos, float), params))
        else:
            I, m = np.asarray(body.inertia, float), float(body.mass)
            box = np.sqrt(np.maximum(_MINVAL, np.array([I[1] + I[2] - I[0], I[0] + I[2] - I[1],
                                                         I[0] + I[1] - I[2]])) / m * 6.0)
            items.append((b, 0, quat_to_mat(np.asarray(body.iquat, float)), np.asarray(body.ipos, float),
                          np.concatenate([box, np.zeros(12)])))
    return items


def AddMjcfFluidForces(plant, model, pm) -> None:
    """Add MuJoCo's fluid forces of `model` to the plant (option density or viscosity non-zero, unless both the
    spring and damper flags are off). Called by the MJCF mapping before Finalize."""
    opt = model.option
    flags = opt.flags
    if not (flags.get("spring", True) or flags.get("damper", True)) or not (opt.density or opt.viscosity):
        return
    items = FluidItems(model)
    if not items:
        return
    n = len(items)
    medium = np.tile(np.concatenate([[float(opt.density), float(opt.viscosity)], np.asarray(opt.wind, float)]),
                     (n, 1))
    plant.AddForceElement(FluidForces([pm.bodies[it[0]] for it in items], [it[1] for it in items],
                                      np.array([np.asarray(it[2], float) for it in items]),
                                      np.array([it[3] for it in items]), np.array([it[4] for it in items]), medium,
                                      pm.instance))
