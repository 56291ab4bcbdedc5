"""MuJoCo's fluid forces (mj_fluid) and their velocity Jacobians (the fluid part of mjd_passive_vel) as array
kernels, shared by the compiled pipeline (pipeline/fluid.py) and the continuous plant's force element
(tree/fluid_forces.py).

Fluid items act in a frame O fixed on a body: kind 0 is the inertia-box model (O at the center of mass along the
principal axes; params[:3] the equivalent box sides [m]): Stokes drag on the equivalent sphere plus quadratic drag
on the box faces; kind 1 is the ellipsoid model of one geom (O the geom frame; params[:3] semi-axes [m],
params[3:15] = [interaction, blunt, slender, angular, kutta, magnus, virtual mass (3) [m³], virtual inertia (3)
[m⁵]]): added-mass gyroscopic terms, Magnus and Kutta lift, viscous and quadratic drag. medium rows are
[density [kg/m³], viscosity [Pa s], wind (3) [m/s]]; velocities are relative to the wind. A local wrench is
[torque; force] in O.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from mallard.geometry.collision.blas_rounding import rotate_row, rotate_t_row

from .small_products import matmul33_into

MINVAL = 1e-15  # MuJoCo's mjMINVAL


@njit(cache=True)
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def box_force(w, v, box, density, viscosity):
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
def ellipsoid_force(w, v, s, coef, density, viscosity):
    """Local [torque; force] of the ellipsoid model: s semi-axes, coef = params[3:15] (see the module docstring)."""
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
    a_proj = math.pi * math.sqrt(proj_denom / max(MINVAL, proj_num))
    normal = np.array([yz ** 2 * v[0], zx ** 2 * v[1], xy ** 2 * v[2]])
    speed = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
    cos_alpha = proj_num / max(MINVAL, speed * proj_denom)
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
def item_frame(R_WB, p_WB, V, b, R_BO, p_BO, wind):
    """(R_WO, p_BoO_W, p_WO, local angular velocity w_O, local velocity of Oo relative to the wind v_O) of an item
    in frame O (R_BO, p_BO) of body b; V: Plücker velocities at Wo."""
    R_WO = R_WB[b] @ R_BO
    r = R_WB[b] @ p_BO
    p_WO = p_WB[b] + r
    w_W = V[b, :3].copy()
    v_W = V[b, 3:] + _cross(w_W, p_WO) - wind
    return R_WO, r, p_WO, R_WO.T @ w_W, R_WO.T @ v_W


@njit(cache=True)
def FluidBodyForces(body, kind, R_BO, p_BO, params, medium, R_WB, p_WB, V, F_Bo_W):
    """Add every fluid item's wrench to F_Bo_W (nb × 6, [torque; force] at Bo in W). Item i acts in frame O
    (R_BO[i], p_BO[i]) of plant body body[i] (see the module docstring for kind, params and medium).

    item_frame's and the wrench's rotations are written out in scalars, rounded as the `@` calls they replace
    (kernels/small_products.py, geometry/collision/blas_rounding.py), into arrays made once per call: those calls
    and their temporaries were most of the time of a step of a small model in a viscous medium."""
    n = body.shape[0]
    if n == 0:
        return
    R_WO, r, p_WO, w_W, v_W = np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    w, v, tau_W, f_W = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for i in range(n):
        b = body[i]
        R = R_WB[b]
        matmul33_into(R, R_BO[i], R_WO)  # item_frame: R_WB[b] @ R_BO
        p = p_BO[i]
        for k in range(3):
            r[k] = rotate_row(R, k, p)
            p_WO[k] = p_WB[b, k] + r[k]
            w_W[k] = V[b, k]
        wind = medium[i]
        v_W[0] = (V[b, 3] + (w_W[1] * p_WO[2] - w_W[2] * p_WO[1])) - wind[2]
        v_W[1] = (V[b, 4] + (w_W[2] * p_WO[0] - w_W[0] * p_WO[2])) - wind[3]
        v_W[2] = (V[b, 5] + (w_W[0] * p_WO[1] - w_W[1] * p_WO[0])) - wind[4]
        for k in range(3):
            w[k] = rotate_t_row(R_WO, k, w_W)
            v[k] = rotate_t_row(R_WO, k, v_W)
        if kind[i] == 0:
            f = box_force(w, v, params[i, :3], medium[i, 0], medium[i, 1])
        else:
            f = ellipsoid_force(w, v, params[i, :3], params[i, 3:15], medium[i, 0], medium[i, 1])
        f_t = f[3:]
        for k in range(3):
            tau_W[k] = rotate_row(R_WO, k, f)
            f_W[k] = rotate_row(R_WO, k, f_t)
        F_Bo_W[b, 0] += tau_W[0] + (r[1] * f_W[2] - r[2] * f_W[1])
        F_Bo_W[b, 1] += tau_W[1] + (r[2] * f_W[0] - r[0] * f_W[2])
        F_Bo_W[b, 2] += tau_W[2] + (r[0] * f_W[1] - r[1] * f_W[0])
        for k in range(3):
            F_Bo_W[b, 3 + k] += f_W[k]


# ---- velocity Jacobians ∂[torque; force]/∂[w; v] of the local wrenches (mjd_inertiaBoxFluid, mjd_ellipsoidFluid)
@njit(cache=True)
def box_jacobian(w, v, box, density, viscosity):
    """∂f/∂[w; v] (6 × 6, diagonal) of the inertia-box model's local wrench."""
    B = np.zeros((6, 6))
    if viscosity > 0:
        diam = (box[0] + box[1] + box[2]) / 3.0
        for i in range(3):
            B[i, i] -= math.pi * diam ** 3 * viscosity
            B[3 + i, 3 + i] -= 3.0 * math.pi * diam * viscosity
    if density > 0:
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            B[i, i] -= 2.0 * density * box[i] * (box[j] ** 4 + box[k] ** 4) * abs(w[i]) / 64.0
            B[3 + i, 3 + i] -= density * box[j] * box[k] * abs(v[i])
    return B


@njit(cache=True)
def _add_skew(B, r0, c0, a, scale):
    """B[r0:r0+3, c0:c0+3] += scale·[a]× (the matrix of a × ·)."""
    B[r0, c0 + 1] += scale * -a[2]
    B[r0, c0 + 2] += scale * a[1]
    B[r0 + 1, c0] += scale * a[2]
    B[r0 + 1, c0 + 2] += scale * -a[0]
    B[r0 + 2, c0] += scale * -a[1]
    B[r0 + 2, c0 + 1] += scale * a[0]


@njit(cache=True)
def _add_skew_cols(B, r0, c0, a, p, m):
    """B[r0:r0+3, c0:c0+3] += [p]× − [a]×·diag(m) (added-mass blocks)."""
    S = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    P = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    for r in range(3):
        for c in range(3):
            B[r0 + r, c0 + c] += P[r, c] - S[r, c] * m[c]


@njit(cache=True)
def ellipsoid_jacobian(w, v, s, coef, density, viscosity):
    """∂f/∂[w; v] (6 × 6) of the ellipsoid model's local wrench (added mass, Magnus, Kutta lift, viscous drag and
    torque), with MuJoCo's zero-speed guards."""
    B = np.zeros((6, 6))
    if coef[0] == 0.0:
        return B
    rho = density
    # added mass: f_ang += p_lin × v + p_ang × w, f_lin += p_lin × w (p = ρ·diag(m)·velocity)
    Vm, Vi = rho * coef[6:9], rho * coef[9:12]
    p_lin, p_ang = Vm * v, Vi * w
    zero = np.zeros(3)
    _add_skew_cols(B, 0, 0, w, p_ang, Vi)
    _add_skew_cols(B, 0, 3, v, p_lin, Vm)
    _add_skew_cols(B, 3, 0, zero, p_lin, Vm)
    _add_skew_cols(B, 3, 3, w, zero, Vm)
    # Magnus: f_lin += c·(w × v)
    c_m = coef[5] * rho * 4.0 / 3.0 * math.pi * s[0] * s[1] * s[2]
    _add_skew(B, 3, 0, v, -c_m)
    _add_skew(B, 3, 3, w, c_m)
    N = np.array([(s[1] * s[2]) ** 2, (s[2] * s[0]) ** 2, (s[0] * s[1]) ** 2])
    Nv = N * v
    pn = v[0] * Nv[0] + v[1] * Nv[1] + v[2] * Nv[2]
    pd = Nv[0] * Nv[0] + Nv[1] * Nv[1] + Nv[2] * Nv[2]
    vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    speed = math.sqrt(vv)
    # Kutta lift: f_lin += c_k·ρ·g(v)·u(v), g = cosα·A_proj = π·sqrt(pn/pd)/|v|, u = (Nv × v) × v = v·pn − Nv·|v|²
    if pn > MINVAL and pd > MINVAL and vv > MINVAL:
        g = math.pi * math.sqrt(pn / pd) / speed
        u = v * pn - Nv * vv
        dg = g * (Nv / pn - N * Nv / pd - v / vv)
        ck = coef[4] * rho
        for r in range(3):
            for c in range(3):
                du = (pn if r == c else 0.0) + v[r] * (2.0 * Nv[c]) - (vv * N[r] if r == c else 0.0) \
                    - Nv[r] * (2.0 * v[c])
                B[3 + r, 3 + c] += ck * (u[r] * dg[c] + g * du)
    # viscous drag: f_lin −= (μ·3π·d_eq + ρ·|v|·(c_b·A_proj + c_s·(A_max − A_proj)))·v
    d_max = max(s[0], s[1], s[2])
    d_min = min(s[0], s[1], s[2])
    d_mid = s[0] + s[1] + s[2] - d_max - d_min
    d_eq = 2.0 / 3.0 * (s[0] + s[1] + s[2])
    a_max = math.pi * d_max * d_mid
    a_proj = math.pi * math.sqrt(pd / max(MINVAL, pn))
    quad = rho * (a_proj * coef[1] + coef[2] * (a_max - a_proj))
    drag = viscosity * 3.0 * math.pi * d_eq + speed * quad
    grad = quad * v / max(MINVAL, speed)
    if pn > MINVAL and pd > MINVAL:
        grad = grad + rho * speed * (coef[1] - coef[2]) * a_proj * (N * Nv / pd - Nv / pn)
    for r in range(3):
        for c in range(3):
            B[3 + r, 3 + c] -= (drag if r == c else 0.0) + v[r] * grad[c]
    # viscous torque: f_ang −= (μ·π·d_eq³ + ρ·|mc ∘ w|)·w
    i_max = 8.0 / 15.0 * math.pi * d_mid * d_max ** 4
    mc = np.empty(3)
    for i in range(3):
        ii = 8.0 / 15.0 * math.pi * s[i] * max(s[(i + 1) % 3], s[(i + 2) % 3]) ** 4
        mc[i] = coef[3] * ii + coef[2] * (i_max - ii)
    mw = mc * w
    mom = math.sqrt(mw[0] * mw[0] + mw[1] * mw[1] + mw[2] * mw[2])
    drag_ang = viscosity * math.pi * d_eq ** 3 + rho * mom
    dm = rho * mc * mc * w / max(MINVAL, mom)
    for r in range(3):
        for c in range(3):
            B[r, c] -= (drag_ang if r == c else 0.0) + w[r] * dm[c]
    return B * coef[0]


@njit(cache=True)
def FluidVelocityDerivative(ji, S, R_WB, p_WB, V, body, kind, R_BO, p_BO, params, medium, symmetrize, body_free, D):
    """D (nv × nv) += Σ J_Oᵀ·B·J_O over the fluid items: J_O the item's [angular; linear] velocity Jacobian in its
    frame O, B its local wrench Jacobian, symmetrized (B + Bᵀ)/2 when `symmetrize` (implicitfast) unless the body is
    a standalone free body (`body_free[b]`: MuJoCo 4 keeps those unsymmetric for their own LU solve)."""
    nv = S.shape[0]
    cols = np.empty(nv, np.int64)
    for i in range(body.shape[0]):
        b = body[i]
        R_WO, _r, p_WO, w, v = item_frame(R_WB, p_WB, V, b, R_BO[i], p_BO[i], medium[i, 2:5])
        if kind[i] == 0:
            B = box_jacobian(w, v, params[i, :3], medium[i, 0], medium[i, 1])
        else:
            B = ellipsoid_jacobian(w, v, params[i, :3], params[i, 3:15], medium[i, 0], medium[i, 1])
        if symmetrize and not body_free[b]:
            B = 0.5 * (B + B.T)
        # the dofs moving body b, and J_O (6 × k) over them
        k = 0
        a = b
        while a > 0:
            for j in range(ji[a, 5]):
                cols[k] = ji[a, 4] + j
                k += 1
            a = ji[a, 0]
        J = np.empty((6, k))
        for n in range(k):
            col = cols[n]
            sw = S[col, 0:3]
            sv = S[col, 3:6] + _cross(sw, p_WO)
            for r in range(3):
                J[r, n] = R_WO[0, r] * sw[0] + R_WO[1, r] * sw[1] + R_WO[2, r] * sw[2]
                J[3 + r, n] = R_WO[0, r] * sv[0] + R_WO[1, r] * sv[1] + R_WO[2, r] * sv[2]
        BJ = B @ J
        for p in range(k):
            for n in range(k):
                acc = 0.0
                for r in range(6):
                    acc += J[r, p] * BJ[r, n]
                D[cols[p], cols[n]] += acc
