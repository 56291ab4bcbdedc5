"""BatchEvalUniquePeriodicDiscreteUpdate / BatchEvalTimeDerivatives as pydrake's (its test's linear systems)."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.common import Parallelism
from mallard.systems.analysis import BatchEvalTimeDerivatives, BatchEvalUniquePeriodicDiscreteUpdate
from mallard.systems.primitives import ConstantVectorSource, LinearSystem

A = np.array([[0.1, 0.2], [0.3, 0.4]])
B = np.array([[0.5, 0.6], [0.7, 0.8]])
TIMES = np.array([[1.0, 2.0, 3.0]])
STATES = np.array([[1.2, 1.3, 1.4], [2.1, 2.2, 2.3]])
INPUTS = np.array([[3.1, 3.2, 3.6], [4.6, 4.5, 4.2]])


def test_discrete_update_columns():
    system = LinearSystem(A, B, np.zeros((0, 2)), np.zeros((0, 2)), time_period=0.1)
    context = system.CreateDefaultContext()
    one = BatchEvalUniquePeriodicDiscreteUpdate(system=system, context=context, times=TIMES, states=STATES,
                                                inputs=INPUTS, num_time_steps=1,
                                                parallelize=Parallelism(num_threads=2))
    np.testing.assert_allclose(one, A @ STATES + B @ INPUTS, rtol=1e-15)
    two = BatchEvalUniquePeriodicDiscreteUpdate(system, context, TIMES, STATES, INPUTS, num_time_steps=2)
    np.testing.assert_allclose(two, A @ (A @ STATES + B @ INPUTS) + B @ INPUTS, rtol=1e-15)
    np.testing.assert_array_equal(context.get_discrete_state_vector().CopyToVector(), [0.0, 0.0])  # untouched


def test_time_derivative_columns_and_errors():
    system = LinearSystem(A, B, np.zeros((0, 2)), np.zeros((0, 2)))
    context = system.CreateDefaultContext()
    derivatives = BatchEvalTimeDerivatives(system=system, context=context, times=TIMES, states=STATES,
                                           inputs=INPUTS, parallelize=Parallelism(num_threads=2))
    np.testing.assert_allclose(derivatives, A @ STATES + B @ INPUTS, rtol=1e-15)
    with pytest.raises(ValueError, match="states must be 2 x 3"):
        BatchEvalTimeDerivatives(system, context, TIMES, STATES[:, :2], INPUTS)
    with pytest.raises(ValueError, match="inputs must be 2 x 3"):
        BatchEvalTimeDerivatives(system, context, TIMES, STATES, INPUTS[:1])
    with pytest.raises(RuntimeError, match="not a difference-equation system"):
        BatchEvalUniquePeriodicDiscreteUpdate(system, context, TIMES, STATES, INPUTS)
    source = ConstantVectorSource([1.0])
    assert BatchEvalTimeDerivatives(source, source.CreateDefaultContext(), TIMES, np.zeros((0, 3)),
                                    None).shape == (0, 3)
