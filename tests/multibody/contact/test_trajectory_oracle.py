"""Solver in the loop: MuJoCo supplies kinematics, smooth dynamics and collisions each step; mallard
assembles and solves the constraints and integrates (semi-implicit Euler). The joint trajectories
must match MuJoCo's own mj_step trajectory: 1e-6 over 200 steps for every scene, 1e-4 over 2000
steps for the long runs (both solvers at tolerance 1e-10, MuJoCo warm-started as usual)."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.contact import SolveConstraints

FLOOR = '<geom name="floor" type="plane" size="3 3 .1"/>'


def xml(body: str, cone: str = "pyramidal", extra: str = "") -> str:
    return (f'<mujoco><option jacobian="dense" cone="{cone}" tolerance="1e-10"/>'
            f'<worldbody>{FLOOR}{body}</worldbody>{extra}</mujoco>')


SCENES = {
    "sphere_drop": xml('<body pos="0 0 .3"><freejoint/><geom type="sphere" size=".1"/></body>'),
    "capsule_drop": xml('<body pos="0 0 .3" euler="20 70 0"><freejoint/><geom type="capsule" size=".05 .2"/></body>'),
    "box_drop_elliptic": xml('<body pos="0 0 .2" euler="10 5 0"><freejoint/><geom type="box" size=".1 .08 .05"/></body>',
                             cone="elliptic"),
    "box_sliding": xml('<body pos="0 0 .0495"><freejoint/><geom type="box" size=".1 .05 .05" friction="0.4"/></body>'),
    "box_stack": xml('<body pos="0 0 .06"><freejoint/><geom type="box" size=".1 .1 .05"/></body>'
                     '<body pos="0.02 0 .17"><freejoint/><geom type="box" size=".05 .05 .05"/></body>'),
    "pendulum_limit": xml('<body pos="0 0 1"><joint type="hinge" axis="0 1 0" range="-30 30" limited="true"/>'
                          '<geom type="capsule" fromto="0 0 0 0 0 -.5" size=".02"/></body>'),
    "frictionloss_hinge": xml('<body pos="0 0 1"><joint type="hinge" axis="0 1 0" frictionloss="0.05"/>'
                              '<geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"/></body>'),
    "connect_chain": xml('<body name="a" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>'
                         '<geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" contype="0"/>'
                         '<body name="b" pos=".3 0 0"><joint type="hinge" axis="0 1 0"/>'
                         '<geom type="capsule" fromto="0 0 0 0 0 -.3" size=".02" contype="0"/></body></body>'
                         '<body name="c" pos="0.3 0 0.7"><joint type="hinge" axis="0 1 0"/>'
                         '<geom type="capsule" fromto="0 0 0 .2 0 .2" size=".02" contype="0"/></body>',
                         extra='<equality><connect body1="b" body2="c" anchor="0 0 -0.3"/></equality>'),
}
INIT = {"box_sliding": {0: 2.0, 1: 0.3}, "pendulum_limit": {0: 3.0}, "frictionloss_hinge": {0: 0.5},
        "connect_chain": {0: 1.0}}


def run_pair(mujoco, mj_problem, name: str, nsteps: int):
    m = mujoco.MjModel.from_xml_string(SCENES[name])
    ref, ours = mujoco.MjData(m), mujoco.MjData(m)
    for k, v in INIT.get(name, {}).items():
        ref.qvel[k] = ours.qvel[k] = v
    h = m.opt.timestep
    err = 0.0
    ncontact_steps = 0
    for _ in range(nsteps):
        mujoco.mj_step(m, ref)
        mujoco.mj_forward(m, ours)
        ncontact_steps += ours.nefc > 0
        problem, M, a0 = mj_problem(mujoco, m, ours)
        res = SolveConstraints(problem, M, a0, tolerance=1e-10, qacc_warmstart=ours.qacc_warmstart)
        assert res.converged, (name, res.iterations, res.residual)
        qvel = ours.qvel + h * res.qacc
        qpos = ours.qpos.copy()
        mujoco.mj_integratePos(m, qpos, qvel, h)
        ours.qvel[:] = qvel
        ours.qpos[:] = qpos
        ours.qacc_warmstart[:] = res.qacc
        err = max(err, np.max(np.abs(ours.qpos - ref.qpos)), np.max(np.abs(ours.qvel - ref.qvel)))
    return err, ncontact_steps, ref


@pytest.mark.parametrize("name", sorted(SCENES))
def test_200_steps_match_mujoco(name, mj_problem):
    mujoco = require_mujoco()
    err, active, _ = run_pair(mujoco, mj_problem, name, 200)
    assert active > 20  # the constraints are actually exercised
    assert err < 1e-6, err


@pytest.mark.parametrize("name", ["box_sliding", "box_stack", "connect_chain", "pendulum_limit"])
def test_2000_steps_match_mujoco(name, mj_problem):
    mujoco = require_mujoco()
    err, active, ref = run_pair(mujoco, mj_problem, name, 2000)
    assert active > 50
    assert err < 1e-4, err
