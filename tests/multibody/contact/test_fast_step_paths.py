"""The discrete contact step's fast paths against their general counterparts: the Newton solver's rank-one
factor updates (against a full refactorization), the one-call limit + contact row assembly (against
ConstraintAssembler), the checked solve entry (against PrimalSolve and its errors), the joint-limit block of
the assembler, and the plant's figure-on-a-plane step with each fast path switched off (same states)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from mallard.multibody.contact import ConstraintAssembler, SolveConstraints
from mallard.multibody.contact.assembly import AssembleLimitContactRows
from mallard.multibody.contact.linalg import EnvelopeCholesky, EnvelopeFirst, RowSupport
from mallard.multibody.contact.parameters import STATE_QUADRATIC, STATE_SATISFIED
from mallard.multibody.contact.newton_hessian import CholRankOne, ColumnLast, UpdateFactor
from mallard.multibody.contact.primal_solver import CheckedPrimalSolve, PrimalSolve

H = 0.002
SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def _tree_mass_matrix(rng, n):
    """An SPD matrix with a chain-like envelope (couplings to a few earlier dofs)."""
    L = np.tril(rng.normal(size=(n, n)))
    for i in range(n):
        L[i, :max(0, i - 3)] = 0.0
        L[i, i] = abs(L[i, i]) + 2.0
    return L @ L.T


def _hessian(M, J, D, active):
    return M + (J[active].T * D[active]) @ J[active]


def test_rank_one_updates_match_a_full_refactorization():
    rng = np.random.default_rng(7)
    n, m = 10, 8
    M = _tree_mass_matrix(rng, n)
    J = np.zeros((m, n))
    for i in range(m):
        cols = rng.choice(n, 3, replace=False)
        J[i, cols] = rng.normal(size=3)
    D = rng.uniform(0.5, 3.0, m)
    idx, start = RowSupport(J)
    pos = np.arange(n)  # identity elimination order
    efc_type = np.zeros(m, np.int64)
    old = np.array([STATE_QUADRATIC if k % 2 else STATE_SATISFIED for k in range(m)], np.int64)
    new = old.copy()
    new[[0, 3, 6]] = [STATE_QUADRATIC, STATE_SATISFIED, STATE_QUADRATIC]  # two rows added, one removed
    first = np.zeros(n, np.int64)  # a dense envelope holds any update
    L = EnvelopeCholesky(_hessian(M, J, D, old == STATE_QUADRATIC), first)
    assert UpdateFactor(L, first, pos, J, idx, start, D, new, old, efc_type, np.empty(n), np.empty(n, np.int64))
    expected = np.linalg.cholesky(_hessian(M, J, D, new == STATE_QUADRATIC))
    np.testing.assert_allclose(np.tril(L), expected, atol=1e-11)
    # in a narrow envelope (the result's, which holds the start's when rows are only added): each column's
    # update stops at its last row (ColumnLast) with the same factor
    grow = old.copy()
    grow[[0, 6]] = STATE_QUADRATIC
    H1 = _hessian(M, J, D, grow == STATE_QUADRATIC)
    f1 = EnvelopeFirst(H1)
    last = np.empty(n, np.int64)
    ColumnLast(f1, last)
    assert last.tolist() == [max(i for i in range(n) if f1[i] <= k) for k in range(n)]
    L1 = EnvelopeCholesky(_hessian(M, J, D, old == STATE_QUADRATIC), f1)
    assert UpdateFactor(L1, f1, pos, J, idx, start, D, grow, old, efc_type, np.empty(n), np.empty(n, np.int64))
    env = np.arange(n)[None, :] >= f1[:, None]
    np.testing.assert_allclose(np.tril(L1) * env, np.linalg.cholesky(H1) * env, atol=1e-11)
    # a row reaching outside a narrow envelope is refused (the caller rebuilds H)
    H0 = _hessian(M, J, D, np.zeros(m, bool))
    f0 = EnvelopeFirst(H0)
    L0 = EnvelopeCholesky(H0, f0)
    wide = int(np.argmax([pos[idx[start[i]:start[i + 1]]].max() - pos[idx[start[i]:start[i + 1]]].min()
                          for i in range(m)]))
    st = np.full(m, STATE_SATISFIED, np.int64)
    st2 = st.copy()
    st2[wide] = STATE_QUADRATIC
    assert not UpdateFactor(L0, f0, pos, J, idx, start, D, st2, st, efc_type, np.empty(n), np.empty(n, np.int64))
    # a downdate that would lose positive definiteness is refused
    x = np.zeros(n)
    x[0] = 10.0 * np.sqrt(M[0, 0])
    Lm = np.linalg.cholesky(M)
    assert not CholRankOne(Lm, np.zeros(n, np.int64), x, -1.0, np.full(n, n - 1, np.int64))


def _contact_problem(rng, nv, ncon, nlim):
    Jc = np.zeros((ncon, 3, nv))
    for c in range(ncon):
        cols = rng.choice(nv, 4, replace=False)
        Jc[c][:, cols] = rng.normal(size=(3, 4))
    dist = rng.uniform(-0.004, 0.0005, ncon)
    cd = np.array([3, 1, 3, 3][:ncon], np.int64)
    fr = np.tile([0.8, 0.8, 0.005, 0.0001, 0.0001], (ncon, 1))
    ref = np.tile([0.02, 1.0], (ncon, 1))
    imp = np.tile(SOLIMP, (ncon, 1))
    mar = np.zeros(ncon)
    q = rng.uniform(-1.2, 1.2, nlim)
    lim = dict(q=np.arange(nlim, dtype=np.int64), lo=np.full(nlim, -1.0), hi=np.full(nlim, 1.0),
               margin=np.full(nlim, 0.05), dof=np.arange(nlim, dtype=np.int64) + 1,
               ref=np.tile([0.03, 1.1], (nlim, 1)), imp=np.tile(SOLIMP, (nlim, 1)), bad=np.zeros(nlim, bool))
    return Jc, dist, cd, fr, ref, imp, mar, q, lim


def test_one_call_limit_and_contact_rows_match_the_assembler():
    rng = np.random.default_rng(11)
    nv, ncon, nlim = 9, 4, 6
    Jc, dist, cd, fr, ref, imp, mar, q, lim = _contact_problem(rng, nv, ncon, nlim)
    iw_d = rng.uniform(0.5, 2.0, nv)
    iw_b = rng.uniform(0.1, 1.0, (4, 2))
    bA, bB = np.array([0, 1, 0, 2], np.int64), np.array([1, 2, 3, 3], np.int64)
    v = rng.normal(size=nv)
    asm = ConstraintAssembler(nv)
    for k in range(nlim):
        for d, sign in ((q[k] - lim["lo"][k], 1.0), (lim["hi"][k] - q[k], -1.0)):
            if d < lim["margin"][k]:
                row = np.zeros((1, nv))
                row[0, lim["dof"][k]] = sign
                asm.AddLimit(row, d, lim["margin"][k], iw_d[lim["dof"][k]], lim["ref"][k], lim["imp"][k], name=f"j{k}")
    asm.SetContacts(Jc, dist, cd, fr, ref, imp, mar, iw_b[bA, 0] + iw_b[bB, 0], iw_b[bA, 1] + iw_b[bB, 1])
    p = asm.Build(v, H, cone="pyramidal", impratio=1.0)
    J, F, I, KBIP, con_mu, C, kk, bad = AssembleLimitContactRows(
        q, lim["q"], lim["lo"], lim["hi"], lim["margin"], lim["dof"], lim["ref"], lim["imp"], lim["bad"], iw_d, Jc, dist,
        cd, fr, mar, bA, bB, iw_b, ref, imp, True, H, True, 1.0, v)
    assert bad == -1 and kk.shape[0] == p.nl > 0
    np.testing.assert_array_equal(J, p.J)
    for row, field in enumerate(("efc_pos", "efc_margin", "efc_frictionloss", "efc_R", "efc_D", "efc_diagA",
                                 "efc_vel", "efc_aref")):
        np.testing.assert_array_equal(F[row], getattr(p, field), err_msg=field)
    np.testing.assert_array_equal(I[0], p.efc_type)
    np.testing.assert_array_equal(I[1], p.efc_id)
    np.testing.assert_array_equal(KBIP, p.efc_KBIP)
    np.testing.assert_array_equal(con_mu, p.con_mu)
    np.testing.assert_array_equal(C[0], p.con_efc_address)
    # an active limit whose parameters failed validation is reported
    lim["bad"][int(kk[0])] = True
    out = AssembleLimitContactRows(q, lim["q"], lim["lo"], lim["hi"], lim["margin"], lim["dof"], lim["ref"], lim["imp"],
                                   lim["bad"], iw_d, Jc, dist, cd, fr, mar, bA, bB, iw_b, ref, imp, True, H, True, 1.0,
                                   v)
    assert out[-1] == kk[0]


def test_checked_solve_matches_primal_solve_and_reports_bad_input():
    rng = np.random.default_rng(5)
    nv = 9
    Jc, dist, cd, fr, ref, imp, mar, _q, _lim = _contact_problem(rng, nv, 4, 0)
    M = _tree_mass_matrix(rng, nv)
    asm = ConstraintAssembler(nv)
    asm.SetContacts(Jc, dist, cd, fr, ref, imp, mar, np.ones(4), np.ones(4))
    p = asm.Build(rng.normal(size=nv), H)
    a0 = rng.normal(size=nv)
    args = (M, a0, p.J, p.efc_aref, p.efc_D, p.efc_R, p.efc_frictionloss, p.efc_type, p.efc_id, p.ne, p.nf,
            p.con_dim, p.con_mu, p.con_friction)
    tail = (True, 100, 1e-10, 50, 0.01, 1.0 / np.mean(np.diag(M)) / nv, np.array([0, nv], np.int64))
    ref_out = PrimalSolve(*args, a0, *tail)
    out = CheckedPrimalSolve(*args, np.zeros(0), *tail)
    assert out[0] == 0 and out[5] == ref_out[4] > 0
    np.testing.assert_array_equal(out[1], ref_out[0])
    warm = ref_out[0] + 1e-3
    np.testing.assert_array_equal(CheckedPrimalSolve(*args, warm, *tail)[1], PrimalSolve(*args, warm, *tail)[0])
    bad = np.array(a0)
    bad[2] = np.nan
    assert CheckedPrimalSolve(M, bad, *args[2:], np.zeros(0), *tail)[0] == 1
    with pytest.raises(ValueError, match="NaN"):
        SolveConstraints(p, M, bad, check_mass_matrix=False)
    res = SolveConstraints(p, M, a0, check_mass_matrix=False, tolerance=1e-10)
    res_checked = SolveConstraints(p, M, a0, check_mass_matrix=True, tolerance=1e-10)
    np.testing.assert_array_equal(res.qacc, res_checked.qacc)


def test_limit_block_then_single_limits_keep_row_order():
    nv = 6
    ref, imp = np.array([0.03, 1.2]), np.array(SOLIMP)
    v = np.linspace(-1.0, 1.0, nv)
    a, b = ConstraintAssembler(nv), ConstraintAssembler(nv)
    rows = [(1, 1.0, -0.01, 0.0, 2.5, "j1"), (4, -1.0, 0.002, 0.01, 0.7, "j4")]
    for dof, sign, dist, margin, dA, name in rows:
        J = np.zeros((1, nv))
        J[0, dof] = sign
        a.AddLimit(J, dist, margin, dA, ref, imp, name=name)
    b.AddValidatedLimits(np.array([1, 4]), np.array([1.0, -1.0]), np.array([-0.01, 0.002]), np.array([0.0, 0.01]),
                         np.array([2.5, 0.7]), np.tile(ref, (2, 1)), np.tile(imp, (2, 1)), ["j1", "j4"])
    for asm in (a, b):  # a tendon-style limit row after the joint limits
        J = np.zeros((1, nv))
        J[0, [0, 5]] = [0.5, -0.5]
        asm.AddLimit(J, -0.003, 0.0, 1.5, ref, imp, name="tendon", tendon=True)
    pa, pb = a.Build(v, H), b.Build(v, H)
    assert list(pa.names) == list(pb.names) == ["j1", "j4", "tendon"]
    for field in ("J", "efc_type", "efc_pos", "efc_R", "efc_D", "efc_aref"):
        np.testing.assert_array_equal(getattr(pa, field), getattr(pb, field), err_msg=field)
    only = ConstraintAssembler(nv)  # the block alone: laid out without per-row work, same rows
    only.AddValidatedLimits(np.array([1, 4]), np.array([1.0, -1.0]), np.array([-0.01, 0.002]), np.array([0.0, 0.01]),
                            np.array([2.5, 0.7]), np.tile(ref, (2, 1)), np.tile(imp, (2, 1)), ["j1", "j4"])
    po = only.Build(v, H)
    np.testing.assert_array_equal(po.J, pa.J[:2])
    np.testing.assert_array_equal(po.efc_aref, pa.efc_aref[:2])


def _figure_states(monkeypatch, steps, general_rows=False, general_contacts=False):
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.multibody.contact.constraint_rows import ConstraintRowModel
    from mallard.multibody.contact.geometry_table import ContactGeometryTable
    from mallard.parsers import Parser
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder
    spec = importlib.util.spec_from_file_location("_contact_bench", Path(__file__).parents[3] / "benchmarks" / "contact.py")
    scene = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scene)
    with monkeypatch.context() as mp:
        if general_rows:
            mp.setattr(ConstraintRowModel, "only_limits", property(lambda self: False))
        if general_contacts:
            mp.setattr(ContactGeometryTable, "FastArrays", lambda self: None)
        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, H)
        Parser(plant).AddModelsFromString(scene.mujoco_xml("figure", scene.figure_scene()), "xml")
        plant.Finalize()
        diagram = builder.Build()
        context = diagram.CreateDefaultContext()
        Simulator(diagram, context).AdvanceTo(steps * H)
        return plant.GetPositionsAndVelocities(plant.GetMyContextFromRoot(context)).copy()


def test_figure_steps_the_same_with_the_fast_paths_off(monkeypatch):
    """0.6 s of the capsule figure landing (contacts and limit rows): the one-call contact arrays and row
    assembly give the general path's states."""
    fast = _figure_states(monkeypatch, 300)
    np.testing.assert_allclose(_figure_states(monkeypatch, 300, general_rows=True), fast, rtol=0, atol=1e-10)
    np.testing.assert_allclose(_figure_states(monkeypatch, 300, general_contacts=True), fast, rtol=0, atol=1e-10)
