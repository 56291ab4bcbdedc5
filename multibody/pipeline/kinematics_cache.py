"""The per-context kinematics cache of a plant's Model: world poses, joint motion subspaces, velocities, bias terms
and world inertias at a state, as arrays (filled by the compiled kinematics stage)."""
from __future__ import annotations

import itertools

import numpy as np

from ..kernels import pipeline as pl
from .smooth import BODY_PARAM_COLUMNS as _BODY_PARAM_COLUMNS


_TOKENS = itertools.count()  # one number per kinematics computation (memos key on it, not on the object)


class Kinematics:
    """Per-context kinematics cache: world poses, joint columns S, Plücker velocities V / terms c at Wo, inertias Iw.
    `token` names one computation: a context's cache object is rewritten in place, so results derived from it are
    memoized on its token, never on its identity."""

    __slots__ = ("q", "v", "bp", "R_WB", "p_WB", "R_WF", "p_WF", "p_WM", "S", "V", "c", "Iw", "_buf", "_bp_flat", "token")

    def __init__(self, model, q: np.ndarray, v: np.ndarray, bp: np.ndarray, jf: np.ndarray | None = None):
        """`jf` overrides the model's joint frames (MJCF mocap welds posed per context, mjcf/mocap.py)."""
        self.token = next(_TOKENS)
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
        for name, (offset, shape) in layout.items():
            setattr(kin, name, buf[offset:offset + int(np.prod(shape))].reshape(shape))
        kin.bp = kin._bp_flat = None
        return kin

    def Update(self, fast, x: np.ndarray, bp_flat: np.ndarray, jf: np.ndarray | None = None) -> None:
        """Recompute in place at the state x = [q; v; ...] (a C-contiguous float64 vector) and the body parameters
        bp_flat (the context's numeric parameter, nb·13, read in place) through the plant's
        compiled entry (`fast`, a FastModel); a Cached instance only. Its arrays are a context's cache, reused
        from call to call, so a state change allocates nothing."""
        self.token = next(_TOKENS)
        if bp_flat is not self._bp_flat:  # a new parameter array: view it as (nb, 13) once
            bp = np.ascontiguousarray(bp_flat, dtype=np.float64)
            self._bp_flat = bp_flat if bp is bp_flat else None  # a copy is not kept: it would not see edits
            self.bp = bp = bp.reshape(-1, _BODY_PARAM_COLUMNS)
        else:
            bp = self.bp
        fast.kinematics(fast.order, fast.ji, fast.jf if jf is None else np.ascontiguousarray(jf, dtype=np.float64),
                        bp, x, fast.nq, fast.nv, self._buf)
