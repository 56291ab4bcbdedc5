"""`RandomDistribution`: the distributions of Drake's random sources (pydrake.common.RandomDistribution)."""
from __future__ import annotations

import numpy as np

from .cpp_enum import CppEnum

__all__ = ["CalcProbabilityDensity", "RandomDistribution"]


class RandomDistribution(CppEnum):
    """kUniform: uniform on [0, 1); kGaussian: standard normal; kExponential: exponential with rate 1."""

    kUniform = 0
    kGaussian = 1
    kExponential = 2


def CalcProbabilityDensity(distribution: RandomDistribution, x) -> float:
    """The joint density at x of independent samples of `distribution` (uniform on [0, 1), standard normal,
    or exponential with rate 1), as Drake's CalcProbabilityDensity."""
    x = np.asarray(x, dtype=float).ravel()
    distribution = RandomDistribution(distribution)
    if distribution == RandomDistribution.kUniform:
        return float(np.all((x >= 0.0) & (x < 1.0)))
    if distribution == RandomDistribution.kGaussian:
        return float(np.prod(np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi)))
    return float(np.all(x >= 0.0) * np.exp(-np.sum(x)))
