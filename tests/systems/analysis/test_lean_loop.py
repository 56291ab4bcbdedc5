"""The Simulator's lean loop (systems/analysis/lean_loop.py) computes what the general loop computes: the same states
bit for bit, the same statistics and step counts as pydrake's Simulator, the same errors and termination."""
import numpy as np
import pytest

import mallard.all as ma
from drake_scenes import box_scene
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.systems.analysis.lean_loop import LeanGroup
from tests.oracles import require_pydrake

BOUNDARIES = (0.0, 0.0105, 0.02, 0.02, 0.1234, 0.3)  # the box lands on a corner at 0.15 s, on another at 0.27 s


def _box_drop(lib, time_step=0.001):
    """The shared box drop (examples/drake_scenes.py), tumbling: tilted at 0.25 m and thrown."""
    diagram, plant, _, box = box_scene(lib, "kLagged", time_step)
    simulator = lib.Simulator(diagram)
    context = simulator.get_mutable_context()
    plant_context = plant.GetMyMutableContextFromRoot(context)
    plant.SetFreeBodyPose(plant_context, box, lib.RigidTransform(lib.RollPitchYaw(0.3, 0.2, 0.1), [0.0, 0.0, 0.25]))
    plant.SetFreeBodySpatialVelocity(plant_context, box, lib.SpatialVelocity([1.0, 0.0, 0.5], [0.5, 0.0, 0.0]))
    return simulator, plant, plant_context


def _stats(simulator):
    return (simulator.get_num_steps_taken(), simulator.get_num_discrete_updates(),
            simulator.get_num_unrestricted_updates(), simulator.get_num_publishes())


def _run(simulator, plant, plant_context):
    out = []
    for t in BOUNDARIES:
        simulator.AdvanceTo(t)
        out.append((simulator.get_context().get_time(), plant.GetPositionsAndVelocities(plant_context).copy(),
                     _stats(simulator)))
    return out


def test_plant_scene_takes_the_lean_loop_and_matches_the_general_loop_bit_for_bit():
    lean = _box_drop(ma)
    general = _box_drop(ma)
    general[0].set_monitor(lambda context: None)  # a monitor: the general loop
    lean[0].Initialize()
    general[0].Initialize()
    assert LeanGroup(lean[0]) is not None and LeanGroup(general[0]) is None
    for (t1, x1, s1), (t2, x2, s2) in zip(_run(*lean), _run(*general)):
        assert t1 == t2 and s1 == s2
        np.testing.assert_array_equal(x1, x2)
    results = [sim_plant[1].get_contact_results_output_port().Eval(sim_plant[2]) for sim_plant in (lean, general)]
    assert results[0].num_point_pair_contacts() == results[1].num_point_pair_contacts() > 0
    np.testing.assert_array_equal(results[0].point_pair_contact_info(0).contact_force(),
                                  results[1].point_pair_contact_info(0).contact_force())


def test_plant_steps_in_compiled_chunks_and_redoes_a_stopped_step_on_the_ordinary_path(monkeypatch):
    """The plant takes the lean loop's chunks (_LeanSteps); a chunk that stops early (as before a failing step)
    hands that step to the ordinary path and goes on: states, times and statistics stay the general loop's."""
    import mallard.multibody.plant._discrete_step as discrete_step
    real, calls = discrete_step.multi_step, []

    def stopping(*args):  # every other chunk stops after a third of its steps
        n = args[-1]
        calls.append(n)
        return real(*args[:-1], n // 3 if len(calls) % 2 else n)
    monkeypatch.setattr(discrete_step, "multi_step", stopping)
    lean, general = _box_drop(ma), _box_drop(ma)
    general[0].set_monitor(lambda context: None)
    for (t1, x1, s1), (t2, x2, s2) in zip(_run(*lean), _run(*general)):
        assert t1 == t2 and s1 == s2
        np.testing.assert_array_equal(x1, x2)
    assert len(calls) > 4 and max(calls) > 100


def test_step_counts_and_states_match_pydrake():
    require_pydrake()
    import pydrake.all as pydrake_all
    for (t1, x1, s1), (t2, x2, s2) in zip(_run(*_box_drop(ma)), _run(*_box_drop(pydrake_all))):
        assert t1 == t2 and s1 == s2
        np.testing.assert_allclose(x1, x2, rtol=0, atol=1e-8)


class _Counter(ma.LeafSystem):
    """x⁺ = x + 1 every 0.1 s; terminates when x reaches `stop`, or writes NaN at `nan`."""

    def __init__(self, stop=None, nan=None):
        super().__init__()
        self.DeclareDiscreteState(1)
        self.stop, self.nan = stop, nan
        self.DeclarePeriodicDiscreteUpdateEvent(0.1, 0.05, self.Update)

    def Update(self, context, xd):
        x = context.get_discrete_state_vector().GetAtIndex(0)
        if self.stop is not None and x >= self.stop:
            return ma.EventStatus.ReachedTermination(self, "counted enough")
        xd.get_mutable_vector().SetAtIndex(0, np.nan if x == self.nan else x + 1.0)
        return ma.EventStatus.Succeeded()


def test_discrete_updates_offsets_termination_and_nan_as_the_general_loop():
    sims = []
    for monitor in (False, True):
        sim = ma.Simulator(_Counter(stop=7))
        if monitor:
            sim.set_monitor(lambda context: None)
        status = sim.AdvanceTo(2.0)
        sims.append((status.reason(), status.return_time(), sim.get_context().get_discrete_state_vector().GetAtIndex(0),
                     _stats(sim)))
    assert sims[0] == sims[1]
    assert sims[0][0] == ma.SimulatorStatus.ReturnReason.kReachedTerminationCondition and sims[0][2] == 7.0
    with pytest.raises(RuntimeError, match="NaN|nan|non-finite|not finite") as lean_error:
        ma.Simulator(_Counter(nan=3)).AdvanceTo(2.0)
    general = ma.Simulator(_Counter(nan=3))
    general.set_monitor(lambda context: None)
    with pytest.raises(RuntimeError) as general_error:
        general.AdvanceTo(2.0)
    assert str(lean_error.value) == str(general_error.value)


_ARM = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="1 1 .1"/>
<body pos="0 0 .5"><joint name="j1" axis="0 1 0" damping=".1"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
<body pos=".3 0 0"><joint name="j2" axis="0 1 0"/><geom type="box" size=".1 .05 .05" pos=".1 0 0"/></body></body>
<body pos=".2 .3 .3"><freejoint/><geom type="sphere" size=".05"/></body></worldbody>
<actuator><position joint="j1" kp="20"/><general joint="j2" dyntype="filter" dynprm=".05" gainprm="3"/></actuator>
</mujoco>"""


def _mjcf_arm(ctrl, monitor: bool):
    builder = ma.DiagramBuilder()
    plant, _ = ma.AddMultibodyPlantSceneGraph(builder, 0.002)
    ma.Parser(builder).AddModelsFromString(_ARM, "xml")
    plant.Finalize()
    simulator = ma.Simulator(builder.Build())
    if monitor:
        simulator.set_monitor(lambda context: None)
    plant_context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    GetMujocoCtrlInputPort(plant).FixValue(plant_context, ctrl)
    return simulator, plant, plant_context


def test_fixed_ctrl_and_activations_step_in_chunks_bit_for_bit(monkeypatch):
    """An MJCF model whose ctrl port has a fixed value (a keyframe's ctrl), with a filter activation, takes the
    compiled chunks: states (activations included), times and statistics are the general loop's, and a NaN ctrl
    fixed later stops the chunk before the step and raises the general loop's error."""
    import mallard.multibody.plant._discrete_step as discrete_step
    real, calls = discrete_step.multi_step, []

    def counting(*args):
        calls.append(args[-1])
        return real(*args)
    monkeypatch.setattr(discrete_step, "multi_step", counting)
    lean, general = _mjcf_arm([0.4, -0.7], False), _mjcf_arm([0.4, -0.7], True)
    for (t1, x1, s1), (t2, x2, s2) in zip(_run(*lean), _run(*general)):
        assert t1 == t2 and s1 == s2
        np.testing.assert_array_equal(x1, x2)
    for sim, _plant, _ctx in (lean, general):
        assert sim.get_context().get_discrete_state().get_vector(1).size() == 1  # the filter's activation
    np.testing.assert_array_equal(lean[0].get_context().get_discrete_state().get_vector(1).get_value(),
                                  general[0].get_context().get_discrete_state().get_vector(1).get_value())
    assert lean[0].get_context().get_discrete_state().get_vector(1).get_value()[0] != 0.0
    assert max(calls) > 50  # chunks of the lean loop, not a call per step
    errors = []
    for sim, plant, ctx in (lean, general):
        GetMujocoCtrlInputPort(plant).FixValue(ctx, [np.nan, 0.0])
        with pytest.raises(RuntimeError) as error:
            sim.AdvanceTo(0.5)
        errors.append((str(error.value), sim.get_context().get_time()))
    assert errors[0] == errors[1]


def test_unconverged_solves_stay_in_the_compiled_chunks(monkeypatch):
    """A constraint solver at its iteration limit (MJX scenes: iterations=1) is counted inside the compiled chunk
    instead of stopping it for the ordinary path (which loaded a second compiled entry, ~0.4 s, and stepped in
    Python): chunks run whole, states and statistics are the general loop's, the failure counts agree; with
    throw_on_failure the chunk stops and the general loop's error is raised."""
    import mallard.multibody.plant._discrete_step as discrete_step
    real, done = discrete_step.multi_step, []

    def counting(*args):
        out = real(*args)
        done.append((out[0], args[-1]))
        return out
    monkeypatch.setattr(discrete_step, "multi_step", counting)
    lean, general = _mjcf_arm([0.4, -0.7], False), _mjcf_arm([0.4, -0.7], True)
    for _sim, plant, _ctx in (lean, general):
        plant.set_constraint_solver_options(iterations=1, tolerance=1e-30)
    for (t1, x1, s1), (t2, x2, s2) in zip(_run(*lean), _run(*general)):
        assert t1 == t2 and s1 == s2
        np.testing.assert_array_equal(x1, x2)
    failures = [plant.get_constraint_solver_statistics()["failures"] for _sim, plant, _ctx in (lean, general)]
    # 10 steps here, at the sphere's landing (~0.23 s): how many of the contact steps end within round-off of the
    # optimum after one iteration is round-off-sensitive (the damped joint's solve), so only require several
    assert failures[0] == failures[1] > 5
    assert all(k == n for k, n in done) and max(n for _k, n in done) > 50
    errors = []
    for sim, plant, _ctx in (lean, general):
        plant.set_constraint_solver_options(throw_on_failure=True)
        with pytest.raises(RuntimeError, match="did not converge") as error:
            sim.AdvanceTo(0.5)
        errors.append((str(error.value), sim.get_context().get_time()))
    assert errors[0] == errors[1]


def _pendulum_on_box(lib):
    """The box drop plus an actuated pendulum pinned to the world, its actuation input fixed."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.001)
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.2, 0.2, 0.2), "box",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground",
                                    lib.CoulombFriction(0.5, 0.5))
    link = plant.AddRigidBody("link", lib.SpatialInertia.SolidBoxWithMass(1.0, 0.05, 0.05, 0.4))
    joint = plant.AddJoint(lib.RevoluteJoint("pin", plant.world_body().body_frame(), link.body_frame(),
                                             [0.0, 1.0, 0.0], 0.1))
    plant.AddJointActuator("motor", joint)
    plant.Finalize()
    diagram = builder.Build()
    simulator = lib.Simulator(diagram)
    plant_context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    plant.SetFreeBodyPose(plant_context, box, lib.RigidTransform([0.0, 0.0, 0.102]))
    fixed = plant.get_actuation_input_port().FixValue(plant_context, [0.5])
    return simulator, plant, plant_context, link, fixed


_CHANGES = (8, 14, 20, 26)  # the steps before which _advance_per_step changes the model's inputs


def _advance_per_step(general: bool, changes: int) -> np.ndarray:
    """[q; v] after each of 40 AdvanceTo(t + h) calls, making the first `changes` changes of _CHANGES: the link's mass,
    the gravity vector, the fixed actuation replaced, then written through GetMutableVectorData."""
    simulator, plant, plant_context, link, _fixed = _pendulum_on_box(ma)
    if general:
        simulator.set_monitor(lambda context: None)  # a monitor: the general loop
    simulator.Initialize()
    assert (LeanGroup(simulator) is None) == general
    out = []
    for n in range(1, 41):
        if n == _CHANGES[0] and changes > 0:
            link.SetMass(plant_context, 3.5)
        if n == _CHANGES[1] and changes > 1:
            plant.mutable_gravity_field().set_gravity_vector([0.3, 0.0, -9.0])
        if n == _CHANGES[2] and changes > 2:
            plant.get_actuation_input_port().FixValue(plant_context, [-2.0])
        if n == _CHANGES[3] and changes > 3:
            fixed = plant.get_actuation_input_port().FixValue(plant_context, [1.0])
            fixed.GetMutableVectorData().SetFromVector([3.0])
        simulator.AdvanceTo(n * 0.001)
        out.append(plant.GetPositionsAndVelocities(plant_context).copy())
    return np.array(out)


def test_changes_between_single_step_advances_reach_the_lean_loops_compiled_steps():
    """AdvanceTo(t + h) per step (the lean loop keeps its compiled call's arguments per context): a body's mass, the
    gravity vector and the fixed actuation (replaced, or written through GetMutableVectorData) changed between calls
    are those the next step uses: each change moves the state at its step, and the lean loop matches the general
    loop bit for bit."""
    lean = [_advance_per_step(False, k) for k in range(len(_CHANGES) + 1)]
    np.testing.assert_array_equal(lean[-1], _advance_per_step(True, len(_CHANGES)))
    for k, n in enumerate(_CHANGES):
        np.testing.assert_array_equal(lean[k][:n - 1], lean[k + 1][:n - 1])
        assert np.any(lean[k][n - 1] != lean[k + 1][n - 1]), f"change {k} did not reach step {n}"


class _Pd(ma.LeafSystem):
    """u = -Kp·q - Kd·v of a 2-DOF plant's state; NaN from t >= nan_at, a ValueError from t >= raise_at."""

    def __init__(self, nan_at=np.inf, raise_at=np.inf):
        super().__init__()
        self.nan_at, self.raise_at, self.calls = nan_at, raise_at, 0
        self.DeclareVectorInputPort("x", 4)
        self.DeclareVectorOutputPort("u", 2, self.CalcU)

    def CalcU(self, context, output):
        self.calls += 1
        t = context.get_time()
        if t >= self.raise_at:
            raise ValueError(f"controller failed at {t}")
        x = self.get_input_port(0).Eval(context)
        output.SetFromVector(np.full(2, np.nan) if t >= self.nan_at else -20.0 * x[:2] - 2.0 * x[2:])


def _controlled_arm(monitor: bool, **faults):
    builder = ma.DiagramBuilder()
    plant = builder.AddSystem(ma.MultibodyPlant(0.001))
    plant.set_name("arm")
    parent = plant.world_body()
    for i in range(2):
        body = plant.AddRigidBody(f"link{i}", ma.SpatialInertia.SolidCylinderWithMass(1.0, 0.05, 0.3, [0, 0, 1]))
        joint = plant.AddJoint(ma.RevoluteJoint(f"j{i}", parent.body_frame(), body.body_frame(), [0.0, 1.0, 0.0]))
        plant.AddJointActuator(f"m{i}", joint)
        parent = body
    plant.Finalize()
    pd = builder.AddSystem(_Pd(**faults))
    builder.Connect(plant.get_state_output_port(), pd.get_input_port(0))
    builder.Connect(pd.get_output_port(0), plant.get_actuation_input_port())
    simulator = ma.Simulator(builder.Build())
    if monitor:
        simulator.set_monitor(lambda context: None)
    plant_context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    plant.SetPositions(plant_context, [0.4, -0.3])
    return simulator, plant, plant_context, pd


def test_connected_actuation_steps_on_the_compiled_path_bit_for_bit(monkeypatch):
    """A plant driven by a Python controller through its actuation port takes the lean loop's compiled steps (the
    input evaluated before each, once per step as the ordinary update evaluates it): states, times, statistics and
    controller evaluations are the general loop's; a NaN actuation and a controller's exception raise the general
    loop's errors at the same time."""
    import mallard.multibody.plant._discrete_step as discrete_step
    real, calls = discrete_step.multi_step, []

    def counting(*args):
        calls.append(args[-1])
        return real(*args)
    monkeypatch.setattr(discrete_step, "multi_step", counting)
    lean, general = _controlled_arm(False), _controlled_arm(True)
    for (t1, x1, s1), (t2, x2, s2) in zip(_run(*lean[:3]), _run(*general[:3])):
        assert t1 == t2 and s1 == s2
        np.testing.assert_array_equal(x1, x2)
    assert lean[3].calls == general[3].calls > 250
    assert len(calls) > 250  # one compiled step per call
    for faults in ({"nan_at": 0.01}, {"raise_at": 0.0125}):
        errors = []
        for monitor in (False, True):
            sim = _controlled_arm(monitor, **faults)[0]
            with pytest.raises((RuntimeError, ValueError)) as error:
                sim.AdvanceTo(0.1)
            errors.append((type(error.value), str(error.value), sim.get_context().get_time(), _stats(sim)))
        assert errors[0] == errors[1]
