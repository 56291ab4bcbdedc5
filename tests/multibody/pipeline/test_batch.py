"""BatchedStepper: B cart-pole states in one compiled call equal B contexts stepped by the Simulator, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

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
    x = stepper.Step(x0, u, num_steps=5)
    for b in range(batch):
        context = plant.CreateDefaultContext()
        plant.SetPositionsAndVelocities(context, x0[b])
        plant.get_actuation_input_port().FixValue(context, u[b])
        Simulator(plant, context).AdvanceTo(0.05)
        np.testing.assert_array_equal(x[b], plant.GetPositionsAndVelocities(context))


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
