"""The compiled discrete step (multibody/pipeline) against the plant's Python path and MuJoCo: same trajectories,
same errors, contexts that clone and pickle mid-simulation, and no Python allocation per step."""
from __future__ import annotations

import copy
import linecache
import pickle
import tracemalloc

import numpy as np
import pytest

import mb_twin_models as tw
from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.geometry import Box, HalfSpace, Sphere
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, CoulombFriction
from mallard.multibody.mjcf.state import GetMujocoState, SetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures
from mallard.multibody.tree import SpatialInertia, UnitInertia
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

# hinge chains with limits, frictionloss, damping, armature, springs and position / motor / velocity actuators,
# a free box and capsule with condim 1 / 3 / 4 / 6 contacts on a plane
ARM = """<mujoco model="arm"><option timestep="0.002" cone="{cone}"/>
<default><joint damping="0.2" armature="0.01"/></default>
<worldbody><geom name="floor" type="plane" size="3 3 .1" condim="{condim}"/>
<body pos="0 0 0.6"><joint name="j0" axis="0 1 0" range="-1 1" frictionloss="0.05" stiffness="2"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
  <body pos="0.3 0 0"><joint name="j1" axis="0 1 0" range="-0.5 2.0" margin="0.01"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.035"/>
    <body pos="0.3 0 0"><joint name="j2" type="slide" axis="1 0 0" range="-0.1 0.1"/>
      <geom type="box" size="0.04 0.04 0.04" condim="4"/></body></body></body>
<body pos="0.8 0 0.2" euler="10 20 30"><freejoint/><geom type="box" size="0.05 0.06 0.07" condim="6"/></body>
<body pos="-0.5 0.2 0.3"><freejoint/><geom type="capsule" size="0.03" fromto="-0.1 0 0 0.1 0 0" condim="1"/></body>
</worldbody>
<actuator><position joint="j0" kp="20" ctrlrange="-1 1"/><motor joint="j1" gear="2" ctrllimited="true"
  ctrlrange="-3 3" forcelimited="true" forcerange="-4 4"/><velocity joint="j2" kv="5"/></actuator>
</mujoco>"""


def _python_path(plant) -> None:
    """Step `plant` on the Python path of _discrete_step.py (what the compiled step replaces)."""
    plant._pipeline.features = ["the Python path, for comparison"]


def _arm(cone="pyramidal", condim=3, python=False):
    plant, _, root, context = build_mjcf_scene(ARM.format(cone=cone, condim=condim))
    if python:
        _python_path(plant)
    return plant, root, context


def _fixed_ctrl(plant, context, ctrl):
    from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
    GetMujocoCtrlInputPort(plant).FixValue(context, np.asarray(ctrl, float))


def _steps(plant, context, n):
    state = context.get_mutable_state()
    for _ in range(n):
        plant._DiscreteStepUpdate(context, state)


@pytest.mark.parametrize("cone,condim", [("pyramidal", 3), ("elliptic", 3), ("elliptic", 6), ("pyramidal", 1)])
def test_mjcf_arm_matches_python_path_and_mujoco(cone, condim):
    mujoco = require_mujoco()
    text = ARM.format(cone=cone, condim=condim)
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    ctrl = np.array([0.7, -2.0, 0.3])
    md.ctrl[:] = ctrl
    compiled, _, cc = _arm(cone, condim)
    python, _, cp = _arm(cone, condim, python=True)
    assert UncompiledFeatures(compiled) == []
    for plant, context in ((compiled, cc), (python, cp)):
        _fixed_ctrl(plant, context, ctrl)
    for k in range(300):
        mujoco.mj_step(mm, md)
        _steps(compiled, cc, 1)
        _steps(python, cp, 1)
        np.testing.assert_allclose(compiled.GetPositionsAndVelocities(cc), python.GetPositionsAndVelocities(cp),
                                   rtol=0, atol=1e-11, err_msg=f"step {k}")
    qpos, qvel = GetMujocoState(compiled, cc)  # 0.6 s of contacts: MuJoCo's trajectory to solver tolerance
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-4)
    assert compiled.get_contact_results_output_port().Eval(cc).num_point_pair_contacts() == md.ncon


def _box_drop(python=False, time_step=1e-3):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    friction = CoulombFriction(0.5, 0.4)
    for k in range(3):
        body = plant.AddRigidBody(f"b{k}", SpatialInertia(1.0 + k, np.zeros(3), UnitInertia.SolidBox(.1, .2, .3)))
        shape = Box(0.1, 0.2, 0.3) if k != 1 else Sphere(0.1)
        plant.RegisterCollisionGeometry(body, RigidTransform(), shape, f"g{k}", friction)
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), HalfSpace(), "ground", friction)
    plant.Finalize()
    if python:
        _python_path(plant)
    diagram = builder.Build()
    root = diagram.CreateDefaultContext()
    context = plant.GetMyContextFromRoot(root)
    for k in range(3):
        X = RigidTransform(np.array([0.05 * k, 0.02 * k, 0.15 + 0.35 * k]))
        plant.SetFreeBodyPose(context, plant.GetBodyByName(f"b{k}"), X)
    plant.SetVelocities(context, np.tile([0.5, -0.2, 0.1, 0.2, 0.0, -0.5], 3))
    return diagram, plant, root, context


def test_actuated_chain_matches_python_path():
    """No contact, no rows: the one dense solve, actuation and outputs as on the Python path."""
    spec = tw.serial_arm()
    compiled, python = (tw.build(tw.engine_mallard(), spec, time_step=1e-3)[0] for _ in range(2))
    _python_path(python)
    u = np.linspace(-2.0, 3.0, compiled.num_actuated_dofs())
    contexts = []
    for plant in (compiled, python):
        context = plant.CreateDefaultContext()
        plant.SetPositions(context, np.linspace(-0.8, 0.9, plant.num_positions()))
        plant.SetVelocities(context, np.linspace(0.5, -0.5, plant.num_velocities()))
        plant.get_actuation_input_port().FixValue(context, u)
        Simulator(plant, context).AdvanceTo(0.05)
        contexts.append(context)
    cc, cp = contexts
    np.testing.assert_array_equal(compiled.GetPositionsAndVelocities(cc), python.GetPositionsAndVelocities(cp))
    np.testing.assert_array_equal(compiled.get_generalized_acceleration_output_port().Eval(cc),
                                  python.get_generalized_acceleration_output_port().Eval(cp))
    np.testing.assert_array_equal(compiled.get_net_actuation_output_port().Eval(cc), u)


def test_errors_leave_the_state_untouched():
    plant = tw.build(tw.engine_mallard(), tw.serial_arm(), time_step=1e-3)[0]
    nu = plant.num_actuated_dofs()
    for u, error, match in ((np.r_[np.nan, np.zeros(nu - 1)], RuntimeError, "NaN in the actuation input"),
                            (np.full(nu, 1e308), RuntimeError, "non-finite state after the discrete step")):
        context = plant.CreateDefaultContext()
        plant.SetPositions(context, np.linspace(-0.8, 0.9, plant.num_positions()))
        plant.get_actuation_input_port().FixValue(context, u)
        x0 = plant.GetPositionsAndVelocities(context)
        with pytest.raises(error, match=match):
            Simulator(plant, context).AdvanceTo(0.01)
        np.testing.assert_array_equal(plant.GetPositionsAndVelocities(context), x0)


@pytest.mark.parametrize("kind", ["mjcf", "drake"])
def test_clone_and_pickle_continue_bit_exactly(kind):
    """The solver's warm start is context state: a clone or an unpickled copy taken mid-simulation steps exactly
    as the original does."""
    if kind == "mjcf":
        plant, root, context = _arm("elliptic", 3)
        _fixed_ctrl(plant, context, [0.7, -2.0, 0.3])
        _steps(plant, context, 150)
    else:
        diagram, plant, root, context = _box_drop()
        Simulator(diagram, root).AdvanceTo(0.3)
    assert plant.get_constraint_solver_statistics()["iterations"] > 0
    copies = [root.Clone(), pickle.loads(pickle.dumps(root)), copy.deepcopy(root)]
    finals = []
    for r in [root] + copies:
        c = plant.GetMyContextFromRoot(r)
        _steps(plant, c, 100)
        finals.append(plant.GetPositionsAndVelocities(c))
    for f in finals[1:]:
        np.testing.assert_array_equal(f, finals[0])


def _in_compiled_call(trace) -> bool:
    """Whether a tracemalloc trace was allocated inside the compiled step (numba's runtime allocates through
    Python's raw allocator, so its arrays are traced too)."""
    frame = trace.traceback[-1]
    return "_STEP_ENTRY[0](" in linecache.getline(frame.filename, frame.lineno)


def test_a_contact_step_allocates_nothing_in_python():
    """The plant's side of a contact step (inputs, Data, results row, the call) allocates no Python object after
    the first steps; what the compiled step allocates inside is freed or reused (no growth with the step count)."""
    diagram, plant, root, context = _box_drop()
    _steps(plant, context, 20)
    assert plant.get_contact_results_output_port().Eval(context).num_point_pair_contacts() > 0
    tracemalloc.start(5)
    try:
        _steps(plant, context, 50)  # one-time caches filled under tracing too
        before = tracemalloc.take_snapshot()
        _steps(plant, context, 300)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    # other threads of the process (a Dask cluster left by earlier tests, its logging) allocate meanwhile
    others = [tracemalloc.Filter(False, f"*/{m}/*", all_frames=True)
              for m in ("distributed", "tornado", "asyncio", "logging", "msgpack", "psutil", "concurrent", "threading")]
    before, after = before.filter_traces(others), after.filter_traces(others)
    diff = [s for s in after.compare_to(before, "traceback") if "tracemalloc" not in s.traceback[-1].filename]
    python = [s for s in diff if s.count_diff > 0 and not _in_compiled_call(s)
              and "/multibody/" in s.traceback[-1].filename]  # (the framework's version counters aside)
    assert python == [], [s.traceback.format() for s in python]
    assert sum(s.size_diff for s in diff) < 64 * 1024  # the last step's contact arrays, whatever the step count


def test_a_pickled_diagram_steps_on_as_the_original():
    """A plant pickled after compiling its step (with its diagram and context) compiles again in the copy."""
    diagram, plant, root, context = _box_drop()
    Simulator(diagram, root).AdvanceTo(0.2)
    diagram2, root2 = pickle.loads(pickle.dumps((diagram, root)))
    Simulator(diagram, root).AdvanceTo(0.4)
    Simulator(diagram2, root2).AdvanceTo(0.4)
    plant2 = diagram2.GetSubsystemByName(plant.get_name())
    np.testing.assert_array_equal(plant2.GetPositionsAndVelocities(plant2.GetMyContextFromRoot(root2)),
                                  plant.GetPositionsAndVelocities(context))


def _spring_pendulum(plant_module, tree, k_default=3.0):
    """A discrete pendulum on a RevoluteSpring (θ₀ = 0.2 rad, k = `k_default` N·m/rad) under gravity."""
    plant = plant_module.MultibodyPlant(0.01)
    a = plant.AddRigidBody("a", tree.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.4))
    j = plant.AddJoint(tree.RevoluteJoint("j", plant.world_frame(), a.body_frame(), [1.0, 0.0, 0.0]))
    spring = plant.AddForceElement(tree.RevoluteSpring(j, 0.2, k_default))
    plant.Finalize()
    return plant, j, spring


def _spring_trajectory(plant, j, spring, stiffness=None, nominal=None, n=50):
    from mallard.systems.analysis import Simulator as MSim
    ctx = plant.CreateDefaultContext()
    j.set_angle(ctx, 0.5)
    if stiffness is not None:
        spring.SetStiffness(ctx, stiffness)
    if nominal is not None:
        spring.SetNominalAngle(ctx, nominal)
    sim = MSim(plant, ctx) if "mallard" in type(plant).__module__ else \
        __import__("pydrake.systems.analysis", fromlist=["x"]).Simulator(plant, ctx)
    sim.AdvanceTo(n * 0.01)
    return np.concatenate([plant.GetPositions(ctx), plant.GetVelocities(ctx)])


def test_per_context_spring_constants_change_the_compiled_simulation():
    """RevoluteSpring.SetStiffness / SetNominalAngle in a context change the discrete simulation as in pydrake
    (such a context steps on a variant of the compiled Model with its constants)."""
    import mallard.multibody.plant as mp
    import mallard.multibody.tree as mt
    plant, j, spring = _spring_pendulum(mp, mt)
    default = _spring_trajectory(plant, j, spring)
    assert plant._PipelineModel(plant.CreateDefaultContext()) is not None  # the default context is compiled
    changed = _spring_trajectory(plant, j, spring, stiffness=8.0, nominal=-0.1)
    stiff, js, ss = _spring_pendulum(mp, mt, k_default=8.0)
    ss_ctx = stiff.CreateDefaultContext()
    assert stiff._PipelineModel(ss_ctx) is not None
    stiff_default = _spring_trajectory(stiff, js, ss, nominal=-0.1)
    assert np.abs(changed - default).max() > 1e-2
    np.testing.assert_allclose(changed, stiff_default, rtol=1e-12, atol=1e-12)
    try:
        import pydrake.multibody.plant as dp
        import pydrake.multibody.tree as dt
    except ImportError:
        return
    dplant, dj, dspring = _spring_pendulum(dp, dt)
    np.testing.assert_allclose(changed, _spring_trajectory(dplant, dj, dspring, stiffness=8.0, nominal=-0.1),
                               rtol=1e-9, atol=1e-9)


def test_per_context_joint_damping_steps_compiled_as_a_default_damping():
    """Joint damping set in a context steps compiled (one context or a batch) as the same damping set as the
    joint's default; a batch made from a context with its own spring constant steps with that constant."""
    import mallard.multibody.plant as mp
    import mallard.multibody.tree as mt
    from mallard.multibody.pipeline.batch import BatchedStepper
    plant, j, _ = _spring_pendulum(mp, mt)
    ctx = plant.CreateDefaultContext()
    j.SetDamping(ctx, 0.5)
    j.set_angle(ctx, 0.5)
    assert plant._PipelineModel(ctx) is not None
    x0 = plant.GetPositionsAndVelocities(ctx)
    Simulator(plant, ctx).AdvanceTo(0.3)
    ref = mp.MultibodyPlant(0.01)
    a = ref.AddRigidBody("a", mt.SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.4))
    rj = ref.AddJoint(mt.RevoluteJoint("j", ref.world_frame(), a.body_frame(), [1.0, 0.0, 0.0], damping=0.5))
    ref.AddForceElement(mt.RevoluteSpring(rj, 0.2, 3.0))
    ref.Finalize()
    rctx = ref.CreateDefaultContext()
    rj.set_angle(rctx, 0.5)
    Simulator(ref, rctx).AdvanceTo(0.3)
    np.testing.assert_allclose(plant.GetPositionsAndVelocities(ctx), ref.GetPositionsAndVelocities(rctx),
                               rtol=1e-12, atol=1e-12)
    batch = BatchedStepper(plant, 2, ctx)
    X = batch.Step(np.stack([x0, x0]), num_steps=30)
    np.testing.assert_allclose(X[1, :2], ref.GetPositionsAndVelocities(rctx), rtol=1e-12, atol=1e-12)
    ctx2 = plant.CreateDefaultContext()
    plant.GetForceElement(mt.ForceElementIndex(1)).SetStiffness(ctx2, 1.0)
    j.set_angle(ctx2, 0.5)
    x2 = plant.GetPositionsAndVelocities(ctx2)
    X2 = BatchedStepper(plant, 2, ctx2).Step(np.stack([x2, x2]), num_steps=30)
    Simulator(plant, ctx2).AdvanceTo(0.3)
    np.testing.assert_allclose(X2[0, :2], plant.GetPositionsAndVelocities(ctx2), rtol=1e-12, atol=1e-12)
    assert np.abs(X2[0, :2] - X[0, :2]).max() > 1e-3  # the softer spring


# dry friction on a ball joint and on a free joint (MuJoCo's test/engine/testdata/derivative/damped_pendulum.xml and
# a tumbling free box): MuJoCo's rows bound the child-frame components of a quaternion joint's angular velocity
QUAT_FRICTION = """<mujoco><default><joint damping=".01" frictionloss=".1"/></default>
<worldbody>
  <body pos="0.15 0 0"><joint axis="0 1 0"/><geom type="capsule" size="0.02" fromto="0 0 0 .1 0 0"/>
    <body pos="0.1 0 0"><joint type="slide" axis="1 0 0" stiffness="200"/>
      <geom type="capsule" size="0.015" fromto="-.1 0 0 .1 0 0"/>
      <body pos=".1 0 0"><joint type="ball"/><geom type="box" size=".02" fromto="0 0 0 0 .1 0"/>
        <body pos="0 .1 0"><joint axis="1 0 0"/><geom type="capsule" size="0.02" fromto="0 0 0 0 0 .1"/></body>
      </body></body></body>
  <body pos="1 0 0" euler="20 30 40"><freejoint/><geom type="box" size=".1 .05 .02"/></body>
</worldbody>
<keyframe><key qvel="0 0 1 2 -1 0 0 0 0 3 -2 5"/></keyframe>
</mujoco>"""


def test_ball_and_free_joint_dry_friction_follow_mj_step():
    """300 steps equal mj_step to round-off (with rows on the parent-frame components the pendulum left MuJoCo by
    2.6e-4 in 100 steps)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(QUAT_FRICTION)
    md = mujoco.MjData(mm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    plant, _, _, context = build_mjcf_scene(QUAT_FRICTION)
    assert UncompiledFeatures(plant) == []
    SetMujocoState(plant, context, md.qpos, md.qvel)
    for k in range(300):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, context.get_mutable_state())
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-11)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-9)
    assert np.abs(md.efc_force[:md.nefc]).max() == pytest.approx(0.1)  # rows at their frictionloss bound
