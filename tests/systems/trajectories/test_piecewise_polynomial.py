"""PiecewisePolynomial against pydrake.trajectories on random data (values, derivatives, edits) to 1e-10."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.trajectories import PiecewisePolynomial, Trajectory
from oracles import require_pydrake

TOL = 1e-10


@pytest.fixture(scope="module")
def dpp():
    require_pydrake()
    from pydrake.trajectories import PiecewisePolynomial as DPP
    return DPP


def _random_data(seed: int, n: int = 6, rows: int = 3):
    rng = np.random.default_rng(seed)
    breaks = np.cumsum(rng.uniform(0.2, 1.5, n)) - 0.7
    samples = rng.normal(size=(rows, n))
    samples[0] = np.sort(samples[0])  # a monotone row exercises pchip's harmonic means
    samples[1, 1] = samples[1, 2]  # a flat stretch exercises its zero-slope branch
    return breaks, samples, rng


def _times(pp) -> np.ndarray:
    t0, t1 = pp.start_time(), pp.end_time()
    grid = np.linspace(t0 - 0.7, t1 + 0.9, 57)
    return np.concatenate([grid, pp.get_segment_times()])


def _assert_same(mine, theirs, max_order: int = 3):
    assert mine.rows() == theirs.rows() and mine.cols() == theirs.cols()
    assert mine.get_number_of_segments() == theirs.get_number_of_segments()
    np.testing.assert_allclose(mine.get_segment_times(), theirs.get_segment_times(), rtol=0, atol=TOL)
    for i in range(mine.get_number_of_segments()):
        assert mine.getSegmentPolynomialDegree(i) == theirs.getSegmentPolynomialDegree(i)
    for t in _times(theirs):
        assert mine.get_segment_index(t) == theirs.get_segment_index(t)
        np.testing.assert_allclose(mine.value(t), theirs.value(t), rtol=0, atol=TOL)
        for k in range(1, max_order + 1):
            np.testing.assert_allclose(mine.EvalDerivative(t, k), theirs.EvalDerivative(t, k), rtol=0,
                                       atol=TOL * 10 ** k, err_msg=f"derivative {k} at t={t}")


MAKERS = [
    ("ZeroOrderHold", ()),
    ("FirstOrderHold", ()),
    ("CubicShapePreserving", (False,)),
    ("CubicShapePreserving", (True,)),
    ("CubicWithContinuousSecondDerivatives", (False,)),
    ("CubicWithContinuousSecondDerivatives", (True,)),
]


@pytest.mark.parametrize("name,extra", MAKERS)
@pytest.mark.parametrize("seed,n", [(0, 6), (1, 3), (2, 4)])
def test_makers_match_pydrake(dpp, name, extra, seed, n):
    breaks, samples, _ = _random_data(seed, n)
    mine = getattr(PiecewisePolynomial, name)(breaks, samples, *extra)
    theirs = getattr(dpp, name)(breaks, samples, *extra)
    _assert_same(mine, theirs)
    ts = _times(theirs)
    np.testing.assert_allclose(mine.vector_values(ts), theirs.vector_values(ts), rtol=0, atol=TOL)


def test_clamped_cubic_hermite_lagrange_and_constant(dpp):
    breaks, samples, rng = _random_data(3, 5)
    d0, d1 = rng.normal(size=3), rng.normal(size=3)
    _assert_same(PiecewisePolynomial.CubicWithContinuousSecondDerivatives(breaks, samples, d0, d1),
                 dpp.CubicWithContinuousSecondDerivatives(breaks, samples, d0, d1))
    two = breaks[:2], samples[:, :2]
    _assert_same(PiecewisePolynomial.CubicWithContinuousSecondDerivatives(*two, d0, d1),
                 dpp.CubicWithContinuousSecondDerivatives(*two, d0, d1))
    sdot = rng.normal(size=samples.shape)
    _assert_same(PiecewisePolynomial.CubicHermite(breaks, samples, sdot), dpp.CubicHermite(breaks, samples, sdot))
    _assert_same(PiecewisePolynomial.LagrangeInterpolatingPolynomial(breaks, samples),
                 dpp.LagrangeInterpolatingPolynomial(breaks, samples), max_order=2)
    M = rng.normal(size=(2, 3))
    c, dc = PiecewisePolynomial(M), dpp(M)
    assert c.get_segment_times() == dc.get_segment_times() == [-np.inf, np.inf]
    np.testing.assert_array_equal(c.value(12.0), dc.value(12.0))
    np.testing.assert_array_equal(c.EvalDerivative(-3.0), dc.EvalDerivative(-3.0))
    assert PiecewisePolynomial(np.array([1.0, 2.0])).value(0).shape == (2, 1)


def test_matrix_valued_samples(dpp):
    rng = np.random.default_rng(7)
    breaks = [0.0, 0.5, 1.7, 2.0]
    mats = [rng.normal(size=(2, 3)) for _ in breaks]
    for name, extra in MAKERS:
        _assert_same(getattr(PiecewisePolynomial, name)(breaks, mats, *extra),
                     getattr(dpp, name)(breaks, mats, *extra))
    row = PiecewisePolynomial.FirstOrderHold(breaks, [m[:1] for m in mats])
    drow = dpp.FirstOrderHold(breaks, [m[:1] for m in mats])
    np.testing.assert_allclose(row.vector_values([0.1, 1.0, 3.0]), drow.vector_values([0.1, 1.0, 3.0]), atol=TOL)
    with pytest.raises(RuntimeError, match="vector-valued"):
        PiecewisePolynomial.FirstOrderHold(breaks, mats).vector_values([0.0])


def test_derivative_and_make_derivative(dpp):
    breaks, samples, _ = _random_data(4, 5)
    mine = PiecewisePolynomial.CubicShapePreserving(breaks, samples)
    theirs = dpp.CubicShapePreserving(breaks, samples)
    for k in range(0, 5):
        _assert_same(mine.derivative(k), theirs.derivative(k), max_order=1)
    d = mine.MakeDerivative(2)
    assert isinstance(d, PiecewisePolynomial) and isinstance(d, Trajectory)
    _assert_same(d, theirs.MakeDerivative(2), max_order=1)
    assert mine.has_derivative()


def test_edits_match_pydrake(dpp):
    breaks, samples, rng = _random_data(5, 5)
    mine = PiecewisePolynomial.CubicWithContinuousSecondDerivatives(breaks, samples, False)
    theirs = dpp.CubicWithContinuousSecondDerivatives(breaks, samples, False)

    a, b = mine.Clone(), theirs.Clone()
    a.shiftRight(1.25), b.shiftRight(1.25)
    _assert_same(a, b)
    a, b = mine.Clone(), theirs.Clone()
    a.ScaleTime(2.5), b.ScaleTime(2.5)
    _assert_same(a, b)
    a, b = mine.Clone(), theirs.Clone()
    a.ReverseTime(), b.ReverseTime()
    _assert_same(a, b)
    _assert_same(mine.slice(1, 3), theirs.slice(1, 3))
    for i in range(mine.get_number_of_segments()):
        assert mine.duration(i) == pytest.approx(theirs.duration(i), abs=1e-14)
    for t in [breaks[0], breaks[-1], breaks[-1] + 1e-9, breaks[0] - 1e-9, 0.3]:
        assert mine.is_time_in_range(t) == theirs.is_time_in_range(t)

    a, b = mine.Clone(), theirs.Clone()
    a.AppendFirstOrderSegment(breaks[-1] + 0.5, [1.0, 2.0, 3.0])
    b.AppendFirstOrderSegment(breaks[-1] + 0.5, [1.0, 2.0, 3.0])
    a.AppendCubicHermiteSegment(breaks[-1] + 1.1, [0.0, -1.0, 0.5], [2.0, 0.0, 1.0])
    b.AppendCubicHermiteSegment(breaks[-1] + 1.1, [0.0, -1.0, 0.5], [2.0, 0.0, 1.0])
    _assert_same(a, b)

    other_s = rng.normal(size=(3, 3))
    other_b = [breaks[-1], breaks[-1] + 0.4, breaks[-1] + 1.0]
    a, b = mine.Clone(), theirs.Clone()
    a.ConcatenateInTime(PiecewisePolynomial.FirstOrderHold(other_b, other_s))
    b.ConcatenateInTime(dpp.FirstOrderHold(other_b, other_s))
    _assert_same(a, b)
    empty = PiecewisePolynomial()
    empty.ConcatenateInTime(mine)
    _assert_same(empty, theirs)


def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="increasing order"):
        PiecewisePolynomial.FirstOrderHold([0.0, 0.0], np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="does not match"):
        PiecewisePolynomial.FirstOrderHold([0.0, 1.0, 2.0], np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="at least 3"):
        PiecewisePolynomial.CubicShapePreserving([0.0, 1.0], np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="inconsistent"):
        PiecewisePolynomial.ZeroOrderHold([0.0, 1.0], [np.zeros((2, 1)), np.zeros((3, 1))])
    with pytest.raises(ValueError, match="rows of the samples matrix have different lengths"):
        PiecewisePolynomial.ZeroOrderHold([0.0, 1.0], [np.zeros(2), np.zeros(3)])
    with pytest.raises(ValueError, match="finite"):
        PiecewisePolynomial.ZeroOrderHold([0.0, 1.0], np.array([[0.0, np.nan]]))
    pp = PiecewisePolynomial.FirstOrderHold([0.0, 1.0], np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="after end_time"):
        pp.AppendFirstOrderSegment(1.0, [2.0])
    with pytest.raises(ValueError, match="shape"):
        pp.AppendFirstOrderSegment(2.0, [2.0, 3.0])
    with pytest.raises(ValueError, match="shiftRight"):
        pp.Clone().ConcatenateInTime(PiecewisePolynomial.FirstOrderHold([3.0, 4.0], np.array([[0.0, 1.0]])))
    with pytest.raises(RuntimeError, match="out of range"):
        pp.slice(0, 2)
    with pytest.raises(RuntimeError, match="out of range"):
        pp.duration(3)
    with pytest.raises(ValueError, match="positive"):
        pp.ScaleTime(0.0)
    with pytest.raises(RuntimeError, match="no segments"):
        PiecewisePolynomial().rows()
    with pytest.raises(ValueError, match="derivative_order"):
        pp.EvalDerivative(0.5, -1)


def test_python_subclass_of_trajectory():
    class Ramp(Trajectory):
        def DoValue(self, t):
            return np.array([[2.0 * t]])

        def do_start_time(self):
            return 0.0

        def do_end_time(self):
            return 1.0

        def do_rows(self):
            return 1

        def do_cols(self):
            return 1

    r = Ramp()
    np.testing.assert_allclose(r.vector_values([0.0, 0.25]), [[0.0, 0.5]])
    assert not r.has_derivative()
    with pytest.raises(RuntimeError, match="does not support derivatives"):
        r.EvalDerivative(0.5)
