"""mallard.common.schema samples the same numbers as pydrake.common.schema from the same RandomGenerator seed."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.common import RandomGenerator
from mallard.common import schema
from oracles import require_pydrake

CASES = [
    ("Uniform", dict(min=-2.0, max=3.0)),
    ("Gaussian", dict(mean=1.0, stddev=0.5)),
    ("Deterministic", dict(value=4.0)),
    ("UniformDiscrete", dict(values=[1.0, 2.5, 7.0])),
    ("UniformDiscrete", dict(values=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])),
    ("UniformDiscrete", dict(values=[9.0])),
    ("UniformVectorX", dict(min=[0.0, -1.0, 2.0], max=[1.0, 1.0, 5.0])),
    ("GaussianVectorX", dict(mean=[0.0, 1.0, -1.0], stddev=[1.0, 2.0, 0.1])),
    ("GaussianVectorX", dict(mean=[0.0, 1.0], stddev=[0.3])),
]


@pytest.mark.parametrize("name, fields", CASES)
def test_samples_match_pydrake(name, fields):
    require_pydrake()
    from pydrake.common import RandomGenerator as DrakeGenerator
    from pydrake.common import schema as drake_schema
    theirs = getattr(drake_schema, name)(**fields)
    ours = getattr(schema, name)(**fields)
    for seed in (0, 3, 12345):
        a, b = RandomGenerator(seed), DrakeGenerator(seed)
        ours_samples = [ours.Sample(a) for _ in range(300)]
        their_samples = [theirs.Sample(b) for _ in range(300)]
        np.testing.assert_array_equal(np.array(ours_samples), np.array(their_samples))
        assert a() == b()  # the same number of raw draws consumed
    np.testing.assert_array_equal(ours.Mean(), theirs.Mean())


def test_variants_and_errors():
    generator = RandomGenerator(1)
    assert schema.Sample(2.5, generator) == 2.5 and schema.IsDeterministic(2.5)
    mixed = schema.Sample([1.0, schema.Uniform(min=0.0, max=1.0)], generator)
    assert mixed.shape == (2,) and mixed[0] == 1.0 and 0.0 <= mixed[1] < 1.0
    assert schema.GetDeterministicValue(schema.DeterministicVector[2](value=[1.0, 2.0])).tolist() == [1.0, 2.0]
    assert not schema.IsDeterministic(schema.Gaussian(mean=0.0, stddev=1.0))
    with pytest.raises(ValueError, match="empty UniformDiscrete"):
        schema.UniformDiscrete().Sample(generator)
    with pytest.raises(ValueError, match="size 3 min and size 2 max"):
        schema.UniformVector(min=[0.0, 0.0, 0.0], max=[1.0, 1.0]).Sample(generator)
    with pytest.raises(TypeError, match="no field 'mu'"):
        schema.Gaussian(mu=1.0)
