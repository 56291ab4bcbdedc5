"""contact/tree_sparse.py reads a tree-sparse M only inside its trees' blocks and stores factors by their row
envelope: the results equal the dense-storage kernels they replace (elimination.PermutedInto +
linalg.EnvelopeFirstInto, linalg.EnvelopeCholeskyInPlace + EnvelopeSolve on an n × n factor) bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.contact.elimination import EliminationOrder, PermutedInto
from mallard.multibody.contact.linalg import EnvelopeCholeskyInPlace, EnvelopeFirstInto, EnvelopeSolve, RowSupport
from mallard.multibody.contact.tree_sparse import BlockCopyInto, PermutedEnvelopeInto, ReverseTreeSolveSkyline

BLOCKS = np.array([0, 3, 9, 10, 14, 17], np.int64)  # a 3-dof particle, a free body, a slider, a 4-dof chain, ...


def _tree_spd(rng):
    """SPD blocks on BLOCKS, each with some exact zeros (a tree's sparsity), nothing between blocks."""
    n = BLOCKS[-1]
    M = np.zeros((n, n))
    for s, e in zip(BLOCKS[:-1], BLOCKS[1:]):
        A = rng.normal(size=(e - s, e - s)) * (rng.random((e - s, e - s)) < 0.6)
        M[s:e, s:e] = A @ A.T + (e - s) * np.eye(e - s)
    return M


def _dense_reverse_tree_solve(M, bstart, b):
    """The envelope solve in reverse dof order on a dense n × n factor (the algorithm ReverseTreeSolve ran)."""
    n = M.shape[0]
    first = np.empty(n, np.int64)
    L = np.full((n, n), np.nan)
    for s, e in zip(bstart[:-1], bstart[1:]):
        for a in range(s, e):
            far = a
            for c in range(e - 1, a, -1):
                if M[a, c] != 0.0:
                    far = c
                    break
            i, f = n - 1 - a, n - 1 - far
            first[i] = f
            for j in range(f, i + 1):
                L[i, j] = M[a, n - 1 - j]
    EnvelopeCholeskyInPlace(L, first)
    return EnvelopeSolve(L, first, b[::-1].copy())[::-1]


def test_skyline_solve_equals_the_dense_envelope_solve_bit_for_bit():
    rng = np.random.default_rng(3)
    M = _tree_spd(rng)
    for _ in range(3):
        b = rng.normal(size=M.shape[0])
        for bstart in (BLOCKS, np.array([0, M.shape[0]], np.int64)):
            x = ReverseTreeSolveSkyline(M, bstart, b)
            assert np.array_equal(x, _dense_reverse_tree_solve(M, bstart, b))
            np.testing.assert_allclose(M @ x, b, rtol=1e-10, atol=1e-10)
    bad = M.copy()
    bad[11, 11] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        ReverseTreeSolveSkyline(bad, BLOCKS, b)


def test_permuted_envelope_equals_the_dense_permutation_and_scan():
    rng = np.random.default_rng(5)
    M = _tree_spd(rng)
    n = M.shape[0]
    J = np.zeros((4, n))  # rows coupling trees: they set the trees' order, not M's envelope
    for r, (a, b) in enumerate(((1, 5), (9, 12), (12, 15), (4, 16))):
        J[r, a], J[r, b] = 1.0, -0.5
    idx, start = RowSupport(J)
    order = EliminationOrder(M, idx, start, BLOCKS)
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n)
    ref = np.empty((n, n))
    PermutedInto(M, order, ref)
    first_ref = np.empty(n, np.int64)
    EnvelopeFirstInto(ref, first_ref)
    Mp = np.full((n, n), np.nan)  # what PermutedEnvelopeInto leaves unwritten stays NaN
    first = np.empty(n, np.int64)
    PermutedEnvelopeInto(M, order, pos, BLOCKS, Mp, first)
    assert np.array_equal(first, first_ref)
    for i in range(n):
        assert np.array_equal(Mp[i, first[i]:i + 1], ref[i, first[i]:i + 1])
        assert np.all(ref[i, :first[i]] == 0.0)
    # an island's blocks gathered in its own numbering
    dofs = np.array([3, 4, 5, 6, 7, 8, 14, 15, 16], np.int64)
    lb = np.array([0, 6, 9], np.int64)
    out = np.full((9, 9), np.nan)
    BlockCopyInto(M, dofs, lb, out)
    full = M[np.ix_(dofs, dofs)]
    assert np.array_equal(out[:6, :6], full[:6, :6]) and np.array_equal(out[6:, 6:], full[6:, 6:])
    assert np.all(np.isnan(out[:6, 6:])) and np.all(full[:6, 6:] == 0.0)

