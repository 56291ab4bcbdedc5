"""BatchedStepper: B cart-pole states in one compiled call equal B contexts stepped by the Simulator, bit for bit."""
from __future__ import annotations

import numba
import numpy as np
import pytest

import mb_twin_models as tw
from mallard.multibody.pipeline import batch as batch_module
from mallard.multibody.pipeline.batch import BatchedStepper
from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator


@pytest.fixture(scope="module")
def plant(models_dir):
    cart_pole = MultibodyPlant(0.01)
    Parser(cart_pole).AddModels(str(models_dir / "drake_examples" / "cart_pole.sdf"))
    cart_pole.Finalize()
    return cart_pole


def test_batch_equals_contexts_stepped_one_by_one(plant):
    rng = np.random.default_rng(0)
    batch = 16
    x0 = np.zeros((batch, 4))
    x0[:, :2] = rng.uniform(-0.3, 0.3, (batch, 2))
    u = rng.uniform(-5.0, 5.0, (batch, 1))
    stepper = BatchedStepper(plant, batch)
    assert stepper._tree is not None  # a plain tree: tree_step.py's kernel
    x = stepper.Step(x0, u, num_steps=5)
    for b in range(batch):
        context = plant.CreateDefaultContext()
        plant.SetPositionsAndVelocities(context, x0[b])
        plant.get_actuation_input_port().FixValue(context, u[b])
        Simulator(plant, context).AdvanceTo(0.05)
        np.testing.assert_array_equal(x[b], plant.GetPositionsAndVelocities(context))


def test_batch_split_over_threads_equals_the_calling_thread(plant, monkeypatch):
    """A batch large enough for numba's threads (here made so by lowering the threshold) steps each member as a batch
    stepped on the calling thread does, bit for bit."""
    rng = np.random.default_rng(3)
    x0 = np.hstack([rng.uniform(-0.3, 0.3, (9, 2)), rng.uniform(-1.0, 1.0, (9, 2))])
    u = rng.uniform(-5.0, 5.0, (9, 1))
    serial = BatchedStepper(plant, 9)
    assert serial._tree_threads <= 1
    monkeypatch.setattr(batch_module, "MIN_BODY_STEPS_PER_THREAD", 1)
    threaded = BatchedStepper(plant, 9)
    assert threaded._tree_threads > 1
    np.testing.assert_array_equal(threaded.Step(x0, u, num_steps=4), serial.Step(x0, u, num_steps=4))


def test_step_reads_the_callers_arrays_and_returns_a_new_one(plant):
    """Step passes C-contiguous float64 inputs to the kernel without copying them: they are left as they were, and
    several steps in one call equal one call per step."""
    rng = np.random.default_rng(1)
    x0, u = rng.uniform(-0.3, 0.3, (4, 4)), rng.uniform(-5.0, 5.0, (4, 1))
    x0_before, u_before = x0.copy(), u.copy()
    x3 = BatchedStepper(plant, 4).Step(x0, u, num_steps=3)
    np.testing.assert_array_equal(x0, x0_before)
    np.testing.assert_array_equal(u, u_before)
    one_by_one = BatchedStepper(plant, 4)
    x = x0
    for _ in range(3):
        x_next = one_by_one.Step(x, u)
        assert x_next is not x
        x = x_next
    np.testing.assert_array_equal(x3, x)
    assert not np.array_equal(x3, x0)


def test_bad_inputs_name_the_member(plant):
    stepper = BatchedStepper(plant, 3)
    u = np.zeros((3, 1))
    u[2, 0] = np.nan
    with pytest.raises(ValueError, match="actuation of batch member 2"):
        stepper.Step(np.zeros((3, 4)), u)
    with pytest.raises(ValueError, match="discrete plant"):
        continuous = MultibodyPlant(0.0)
        continuous.Finalize()
        BatchedStepper(continuous, 2)


MOCAP_WELD = """<mujoco model="mocap_weld"><worldbody>
<body name="hand" mocap="true" pos="0.8 0 0.6"><geom type="sphere" size="0.02" contype="0" conaffinity="0"/></body>
<body name="box" pos="0.8 0 0.4"><freejoint/><geom type="box" size="0.05 0.04 0.03"/></body>
<body name="a1" pos="0 0 1"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body>
</worldbody><equality><weld body1="box" body2="hand" relpose="0 0 -0.2 1 0 0 0"/>
<connect body1="a1" body2="box" anchor="0.3 0 0"/></equality></mujoco>"""


def test_batch_of_an_mjcf_model_with_equalities_and_mocap():
    """Members of a model with a connect and a weld to a mocap body step with the context's mocap pose, as it."""
    mjcf = MultibodyPlant(0.002)
    Parser(mjcf).AddModelsFromString(MOCAP_WELD, "xml")
    mjcf.Finalize()
    context = mjcf.CreateDefaultContext()
    mjcf.get_mocap_pose_input_port().FixValue(context, np.array([0.9, 0.1, 0.7, 0.8, 0.0, 0.6, 0.0]))
    x0 = np.tile(mjcf.GetPositionsAndVelocities(context), (2, 1))
    x0[1, -1] = 0.5
    stepper = BatchedStepper(mjcf, 2, context)
    assert stepper._tree is None  # constraint rows: forward.step
    x = stepper.Step(x0, num_steps=20)
    for b in range(2):  # each member as a fresh context (the solver's warm start starts at zero)
        context = mjcf.CreateDefaultContext()
        mjcf.get_mocap_pose_input_port().FixValue(context, np.array([0.9, 0.1, 0.7, 0.8, 0.0, 0.6, 0.0]))
        mjcf.SetPositionsAndVelocities(context, x0[b])
        for _ in range(20):
            mjcf._DiscreteStepUpdate(context, context.get_mutable_state())
        np.testing.assert_array_equal(x[b], mjcf.GetPositionsAndVelocities(context))
    assert np.abs(x[0] - x0[0]).max() > 1e-3


def test_plain_tree_arm_equals_contexts_stepped_one_by_one():
    """A 7-link arm of revolute and prismatic joints with offsets, damping and rotor inertia, no limits or geometry:
    the plain-tree kernel (tree_step.py; 7 dofs: LAPACK's factor on its scratch) equals the Simulator bit for bit,
    and a member whose state becomes non-finite is named."""
    arm = tw.build(tw.engine_mallard(), tw.serial_arm(), time_step=1e-3)[0]
    rng = np.random.default_rng(2)
    x0 = np.hstack([rng.uniform(-0.8, 0.8, (3, 7)), rng.uniform(-0.5, 0.5, (3, 7))])
    u = rng.uniform(-2.0, 2.0, (3, 7))
    stepper = BatchedStepper(arm, 3)
    assert stepper._tree is not None
    x = stepper.Step(x0, u, num_steps=10)
    for b in range(3):
        context = arm.CreateDefaultContext()
        arm.SetPositionsAndVelocities(context, x0[b])
        arm.get_actuation_input_port().FixValue(context, u[b])
        Simulator(arm, context).AdvanceTo(0.01)
        np.testing.assert_array_equal(x[b], arm.GetPositionsAndVelocities(context))
    u[1] = 1e308
    with pytest.raises(RuntimeError, match="batch member 1 .* a state that is not finite"):
        stepper.Step(x0, u)
    x0[2, 3] = np.inf
    with pytest.raises(ValueError, match="the state of batch member 2 is not finite"):
        stepper.Step(x0, u)


def test_general_batch_on_one_numba_thread_steps_on_the_calling_thread(monkeypatch):
    """With one numba thread (mallard's local workers) a Model with constraint rows steps its batch by
    step_batch_serial, no parallel region, with the bits of the threaded kernel."""
    mjcf = MultibodyPlant(0.002)
    Parser(mjcf).AddModelsFromString(MOCAP_WELD, "xml")
    mjcf.Finalize()
    context = mjcf.CreateDefaultContext()
    x0 = np.tile(mjcf.GetPositionsAndVelocities(context), (3, 1))
    x0[:, -1] = [0.5, -0.2, 0.1]
    threaded = BatchedStepper(mjcf, 3, context).Step(x0, num_steps=10)
    calls = []
    monkeypatch.setattr(batch_module, "step_batch", lambda *args: calls.append("parallel"))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        serial = BatchedStepper(mjcf, 3, context).Step(x0, num_steps=10)
    finally:
        numba.set_num_threads(threads)
    assert not calls
    np.testing.assert_array_equal(serial, threaded)
