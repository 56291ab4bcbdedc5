"""Kernels of the discrete contact step: the tree-ordered envelope solve of (M + hD) a = b (on the MuJoCo
humanoid's real mass matrix and on random tree-sparse matrices), the one-tree elimination order, the
prevalidated limit rows (same problem as AddLimit), and a figure-on-a-plane plant stepping to MuJoCo's
state (the discrete step's free-acceleration solve and the assembled rows together)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.contact import ConstraintAssembler
from mallard.multibody.contact.elimination import EliminationOrder, ReverseTreeSolve, TreeBlocks
from mallard.multibody.contact.linalg import RowSupport

H = 0.002


def _humanoid_plant(models_dir, time_step=0.005):
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.parsers import Parser
    from mallard.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    Parser(plant).AddModels(str(models_dir / "mujoco" / "model" / "humanoid.xml"))
    plant.Finalize()
    diagram = builder.Build()
    return plant, diagram


def test_reverse_tree_solve_on_the_humanoid_mass_matrix(models_dir):
    plant, diagram = _humanoid_plant(models_dir)
    context = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    rng = np.random.default_rng(2)
    q = np.array(plant.GetPositions(context))
    q[7:] += rng.uniform(-0.3, 0.3, q.shape[0] - 7)
    plant.SetPositions(context, q)
    M = plant.CalcMassMatrix(context) + np.diag(rng.uniform(0.0, 0.2, plant.num_velocities()))
    b = rng.normal(size=plant.num_velocities())
    expected = np.linalg.solve(M, b)
    for blocks in (TreeBlocks(M), np.array([0, M.shape[0]], np.int64)):  # one free tree: both give one block
        np.testing.assert_allclose(ReverseTreeSolve(M, blocks, b), expected, rtol=1e-10, atol=1e-12)


def test_reverse_tree_solve_any_order_and_blocks_and_not_positive_definite():
    rng = np.random.default_rng(7)
    # three trees of 6, 4 and 5 dofs; inside each a random sparsity (not tree-ordered): still exact
    n = 15
    M = np.zeros((n, n))
    for s, e in ((0, 6), (6, 10), (10, 15)):
        A = rng.normal(size=(e - s, e - s)) * (rng.uniform(size=(e - s, e - s)) < 0.5)
        M[s:e, s:e] = A @ A.T + (e - s) * np.eye(e - s)
    b = rng.normal(size=n)
    for blocks in (np.array([0, 6, 10, 15]), np.array([0, 15])):
        np.testing.assert_allclose(ReverseTreeSolve(M, blocks, b), np.linalg.solve(M, b), rtol=1e-11)
    bad = M.copy()
    bad[7, 7] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        ReverseTreeSolve(bad, np.array([0, 6, 10, 15]), b)


def test_elimination_order_of_one_tree_is_children_first():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(9, 9))
    M = A @ A.T + 9 * np.eye(9)
    J = rng.normal(size=(4, 9))
    idx, start = RowSupport(J)
    np.testing.assert_array_equal(EliminationOrder(M, idx, start, np.array([0, 9])), np.arange(8, -1, -1))


def test_validated_limit_rows_build_the_same_problem_as_add_limit():
    nv = 5
    ref, imp = np.array([0.03, 1.2]), np.array([0.8, 0.9, 0.01, 0.4, 3.0])
    v = np.array([0.3, -0.2, 1.0, 0.5, -0.7])
    rows = [(1, 1.0, -0.01, 0.0, 2.5), (3, -1.0, 0.002, 0.01, 0.7)]
    a, b = ConstraintAssembler(nv), ConstraintAssembler(nv)
    for dof, sign, dist, margin, dA in rows:
        J = np.zeros((1, nv))
        J[0, dof] = sign
        a.AddLimit(J, dist, margin, dA, ref, imp, name=f"j{dof}")
        b.AddValidatedLimit(dof, sign, dist, margin, dA, ref, imp, name=f"j{dof}")
    pa, pb = a.Build(v, H), b.Build(v, H)
    assert pa.nl == pb.nl == 2 and list(pa.names) == list(pb.names) == ["j1", "j3"]
    for field in ("J", "efc_type", "efc_id", "efc_pos", "efc_margin", "efc_R", "efc_D", "efc_KBIP", "efc_diagA",
                  "efc_vel", "efc_aref"):
        np.testing.assert_array_equal(getattr(pa, field), getattr(pb, field), err_msg=field)
    # the row's reference acceleration: aref = -b J v - k d (dist - margin) with MuJoCo's impedance
    assert pb.efc_vel[0] == pytest.approx(v[1]) and pb.efc_vel[1] == pytest.approx(-v[3])


def test_figure_on_a_plane_follows_mujoco():
    """A capsule figure (free torso + hinges with limits) falling on a plane, MuJoCo parameters: mallard's
    discrete step (tree-ordered free-acceleration solve, compiled row assembly, limit rows) against mj_step."""
    import importlib.util

    mujoco = require_mujoco()
    spec = importlib.util.spec_from_file_location("_contact_bench", Path(__file__).parents[3] / "benchmarks" / "contact.py")
    scene = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scene)
    xml = scene.mujoco_xml("figure", scene.figure_scene())
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.multibody.mjcf.state import GetMujocoState
    from mallard.parsers import Parser
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, H)
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    sim = Simulator(diagram, context)
    most = 0
    for k in range(1, 401):  # 0.8 s: the figure lands, bounces and settles (up to ~10 contacts, limit rows)
        mujoco.mj_step(m, d)
        most = max(most, d.ncon)
    sim.AdvanceTo(400 * H)
    q, v = GetMujocoState(plant, plant.GetMyContextFromRoot(context))
    assert most >= 8 and d.ncon > 0
    np.testing.assert_allclose(q, d.qpos, atol=1e-9)
    np.testing.assert_allclose(v, d.qvel, atol=1e-8)
