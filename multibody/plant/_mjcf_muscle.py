"""MuJoCo's muscle model (spec/mjcf.md §19): force–length–velocity gain, passive bias and activation dynamics.

prm = gainprm = biasprm = (range0, range1, force, scale, lmin, lmax, vmax, fpmax, fvmax); dynprm =
(tau_act, tau_deact, tausmooth). Lengths in the transmission's units (m or rad); force F0 = `force`, or
scale / acc0 when force < 0. Every denominator is guarded by 1e-15 as MuJoCo does.
"""
from __future__ import annotations

_MINVAL = 1e-15


def _norm_length_velocity(length: float, velocity: float, lengthrange, prm) -> tuple[float, float]:
    """(L, V): normalized muscle length L = range0 + (length − lr0)/L0 and velocity V = velocity/(L0·vmax)."""
    L0 = (lengthrange[1] - lengthrange[0]) / max(_MINVAL, prm[1] - prm[0])
    L = prm[0] + (length - lengthrange[0]) / max(_MINVAL, L0)
    V = velocity / max(_MINVAL, L0 * prm[6])
    return L, V


def _peak_force(prm, acc0: float) -> float:
    return prm[2] if prm[2] >= 0 else prm[3] / max(_MINVAL, acc0)


def MuscleGain(length: float, velocity: float, lengthrange, acc0: float, prm) -> float:
    """gain = −F0·FL(L)·FV(V) [N or N·m per unit activation]."""
    L, V = _norm_length_velocity(length, velocity, lengthrange, prm)
    lmin, lmax, fvmax = prm[4], prm[5], prm[8]
    a, b = 0.5 * (lmin + 1.0), 0.5 * (1.0 + lmax)
    if L < lmin or L > lmax:
        FL = 0.0
    elif L <= a:
        x = (L - lmin) / max(_MINVAL, a - lmin)
        FL = 0.5 * x * x
    elif L <= 1.0:
        x = (1.0 - L) / max(_MINVAL, 1.0 - a)
        FL = 1.0 - 0.5 * x * x
    elif L <= b:
        x = (L - 1.0) / max(_MINVAL, b - 1.0)
        FL = 1.0 - 0.5 * x * x
    else:
        x = (lmax - L) / max(_MINVAL, lmax - b)
        FL = 0.5 * x * x
    y = fvmax - 1.0
    if V <= -1.0:
        FV = 0.0
    elif V <= 0.0:
        FV = (V + 1.0) * (V + 1.0)
    elif V <= y:
        FV = fvmax - (y - V) * (y - V) / max(_MINVAL, y)
    else:
        FV = fvmax
    return -_peak_force(prm, acc0) * FL * FV


def MuscleBias(length: float, lengthrange, acc0: float, prm) -> float:
    """bias = −F0·fpmax·FP(L): the passive force, present at any activation."""
    L, _ = _norm_length_velocity(length, 0.0, lengthrange, prm)
    b = 0.5 * (1.0 + prm[5])
    if L <= 1.0:
        FP = 0.0
    elif L <= b:
        x = (L - 1.0) / max(_MINVAL, b - 1.0)
        FP = 0.5 * x * x
    else:
        x = (L - b) / max(_MINVAL, b - 1.0)
        FP = 0.5 + x
    return -_peak_force(prm, acc0) * prm[7] * FP


def _sigmoid(x: float) -> float:
    """Quintic smoothstep 6x⁵ − 15x⁴ + 10x³ on [0, 1], clamped outside."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * x * (3.0 * x * (2.0 * x - 5.0) + 10.0)


def MuscleActivationRate(ctrl: float, act: float, dynprm) -> float:
    """ȧ = (ctrl − a)/τ(ctrl, a) with ctrl clamped to [0, 1]; τ = τ_act(0.5 + 1.5a) when activating,
    τ_deact/(0.5 + 1.5a) when deactivating, blended over `tausmooth` when it is > 0."""
    c = min(max(ctrl, 0.0), 1.0)
    a = min(max(act, 0.0), 1.0)
    tau_act = dynprm[0] * (0.5 + 1.5 * a)
    tau_deact = dynprm[1] / (0.5 + 1.5 * a)
    smooth = dynprm[2]
    dctrl = c - act
    if smooth < _MINVAL:
        tau = tau_act if dctrl > 0 else tau_deact
    else:
        tau = tau_deact + (tau_act - tau_deact) * _sigmoid(dctrl / smooth + 0.5)
    return dctrl / max(_MINVAL, tau)
