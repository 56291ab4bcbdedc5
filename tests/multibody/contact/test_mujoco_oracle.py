"""mallard's constraint assembly and solvers fed MuJoCo's own inputs reproduce MuJoCo's efc_* rows
(D, R, aref, diagA, J: 1e-12) and its solution (qacc, efc_force: 1e-8).

Both Newton solvers run at tolerance 1e-14: at 1e-10 each stops at a slightly different inexact
iterate (MuJoCo's own answer then has a scaled gradient ~1e-5 and differs from the exact optimum by
up to ~2e-6 in qacc on the condim-6 elliptic scene), so agreement is asserted at the common optimum."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.contact import ContactForces, SolveConstraints

PLANE = '<geom name="floor" type="plane" size="2 2 .1"/>'


def scene(body: str, cone: str = "pyramidal", extra: str = "", option: str = "", top: str = "") -> str:
    return (f'<mujoco><option jacobian="dense" cone="{cone}" tolerance="1e-14" {option}/>{top}'
            f'<worldbody>{PLANE}{body}</worldbody>{extra}</mujoco>')


SCENES = {
    "sphere_condim1": (scene('<body pos="0 0 .098"><freejoint/><geom type="sphere" size=".1" condim="1" priority="1"/></body>'),
                       {2: -0.3}),
    "sphere_rolling_condim6": (scene('<body pos="0 0 .097"><freejoint/><geom type="sphere" size=".1" condim="6" '
                                     'friction="0.8 0.02 0.01"/></body>'), {0: 0.5, 4: 2.0, 2: -0.2}),
    "capsule_condim4": (scene('<body pos="0 0 .048" euler="0 90 0"><freejoint/><geom type="capsule" size=".05 .2" '
                              'condim="4" friction="0.7 0.05 0.001"/></body>'), {1: 0.3, 5: 1.0}),
    "box_rest": (scene('<body pos="0 0 .048"><freejoint/><geom type="box" size=".05 .05 .05" mass="1"/></body>'), {}),
    "box_sliding": (scene('<body pos="0 0 .0495"><freejoint/><geom type="box" size=".1 .05 .05" '
                          'friction="0.4"/></body>'), {0: 1.5, 1: -0.2}),
    "box_stack": (scene('<body pos="0 0 .049"><freejoint/><geom type="box" size=".1 .1 .05"/></body>'
                        '<body pos="0.02 0 .147"><freejoint/><geom type="box" size=".05 .05 .05"/></body>'), {6: 0.1}),
    "pendulum_limit": (scene('<body pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0" range="-30 30" '
                             'limited="true" solreflimit="0.03 0.8" solimplimit="0.8 0.95 0.01 0.4 3"/>'
                             '<geom type="capsule" fromto="0 0 0 0 0 -.5" size=".02"/></body>'), {"qpos": {0: 0.53}, 0: 1.0}),
    "frictionloss_hinge": (scene('<body pos="0 0 1"><joint type="hinge" axis="0 1 0" frictionloss="0.3" '
                                 'solreffriction="0.01 1"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"/>'
                                 '<body pos=".3 0 0"><joint type="hinge" axis="0 1 0" frictionloss="5"/>'
                                 '<geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"/></body></body>'), {0: 0.2}),
    "connect_chain": (scene('<body name="a" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>'
                            '<geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"/>'
                            '<body name="b" pos=".3 0 0"><joint type="hinge" axis="0 1 0"/>'
                            '<geom type="capsule" fromto="0 0 0 0 0 -.3" size=".02"/></body></body>'
                            '<body name="c" pos="0.3 0 0.7"><joint type="hinge" axis="0 1 0"/>'
                            '<geom type="capsule" fromto="0 0 0 0 0 .3" size=".02"/></body>',
                            extra='<equality><connect body1="b" body2="c" anchor="0 0 -0.3" solref="0.01 1"/>'
                                  '<joint joint1="j1" joint2="j2" polycoef="0.1 0.5 0.2 0 0"/></equality>'),
                      {0: 0.7, 1: -1.2, 2: 0.4}),
    "weld_misaligned": (scene('<body name="w1" pos="0 0 1"><joint type="ball"/><geom type="box" size=".1 .05 .05"/>'
                              '</body><body name="w2" pos="0.25 0.02 1.01" euler="5 3 8"><freejoint/>'
                              '<geom type="box" size=".1 .05 .05" contype="0"/></body>',
                              extra='<equality><weld body1="w1" body2="w2" relpose="0.2 0 0 1 0 0 0" '
                                    'solref="0.02 1" solimp="0.8 0.95 0.02 0.5 2"/></equality>'), {}),
    "elliptic_box_sliding": (scene('<body pos="0 0 .0495"><freejoint/><geom type="box" size=".1 .05 .05" '
                                   'friction="0.4"/></body>', cone="elliptic", option='impratio="3"'), {0: 1.5, 1: -0.2}),
    "elliptic_sphere_condim6": (scene('<body pos="0 0 .097"><freejoint/><geom name="ball" type="sphere" size=".1" '
                                      'contype="0" conaffinity="0"/></body>', cone="elliptic",
                                      extra='<contact><pair geom1="floor" geom2="ball" condim="6" '
                                            'friction="0.8 0.6 0.02 0.01 0.005" solreffriction="0.05 1"/></contact>'),
                                {0: 0.5, 4: 2.0, 2: -0.2}),
    "elliptic_capsule_condim4": (scene('<body pos="0 0 .045" euler="0 90 0"><freejoint/><geom type="capsule" '
                                       'size=".05 .2" condim="4" friction="0.7 0.05 0.001"/></body>', cone="elliptic"),
                                 {1: 0.3, 5: 1.0}),
    "direct_solref_mixed_geoms": (scene('<body pos="0 0 .095"><freejoint/><geom type="sphere" size=".1" '
                                        'solref="-20000 -50" solimp="0.8 0.9 0.02 0.3 1" solmix="3" margin="0.01" '
                                        'gap="0.004"/></body>'), {2: -0.5}),
}


def _fix_connect_xml(xml: str) -> str:
    # name the hinge joints used by the joint coupler
    xml = xml.replace('<joint type="hinge" axis="0 1 0"/>\n', "")
    parts = xml.split('<joint type="hinge" axis="0 1 0"/>')
    out = parts[0]
    for k, p in enumerate(parts[1:]):
        out += f'<joint name="j{k + 1}" type="hinge" axis="0 1 0"/>' + p
    return out


def run_scene(mujoco, name):
    xml, init = SCENES[name]
    if name == "connect_chain":
        xml = _fix_connect_xml(xml)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    for k, val in init.get("qpos", {}).items():
        d.qpos[k] = val
    for k, val in init.items():
        if k != "qpos":
            d.qvel[k] = val
    mujoco.mj_forward(m, d)
    return m, d


@pytest.mark.parametrize("name", sorted(SCENES))
def test_rows_and_newton_match_mujoco(name, mj_problem):
    mujoco = require_mujoco()
    m, d = run_scene(mujoco, name)
    assert d.nefc > 0
    problem, M, a0 = mj_problem(mujoco, m, d)
    assert problem.nefc == d.nefc
    np.testing.assert_array_equal(problem.efc_type, d.efc_type)
    np.testing.assert_allclose(problem.J, np.array(d.efc_J).reshape(d.nefc, m.nv), rtol=0, atol=1e-12)
    for field in ("efc_D", "efc_R", "efc_aref", "efc_diagA", "efc_pos", "efc_margin", "efc_frictionloss"):
        ours, theirs = getattr(problem, field), getattr(d, field)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, err_msg=field)
    np.testing.assert_allclose(problem.efc_KBIP, np.array(d.efc_KBIP).reshape(-1, 4), rtol=1e-12, atol=1e-12)
    if d.ncon:
        np.testing.assert_allclose(problem.con_mu, [d.contact[c].mu for c in range(d.ncon)], rtol=1e-12)
    res = SolveConstraints(problem, M, a0, solver="newton", tolerance=1e-14)
    assert res.converged and res.iterations <= 100
    np.testing.assert_allclose(res.qacc, d.qacc, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res.efc_force, d.efc_force, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res.qfrc_constraint, d.qfrc_constraint, rtol=0, atol=1e-8)
    # rows carrying force are active (quadratic / cone / saturated), unloaded rows carry none
    assert np.all(res.efc_state[np.abs(res.efc_force) > 1e-9] != 0)
    if d.ncon:
        ours = ContactForces(res.efc_force, problem.efc_type, problem.con_efc_address, problem.con_dim,
                             problem.con_friction)
        for c in range(d.ncon):
            theirs = np.zeros(6)
            mujoco.mj_contactForce(m, d, c, theirs)
            np.testing.assert_allclose(ours[c], theirs, rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", ["box_sliding", "elliptic_box_sliding", "frictionloss_hinge", "connect_chain",
                                  "pendulum_limit", "elliptic_sphere_condim6"])
@pytest.mark.parametrize("solver", ["cg", "pgs"])
def test_cg_and_pgs_reach_the_same_solution(name, solver, mj_problem):
    mujoco = require_mujoco()
    m, d = run_scene(mujoco, name)
    problem, M, a0 = mj_problem(mujoco, m, d)
    res = SolveConstraints(problem, M, a0, solver=solver, tolerance=1e-15, iterations=20000)
    scale = 1.0 + np.max(np.abs(d.efc_force))
    np.testing.assert_allclose(res.efc_force, d.efc_force, rtol=0, atol=2e-6 * scale)
    np.testing.assert_allclose(res.qacc, d.qacc, rtol=0, atol=2e-5 * (1.0 + np.max(np.abs(d.qacc))))


def test_warm_start_from_solution_needs_no_iterations(mj_problem):
    mujoco = require_mujoco()
    m, d = run_scene(mujoco, "box_stack")
    problem, M, a0 = mj_problem(mujoco, m, d)
    cold = SolveConstraints(problem, M, a0, tolerance=1e-10)
    warm = SolveConstraints(problem, M, a0, tolerance=1e-10, qacc_warmstart=cold.qacc)
    assert cold.iterations >= 1 and warm.iterations == 0 and warm.converged
    np.testing.assert_allclose(warm.qacc, cold.qacc, atol=1e-12)


def test_non_convergence_is_reported(mj_problem):
    mujoco = require_mujoco()
    m, d = run_scene(mujoco, "box_stack")
    problem, M, a0 = mj_problem(mujoco, m, d)
    res = SolveConstraints(problem, M, a0, solver="cg", iterations=2, tolerance=1e-14)
    assert not res.converged and res.iterations == 2 and res.residual > 1e-14
    with pytest.raises(RuntimeError, match=r"did not converge: 2 iterations, residual"):
        res.ThrowIfNotConverged()
