"""DrakeVectorEnv: num_envs DrakeGymEnvs over one diagram, stepped together with (num_envs, n) actions and
observations (a gymnasium SyncVectorEnv whose sub-environments share the diagram and own their contexts)."""
from __future__ import annotations

import copy
from typing import Any, Callable

import gymnasium as gym

from mallard.systems.analysis import Simulator
from .drake_gym_env import DrakeGymEnv

__all__ = ["DrakeVectorEnv"]


def _all_systems(system, out: dict) -> dict:
    out[id(system)] = system
    for child in getattr(system, "_diagram_systems", ()):
        _all_systems(child, out)
    return out


def CopySimulator(simulator: Simulator) -> Simulator:
    """A simulator over the same system with its own copy of the context, integrator and settings."""
    return copy.deepcopy(simulator, _all_systems(simulator.get_system(), {}))


class _SimulatorCopies:
    """A make_simulator for the sub-environments when the user gives one Simulator: each reset starts from a copy
    of it (the diagram shared, the context copied)."""

    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator

    def __call__(self, generator) -> Simulator:
        return CopySimulator(self.simulator)


class DrakeVectorEnv(gym.vector.SyncVectorEnv):
    """`DrakeVectorEnv(num_envs, simulator, time_step, action_space, observation_space, reward, **DrakeGymEnv
    options)`: sub-environment k is a DrakeGymEnv over the same system; `reset(seed=s)` seeds it with s + k.
    Observations, rewards and flags come back stacked; an episode that ends is reset at the next step
    (gymnasium's NEXT_STEP autoreset)."""

    def __init__(self, num_envs: int, simulator: Simulator | Callable, time_step: float,
                 action_space: gym.spaces.Space | None, observation_space: gym.spaces.Space | None,
                 reward: Any, **options: Any) -> None:
        num_envs = int(num_envs)
        if num_envs < 1:
            raise ValueError(f"DrakeVectorEnv: num_envs must be >= 1, got {num_envs}")
        factory = _SimulatorCopies(simulator) if isinstance(simulator, Simulator) else simulator
        env_fns = [_EnvMaker(factory, time_step, action_space, observation_space, reward, options)
                   for _ in range(num_envs)]
        super().__init__(env_fns)


class _EnvMaker:
    """Builds one sub-environment (a picklable env_fn, as gymnasium's vector envs take)."""

    def __init__(self, factory: Callable, time_step: float, action_space, observation_space, reward,
                 options: dict) -> None:
        self.args = (factory, time_step, action_space, observation_space, reward)
        self.options = options

    def __call__(self) -> DrakeGymEnv:
        return DrakeGymEnv(*self.args, **self.options)
