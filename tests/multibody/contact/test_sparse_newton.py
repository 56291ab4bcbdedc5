"""The Newton solver's sparse path: envelope Cholesky (against numpy), the elimination order (trees
kept child-first, trees ordered by reverse Cuthill-McKee), and SolveConstraints on a pile of free
bodies coupled by contacts (same answer with and without tree_blocks, and as the CG solver); MuJoCo's
warm-start rule; RowNames labels; the compiled contact-frame kernel against the formula."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry.collision import mujoco_contact_frame
from mallard.multibody.contact import ConstraintAssembler, SolveConstraints
from mallard.multibody.contact.linalg import EnvelopeCholesky, EnvelopeFirst, EnvelopeSolve, RowSupport
from mallard.multibody.contact.elimination import EliminationOrder, TreeBlocks

H = 0.002
SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def _spd_blocks(rng, sizes):
    blocks = []
    for n in sizes:
        A = rng.normal(size=(n, n))
        blocks.append(A @ A.T + n * np.eye(n))
    n = sum(sizes)
    M = np.zeros((n, n))
    k = 0
    for B in blocks:
        M[k:k + len(B), k:k + len(B)] = B
        k += len(B)
    return M


def test_envelope_cholesky_matches_numpy():
    rng = np.random.default_rng(3)
    M = _spd_blocks(rng, [6, 6, 3, 6])
    M[20, 2] = M[2, 20] = 0.3  # a coupling far from the diagonal
    first = EnvelopeFirst(M)
    assert first[20] == 2 and first[7] == 6
    L = EnvelopeCholesky(M, first)
    np.testing.assert_allclose(L, np.linalg.cholesky(M), atol=1e-12)
    b = rng.normal(size=M.shape[0])
    np.testing.assert_allclose(EnvelopeSolve(L, first, b), np.linalg.solve(M, b), rtol=1e-11)
    bad = M.copy()
    bad[4, 4] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        EnvelopeCholesky(bad, EnvelopeFirst(bad))


def test_elimination_order_keeps_trees_and_narrows_the_envelope():
    rng = np.random.default_rng(5)
    nb = 12
    M = _spd_blocks(rng, [6] * nb)
    blocks = TreeBlocks(M)
    np.testing.assert_array_equal(blocks, np.arange(0, 6 * nb + 1, 6))
    # constraint rows coupling body k with body (k + 5) mod nb: a ring in a scrambled order
    J = np.zeros((nb, 6 * nb))
    for k in range(nb):
        J[k, 6 * k:6 * k + 6] = rng.normal(size=6)
        j = (k + 5) % nb
        J[k, 6 * j:6 * j + 6] = rng.normal(size=6)
    idx, start = RowSupport(J)
    order = EliminationOrder(M, idx, start, blocks)
    assert sorted(order.tolist()) == list(range(6 * nb))
    for t in range(0, 6 * nb, 6):  # each tree: contiguous, children (higher dofs) first
        k = int(np.flatnonzero(order == t + 5)[0])
        np.testing.assert_array_equal(order[k:k + 6], np.arange(t + 5, t - 1, -1))
    Hs = M + J.T @ J
    Hp = Hs[np.ix_(order, order)]
    work = lambda A: sum((i - f) ** 2 for i, f in enumerate(EnvelopeFirst(A)))  # noqa: E731
    assert work(Hp) < 0.5 * work(Hs)  # reverse Cuthill-McKee beats the natural order on a ring
    L = EnvelopeCholesky(Hp, EnvelopeFirst(Hp))
    np.testing.assert_allclose(L @ L.T, Hp, atol=1e-9)


def _pile_problem(n_bodies=8, seed=0):
    """Free unit bodies in a row, each touching the floor and its neighbour (random frames)."""
    rng = np.random.default_rng(seed)
    nv = 6 * n_bodies
    M = _spd_blocks(rng, [6] * n_bodies) * 0.1
    Jc = []
    for b in range(n_bodies):
        for other in ((None,) if b == n_bodies - 1 else (None, b + 1)):
            J = np.zeros((6, nv))
            J[:, 6 * b:6 * b + 6] = rng.normal(size=(6, 6))
            if other is not None:
                J[:, 6 * other:6 * other + 6] = -rng.normal(size=(6, 6))
            Jc.append(J)
    ncon = len(Jc)
    asm = ConstraintAssembler(nv)
    asm.SetContacts(np.array(Jc), rng.uniform(-0.003, 0.0005, ncon), [3] * ncon, [(1.0, 0.005, 0.0001)] * ncon,
                    [(0.02, 1.0)] * ncon, [SOLIMP] * ncon, [0.0] * ncon, [1.0] * ncon, [1.0] * ncon,
                    names=[f"c{k}" for k in range(ncon)])
    v = rng.normal(size=nv) * 0.1
    a0 = rng.normal(size=nv)
    return asm, M, a0, v


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_sparse_newton_matches_cg_and_ignores_block_hint(cone):
    asm, M, a0, v = _pile_problem()
    problem = asm.Build(v, H, cone=cone)
    nv = M.shape[0]
    ref = SolveConstraints(problem, M, a0, solver="cg", iterations=5000, tolerance=1e-14)
    plain = SolveConstraints(problem, M, a0, tolerance=1e-14)
    hinted = SolveConstraints(problem, M, a0, tolerance=1e-14, tree_blocks=np.arange(0, nv + 1, 6))
    one_tree = SolveConstraints(problem, M, a0, tolerance=1e-14, tree_blocks=[0, nv])
    assert plain.converged and hinted.converged and one_tree.converged
    scale = np.abs(ref.qacc).max()
    np.testing.assert_allclose(plain.qacc, ref.qacc, atol=1e-6 * scale)
    np.testing.assert_allclose(hinted.qacc, plain.qacc, atol=1e-10 * scale)
    np.testing.assert_allclose(one_tree.qacc, plain.qacc, atol=1e-10 * scale)
    np.testing.assert_allclose(plain.qfrc_constraint, problem.J.T @ plain.efc_force, atol=1e-9 * scale)
    assert np.any(plain.efc_force != 0)
    with pytest.raises(ValueError, match="tree_blocks"):
        SolveConstraints(problem, M, a0, tree_blocks=[0, 7, 6, nv])


def test_warm_start_rule_and_row_names():
    asm, M, a0, v = _pile_problem(n_bodies=4, seed=2)
    problem = asm.Build(v, H)
    cold = SolveConstraints(problem, M, a0, tolerance=1e-12)
    hot = SolveConstraints(problem, M, a0, tolerance=1e-12, qacc_warmstart=cold.qacc)
    assert hot.iterations <= 1 and hot.iterations < cold.iterations
    np.testing.assert_allclose(hot.qacc, cold.qacc, atol=1e-8 * np.abs(cold.qacc).max())
    junk = SolveConstraints(problem, M, a0, tolerance=1e-12, qacc_warmstart=a0 + 1e6)  # worse than a0: ignored
    assert junk.iterations == cold.iterations
    np.testing.assert_array_equal(junk.qacc, cold.qacc)
    names = problem.names  # 4 rows per pyramidal condim-3 contact, labelled by contact
    assert len(names) == problem.nefc == 4 * 7
    assert names[0] == "c0" and names[5] == "c1" and names[-1] == "c6" and names[4:8] == ["c1"] * 4
    with pytest.raises(IndexError):
        names[problem.nefc]


def test_contact_frame_kernel_matches_formula():
    rng = np.random.default_rng(1)
    n = rng.normal(size=(40, 3))
    t = rng.normal(size=(40, 3))
    t[::3] = 0.0        # no hint: world y, or z when the normal is close to y
    n[3] = [0.1, 1.0, 0.0]
    t[5] = 2.0 * n[5]   # hint parallel to the normal: (1, 0, 0) before orthogonalization
    F = mujoco_contact_frame(n, t)
    for k in range(40):
        nk = n[k] / np.linalg.norm(n[k])
        y = t[k] if t[k] @ t[k] >= 0.25 else (np.array([0.0, 1.0, 0.0]) if abs(nk[1]) < 0.5 else
                                                np.array([0.0, 0.0, 1.0]))
        y = y - nk * (nk @ y)
        y = y / np.linalg.norm(y) if np.linalg.norm(y) >= 1e-15 else np.array([1.0, 0.0, 0.0])
        np.testing.assert_allclose(F[k], np.array([nk, y, np.cross(nk, y)]), atol=1e-12)
    np.testing.assert_allclose(F[3, 1], [0.0, 0.0, 1.0], atol=1e-12)


def test_mass_matrix_check_can_be_skipped_only_for_trusted_inputs():
    asm, M, a0, v = _pile_problem(n_bodies=3, seed=4)
    problem = asm.Build(v, H)
    checked = SolveConstraints(problem, M, a0)
    trusted = SolveConstraints(problem, M, a0, check_mass_matrix=False)
    np.testing.assert_array_equal(trusted.qacc, checked.qacc)
    skew = M.copy()
    skew[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        SolveConstraints(problem, skew, a0)
    indefinite = M.copy()
    indefinite[2, 2] = -5.0
    with pytest.raises(ValueError, match="positive"):
        SolveConstraints(problem, indefinite, a0, check_mass_matrix=False)


def test_read_only_tree_blocks_are_checked_once_and_per_nv():
    from mallard.multibody.contact import solver as S
    asm, M, a0, v = _pile_problem(n_bodies=3, seed=6)
    problem = asm.Build(v, H)
    blocks = np.array([0, 6, 12, 18], np.int64)
    blocks.flags.writeable = False
    first = SolveConstraints(problem, M, a0, tree_blocks=blocks)
    assert S._checked_blocks[0] is blocks
    np.testing.assert_array_equal(SolveConstraints(problem, M, a0, tree_blocks=blocks).qacc, first.qacc)
    asm2, M2, a02, v2 = _pile_problem(n_bodies=2, seed=6)  # another nv: the cached array no longer fits
    with pytest.raises(ValueError, match="tree_blocks"):
        SolveConstraints(asm2.Build(v2, H), M2, a02, tree_blocks=blocks)
