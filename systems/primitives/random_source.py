"""`RandomSource`: piecewise-constant random samples, redrawn every sampling interval (pydrake semantics).

The samples live in discrete state and the numpy `Generator` that draws them in abstract state; a periodic
unrestricted update (offset 0) redraws them, so the output is constant between sample times. Each instance
gets its own default seed (a process-wide counter, as Drake does); `SetRandomContext` draws a fresh seed.
"""
from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from mallard.common.random_distribution import RandomDistribution
from mallard.systems.framework import LeafSystem, Value
from ._util import positive_int, positive_period


_kDefaultSeed = 5489  # std::mt19937's default seed, Drake's RandomGenerator::default_seed
_next_seed = itertools.count(_kDefaultSeed)


class _SampleGenerator:
    """A seeded numpy Generator plus the distribution it samples."""

    __slots__ = ("seed", "distribution", "rng")

    def __init__(self, seed: int, distribution: RandomDistribution) -> None:
        self.seed = int(seed)
        self.distribution = RandomDistribution(distribution)
        self.rng = np.random.default_rng(self.seed)

    def draw(self, out: np.ndarray) -> None:
        n = out.shape[0]
        if self.distribution == RandomDistribution.kUniform:
            out[:] = self.rng.random(n)
        elif self.distribution == RandomDistribution.kGaussian:
            out[:] = self.rng.standard_normal(n)
        else:
            out[:] = self.rng.standard_exponential(n)

    def __deepcopy__(self, memo):
        c = _SampleGenerator.__new__(_SampleGenerator)
        c.seed, c.distribution = self.seed, self.distribution
        c.rng = np.random.default_rng()
        c.rng.bit_generator.state = self.rng.bit_generator.state
        return c


class RandomSource(LeafSystem):
    """Outputs `output`: num_outputs independent samples of `distribution`, redrawn every sampling_interval_sec."""

    def __init__(self, distribution: RandomDistribution, num_outputs: int, sampling_interval_sec: float) -> None:
        super().__init__()
        try:
            self._distribution = RandomDistribution(distribution)
        except ValueError:
            raise ValueError(f"RandomSource: unknown distribution {distribution!r}; use "
                             f"{[d.name for d in RandomDistribution]}") from None
        n = positive_int(num_outputs, "RandomSource: num_outputs")
        self._interval = positive_period(sampling_interval_sec, "RandomSource: sampling_interval_sec")
        self._instance_seed = next(_next_seed)
        self._fixed_seed: Optional[int] = None
        xd = self.DeclareDiscreteState(n)
        self.DeclareAbstractState(Value(_SampleGenerator(self._instance_seed, self._distribution)))
        self.DeclarePeriodicUnrestrictedUpdateEvent(self._interval, 0.0, self._update)
        self.DeclareStateOutputPort("output", xd)

    def get_distribution(self) -> RandomDistribution:
        return self._distribution

    def sampling_interval_sec(self) -> float:
        return self._interval

    def get_fixed_seed(self) -> Optional[int]:
        return self._fixed_seed

    def set_fixed_seed(self, seed: Optional[int]) -> None:
        """Use `seed` for both default and random contexts (None restores per-instance / random seeds)."""
        self._fixed_seed = None if seed is None else int(seed)

    def get_seed(self, context) -> int:
        """The seed of the generator in `context`."""
        self.ValidateContext(context)
        return context.get_abstract_state(0).get_value().seed

    def _update(self, context, state) -> None:
        gen = state.get_mutable_abstract_state(0).get_mutable_value()
        gen.draw(state.get_mutable_discrete_state(0)._data)

    def _seed_state(self, seed: int, context, state) -> None:
        super().SetDefaultState(context, state)
        state.get_mutable_abstract_state(0).set_value(_SampleGenerator(seed, self._distribution))
        self._update(context, state)

    def SetDefaultState(self, context, state) -> None:
        self._seed_state(self._fixed_seed if self._fixed_seed is not None else self._instance_seed, context, state)

    def SetRandomState(self, context, state, generator) -> None:
        if self._fixed_seed is not None:
            seed = self._fixed_seed
        elif hasattr(generator, "integers"):
            seed = int(generator.integers(0, 2**32))
        else:
            seed = int(generator()) % 2**32
        self._seed_state(seed, context, state)


def AddRandomInputs(sampling_interval_sec: float, builder) -> int:
    """Connects a new RandomSource (of the port's distribution, sampled every `sampling_interval_sec`) to every
    random input port (declared with a random_type) of the builder's systems that is not yet connected or
    exported; returns how many sources were added."""
    count = 0
    for system in builder.GetSystems():
        for i in range(system.num_input_ports()):
            port = system.get_input_port(i)
            if not port.is_random() or builder.IsConnectedOrExported(port):
                continue
            source = builder.AddSystem(RandomSource(port.get_random_type(), port.size(), sampling_interval_sec))
            builder.Connect(source.get_output_port(0), port)
            count += 1
    return count
