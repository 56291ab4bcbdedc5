"""PlantVectorEnv: num_envs cart-poles stepped by one BatchedStepper equal contexts simulated one by one; episodes
end by termination or truncation and restart on the next step (gymnasium's NEXT_STEP autoreset); seeded resets
repeat; bad arguments are named."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.gym import PlantVectorEnv
from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator


@pytest.fixture(scope="module")
def plant(models_dir):
    cart_pole = MultibodyPlant(0.01)
    Parser(cart_pole).AddModels(str(models_dir / "drake_examples" / "cart_pole.sdf"))
    cart_pole.Finalize()
    return cart_pole


def _upright(x, u):
    return np.cos(x[:, 1]) - 0.01 * u[:, 0] ** 2


def _initial(rng, n):
    x = np.zeros((n, 4))
    x[:, :2] = rng.uniform(-0.2, 0.2, (n, 2))
    return x


def test_steps_equal_contexts_simulated_one_by_one(plant):
    env = PlantVectorEnv(plant, 4, time_step=0.03, reward=_upright, initial_state=_initial)
    x0, info = env.reset(seed=3)
    assert info == {} and x0.shape == (4, 4) and env.observation_space.shape == (4, 4)
    u = np.array([[1.0], [-2.0], [0.5], [0.0]])
    x, rewards, terminations, truncations, _ = env.step(u)
    for b in range(4):
        context = plant.CreateDefaultContext()
        plant.SetPositionsAndVelocities(context, x0[b])
        plant.get_actuation_input_port().FixValue(context, u[b])
        Simulator(plant, context).AdvanceTo(0.03)  # three plant steps
        np.testing.assert_array_equal(x[b], plant.GetPositionsAndVelocities(context))
    np.testing.assert_array_equal(rewards, np.cos(x[:, 1]) - 0.01 * u[:, 0] ** 2)
    assert not terminations.any() and not truncations.any()


def test_seeded_resets_repeat(plant):
    env = PlantVectorEnv(plant, 3, time_step=0.01, reward=_upright, initial_state=_initial)
    first, _ = env.reset(seed=11)
    again, _ = env.reset(seed=11)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first[0], first[1])


def test_ended_members_restart_on_the_next_step(plant):
    env = PlantVectorEnv(plant, 2, time_step=0.01, reward=_upright, max_episode_steps=2,
                         terminated=lambda x: x[:, 0] > 0.0)  # member 0 starts at cart x = 0.1: terminates at once
    env.reset()
    env._x[0, 0] = 0.1
    _, _, terminations, truncations, _ = env.step(np.zeros((2, 1)))
    assert terminations.tolist() == [True, False] and truncations.tolist() == [False, False]
    x, rewards, terminations, truncations, _ = env.step(np.zeros((2, 1)))
    np.testing.assert_array_equal(x[0], plant.GetPositionsAndVelocities(plant.CreateDefaultContext()))
    assert rewards[0] == 0.0 and not terminations[0] and not truncations[0]
    assert truncations[1]  # member 1 reached max_episode_steps = 2


def test_default_action_space_is_the_effort_limits(plant):
    env = PlantVectorEnv(plant, 5, time_step=0.01, reward=_upright)
    np.testing.assert_array_equal(env.single_action_space.high, plant.GetEffortUpperLimits())
    assert env.action_space.shape == (5, 1)


def test_bad_arguments_are_named(plant):
    with pytest.raises(ValueError, match="whole multiple of the plant's time step 0.01"):
        PlantVectorEnv(plant, 2, time_step=0.015, reward=_upright)
    with pytest.raises(TypeError, match="reward must be reward"):
        PlantVectorEnv(plant, 2, time_step=0.01, reward=None)
    env = PlantVectorEnv(plant, 2, time_step=0.01, reward=_upright, initial_state=lambda rng, n: np.zeros((n, 3)))
    with pytest.raises(ValueError, match=r"returned shape \(2, 3\); expected \(2, 4\)"):
        env.reset()
