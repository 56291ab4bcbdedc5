"""Element lifetime as pydrake's (multibody/tree/element.py): a plant is freed by reference counting alone; an
element handle a user holds keeps its plant alive (pybind's keep_alive) and accessors return that same handle."""
from __future__ import annotations

import pickle
import gc
import weakref

import numpy as np
import pytest

from mallard.multibody.math import RigidTransform
from mallard.multibody.parsing import Parser
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import FixedOffsetFrame, RevoluteJoint, SpatialInertia


@pytest.fixture
def no_gc():
    """Only reference counting frees objects inside the test."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _acrobot(models_dir, time_step: float = 0.0) -> MultibodyPlant:
    plant = MultibodyPlant(time_step=time_step)
    Parser(plant).AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
    plant.Finalize()
    return plant


@pytest.mark.parametrize("time_step", [0.0, 1e-3])
def test_a_parsed_plant_is_freed_by_reference_counting(models_dir, no_gc, time_step) -> None:
    plant = _acrobot(models_dir, time_step)
    context = plant.CreateDefaultContext()
    plant.CalcMassMatrix(context)
    ref = weakref.ref(plant)
    del plant
    assert ref() is None


def test_a_body_keeps_its_plant_alive_and_then_lets_it_go(models_dir, no_gc) -> None:
    """Drake's plant_test.py::test_get_bodies_welded_to_keep_alive, float pass."""
    def make():
        plant = _acrobot(models_dir)
        world_body = plant.world_body()
        base_link = plant.GetBodyByName("base_link")
        first_body, last_body = plant.GetBodiesWeldedTo(world_body)
        assert first_body is world_body and last_body is base_link
        return weakref.ref(plant), last_body

    ref, last_body = make()
    assert ref() is not None and last_body.GetParentPlant() is ref()
    assert last_body.body_frame().body() is last_body
    del last_body
    assert ref() is None


def test_handles_are_the_stored_elements_but_for_identity(models_dir) -> None:
    plant = _acrobot(models_dir)
    body = plant.GetBodyByName("upper_link")
    assert plant.get_body(body.index()) is body
    assert body == plant._bodies[int(body.index())] and hash(body) == hash(plant._bodies[int(body.index())])
    joint = plant.GetJointByName("elbow")
    assert joint.child_body().name() == "lower_link" and joint.parent_body() is body
    assert plant.GetJointActuatorByName("elbow").joint() is joint
    context = plant.CreateDefaultContext()
    joint.set_angle(context, 0.3)
    assert plant.GetPositions(context)[int(joint.position_start())] == 0.3


def test_an_added_element_is_the_handle(no_gc) -> None:
    """AddJoint / AddFrame keep the caller's object as the handle (pydrake returns the object it was given)."""
    plant = MultibodyPlant(time_step=0.0)
    body = plant.AddRigidBody("arm", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    joint = RevoluteJoint("pin", plant.world_frame(), body.body_frame(), np.array([0.0, 1.0, 0.0]))
    assert plant.AddJoint(joint) is joint and plant.GetJointByName("pin") is joint
    frame = plant.AddFrame(FixedOffsetFrame("tip", body.body_frame(), RigidTransform([0.0, 0.0, -0.5])))
    assert plant.GetFrameByName("tip") is frame and frame.body() is body
    plant.Finalize()
    ref = weakref.ref(plant)
    del plant, body, frame
    assert ref() is not None and joint.GetParentPlant() is ref()
    del joint
    assert ref() is None


def test_an_unpickled_plant_owns_its_elements(models_dir) -> None:
    plant = _acrobot(models_dir)
    other = pickle.loads(pickle.dumps(plant))
    assert other.GetBodyByName("lower_link").GetParentPlant() is other
    assert other.GetJointByName("elbow").frame_on_child().GetParentPlant() is other
