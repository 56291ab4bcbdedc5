"""Stochastic schema (pydrake.common.schema): scalar and vector distributions that sample from a RandomGenerator.

Samples equal pydrake's draw for draw: Drake samples with the C++ standard library's distributions over
std::mt19937, and these reproduce libstdc++'s algorithms (generate_canonical from two 32-bit words, the Marsaglia
polar method for normals with a fresh distribution per sample, discrete_distribution by cumulative weights).
"""
from __future__ import annotations

import bisect
import math
from typing import Any, Sequence

import numpy as np

from .random_generator import RandomGenerator

__all__ = ["Deterministic", "DeterministicVector", "DeterministicVectorX", "Distribution", "DistributionVector",
           "Gaussian", "GaussianVector", "GaussianVectorX", "GetDeterministicValue", "IsDeterministic", "Mean",
           "Sample", "ToDistribution", "ToDistributionVector", "Uniform", "UniformDiscrete", "UniformVector",
           "UniformVectorX"]

_ONE_BELOW = math.nextafter(1.0, 0.0)


def _canonical(generator: RandomGenerator) -> float:
    """std::generate_canonical<double, 53> over mt19937: two words, low first, scaled by 2⁻⁶⁴, kept below 1."""
    low = generator()
    value = (low + generator() * 4294967296.0) / 18446744073709551616.0
    return _ONE_BELOW if value >= 1.0 else value


def _normal(generator: RandomGenerator, mean: float, stddev: float) -> float:
    """A fresh std::normal_distribution's first draw (libstdc++'s Marsaglia polar method)."""
    while True:
        x = 2.0 * _canonical(generator) - 1.0
        y = 2.0 * _canonical(generator) - 1.0
        r2 = x * x + y * y
        if 0.0 < r2 <= 1.0:
            return y * math.sqrt(-2.0 * math.log(r2) / r2) * stddev + mean


def _discrete_index(generator: RandomGenerator, count: int) -> int:
    """std::discrete_distribution<int> with `count` equal weights (no draw for a single value, as libstdc++)."""
    if count < 2:
        return 0
    cumulative, total = [], 0.0
    for _ in range(count):
        total += 1.0 / count
        cumulative.append(total)
    cumulative[-1] = 1.0
    return bisect.bisect_left(cumulative, _canonical(generator))


class Distribution:
    """Base of the scalar distributions: Sample(generator) -> float and Mean() -> float."""

    _fields: tuple = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) == 1 and isinstance(args[0], type(self)) and not kwargs:
            kwargs, args = {f: getattr(args[0], f) for f in self._fields}, ()
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(self._fields)} values {self._fields}")
        values = dict(zip(self._fields, args))
        for name, value in kwargs.items():
            if name not in self._fields:
                raise TypeError(f"{type(self).__name__} has no field '{name}'; its fields are {self._fields}")
            values[name] = value
        for name in self._fields:
            setattr(self, name, self._convert(values.get(name)))

    def _convert(self, value: Any) -> Any:
        return 0.0 if value is None else float(value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and all(np.array_equal(getattr(self, f), getattr(other, f))
                                                 for f in self._fields)


class Deterministic(Distribution):
    """Always `value`."""

    _fields = ("value",)

    def Sample(self, generator: RandomGenerator) -> float:
        return self.value

    def Mean(self) -> float:
        return self.value


class Gaussian(Distribution):
    """Normal with `mean` and standard deviation `stddev`."""

    _fields = ("mean", "stddev")

    def Sample(self, generator: RandomGenerator) -> float:
        return _normal(generator, self.mean, self.stddev)

    def Mean(self) -> float:
        return self.mean


class Uniform(Distribution):
    """Uniform on [min, max)."""

    _fields = ("min", "max")

    def Sample(self, generator: RandomGenerator) -> float:
        return self.min + (self.max - self.min) * _canonical(generator)

    def Mean(self) -> float:
        return (self.min + self.max) / 2.0


class UniformDiscrete(Distribution):
    """One of `values`, each equally likely."""

    _fields = ("values",)

    def _convert(self, value: Any) -> list:
        return [] if value is None else [float(v) for v in value]

    def Sample(self, generator: RandomGenerator) -> float:
        if not self.values:
            raise ValueError("Cannot Sample() empty UniformDiscrete distribution.")
        return self.values[_discrete_index(generator, len(self.values))]

    def Mean(self) -> float:
        if not self.values:
            raise ValueError("Cannot Mean() empty UniformDiscrete distribution.")
        return float(np.mean(self.values))


class DistributionVector(Distribution):
    """Base of the vector distributions: Sample(generator) -> vector (element by element), Mean() -> vector."""

    def __class_getitem__(cls, size: Any) -> type:
        return cls  # pydrake's fixed sizes (GaussianVector[3]) are informative here

    def _convert(self, value: Any) -> np.ndarray:
        return np.zeros(0) if value is None else np.asarray(value, dtype=float).reshape(-1)

    def _pairs(self, what: str) -> tuple:
        a, b = (getattr(self, f) for f in self._fields)
        if a.shape != b.shape and b.shape != (1,):
            raise ValueError(f"Cannot {what}() a {type(self).__name__} distribution with size {a.size} "
                             f"{self._fields[0]} and size {b.size} {self._fields[1]}")
        return a, np.broadcast_to(b, a.shape)


class DeterministicVector(DistributionVector):
    _fields = ("value",)

    def Sample(self, generator: RandomGenerator) -> np.ndarray:
        return self.value.copy()

    def Mean(self) -> np.ndarray:
        return self.value.copy()


class GaussianVector(DistributionVector):
    """Independent normals; `stddev` may have one entry for all."""

    _fields = ("mean", "stddev")

    def Sample(self, generator: RandomGenerator) -> np.ndarray:
        mean, stddev = self._pairs("Sample")
        return np.array([_normal(generator, m, s) for m, s in zip(mean, stddev)])

    def Mean(self) -> np.ndarray:
        return self.mean.copy()


class UniformVector(DistributionVector):
    """Independent uniforms on [min_i, max_i)."""

    _fields = ("min", "max")

    def Sample(self, generator: RandomGenerator) -> np.ndarray:
        low, high = self._pairs("Sample")
        return np.array([a + (b - a) * _canonical(generator) for a, b in zip(low, high)])

    def Mean(self) -> np.ndarray:
        low, high = self._pairs("Mean")
        return (low + high) / 2.0


DeterministicVectorX, GaussianVectorX, UniformVectorX = DeterministicVector, GaussianVector, UniformVector


def ToDistribution(var: Any) -> Distribution:
    """A float becomes Deterministic; a distribution is returned as is."""
    if isinstance(var, Distribution) and not isinstance(var, DistributionVector):
        return var
    if isinstance(var, (int, float, np.floating, np.integer)):
        return Deterministic(float(var))
    raise TypeError(f"ToDistribution: expected a float or a scalar distribution, got {type(var).__name__}")


def ToDistributionVector(var: Any) -> DistributionVector:
    """A vector (or vector distribution) as a DistributionVector (a plain vector becomes DeterministicVector)."""
    if isinstance(var, DistributionVector):
        return var
    return DeterministicVector(np.asarray(var, dtype=float))


def Sample(var: Any, generator: RandomGenerator) -> Any:
    """Samples a scalar variant (float or distribution), a vector distribution, or a list of scalar variants."""
    if isinstance(var, DistributionVector):
        return var.Sample(generator)
    if isinstance(var, Sequence) and not isinstance(var, str):
        return np.array([ToDistribution(v).Sample(generator) for v in var])
    return ToDistribution(var).Sample(generator)


def Mean(var: Any) -> Any:
    if isinstance(var, DistributionVector):
        return var.Mean()
    if isinstance(var, Sequence) and not isinstance(var, str):
        return np.array([ToDistribution(v).Mean() for v in var])
    return ToDistribution(var).Mean()


def IsDeterministic(var: Any) -> bool:
    if isinstance(var, DistributionVector):
        return isinstance(var, DeterministicVector)
    return isinstance(ToDistribution(var), Deterministic)


def GetDeterministicValue(var: Any) -> Any:
    if not IsDeterministic(var):
        raise ValueError(f"GetDeterministicValue: {var!r} is not deterministic")
    return Mean(var)
