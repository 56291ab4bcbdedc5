"""MuJoCo's muscle model (spec/mjcf.md §19; mju_muscleGain, mju_muscleBias, mju_muscleDynamics): force–length–velocity
gain, passive bias, activation dynamics and the gain's velocity derivative, as scalar kernels the actuation stage
(actuation.py), the velocity derivative (derivative.py) and the plant's Python path share.

prm = gainprm = biasprm = (range0, range1, force, scale, lmin, lmax, vmax, fpmax, fvmax); dynprm =
(tau_act, tau_deact, tausmooth). Lengths in the transmission's units (m or rad); the peak force F0 is `force`, or
scale / acc0 when force < 0 (acc0: the actuator's acceleration at unit force, computed at compile time). Every
denominator is guarded by 1e-15 as MuJoCo does.
"""
from __future__ import annotations

from numba import njit

MINVAL = 1e-15


@njit(cache=True)
def muscle_length_velocity(length, velocity, lengthrange, prm):
    """(L, V, L0·vmax): normalized muscle length L = range0 + (length − lr0)/L0, velocity V = velocity/(L0·vmax)
    and the velocity scale, with L0 = (lr1 − lr0)/(range1 − range0) the optimal length."""
    L0 = (lengthrange[1] - lengthrange[0]) / max(MINVAL, prm[1] - prm[0])
    L = prm[0] + (length - lengthrange[0]) / max(MINVAL, L0)
    scale = max(MINVAL, L0 * prm[6])
    return L, velocity / scale, scale


@njit(cache=True)
def muscle_peak_force(prm, acc0):
    """F0 [N or N·m]: `force`, or scale/acc0 when force < 0."""
    return prm[2] if prm[2] >= 0 else prm[3] / max(MINVAL, acc0)


@njit(cache=True)
def muscle_force_length(L, prm):
    """FL(L): the active force–length curve (two half-parabolas each side of L = 1, zero outside [lmin, lmax])."""
    lmin, lmax = prm[4], prm[5]
    a, b = 0.5 * (lmin + 1.0), 0.5 * (1.0 + lmax)
    if L < lmin or L > lmax:
        return 0.0
    if L <= a:
        x = (L - lmin) / max(MINVAL, a - lmin)
        return 0.5 * x * x
    if L <= 1.0:
        x = (1.0 - L) / max(MINVAL, 1.0 - a)
        return 1.0 - 0.5 * x * x
    if L <= b:
        x = (L - 1.0) / max(MINVAL, b - 1.0)
        return 1.0 - 0.5 * x * x
    x = (lmax - L) / max(MINVAL, lmax - b)
    return 0.5 * x * x


@njit(cache=True)
def MuscleGain(length, velocity, lengthrange, acc0, prm):
    """gain = −F0·FL(L)·FV(V) [N or N·m per unit activation]."""
    L, V, _ = muscle_length_velocity(length, velocity, lengthrange, prm)
    FL = muscle_force_length(L, prm)
    fvmax = prm[8]
    y = fvmax - 1.0
    if V <= -1.0:
        FV = 0.0
    elif V <= 0.0:
        FV = (V + 1.0) * (V + 1.0)
    elif V <= y:
        FV = fvmax - (y - V) * (y - V) / max(MINVAL, y)
    else:
        FV = fvmax
    return -muscle_peak_force(prm, acc0) * FL * FV


@njit(cache=True)
def MuscleGainVelocity(length, velocity, lengthrange, acc0, prm):
    """∂gain/∂velocity of −F0·FL(L)·FV(V) [N·s/m per unit activation] (MuJoCo's mjd_muscleGain_vel)."""
    _, V, scale = muscle_length_velocity(length, velocity, lengthrange, prm)
    y = prm[8] - 1.0
    if V <= -1.0 or V > y:
        dFV = 0.0
    elif V <= 0.0:
        dFV = 2.0 * V + 2.0
    else:
        dFV = (2.0 * y - 2.0 * V) / max(MINVAL, y)
    return MuscleGain(length, 0.0, lengthrange, acc0, prm) * dFV / scale


@njit(cache=True)
def MuscleBias(length, lengthrange, acc0, prm):
    """bias = −F0·fpmax·FP(L): the passive force, present at any activation."""
    L, _, _ = muscle_length_velocity(length, 0.0, lengthrange, prm)
    b = 0.5 * (1.0 + prm[5])
    if L <= 1.0:
        FP = 0.0
    elif L <= b:
        x = (L - 1.0) / max(MINVAL, b - 1.0)
        FP = 0.5 * x * x
    else:
        x = (L - b) / max(MINVAL, b - 1.0)
        FP = 0.5 + x
    return -muscle_peak_force(prm, acc0) * prm[7] * FP


@njit(cache=True)
def _sigmoid(x):
    """Quintic smoothstep 6x⁵ − 15x⁴ + 10x³ on [0, 1], clamped outside."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * x * (3.0 * x * (2.0 * x - 5.0) + 10.0)


@njit(cache=True)
def MuscleActivationRate(ctrl, act, dynprm):
    """ȧ = (ctrl − a)/τ(ctrl, a) [1/s] with ctrl clamped to [0, 1]; τ = τ_act(0.5 + 1.5a) when activating,
    τ_deact/(0.5 + 1.5a) when deactivating, blended over `tausmooth` when it is > 0."""
    c = min(max(ctrl, 0.0), 1.0)
    a = min(max(act, 0.0), 1.0)
    tau_act = dynprm[0] * (0.5 + 1.5 * a)
    tau_deact = dynprm[1] / (0.5 + 1.5 * a)
    smooth = dynprm[2]
    dctrl = c - act
    if smooth < MINVAL:
        tau = tau_act if dctrl > 0 else tau_deact
    else:
        tau = tau_deact + (tau_act - tau_deact) * _sigmoid(dctrl / smooth + 0.5)
    return dctrl / max(MINVAL, tau)
