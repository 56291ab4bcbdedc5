"""Time integration of the discrete step: semi-implicit Euler v⁺ = v + h·v̇, then q⁺ by Drake's q + h·N(q)·v⁺ or
MuJoCo's mj_integratePos (quaternion joints advanced by the exact exponential map and renormalized)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.contact_kernels import NextState


@njit(cache=True)
def euler(m, d, x_next):
    """[q⁺; v⁺] into x_next[:nq + nv]. Returns True when every entry is finite."""
    t = m.tree
    x = NextState(t.order, t.ji, d.q, d.v, d.qacc, t.h, m.opt.mujoco_positions)
    finite = True
    for i in range(t.nq + t.nv):
        x_next[i] = x[i]
        if not np.isfinite(x[i]):
            finite = False
    return finite
