"""PlantVectorEnv: a gymnasium VectorEnv whose num_envs copies of one discrete MultibodyPlant step together in one
compiled call (BatchedStepper), for policy rollouts that would otherwise loop over contexts in Python.

Observations are the plants' states x = [q; v] (num_envs, nq + nv); actions are the actuation inputs u
(num_envs, nu) in the plant's actuator order, held for `time_step` seconds (a whole number of plant steps). Rewards
and terminations are vectorized functions of (x, u) and x. Episodes end by termination or after
`max_episode_steps`; the ended members reset on the next call to step (gymnasium's NEXT_STEP autoreset).
"""
from __future__ import annotations

from typing import Callable

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mallard.multibody.pipeline.batch import BatchedStepper

__all__ = ["PlantVectorEnv"]


def _steps_per_action(plant, time_step: float) -> int:
    """The number of plant steps in one action period; time_step must be a whole multiple of the plant's."""
    h = plant.time_step()
    n = int(round(time_step / h))
    if n < 1 or abs(n * h - time_step) > 1e-9 * max(1.0, time_step):
        raise ValueError(f"PlantVectorEnv: time_step {time_step} must be a positive whole multiple of the plant's "
                         f"time step {h}")
    return n


class PlantVectorEnv(VectorEnv):
    """`PlantVectorEnv(plant, num_envs, time_step, reward, terminated=None, initial_state=None,
    max_episode_steps=None, action_space=None, context=None)`.

    `reward(x, u) -> (num_envs,)` and `terminated(x) -> (num_envs,) bool` see the states after the step and the
    actions held; `initial_state(rng, n) -> (n, nq + nv)` draws n initial states from a numpy Generator (default:
    the plant's default state). The default action space is the actuators' effort limits. `context` (the plant's,
    from a diagram with a SceneGraph) turns on contact."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, plant, num_envs: int, time_step: float, reward: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 terminated: Callable[[np.ndarray], np.ndarray] | None = None,
                 initial_state: Callable[[np.random.Generator, int], np.ndarray] | None = None,
                 max_episode_steps: int | None = None, action_space: gym.spaces.Box | None = None,
                 context=None) -> None:
        if not callable(reward):
            raise TypeError(f"PlantVectorEnv: reward must be reward(x, u) -> (num_envs,), got {reward!r}")
        self._stepper = BatchedStepper(plant, num_envs, context)
        self.num_envs = int(num_envs)
        self._plant, self._reward, self._terminated = plant, reward, terminated
        self._steps = _steps_per_action(plant, float(time_step))
        self._max_steps = None if max_episode_steps is None else int(max_episode_steps)
        self._default_x = plant.GetPositionsAndVelocities(
            plant.CreateDefaultContext() if context is None else context).copy()
        self._initial_state = initial_state
        nx, nu = self._default_x.size, plant.num_actuated_dofs()
        if action_space is None:
            action_space = gym.spaces.Box(plant.GetEffortLowerLimits(), plant.GetEffortUpperLimits(),
                                          shape=(nu,), dtype=np.float64)
        if tuple(action_space.shape) != (nu,):
            raise ValueError(f"PlantVectorEnv: action_space has shape {action_space.shape} but "
                             f"{plant.GetSystemPathname()} has {nu} actuated dofs")
        self.single_action_space = action_space
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, shape=(nx,), dtype=np.float64)
        self.action_space = batch_space(action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._x = np.tile(self._default_x, (self.num_envs, 1))
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._done = np.zeros(self.num_envs, dtype=bool)

    def _draw(self, n: int) -> np.ndarray:
        if self._initial_state is None:
            return np.tile(self._default_x, (n, 1))
        x = np.asarray(self._initial_state(self.np_random, n), dtype=np.float64)
        if x.shape != (n, self._default_x.size):
            raise ValueError(f"PlantVectorEnv: initial_state(rng, {n}) returned shape {x.shape}; expected "
                             f"({n}, {self._default_x.size})")
        return x

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """New episodes for all members: (observations (num_envs, nq + nv), {})."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"PlantVectorEnv.reset: options are not supported, got {options}")
        self._x = self._draw(self.num_envs)
        self._elapsed[:] = 0
        self._done[:] = False
        self._stepper.ResetWarmStarts()
        return self._x.copy(), {}

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Holds actions (num_envs, nu) for time_step seconds: (observations, rewards, terminations, truncations,
        {}). Members that ended at the previous call restart instead (reward 0, not terminated)."""
        u = np.asarray(actions, dtype=np.float64).reshape(self.num_envs, -1)
        restart = self._done.copy()
        x = self._stepper.Step(self._x, u, num_steps=self._steps)
        rewards = np.asarray(self._reward(x, u), dtype=np.float64).reshape(self.num_envs)
        terminations = (np.zeros(self.num_envs, dtype=bool) if self._terminated is None
                        else np.asarray(self._terminated(x), dtype=bool).reshape(self.num_envs))
        self._elapsed += 1
        truncations = (np.zeros(self.num_envs, dtype=bool) if self._max_steps is None
                       else self._elapsed >= self._max_steps)
        if restart.any():
            n = int(restart.sum())
            x[restart] = self._draw(n)
            self._stepper.ResetWarmStarts(restart)
            rewards[restart], terminations[restart], truncations[restart] = 0.0, False, False
            self._elapsed[restart] = 0
        self._x = x
        self._done = terminations | truncations
        return x.copy(), rewards, terminations, truncations, {}
