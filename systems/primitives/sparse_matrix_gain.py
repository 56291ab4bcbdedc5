"""`SparseMatrixGain`: y = D u with a scipy sparse matrix D (pydrake.systems.primitives)."""
from __future__ import annotations

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.systems.framework import LeafSystem

from ._util import input_data

scipy_sparse = LazyModule("scipy.sparse")  # loaded on first use (import time)

__all__ = ["SparseMatrixGain"]


class SparseMatrixGain(LeafSystem):
    """y = D u; D is any scipy sparse matrix (stored as CSC), of fixed shape once constructed."""

    def __init__(self, D) -> None:
        super().__init__()
        self._D = scipy_sparse.csc_matrix(D, dtype=float)
        rows, cols = self._D.shape
        self.DeclareVectorInputPort("u", cols)
        self.DeclareVectorOutputPort("y", rows, self._calc, {self.all_input_ports_ticket()})

    def D(self) -> scipy_sparse.csc_matrix:
        return self._D.copy()

    def set_D(self, D) -> None:
        """Replaces D (same shape as the current one)."""
        new = scipy_sparse.csc_matrix(D, dtype=float)
        if new.shape != self._D.shape:
            raise ValueError(f"SparseMatrixGain.set_D: D must keep its shape {self._D.shape}, got {new.shape}")
        self._D = new

    def _calc(self, context, output) -> None:
        output.get_mutable_value()[:] = self._D @ np.asarray(input_data(self, context, 0))
