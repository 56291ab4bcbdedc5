"""DrakeGymEnv: a gymnasium.Env around a Simulator (pydrake.gym's API).

Each `step(action)` fixes the action on an input port of the simulated system, advances `time_step` seconds and
returns the observation output port's value, the reward (a function of system and context, or a scalar output
port) and whether a simulator monitor ended the episode. `reset(seed)` re-randomizes the context with a
RandomGenerator (or calls a reset handler), or builds a new simulator from a factory.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import gymnasium as gym
import numpy as np

from mallard.common.random_generator import RandomGenerator
from mallard.systems.analysis import Simulator, SimulatorStatus
from mallard.systems.framework import InputPortIndex, OutputPortIndex, PortDataType

__all__ = ["DrakeGymEnv"]


def _port(system, port_id, inputs: bool):
    """The input (or output) port of `system` named or indexed by `port_id` (the first one when None)."""
    kind = "input" if inputs else "output"
    count = system.num_input_ports() if inputs else system.num_output_ports()
    if port_id is None:
        if count == 0:
            raise ValueError(f"DrakeGymEnv: {system.GetSystemPathname()} has no {kind} port to use as the "
                             f"{'action' if inputs else 'observation'}")
        port_id = 0
    if isinstance(port_id, str):
        return system.GetInputPort(port_id) if inputs else system.GetOutputPort(port_id)
    if not isinstance(port_id, (int, np.integer)):  # an InputPort / OutputPort object
        return port_id
    return system.get_input_port(int(port_id)) if inputs else system.get_output_port(int(port_id))


def _vector_space(port, space, what: str) -> gym.spaces.Space:
    """`space`, checked against a vector port's size; an unbounded float64 Box of that size when None."""
    if space is None:
        if port.get_data_type() != PortDataType.kVectorValued:
            raise ValueError(f"DrakeGymEnv: {port.GetFullDescription()} is abstract; pass an {what}_space")
        return gym.spaces.Box(-np.inf, np.inf, shape=(port.size(),), dtype=np.float64)
    if not isinstance(space, gym.spaces.Space):
        raise TypeError(f"DrakeGymEnv: {what}_space must be a gymnasium.spaces.Space, got {type(space).__name__}")
    if port.get_data_type() == PortDataType.kVectorValued and tuple(space.shape or ()) != (port.size(),):
        raise ValueError(f"DrakeGymEnv: {what}_space has shape {space.shape} but {port.GetFullDescription()} "
                         f"has size {port.size()}")
    return space


class _RewardPort:
    """reward(system, context) read from a scalar output port."""

    def __init__(self, port) -> None:
        if port.get_data_type() != PortDataType.kVectorValued or port.size() != 1:
            raise ValueError(f"DrakeGymEnv: the reward port {port.GetFullDescription()} must be a vector port of "
                             "size 1")
        self.port = port

    def __call__(self, system, context) -> float:
        return float(self.port.Eval(context)[0])


def _no_info(simulator) -> dict:
    return {}


class DrakeGymEnv(gym.Env):
    """`DrakeGymEnv(simulator, time_step, action_space, observation_space, reward, action_port_id=None,
    observation_port_id=None, render_rgb_port_id=None, render_mode="human", reset_handler=None,
    info_handler=None, hardware=False)` as pydrake.gym's; `simulator` may be a factory
    `make_simulator(generator) -> Simulator` called at every reset. A None space is an unbounded Box of the
    port's size."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, simulator: Simulator | Callable[[RandomGenerator], Simulator], time_step: float,
                 action_space: gym.spaces.Space | None, observation_space: gym.spaces.Space | None,
                 reward: Callable | OutputPortIndex | str, action_port_id: Any = None, observation_port_id: Any = None,
                 render_rgb_port_id: Any = None, render_mode: str = "human",
                 reset_handler: Callable | None = None, info_handler: Callable | None = None,
                 hardware: bool = False) -> None:
        super().__init__()
        if isinstance(simulator, Simulator):
            self.simulator, self.make_simulator = simulator, None
        elif callable(simulator):
            self.simulator, self.make_simulator = None, simulator
        else:
            raise TypeError(f"DrakeGymEnv: simulator must be a Simulator or a factory make_simulator(generator), "
                            f"got {type(simulator).__name__}")
        if not time_step > 0:
            raise ValueError(f"DrakeGymEnv: time_step must be positive, got {time_step}")
        self.time_step = float(time_step)
        self._action_space_arg, self._observation_space_arg = action_space, observation_space
        if isinstance(reward, (str, OutputPortIndex, int, np.integer)) and not isinstance(reward, bool):
            self.reward_port_id, self.reward = reward, None
        elif callable(reward):
            self.reward_port_id, self.reward = None, reward
        else:
            raise TypeError(f"DrakeGymEnv: reward must be reward(system, context) or a scalar output port id, "
                            f"got {reward!r}")
        self.action_port_id = action_port_id if action_port_id is not None else InputPortIndex(0)
        self.observation_port_id = observation_port_id if observation_port_id is not None else OutputPortIndex(0)
        self.render_rgb_port_id = render_rgb_port_id
        self.metadata = {"render_modes": ["human", "ansi"] + (["rgb_array"] if render_rgb_port_id else [])}
        self.render_mode = "rgb_array" if render_rgb_port_id else render_mode
        if reset_handler is not None and not callable(reset_handler):
            raise TypeError("DrakeGymEnv: reset_handler must be callable (simulator, context, seed)")
        self.reset_handler = reset_handler
        self.info_handler = info_handler if info_handler is not None else _no_info
        self.hardware = bool(hardware)
        self.generator = RandomGenerator()
        if self.simulator is not None:
            self._setup()
        else:  # the spaces must exist before the first reset (gymnasium's wrappers read them)
            if action_space is None or observation_space is None:
                self.simulator = self.make_simulator(RandomGenerator())
                self._setup()
                self.simulator = None
            else:
                self.action_space, self.observation_space = action_space, observation_space

    def _setup(self) -> None:
        """Binds the ports of the current simulator's system and checks the spaces against them."""
        system = self.simulator.get_system()
        self.action_port = _port(system, self.action_port_id, inputs=True)
        self.observation_port = _port(system, self.observation_port_id, inputs=False)
        self.action_space = _vector_space(self.action_port, self._action_space_arg, "action")
        self.observation_space = _vector_space(self.observation_port, self._observation_space_arg, "observation")
        if self.reward_port_id is not None:
            self.reward = _RewardPort(_port(system, self.reward_port_id, inputs=False))
        self.render_rgb_port = None if self.render_rgb_port_id is None else \
            _port(system, self.render_rgb_port_id, inputs=False)

    def _observe(self, context) -> Any:
        value = self.observation_port.Eval(context)
        dtype = getattr(self.observation_space, "dtype", None)
        return np.asarray(value, dtype=dtype) if isinstance(value, np.ndarray) and dtype is not None else value

    def step(self, action) -> tuple:
        """Applies `action` for `time_step` seconds: (observation, reward, terminated, truncated, info).
        A simulation that fails (RuntimeError) truncates the episode with the previous observation and reward 0."""
        if self.simulator is None:
            raise RuntimeError("DrakeGymEnv.step: call reset() first")
        context = self.simulator.get_mutable_context()
        self.action_port.FixValue(context, action)
        previous = self._observe(context)
        try:
            status = self.simulator.AdvanceTo(context.get_time() + self.time_step)
        except RuntimeError as error:
            warnings.warn(f"DrakeGymEnv.step: the simulation failed, the episode is truncated: {error}")
            return previous, 0.0, False, True, {}
        terminated = status.reason() == SimulatorStatus.ReturnReason.kReachedTerminationCondition
        return (self._observe(context), float(self.reward(self.simulator.get_system(), context)), bool(terminated),
                False, self.info_handler(self.simulator))

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        """A new episode: (observation, info). `seed` reseeds the RandomGenerator that randomizes the context
        (SetRandomContext) or that the simulator factory draws from."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"DrakeGymEnv.reset: options are not supported, got {options}")
        if seed is not None:
            self.generator = RandomGenerator(seed)
        if self.make_simulator is not None:
            self.simulator = self.make_simulator(self.generator)
            self._setup()
        context = self.simulator.get_mutable_context()
        context.SetTime(0.0)
        self.simulator.Initialize()
        system = self.simulator.get_system()
        if self.reset_handler is not None:
            system.SetDefaultContext(context)
            self.reset_handler(self.simulator, context, seed)
        elif not self.hardware:
            system.SetRandomContext(context, self.generator)
        return self._observe(context), self.info_handler(self.simulator)

    def render(self) -> Any:
        """human: ForcedPublish (visualizers in the diagram draw); ansi: the context's text; rgb_array: the image
        port's pixels (H, W, 3)."""
        if self.simulator is None:
            raise RuntimeError("DrakeGymEnv.render: call reset() first")
        context = self.simulator.get_context()
        if self.render_mode == "human":
            self.simulator.get_system().ForcedPublish(context)
            return None
        if self.render_mode == "ansi":
            return repr(context)
        if self.render_mode == "rgb_array":
            image = self.render_rgb_port.Eval(context)
            return np.asarray(getattr(image, "data", image))[:, :, :3]
        raise ValueError(f"DrakeGymEnv.render: unknown render_mode '{self.render_mode}'; use one of "
                         f"{self.metadata['render_modes']}")
