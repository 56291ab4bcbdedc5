"""Drake's compliant point contact for the continuous plant (time_step == 0).

Normal force fn = k*x*(1 + d*vn) (Hunt & Crossley, clamped at 0), x = penetration depth (m),
vn = v_AcBc . nhat_BA (m/s, > 0 approaching); friction mu(|vt|)*fn with Stribeck's regularized
coefficient mu(s) (s = |vt| / v_stiction). Material combination laws and the penetration-allowance
defaults follow spec/multibody_plant.md §4 (Drake's MultibodyPlant).
"""
from __future__ import annotations

import numpy as np
from numba import njit

DEFAULT_PENETRATION_ALLOWANCE = 1e-3  # m, MultibodyPlantConfig default
DEFAULT_STICTION_TOLERANCE = 1e-3  # m/s, MultibodyPlantConfig default


@njit(cache=True)
def _step5(x):
    return x * x * x * (10.0 + x * (6.0 * x - 15.0))


@njit(cache=True)
def StribeckFrictionCoefficient(speed, mu_static, mu_dynamic, v_stiction):
    """Drake's regularized friction coefficient at slip `speed` (m/s) for stiction tolerance v_stiction.

    mu_static * step5(s) for s < 1, blends to mu_dynamic on 1 <= s < 3, mu_dynamic beyond; s = speed/v_s.
    """
    s = speed / v_stiction
    if s >= 3.0:
        return mu_dynamic
    if s >= 1.0:
        return mu_static - (mu_static - mu_dynamic) * _step5(0.5 * (s - 1.0))
    return mu_static * _step5(s)


def CombineFrictionCoefficients(mu1: float, mu2: float) -> float:
    """Drake's pair friction 2*mu1*mu2/(mu1 + mu2) (0 when both are 0); apply to static and dynamic."""
    if mu1 < 0 or mu2 < 0:
        raise ValueError(f"friction coefficients must be >= 0, got {mu1} and {mu2}")
    return 0.0 if mu1 + mu2 == 0.0 else 2.0 * mu1 * mu2 / (mu1 + mu2)


def CombinePointContactParameters(k1: float, d1: float, k2: float, d2: float) -> tuple[float, float]:
    """Pair stiffness k = k1 k2/(k1 + k2) (N/m; inf = rigid side) and Hunt-Crossley dissipation
    d = k2/(k1+k2) d1 + k1/(k1+k2) d2 (s/m): the softer geometry's dissipation weighs more."""
    for name, val in (("stiffness", k1), ("stiffness", k2), ("dissipation", d1), ("dissipation", d2)):
        if not val >= 0:
            raise ValueError(f"point contact {name} must be >= 0, got {val}")
    if np.isinf(k1) and np.isinf(k2):
        raise ValueError("point contact: both geometries are rigid (infinite stiffness)")
    if np.isinf(k1):
        return float(k2), float(d1)
    if np.isinf(k2):
        return float(k1), float(d2)
    s = k1 + k2
    if s == 0.0:
        return 0.0, 0.5 * (d1 + d2)
    return k1 * k2 / s, (k2 / s) * d1 + (k1 / s) * d2


def DefaultPointContactParameters(penetration_allowance: float = DEFAULT_PENETRATION_ALLOWANCE,
                                  max_mass: float = 1.0, gravity: float = 9.81) -> dict:
    """Per-geometry defaults from the penetration allowance (Drake's heuristic, critically damped).

    k_pair = m g / delta, tc = sqrt(m / k_pair), d = tc / delta; each geometry gets stiffness
    2 k_pair (two defaults combine to k_pair) and dissipation d. Returns stiffness (N/m),
    dissipation (s/m), pair_stiffness and time_scale (s).
    """
    if not penetration_allowance > 0:
        raise ValueError(f"penetration_allowance must be > 0 m, got {penetration_allowance}")
    if not max_mass > 0:
        raise ValueError(f"max_mass must be > 0 kg, got {max_mass}")
    g = abs(gravity) if gravity != 0 else 9.81
    k_pair = max_mass * g / penetration_allowance
    time_scale = 1.0 / np.sqrt(k_pair / max_mass)
    dissipation = 1.0 * time_scale / penetration_allowance
    return {"stiffness": 2.0 * k_pair, "dissipation": dissipation, "pair_stiffness": k_pair,
            "time_scale": time_scale}


@njit(cache=True)
def CalcCompliantPointContactForces(p_WCa, p_WCb, nhat_BA_W, depth, v_AcBc_W, stiffness, dissipation,
                                    mu_static, mu_dynamic, v_stiction):
    """Contact forces of nc point pairs (arrays with leading dimension nc, vectors (nc, 3) in W).

    Returns f_Bc_W (nc, 3) the force on body B at the contact point C (the force on A is its
    negative), p_WC (nc, 3) the midpoint of the witness points, fn (N), slip_speed and
    separation_speed (m/s, > 0 when separating).
    """
    nc = depth.shape[0]
    f_B = np.zeros((nc, 3))
    p_WC = 0.5 * (p_WCa + p_WCb)
    fn_out = np.zeros(nc)
    slip = np.zeros(nc)
    sep = np.zeros(nc)
    for c in range(nc):
        n = nhat_BA_W[c]
        v = v_AcBc_W[c]
        vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2]
        vt = v - vn * n
        s = np.sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2])
        slip[c] = s
        sep[c] = -vn
        fn = stiffness[c] * depth[c] * (1.0 + dissipation[c] * vn)
        if fn <= 0.0:
            continue
        fn_out[c] = fn
        f_A = fn * n
        if s >= 1e-14:
            mu = StribeckFrictionCoefficient(s, mu_static[c], mu_dynamic[c], v_stiction)
            f_A = f_A + (mu * fn / s) * vt
        f_B[c] = -f_A
    return f_B, p_WC, fn_out, slip, sep


@njit(cache=True)
def GeneralizedContactForces(Jv_AcBc_W, f_Bc_W):
    """tau = sum_c Jv_AcBc_W[c]' f_Bc_W[c]: generalized forces of the pair forces (N or N m).

    Jv_AcBc_W (nc, 3, nv) is the Jacobian of the velocity of Bc relative to Ac (J_WBc - J_WAc);
    the equal and opposite force on A is included through the relative Jacobian.
    """
    nc = Jv_AcBc_W.shape[0]
    nv = Jv_AcBc_W.shape[2]
    tau = np.zeros(nv)
    for c in range(nc):
        for k in range(3):
            fk = f_Bc_W[c, k]
            for q in range(nv):
                tau[q] += Jv_AcBc_W[c, k, q] * fk
    return tau
