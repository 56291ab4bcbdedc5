"""MuJoCo's noslip sweeps (option noslip_iterations): fed MuJoCo's own constraint problem, SolveConstraints with
noslip returns MuJoCo's efc_force and qacc; an MJCF plant with noslip follows MuJoCo's trajectory."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.contact import SolveConstraints


def _xml(cone: str, condim: int, noslip: int, noslip_tol: float = 0.0, bodies: int = 1) -> str:
    boxes = "".join(f'<body pos="{0.4 * k} 0 .0499" euler="0 0 {20 * k}"><freejoint/>'
                    f'<geom type="box" size=".1 .07 .05" condim="{condim}" friction="0.9 0.02 0.001"/></body>'
                    for k in range(bodies))
    hinge = ('<body pos="0 1 1"><joint type="hinge" axis="0 1 0" frictionloss="0.05"/>'
             '<geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" contype="0" conaffinity="0"/></body>')
    return (f'<mujoco><option cone="{cone}" impratio="3" tolerance="1e-12" noslip_iterations="{noslip}" '
            f'noslip_tolerance="{noslip_tol}" gravity="2 1 -9.81"/>'
            f'<worldbody><geom type="plane" size="3 3 .1"/>{boxes}{hinge}</worldbody></mujoco>')


CASES = {  # (cone, condim, noslip iterations, noslip tolerance, boxes)
    "pyramidal3": ("pyramidal", 3, 4, 0.0, 1),
    "pyramidal4": ("pyramidal", 4, 2, 0.0, 1),
    "elliptic3": ("elliptic", 3, 5, 0.0, 1),
    "elliptic4": ("elliptic", 4, 3, 0.0, 1),
    "elliptic6": ("elliptic", 6, 3, 0.0, 1),
    "two_islands_tolerance": ("elliptic", 3, 6, 1e-6, 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_noslip_forces_match_mujoco(name, mj_problem):
    mujoco = require_mujoco()
    cone, condim, iters, tol, bodies = CASES[name]
    m = mujoco.MjModel.from_xml_string(_xml(cone, condim, iters, tol, bodies))
    d = mujoco.MjData(m)
    d.qvel[m.nv - 1] = 0.5  # the hinge turns: its dry friction row is active
    checked = 0
    for step in range(60):
        mujoco.mj_step(m, d)
        if step % 10 != 9:
            continue
        mujoco.mj_forward(m, d)
        assert d.ncon >= 4 * bodies
        problem, M, a0 = mj_problem(mujoco, m, d)
        blocks = np.array([6 * k for k in range(bodies + 1)] + [m.nv], dtype=np.int64)
        plain = SolveConstraints(problem, M, a0, tolerance=1e-12, qacc_warmstart=d.qacc_warmstart,
                                 tree_blocks=blocks)
        res = SolveConstraints(problem, M, a0, tolerance=1e-12, qacc_warmstart=d.qacc_warmstart,
                               tree_blocks=blocks, noslip_iterations=iters, noslip_tolerance=tol)
        scale = max(1.0, float(np.abs(d.efc_force).max()))
        assert np.abs(plain.efc_force - d.efc_force).max() > 1e-6 * scale  # noslip changes the forces
        np.testing.assert_allclose(res.efc_force, d.efc_force, atol=1e-9 * scale)
        np.testing.assert_allclose(res.qacc, d.qacc, atol=1e-8 * max(1.0, float(np.abs(d.qacc).max())))
        checked += 1
    assert checked == 6


def test_mjcf_plant_with_noslip_follows_mujoco():
    mujoco = require_mujoco()
    from mallard.multibody.mjcf.state import GetMujocoState
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.parsers import Parser
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder

    xml = _xml("elliptic", 4, 3, 1e-6, 2)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, float(m.opt.timestep))
    Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    assert plant.get_constraint_solver_options().noslip_iterations == 3
    sim = Simulator(builder.Build())
    ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    for n in range(1, 201):
        mujoco.mj_step(m, d)
        if n % 50 == 0:
            sim.AdvanceTo(n * m.opt.timestep)
            q, _ = GetMujocoState(plant, ctx)
            np.testing.assert_allclose(q, d.qpos, atol=1e-9)
    m.opt.noslip_iterations = 0  # without noslip MuJoCo's boxes creep elsewhere: the sweeps matter here
    d0 = mujoco.MjData(m)
    for _ in range(200):
        mujoco.mj_step(m, d0)
    assert np.abs(d0.qpos - d.qpos).max() > 1e-7
