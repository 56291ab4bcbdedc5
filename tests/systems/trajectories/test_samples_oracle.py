"""PiecewisePolynomial takes its samples as pydrake does: in a matrix (an ndarray, or nested lists of numbers)
each COLUMN is a sample, and a list of matrices holds one sample per item. A square nested list is not silently
transposed."""
import numpy as np
import pytest

from oracles import require_pydrake

from mallard.trajectories import PiecewisePolynomial

# (samples, number of samples)
SAMPLES = [
    ([[1.0, 2.0], [3.0, 4.0]], 2),                              # square nested list: columns are samples
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 3),                    # 2x3: three samples of size 2
    ([np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])], 3),  # rows given as 1-D arrays
    (np.array([[1.0, 2.0, 3.0]]), 3),                           # a 1x3 array: three scalar samples
    ([[[0.0]], [[1.0]], [[2.0]]], 3),                           # three 1x1 matrices
    ([np.eye(2), 2 * np.eye(2), np.ones((2, 2))], 3),           # three 2x2 matrices
]


@pytest.mark.parametrize("samples, n", SAMPLES, ids=range(len(SAMPLES)))
@pytest.mark.parametrize("maker", ["ZeroOrderHold", "FirstOrderHold"])
def test_sample_layout_matches_pydrake(samples, n, maker):
    require_pydrake()
    pydrake_trajectories = pytest.importorskip("pydrake.trajectories")
    breaks = list(np.arange(n, dtype=float))
    ours = getattr(PiecewisePolynomial, maker)(breaks, samples)
    theirs = getattr(pydrake_trajectories.PiecewisePolynomial, maker)(breaks, samples)
    assert (ours.rows(), ours.cols(), ours.get_number_of_segments()) == \
        (theirs.rows(), theirs.cols(), theirs.get_number_of_segments())
    for t in np.linspace(breaks[0], breaks[-1], 7):
        np.testing.assert_allclose(ours.value(t), theirs.value(t), rtol=0, atol=1e-14)


def test_break_and_sample_count_mismatch_is_an_error_as_in_pydrake():
    """Three breaks with a 3x1 nested list (one sample of size 3) is a mismatch, not three samples."""
    with pytest.raises(ValueError, match="number of break points 3 does not match number of samples 1"):
        PiecewisePolynomial.FirstOrderHold([0.0, 1.0, 2.0], [[0.0], [1.0], [2.0]])
