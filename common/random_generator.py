"""RandomGenerator: Drake's random engine, the 32-bit Mersenne Twister std::mt19937 (pydrake.common).

Calling it returns the next raw 32-bit draw, exactly as pydrake's generator with the same seed (numpy's MT19937
with legacy integer seeding is the same engine and seeding as std::mt19937). It is also a numpy `Generator`
over that same stream, so numpy-style distributions (the plant's random joint states, user samplers) take it
directly. Unlike pydrake's, it copies and pickles: a copy replays the same draws (Monte Carlo snapshots).
"""
from __future__ import annotations

import operator

import numpy as np

__all__ = ["RandomGenerator"]


def _engine(seed: int) -> np.random.MT19937:
    """An MT19937 bit generator seeded as std::mt19937(seed) (Matsumoto-Nishimura init_genrand)."""
    legacy = np.random.RandomState(seed).get_state(legacy=False)
    engine = np.random.MT19937()
    engine.state = {"bit_generator": "MT19937", "state": legacy["state"]}
    return engine


class RandomGenerator(np.random.Generator):
    """std::mt19937 as pydrake's `RandomGenerator(seed=5489)`; `generator()` is the next raw draw in [0, 2³²)."""

    default_seed = 5489  # std::mt19937::default_seed, Drake's RandomGenerator::default_seed

    def __init__(self, seed: int = default_seed) -> None:
        try:
            seed = operator.index(seed)
        except TypeError:
            raise TypeError(f"RandomGenerator(seed): seed must be an integer, got {type(seed).__name__} "
                            f"{seed!r}") from None
        if not 0 <= seed < 2**64:
            raise TypeError(f"RandomGenerator(seed): seed must be in [0, 2**64) as pydrake's, got {seed}")
        super().__init__(_engine(seed % 2**32))  # std::mt19937 keeps the seed's low 32 bits

    def __call__(self) -> int:
        """The next raw 32-bit value of the engine (pydrake's `generator()`)."""
        return int(self.bit_generator.random_raw())

    @staticmethod
    def min() -> int:
        return 0

    @staticmethod
    def max() -> int:
        return 2**32 - 1

    def __reduce__(self) -> tuple:
        return (_restore, (self.bit_generator.state,))

    def __deepcopy__(self, memo) -> "RandomGenerator":
        return _restore(self.bit_generator.state)

    def __copy__(self) -> "RandomGenerator":
        return _restore(self.bit_generator.state)

    def __eq__(self, other) -> bool:
        """Same engine state: the two generators will produce the same draws."""
        if not isinstance(other, RandomGenerator):
            return NotImplemented
        a, b = self.bit_generator.state["state"], other.bit_generator.state["state"]
        return a["pos"] == b["pos"] and np.array_equal(a["key"], b["key"])

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"<RandomGenerator mt19937 pos={self.bit_generator.state['state']['pos']}>"


def _restore(state: dict) -> RandomGenerator:
    """A RandomGenerator in the engine state `state` (a numpy MT19937 state dict)."""
    generator = RandomGenerator.__new__(RandomGenerator)
    engine = np.random.MT19937()
    engine.state = state
    np.random.Generator.__init__(generator, engine)
    return generator
