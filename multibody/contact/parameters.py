"""MuJoCo soft-constraint parameters: solimp impedance d(r), solref stiffness/damping, geom mixing.

A scalar constraint with residual r (signed distance minus margin, negative when violated) and
velocity v is driven towards the reference acceleration aref = -b*v - k*d(r)*r. The impedance
d(r) in (0, 1) sets how much of that reference is realised (regularizer R = (1-d)/d * A_ii).
See spec/mjcf.md §18. Row-type codes follow MuJoCo's mjtConstraint so arrays compare directly.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

# Constraint row types (MuJoCo's mjtConstraint numbering).
EQUALITY = 0
FRICTION_DOF = 1
FRICTION_TENDON = 2
LIMIT_JOINT = 3
LIMIT_TENDON = 4
CONTACT_FRICTIONLESS = 5
CONTACT_PYRAMIDAL = 6
CONTACT_ELLIPTIC = 7

# Constraint row states after a solve (MuJoCo's mjtConstraintState numbering).
STATE_SATISFIED = 0
STATE_QUADRATIC = 1
STATE_LINEARNEG = 2
STATE_LINEARPOS = 3
STATE_CONE = 4

MINVAL = 1e-15  # mjMINVAL: floor for divisions and regularizers
MINIMP = 0.0001  # mjMINIMP: smallest impedance d
MAXIMP = 0.9999  # mjMAXIMP: largest impedance d

DEFAULT_SOLREF = (0.02, 1.0)
DEFAULT_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)

CONE_PYRAMIDAL = 0
CONE_ELLIPTIC = 1


def _label(kind: str, name: str | None, index: int | None = None) -> str:
    if name:
        return f"{kind} '{name}'"
    if index is not None:
        return f"{kind} #{index}"
    return kind


def ValidateSolref(solref: Sequence[float], what: str = "constraint", name: str | None = None,
                   index: int | None = None, allow_unset: bool = False) -> np.ndarray:
    """Check one solref pair: (timeconst > 0, dampratio > 0) or direct (-stiffness, -damping <= 0).

    `allow_unset` accepts (0, 0), MuJoCo's "not set" marker for solreffriction.
    Raises ValueError naming the constraint (`what`, `name` or `index`).
    """
    ref = np.asarray(solref, dtype=np.float64).reshape(-1)
    if ref.shape == (2,):  # fast accept of the valid cases; errors are worded below
        r0, r1 = float(ref[0]), float(ref[1])
        if (r0 > 0.0 and 0.0 < r1 < np.inf and r0 < np.inf) or (-np.inf < r0 < 0.0 and -np.inf < r1 <= 0.0) \
                or (allow_unset and r0 == 0.0 and r1 == 0.0):
            return ref
    label = _label(what, name, index)
    if ref.shape != (2,) or not np.all(np.isfinite(ref)):
        raise ValueError(f"{label}: solref must be 2 finite numbers, got {list(ref)}")
    if allow_unset and ref[0] == 0.0 and ref[1] == 0.0:
        return ref
    if ref[0] > 0.0:
        if ref[1] <= 0.0:
            raise ValueError(f"{label}: solref = {list(ref)} has a positive time constant but dampratio "
                             f"{ref[1]} <= 0; use a positive dampratio (1 = critical damping)")
    elif ref[0] < 0.0:
        if ref[1] > 0.0:
            raise ValueError(f"{label}: solref = {list(ref)} mixes formats: a negative first number is the "
                             f"direct (-stiffness, -damping) form, so the damping must be <= 0 too; "
                             f"for (timeconst, dampratio) the time constant must be positive")
    else:
        raise ValueError(f"{label}: solref time constant is zero ({list(ref)}); use a positive "
                         f"time constant (default 0.02 s) or the direct form (-stiffness, -damping)")
    return ref


def ValidateSolimp(solimp: Sequence[float], what: str = "constraint", name: str | None = None,
                   index: int | None = None) -> np.ndarray:
    """Check one solimp 5-tuple (dmin, dmax, width, midpoint, power) is 5 finite numbers; returns it as an array.

    As in MuJoCo, any finite values are accepted and clamped where they are used (ClampSolimp): the d's and the
    midpoint to [0.0001, 0.9999], width >= 0, power >= 1 (real models give e.g. dmin = 2 or dmin = 0); raises
    ValueError naming the constraint for a wrong size or a non-finite value.
    """
    imp = np.asarray(solimp, dtype=np.float64).reshape(-1)
    if imp.shape != (5,) or not np.all(np.isfinite(imp)):
        raise ValueError(f"{_label(what, name, index)}: solimp must be 5 finite numbers (dmin, dmax, width, "
                         f"midpoint, power), got {list(imp)}")
    return imp


def ValidateFriction(friction: Sequence[float], what: str = "contact", name: str | None = None,
                     index: int | None = None) -> np.ndarray:
    """Check friction coefficients are finite and >= 0; raises ValueError naming the geometry."""
    fr = np.asarray(friction, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(fr)) or np.any(fr < 0.0):
        raise ValueError(f"{_label(what, name, index)}: friction coefficients must be finite and >= 0, "
                         f"got {list(fr)}")
    return fr


@njit(cache=True)
def _power(a, b):
    if b == 1.0:
        return a
    if b == 2.0:
        return a * a
    return a ** b


@njit(cache=True)
def Impedance(solimp, pos, margin):
    """Impedance d(r) and its derivative dd/dpos for r = pos - margin (MuJoCo's sigmoid).

    Returns (d, d') unclamped; d moves from dmin at |r| = 0 to dmax at |r| >= width along two
    power-`p` splines joined at `midpoint` (fraction of width).
    """
    dmin = solimp[0]
    dmax = solimp[1]
    width = solimp[2]
    if dmin == dmax or width <= MINVAL:
        return 0.5 * (dmin + dmax), 0.0
    x = (pos - margin) / width
    sgn = 1.0
    if x < 0.0:
        x = -x
        sgn = -1.0
    if x >= 1.0 or x <= 0.0:
        return (dmax if x >= 1.0 else dmin), 0.0
    mid = solimp[3]
    p = solimp[4]
    if p == 1.0:
        y = x
        yp = 1.0
    elif x <= mid:
        a = 1.0 / _power(mid, p - 1.0)
        y = a * _power(x, p)
        yp = p * a * _power(x, p - 1.0)
    else:
        b = 1.0 / _power(1.0 - mid, p - 1.0)
        y = 1.0 - b * _power(1.0 - x, p)
        yp = p * b * _power(1.0 - x, p - 1.0)
    return dmin + y * (dmax - dmin), yp * sgn * (dmax - dmin) / width


@njit(cache=True)
def SolrefStiffnessDamping(solref, dmax, timestep, refsafe):
    """Stiffness k and damping b (before the d(r) factor on k) from solref, as MuJoCo computes them.

    Positive form (timeconst, dampratio): k = 1/(dmax^2 tc^2 zeta^2), b = 2/(dmax tc), with
    tc = max(tc, 2*timestep) when `refsafe`. Direct form (-stiffness, -damping): k = stiffness/dmax^2,
    b = damping/dmax. aref = -b*v - k*d(r)*r. Units 1/s^2 and 1/s.
    """
    tc = solref[0]
    zeta = solref[1]
    if refsafe and tc > 0.0:
        tc = max(tc, 2.0 * timestep)
    if tc > 0.0:
        k = 1.0 / max(MINVAL, dmax * dmax * tc * tc * zeta * zeta)
    else:
        k = -tc / max(MINVAL, dmax * dmax)
    if zeta > 0.0:
        b = 2.0 / max(MINVAL, dmax * tc)
    else:
        b = -zeta / max(MINVAL, dmax)
    return k, b


@njit(cache=True)
def _clamp_solimp(s):
    for g in range(s.shape[0]):
        s[g, 0] = min(MAXIMP, max(MINIMP, s[g, 0]))
        s[g, 1] = min(MAXIMP, max(MINIMP, s[g, 1]))
        s[g, 2] = max(s[g, 2], 0.0)
        s[g, 3] = min(MAXIMP, max(MINIMP, s[g, 3]))
        s[g, 4] = max(s[g, 4], 1.0)


def ClampSolimp(solimp: np.ndarray) -> np.ndarray:
    """MuJoCo's internal clamps: d's to [1e-4, 0.9999], width >= 0, midpoint in range, power >= 1."""
    s = np.array(solimp, dtype=np.float64, copy=True).reshape(-1, 5)
    if np.isnan(s).any():  # keep NaN as NaN (np.clip semantics); validation reports it
        s[:, [0, 1, 3]] = np.clip(s[:, [0, 1, 3]], MINIMP, MAXIMP)
        s[:, 2] = np.maximum(s[:, 2], 0.0)
        s[:, 4] = np.maximum(s[:, 4], 1.0)
        return s
    _clamp_solimp(s)
    return s


@njit(cache=True)
def SolmixWeight(s1, s2):
    """The weight of geometry 1 in a pair's mixed solref / solimp: s1/(s1 + s2), MuJoCo's rules when a solmix is
    below mjMINVAL (both: ½; one: all to the other)."""
    if s1 >= MINVAL and s2 >= MINVAL:
        return s1 / (s1 + s2)
    if s1 < MINVAL and s2 < MINVAL:
        return 0.5
    return 0.0 if s1 < MINVAL else 1.0


def MixContactParameters(geom1: dict, geom2: dict) -> dict:
    """Contact parameters of a geom pair, MuJoCo's rules (mj_contactParam).

    Each geom is a dict with keys priority, condim, solmix, solref(2), solimp(5), friction(3),
    margin, gap. Higher priority wins outright; equal priority takes condim = max, friction = max
    per component, solimp (and positive-form solref) mixed with weight solmix1/(solmix1+solmix2),
    direct-form solref the element-wise min. margin and gap are sums (MuJoCo 4.x). Returns condim,
    solref, solimp, friction (5: slide, slide, spin, roll, roll), margin, gap, includemargin = margin
    (rows are active while dist < includemargin; detection extends to margin + gap).
    """
    p1, p2 = int(geom1.get("priority", 0)), int(geom2.get("priority", 0))
    r1 = np.asarray(geom1.get("solref", DEFAULT_SOLREF), dtype=np.float64)
    r2 = np.asarray(geom2.get("solref", DEFAULT_SOLREF), dtype=np.float64)
    i1 = np.asarray(geom1.get("solimp", DEFAULT_SOLIMP), dtype=np.float64)
    i2 = np.asarray(geom2.get("solimp", DEFAULT_SOLIMP), dtype=np.float64)
    f1 = np.asarray(geom1.get("friction", (1.0, 0.005, 0.0001)), dtype=np.float64)
    f2 = np.asarray(geom2.get("friction", (1.0, 0.005, 0.0001)), dtype=np.float64)
    c1, c2 = int(geom1.get("condim", 3)), int(geom2.get("condim", 3))
    for geom, c in ((geom1, c1), (geom2, c2)):
        if c not in (1, 3, 4, 6):
            raise ValueError(f"geom '{geom.get('name', '?')}': condim {c} is invalid; use 1, 3, 4 or 6")
    ValidateFriction(f1, "geom", geom1.get("name"))
    ValidateFriction(f2, "geom", geom2.get("name"))
    if p1 > p2:
        condim, solref, solimp, fri = c1, r1.copy(), i1.copy(), f1.copy()
    elif p1 < p2:
        condim, solref, solimp, fri = c2, r2.copy(), i2.copy(), f2.copy()
    else:
        condim = max(c1, c2)
        mix = SolmixWeight(float(geom1.get("solmix", 1.0)), float(geom2.get("solmix", 1.0)))
        if r1[0] > 0 and r2[0] > 0:
            solref = mix * r1 + (1.0 - mix) * r2
        else:
            solref = np.minimum(r1, r2)
        solimp = mix * i1 + (1.0 - mix) * i2
        fri = np.maximum(f1, f2)
    # MuJoCo 4.x: pair margin and gap are sums; rows are active for dist < margin (includemargin),
    # the gap only widens detection (contacts in [margin, margin + gap) are generated but excluded)
    margin = float(geom1.get("margin", 0.0)) + float(geom2.get("margin", 0.0))
    gap = float(geom1.get("gap", 0.0)) + float(geom2.get("gap", 0.0))
    friction5 = np.array([fri[0], fri[0], fri[1], fri[2], fri[2]])
    return {"condim": condim, "solref": solref, "solimp": solimp, "friction": friction5,
            "margin": margin, "gap": gap, "includemargin": margin}
