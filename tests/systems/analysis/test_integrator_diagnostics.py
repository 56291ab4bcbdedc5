"""Integrators say what went wrong: a non-finite input, initial state or derivative is named (system, state entry,
time) instead of "the step size fell below the minimum ... may be stiff"; a crawl of tiny steps stops with an error
naming the cause (for a plant, its deepest contact penetrations)."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.geometry as mg
from mallard.multibody.math import RigidTransform, RollPitchYaw
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.tree import SpatialInertia
from mallard.systems.analysis import RungeKutta2Integrator, Simulator, integrator_diagnostics
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.primitives import ConstantVectorSource, Integrator


def _integrator_of(value, name="integ"):
    builder = DiagramBuilder()
    source = builder.AddSystem(ConstantVectorSource(value))
    integrator = builder.AddSystem(Integrator(len(value)))
    integrator.set_name(name)
    builder.Connect(source.get_output_port(), integrator.get_input_port())
    diagram = builder.Build()
    diagram.set_name("d")
    return diagram, integrator


def test_nan_input_is_named_not_called_stiff() -> None:
    diagram, _ = _integrator_of([1.0, np.nan])
    with pytest.raises(RuntimeError) as err:
        Simulator(diagram).AdvanceTo(1.0)
    message = str(err.value)
    assert "non-finite time derivative of Integrator '::d::integ' at t = 0 s" in message
    assert "d/dt index 1 = nan" in message and "input port 'u0' = [ 1. nan] is non-finite" in message
    assert "stiff" not in message


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_initial_state_is_named(bad) -> None:
    diagram, integrator = _integrator_of([1.0])
    simulator = Simulator(diagram)
    integrator.set_integral_value(integrator.GetMyContextFromRoot(simulator.get_mutable_context()), [bad])
    with pytest.raises(RuntimeError, match=rf"the continuous state of Integrator '::d::integ' is non-finite at t = 0 s, "
                                           rf"before the step from there: index 0 = {bad}"):
        simulator.AdvanceTo(1.0)


class _NaNAfterHalfSecond(LeafSystem):
    def __init__(self) -> None:
        super().__init__()
        self.DeclareContinuousState(1)
        self.set_name("fails")

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        derivatives.get_mutable_vector().SetAtIndex(0, np.nan if context.get_time() > 0.5 else 1.0)


def test_derivative_turning_nan_mid_run_is_named_with_its_time() -> None:
    simulator = Simulator(_NaNAfterHalfSecond())
    with pytest.raises(RuntimeError, match=r"non-finite time derivative of _NaNAfterHalfSecond '::fails' at t = 0.5 s "
                                           r"\(at a trial state .* into a step from t = 0.5 s\): d/dt index 0 = nan"):
        simulator.AdvanceTo(1.0)
    assert simulator.get_context().get_time() == pytest.approx(0.5)


def test_derivative_turning_nan_with_minimum_step_violations_allowed_names_the_state() -> None:
    """Drake's step-size control shrinks a step with a NaN error estimate by 10x each try; at the minimum step it
    takes that step (violations allowed) and the non-finite state is named, rather than shrinking forever."""
    simulator = Simulator(_NaNAfterHalfSecond())
    simulator.get_mutable_integrator().set_throw_on_minimum_step_size_violation(False)
    with pytest.raises(RuntimeError, match=r"the continuous state of _NaNAfterHalfSecond '::fails' became non-finite "
                                           r"at t = 0.5 s: index 0 = nan"):
        simulator.AdvanceTo(1.0)


def test_fixed_step_integrator_names_the_nan_input_too() -> None:
    diagram, _ = _integrator_of([np.nan])
    simulator = Simulator(diagram)
    simulator.reset_integrator(RungeKutta2Integrator(diagram, 0.01))
    with pytest.raises(RuntimeError, match=r"RungeKutta2Integrator: non-finite time derivative of Integrator "
                                           r"'::d::integ' at t = 0 s \(at the current state\)"):
        simulator.AdvanceTo(1.0)


class _VeryStiff(LeafSystem):
    """ẋ = -1e10 (x - 1): explicit RK3 is stable only for steps below ~2.5e-10 s."""

    def __init__(self) -> None:
        super().__init__()
        self.DeclareContinuousState(1)
        self.set_name("stiff")

    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        x = context.get_continuous_state_vector().GetAtIndex(0)
        derivatives.get_mutable_vector().SetAtIndex(0, -1e10 * (x - 1.0))


def test_crawl_of_tiny_steps_stops_with_an_error() -> None:
    simulator = Simulator(_VeryStiff())
    with pytest.raises(RuntimeError, match=r"RungeKutta3Integrator: the integration of ::stiff is crawling: 1000 steps "
                                           r"in a row below 1e-07 s"):
        simulator.AdvanceTo(1.0)
    assert simulator.get_context().get_time() < 1e-5


def test_crawl_error_can_be_turned_off() -> None:
    simulator = Simulator(_VeryStiff())
    simulator.get_mutable_integrator().set_throw_on_minimum_step_size_violation(False)
    simulator.AdvanceTo(5e-7)  # ~2000 steps of ~2.5e-10 s, as asked
    assert simulator.get_integrator().get_num_steps_taken() > 1000


def _box_in_ground(depth: float):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
    box = plant.AddRigidBody("box", SpatialInertia.SolidBoxWithMass(1.0, 0.2, 0.2, 0.2))
    friction = mg.CoulombFriction(0.5, 0.5)
    plant.RegisterCollisionGeometry(box, RigidTransform(), mg.Box(0.2, 0.2, 0.2), "box_collision",
                                    mg.AddContactMaterial(friction=friction))
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), mg.HalfSpace(), "floor",
                                    mg.AddContactMaterial(friction=friction))
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    plant_context = plant.GetMyContextFromRoot(context)
    plant.SetFreeBodyPose(plant_context, box, RigidTransform(RollPitchYaw(0.1, 0.2, 0.3).ToRotationMatrix(),
                                                             [0.0, 0.0, 0.1 - depth]))
    return diagram, plant, context, plant_context


def test_plant_names_its_deepest_penetrations_as_the_cause_of_a_crawl() -> None:
    """A box started 0.5 m into the ground: the crawl message gets the bodies, geometries and depth."""
    _, plant, _, plant_context = _box_in_ground(0.5)
    cause = plant._DescribeStiffness(plant_context)
    assert cause.startswith("deepest contact penetrations: ")
    assert "'box' (geometry 'box_collision')" in cause and "'world' (geometry 'floor')" in cause
    depth = float(cause.split(" by ")[1].split(" m")[0])
    assert 0.5 < depth < 0.7  # the lowest corner of the tilted box


def test_plant_crawl_error_carries_the_penetrations(monkeypatch) -> None:
    """The integrator's crawl error includes the plant's diagnosis (a loose crawl threshold makes it quick)."""
    monkeypatch.setattr(integrator_diagnostics, "CRAWL_FRACTION", 0.1)  # steps below 0.01 s ...
    monkeypatch.setattr(integrator_diagnostics, "CRAWL_STEPS", 20)  # ... 20 in a row
    diagram, _, context, _ = _box_in_ground(0.5)
    simulator = Simulator(diagram, context)
    with pytest.raises(RuntimeError, match=r"is crawling: 20 steps in a row below 0.01 s .*MultibodyPlant "
                                           r"'.*plant': deepest contact penetrations: 'box' \(geometry 'box_collision'\)"):
        simulator.AdvanceTo(0.1)
