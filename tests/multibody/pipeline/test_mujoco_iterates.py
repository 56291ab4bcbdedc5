"""The compiled step follows MuJoCo's own trajectory, not only its physics, where MuJoCo's answer is an unconverged
iterate or an explicit integration: MJX-style solver limits (iterations="1" ls_iterations="4", the Menagerie
*_mjx scenes), MuJoCo's warm start (zero after a reset), and `<flag eulerdamp="disable"/>` (joint damping as an
explicit force, ExplicitJointDamping). Compiled and Python paths agree to 1e-11, MuJoCo's qpos to 1e-9 (with MJX
limits and implicit damping the model is chaotic in MuJoCo itself: compared until MuJoCo's own spread from a
1e-12 start exceeds 1e-6)."""
from __future__ import annotations

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.multibody.tree.explicit_damping import ExplicitJointDamping

# two damped arms on a welded base (two MuJoCo trees: two islands), one with limits and frictionloss, the other a
# pendulum leaning on the floor, and a free box and capsule falling on a plane
ARM = """<mujoco model="arm"><option timestep="0.002" {limits}>{flag}</option>
<default><joint damping="0.2" armature="0.01"/></default>
<worldbody><geom name="floor" type="plane" size="3 3 .1"/>
<body name="base" pos="0 0 0.6"><geom type="box" size="0.05 0.05 0.05" contype="0" conaffinity="0"/>
 <body><joint name="j0" axis="0 1 0" range="-1 1" frictionloss="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
  <body pos="0.3 0 0"><joint name="j1" axis="0 1 0" range="-0.5 2.0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.035"/>
    <body pos="0.3 0 0"><joint name="j2" type="slide" axis="1 0 0" range="-0.1 0.1" damping="3"/>
      <geom type="box" size="0.04 0.04 0.04" condim="4"/></body></body></body>
 <body pos="0 0.3 0"><joint name="k0" axis="1 0 0" range="-1 1"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.59" size="0.03"/></body></body>
<body pos="0.8 0 0.2" euler="10 20 30"><freejoint/><geom type="box" size="0.05 0.06 0.07" condim="6"/></body>
<body pos="-0.5 0.2 0.1"><freejoint/>
  <geom type="capsule" size="0.03" fromto="-0.1 0 0 0.1 0 0"/></body>
</worldbody>
<actuator><position joint="j0" kp="20" ctrlrange="-1 1"/><motor joint="j1" gear="2"/></actuator>
</mujoco>"""


@pytest.mark.parametrize("eulerdamp", ["enable", "disable"])
@pytest.mark.parametrize("limits", ['iterations="1" ls_iterations="4"', ""])
def test_compiled_step_follows_mujoco(eulerdamp, limits):
    mujoco = require_mujoco()
    text = ARM.format(limits=limits, flag=f'<flag eulerdamp="{eulerdamp}"/>')
    mm = mujoco.MjModel.from_xml_string(text)
    md, own = mujoco.MjData(mm), mujoco.MjData(mm)  # MuJoCo, and MuJoCo started 1e-12 away (its own spread)
    ctrl = np.array([0.7, -2.0])
    md.ctrl[:] = own.ctrl[:] = ctrl
    own.qpos[:] += 1e-12
    # one unconverged iteration makes each step's answer a discontinuous function of round-off (an exit or
    # line-search test near its threshold): after ~70 steps a flip shows; compared over the first 50 steps
    checkpoints = (0, 9, 49) if limits else (0, 9, 99, 299)
    runs = []
    for python in (False, True):
        plant, _, _, context = build_mjcf_scene(text)
        explicit = [fe for fe in plant._force_elements if isinstance(fe, ExplicitJointDamping)]
        assert len(explicit) == (eulerdamp == "disable")
        assert np.any(plant._model.damping) == (eulerdamp == "enable")
        if python:
            plant._pipeline.features = ["the Python path, for comparison"]
        else:
            assert UncompiledFeatures(plant) == []
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        runs.append((plant, context))
    for k in range(300):
        mujoco.mj_step(mm, md)
        mujoco.mj_step(mm, own)
        for plant, context in runs:
            plant._DiscreteStepUpdate(context, context.get_mutable_state())
        (pc, cc), (pp, cp) = runs
        np.testing.assert_allclose(pc.GetPositionsAndVelocities(cc), pp.GetPositionsAndVelocities(cp), rtol=0,
                                   atol=1e-11, err_msg=f"step {k}")
        spread = np.max(np.abs(own.qpos - md.qpos))
        if k in checkpoints and spread < 1e-6:  # until MuJoCo's own spread shows chaos
            qpos, qvel = GetMujocoState(pc, cc)
            np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-9 + 10 * spread, err_msg=f"step {k}")
            np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-7 + 1e3 * spread, err_msg=f"step {k}")
    assert md.ncon > 0 and md.nisland >= 2
    if eulerdamp == "disable":  # not chaotic: the comparison above is to 1e-9 at every checkpoint
        assert np.max(np.abs(own.qpos - md.qpos)) < 1e-9 or limits
    assert runs[0][0]._contact_solver.tree_blocks.tolist() == np.append(mm.tree_dofadr, mm.nv).tolist()


# a box spinning on the floor (free joint) and a capsule swinging on a ball joint against it: one Newton iteration
# leaves the answer depending on the start point, MuJoCo's previous qacc, whose angular blocks are in the child
# (body) frame; the box bounces and tumbles (chaotic in MuJoCo itself: 1e-12 grows to 1e-8 by step 60)
SPIN = """<mujoco model="spin"><option timestep="0.002" iterations="1" ls_iterations="4"/>
<worldbody><geom type="plane" size="3 3 .1"/>
<body name="box" pos="0 0 0.05"><freejoint/><geom type="box" size="0.1 0.07 0.05" condim="4"/></body>
<body pos="0.6 0 0.5"><joint type="ball" damping="0.01"/>
  <geom type="capsule" fromto="0 0 0 0.1 0.05 -0.5" size="0.03"/></body>
</worldbody>
<keyframe><key qpos="0 0 0.0495 1 0 0 0  0.98 0.1 0.15 0" qvel="0 0 0 0 0 15  1 -1 4"/></keyframe>
</mujoco>"""


def test_warm_start_angular_blocks_in_child_frame():
    """The warm start keeps the angular blocks of ball and free joints in the child frame as MuJoCo's
    qacc_warmstart (reused in the plant's parent-frame coordinates, the spinning box's start point is off by the
    rotation of one step, and the unconverged iterate with it: 4e-4 in qpos after 4 steps)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(SPIN)
    md = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    runs = []
    for python in (False, True):
        plant, _, _, context = build_mjcf_scene(SPIN)
        if python:
            plant._pipeline.features = ["the Python path, for comparison"]
        else:
            assert UncompiledFeatures(plant) == []
        SetMujocoKeyframe(plant, context, 0)
        runs.append((plant, context))
    iterations = []
    for k in range(50):
        mujoco.mj_step(mm, md)
        iterations.append(int(md.solver_niter[0]))
        for plant, context in runs:
            plant._DiscreteStepUpdate(context, context.get_mutable_state())
        for plant, context in runs:
            qpos, qvel = GetMujocoState(plant, context)
            np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-12, err_msg=f"step {k}")
            np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-10, err_msg=f"step {k}")
    assert max(iterations) == 1 and iterations.count(1) >= 8  # solves in contact, cut short by the iteration limit
