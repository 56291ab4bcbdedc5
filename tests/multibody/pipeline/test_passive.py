"""The plant's force elements in the compiled step (pipeline/passive.py over kernels/force_elements.py): Drake's
LinearSpringDamper, RevoluteSpring, PrismaticSpring and LinearBushingRollPitchYaw against pydrake's discrete plant
and the Python path; MuJoCo's ball / free joint springs against MuJoCo; a user's ForceElement subclass evaluated in
Python around the compiled step; the errors of undefined element forces."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco, require_pydrake

from mallard.multibody.mjcf.state import GetMujocoState
from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.multibody.math import RigidTransform, RollPitchYaw
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import ForceElement, LinearBushingRollPitchYaw, SpatialInertia, UnitInertia
from mallard.systems.analysis import Simulator


def _add_elements(E, plant, bodies, joints, model):
    if model == "serial_arm":
        plant.AddForceElement(E.tree.LinearSpringDamper(bodies["link1"], np.array([0.1, 0.0, 0.2]), bodies["link5"],
                                                        np.array([0.0, -0.1, 0.05]), 0.4, 120.0, 3.0))
        plant.AddForceElement(E.tree.RevoluteSpring(joints["j3"], 0.3, 25.0))
        plant.AddForceElement(E.tree.PrismaticSpring(joints["j2"], -0.1, 40.0))
    else:
        F = plant.AddFrame(E.tree.FixedOffsetFrame("bushA", bodies["armA2"].body_frame(),
                                                   E.RigidTransform(E.RollPitchYaw(0.2, -0.1, 0.3), [0.1, 0, 0])))
        G = plant.AddFrame(E.tree.FixedOffsetFrame("bushC", bodies["armB2"].body_frame(),
                                                   E.RigidTransform(E.RollPitchYaw(-0.3, 0.2, 0.1), [0, 0.1, 0.2])))
        plant.AddForceElement(E.tree.LinearBushingRollPitchYaw(F, G, [10.0, 20.0, 30.0], [1.0, 2.0, 3.0],
                                                               [100.0, 200.0, 300.0], [4.0, 5.0, 6.0]))


def _build(E, model, python=False):
    plant, bodies, joints = tw.build(E, tw.MODELS[model](), time_step=1e-3, finalize=False)
    _add_elements(E, plant, bodies, joints, model)
    plant.Finalize()
    if python:
        plant._pipeline.features = ["the Python path, for comparison"]
    return plant


def _run(E, plant, x0, t_final):
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, x0)
    if plant.num_actuated_dofs():
        plant.get_actuation_input_port().FixValue(context, 0.5 * np.ones(plant.num_actuated_dofs()))
    if E.name == "drake":
        from pydrake.systems.analysis import Simulator as DrakeSimulator
        DrakeSimulator(plant, context).AdvanceTo(t_final)
    else:
        Simulator(plant, context).AdvanceTo(t_final)
    return np.array(plant.GetPositionsAndVelocities(context))


@pytest.mark.parametrize("model", ["serial_arm", "branched_tree"])
def test_drake_force_elements_match_pydrake_and_python_path(model):
    require_pydrake()
    M, D = tw.engine_mallard(), tw.engine_drake()
    compiled, python, drake = _build(M, model), _build(M, model, python=True), _build(D, model)
    assert UncompiledFeatures(compiled) == []
    rng = np.random.default_rng(5)
    q, v = tw.random_state(drake, drake.CreateDefaultContext(), rng)
    x0 = np.concatenate([q, 0.5 * v])
    xc, xp, xd = _run(M, compiled, x0, 0.3), _run(M, python, x0, 0.3), _run(D, drake, x0, 0.3)
    np.testing.assert_allclose(xc, xp, rtol=0, atol=1e-11)
    np.testing.assert_allclose(xc, xd, rtol=0, atol=1e-9)
    assert np.abs(xc - x0).max() > 0.05


class _Drag(ForceElement):
    """A user's force element: generalized drag τ = −c·v (evaluated in Python around the compiled step)."""

    def __init__(self, c: float):
        super().__init__(None, "drag")
        self._c = c

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        tau -= self._c * v

    def _CalcPotentialEnergy(self, context, kin, q) -> float:
        return 0.0

    def _CalcConservativePower(self, context, kin, q, v) -> float:
        return 0.0

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        return -self._c * float(v @ v)


def test_a_user_force_element_steps_compiled():
    M = tw.engine_mallard()
    plants = []
    for python in (False, True):
        plant, bodies, joints = tw.build(M, tw.serial_arm(), time_step=1e-3, finalize=False)
        plant.AddForceElement(_Drag(0.7))
        plant.AddForceElement(M.tree.RevoluteSpring(joints["j3"], 0.3, 25.0))
        plant.Finalize()
        if python:
            plant._pipeline.features = ["the Python path, for comparison"]
        plants.append(plant)
    assert UncompiledFeatures(plants[0]) == []
    x0 = np.concatenate([np.linspace(-0.5, 0.5, 7), np.linspace(1, -1, 7)])
    xc, xp = _run(M, plants[0], x0, 0.2), _run(M, plants[1], x0, 0.2)
    np.testing.assert_allclose(xc, xp, rtol=0, atol=1e-11)
    plant = tw.build(M, tw.serial_arm(), time_step=1e-3)[0]  # without the drag: another trajectory
    assert np.abs(_run(M, plant, x0, 0.2) - xc).max() > 1e-3


BALL_FREE = """<mujoco model="springs"><option timestep="0.002" gravity="0 0 -2"/>
<worldbody>
<body pos="0 0 1"><joint type="ball" stiffness="3" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.2" size="0.03"/></body>
<body pos="0.5 0 1" quat="0.9 0.1 0.3 0.2"><joint type="free" stiffness="20"/><geom type="box" size="0.05 0.06 0.07"/></body>
</worldbody>
<keyframe><key qpos="0.8 0.4 0.2 0.4 0.6 0.1 1.2 0.7 0.1 0.5 -0.3" qvel="1 -1 0.5 0.3 0.2 -0.4 1 0 -1"/></keyframe>
</mujoco>"""


def test_mjcf_ball_and_free_joint_springs_match_mujoco():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(BALL_FREE)
    md = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    plant, _, _, context = build_mjcf_scene(BALL_FREE)
    assert UncompiledFeatures(plant) == []
    SetMujocoKeyframe(plant, context, 0)
    state = context.get_mutable_state()
    for _ in range(250):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-9)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-9)
    assert np.abs(md.qfrc_spring).max() > 1.0


def test_undefined_element_forces_are_named():
    M = tw.engine_mallard()
    plant, bodies, _ = tw.build(M, tw.serial_arm(), time_step=1e-3, finalize=False)
    plant.AddForceElement(M.tree.LinearSpringDamper(bodies["link1"], np.zeros(3), bodies["link1"], np.zeros(3),
                                                    0.4, 120.0, 3.0))
    plant.Finalize()
    context = plant.CreateDefaultContext()
    plant.get_actuation_input_port().FixValue(context, np.zeros(plant.num_actuated_dofs()))
    x = plant.GetPositionsAndVelocities(context).copy()
    with pytest.raises(RuntimeError, match="LinearSpringDamper: the two attachment points coincide"):
        plant._DiscreteStepUpdate(context, context.get_mutable_state())
    np.testing.assert_array_equal(plant.GetPositionsAndVelocities(context), x)
    bush = MultibodyPlant(1e-3)
    body = bush.AddRigidBody("B", SpatialInertia(1.0, np.zeros(3), UnitInertia.SolidBox(0.1, 0.2, 0.3)))
    bush.AddForceElement(LinearBushingRollPitchYaw(bush.world_frame(), body.body_frame(), [1.0] * 3, [0.1] * 3,
                                                   [10.0] * 3, [1.0] * 3))
    bush.Finalize()
    assert UncompiledFeatures(bush) == []
    context = bush.CreateDefaultContext()
    bush.SetFreeBodyPose(context, body, RigidTransform(RollPitchYaw(0.3, np.pi / 2, 0.1), [0.0, 0.0, 1.0]))
    with pytest.raises(RuntimeError, match="LinearBushingRollPitchYaw.*gimbal lock"):
        bush._DiscreteStepUpdate(context, context.get_mutable_state())
