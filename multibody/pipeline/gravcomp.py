"""MuJoCo's body gravity compensation (MJCF body `gravcomp`, mj_gravcomp): a force −gravcomp·m·g at each such
body's center of mass, mapped to the dofs by the COM's translational Jacobian (qfrc_gravcomp). As MuJoCo, the part
on the dofs of joints with `actuatorgravcomp` counts as actuation (added before their actuatorfrcrange clamp, in
actuation.py), the rest as a passive force.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from .structs import B1, F1, I1, bools, declare, floats, ints
from .transmission import add_wrench_row


@structref.register
class GravcompModelType(types.StructRef):
    """numba type of GravcompModel."""


class GravcompModel(structref.StructRefProxy):
    """The gravity-compensated bodies and the dofs whose compensation is actuation."""


GRAVCOMP_MODEL = declare(GravcompModelType, GravcompModel, [
    ("body", I1),        # plant body index of each compensated body
    ("factor", F1),      # its gravcomp factor (1: weight fully compensated)
    ("actuated", B1),    # (nv,) dof of a joint with actuatorgravcomp
])


@njit(cache=True)
def new_gravcomp_model(body, factor, actuated):
    g = structref.new(GRAVCOMP_MODEL)
    g.body, g.factor, g.actuated = body, factor, actuated
    return g


def CompileGravcomp(plant, mjcf) -> GravcompModel:
    """The gravcomp bodies of the plant's MJCF models (`mjcf`: mjcf/actuation.py MjcfActuation, or None)."""
    nv = plant.num_velocities()
    gc = None if mjcf is None else mjcf.gravcomp
    if gc is None:
        return new_gravcomp_model(ints([]), floats([]), bools(np.zeros(nv, bool)))
    return new_gravcomp_model(ints([int(b.index()) for b, _ in gc.bodies]), floats([f for _, f in gc.bodies]),
                              bools(gc.actuated))


@njit(cache=True)
def gravcomp(m, d, g_W):
    """d.qfrc_gravcomp (nv) under gravity g_W; its passive part (dofs without actuatorgravcomp) added to d.tau."""
    gc = m.act.gc
    nv = m.tree.nv
    if d.qfrc_gravcomp.shape[0] != nv:
        d.qfrc_gravcomp = np.empty(nv)
    out = d.qfrc_gravcomp
    out[:] = 0.0
    if gc.body.shape[0] == 0:
        return
    zero = np.zeros(3)
    f = np.empty(3)
    p = np.empty(3)
    for r in range(gc.body.shape[0]):
        b = gc.body[r]
        R = d.R_WB[b]
        scale = -gc.factor[r] * d.bp[b, 0]
        for k in range(3):
            f[k] = scale * g_W[k]
            p[k] = d.p_WB[b, k] + R[k, 0] * d.bp[b, 1] + R[k, 1] * d.bp[b, 2] + R[k, 2] * d.bp[b, 3]
        add_wrench_row(m.tree.ji, d.S, b, p, f, zero, 1.0, out)
    for k in range(nv):
        if not gc.actuated[k]:
            d.tau[k] += out[k]
