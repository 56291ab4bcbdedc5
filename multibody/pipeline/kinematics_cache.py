"""The per-context kinematics cache of a plant's Model: world poses, joint motion subspaces, velocities, bias terms
and world inertias at a state, as arrays (filled by the compiled kinematics stage)."""
from __future__ import annotations

import itertools

import numpy as np

from ..kernels import pipeline as pl


KINEMATICS_TOKENS = itertools.count()  # one number per kinematics computation (memos key on it, not on the object)


class Kinematics:
    """Per-context kinematics cache: world poses, joint columns S, Plücker velocities V / terms c at Wo, inertias Iw.
    `token` names one computation: a context's cache object is rewritten in place, so results derived from it are
    memoized on its token, never on its identity."""

    __slots__ = ("q", "v", "bp", "R_WB", "p_WB", "R_WF", "p_WF", "p_WM", "S", "V", "c", "Iw", "_buf", "ev", "token",
                 "Cv", "has_Cv", "Cv_read", "ev_version")

    def __init__(self, model, q: np.ndarray, v: np.ndarray, bp: np.ndarray, jf: np.ndarray | None = None):
        """`jf` overrides the model's joint frames (MJCF mocap welds posed per context, mjcf/mocap.py)."""
        self.token = next(KINEMATICS_TOKENS)
        self.Cv, self.has_Cv, self.Cv_read = None, False, False
        self.q = np.array(q, dtype=float)
        self.v = np.array(v, dtype=float)
        self.bp = bp
        (self.R_WB, self.p_WB, self.R_WF, self.p_WF, self.p_WM, self.S, self.V, self.c,
         self.Iw) = pl.kinematics_stage(model.order, model.ji, model.jf if jf is None else jf, bp, self.q, self.v,
                                        model.nv)

    @classmethod
    def Cached(cls, fast, nb: int) -> "Kinematics":
        """Kinematics whose arrays are views of one flat buffer (a context's cache value, filled by Update)."""
        kin = cls.__new__(cls)
        layout = pl.kinematics_layout(fast.nq, fast.nv, nb)
        kin._buf = buf = np.zeros(layout.pop("size")[0])
        del layout["scratch"]  # (kinematics_mass_matrix_flat's)
        for name, (offset, shape) in layout.items():
            setattr(kin, name, buf[offset:offset + int(np.prod(shape))].reshape(shape))
        kin.bp = kin.ev = None
        kin.ev_version = -1  # the parameter version `ev` was read at (the plant's CalcMassMatrix)
        kin.Cv = np.zeros(fast.nv)
        kin.has_Cv = kin.Cv_read = False
        return kin

    def Update(self, fast, x: np.ndarray, ev, jf: np.ndarray | None = None) -> None:
        """Recompute in place at the state x = [q; v; ...] (a C-contiguous float64 vector) and the body parameters
        of `ev` (the context's ElementValues, kept as `ev` for the dynamics that read it next) through the plant's
        compiled entry (`fast`, a FastModel); a Cached instance only. Its arrays are a context's cache, reused
        from call to call, so a state change allocates nothing."""
        self.token = next(KINEMATICS_TOKENS)
        self.ev = ev
        self.bp = ev.bp
        self.has_Cv = False
        fast.kinematics(fast.order, fast.ji, fast.jf if jf is None else np.ascontiguousarray(jf, dtype=np.float64),
                        ev.bp, x, fast.nq, fast.nv, self._buf)
