"""DrakeGymEnv and DrakeVectorEnv around a cart-pole diagram: gymnasium's check_env, seeded resets, steps equal to
simulating by hand, stacked sub-environments equal to separate ones, pickling."""
from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mallard.gym import DrakeGymEnv, DrakeVectorEnv
from mallard.systems.analysis import Simulator

from scaleout_models import CartPoleGymFactory, upright_reward

ACTIONS = gym.spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float64)      # N on the cart
OBSERVATIONS = gym.spaces.Box(-100.0, 100.0, shape=(4,), dtype=np.float64)


@pytest.fixture(scope="module")
def factory():
    return CartPoleGymFactory(time_step=0.01)


def _env(factory, **options):
    return DrakeGymEnv(factory, time_step=0.05, action_space=ACTIONS, observation_space=OBSERVATIONS,
                       reward=upright_reward, action_port_id="actions", observation_port_id="observations", **options)


def test_passes_gymnasiums_check_env(factory):
    check_env(_env(factory), skip_render_check=True)


def test_seeded_resets_repeat_and_unseeded_ones_differ(factory):
    env = _env(factory)
    first, _ = env.reset(seed=7)
    again, info = env.reset(seed=7)
    np.testing.assert_array_equal(first, again)
    assert info == {} and env.observation_space.contains(first)
    assert not np.array_equal(env.reset()[0], env.reset()[0])


def test_a_step_is_the_simulation_by_hand(factory):
    env = _env(factory)
    observation, _ = env.reset(seed=3)
    actions = [[1.0], [-0.7], [0.5]]
    steps = [env.step(np.array(a)) for a in actions]
    simulator = Simulator(factory.diagram)
    context = simulator.get_mutable_context()
    factory.plant.SetPositionsAndVelocities(factory.plant.GetMyContextFromRoot(context), observation)
    for k, (action, (obs, reward, terminated, truncated, info)) in enumerate(zip(actions, steps)):
        factory.diagram.GetInputPort("actions").FixValue(context, action)
        simulator.AdvanceTo(0.05 * (k + 1))
        np.testing.assert_array_equal(obs, factory.diagram.GetOutputPort("observations").Eval(context))
        assert reward == upright_reward(factory.diagram, context)
        assert (terminated, truncated) == (False, False)


def test_spaces_default_to_the_port_sizes_and_are_checked(factory):
    env = DrakeGymEnv(factory(None), 0.05, None, None, upright_reward)
    assert env.action_space.shape == (1,) and env.observation_space.shape == (4,)
    with pytest.raises(ValueError, match="has size 4"):
        DrakeGymEnv(factory, 0.05, ACTIONS, gym.spaces.Box(-1, 1, shape=(3,)), upright_reward,
                    observation_port_id="observations", action_port_id="actions").reset()


def test_vector_env_equals_separate_envs(factory):
    vector = DrakeVectorEnv(3, factory, 0.05, ACTIONS, OBSERVATIONS, upright_reward, action_port_id="actions",
                            observation_port_id="observations")
    singles = [_env(factory) for _ in range(3)]
    observations, _ = vector.reset(seed=10)
    assert observations.shape == (3, 4) and vector.action_space.shape == (3, 1)
    for k, single in enumerate(singles):
        np.testing.assert_array_equal(observations[k], single.reset(seed=10 + k)[0])
    rng = np.random.default_rng(0)
    for _ in range(3):
        actions = rng.uniform(-1, 1, size=(3, 1))
        observations, rewards, terminated, truncated, _ = vector.step(actions)
        for k, single in enumerate(singles):
            obs, reward, *_ = single.step(actions[k])
            np.testing.assert_array_equal(observations[k], obs)
            assert rewards[k] == reward


def test_vector_env_from_one_simulator_copies_its_context(factory):
    simulator = factory(None)
    vector = DrakeVectorEnv(2, simulator, 0.05, ACTIONS, OBSERVATIONS, upright_reward)
    observations, _ = vector.reset(seed=1)
    assert observations.shape == (2, 4) and not np.array_equal(observations[0], observations[1])
    assert simulator.get_context().get_time() == 0.0  # the given simulator is left alone


def test_env_pickles_mid_episode(factory):
    env = _env(factory)
    env.reset(seed=5)
    env.step(np.array([0.8]))
    copy = pickle.loads(pickle.dumps(env))
    a, b = env.step(np.array([-0.4])), copy.step(np.array([-0.4]))
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
