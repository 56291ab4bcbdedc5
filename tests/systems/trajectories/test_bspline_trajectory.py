"""BsplineTrajectory against pydrake's: values, derivatives (evaluated and made), the linear maps from the control
points, knot insertion, block copies, pickling (also of a Drake v1.12 pickle naming `BsplineTrajectory_[float]`)
and the control-point layouts of the two constructor overloads."""
import copy
import pickle

import numpy as np
import pytest
import scipy.sparse

from oracles import require_pydrake

from mallard.math import BsplineBasis
from mallard.trajectories import BsplineTrajectory

RNG = np.random.default_rng(7)
# (control points, (order, knots)): a clamped cubic, a quadratic over uneven knots, and 2x2 matrix control points.
CASES = [
    (RNG.normal(size=(2, 6)), (4, [0, 0, 0, 0, 1, 2, 3, 3, 3, 3])),
    (RNG.normal(size=(3, 5)), (3, [0, 0.5, 1, 1.2, 2, 3, 3.5, 4])),
    ([RNG.normal(size=(2, 2)) for _ in range(4)], (2, [0, 1, 2, 3, 4, 5])),
]


def _pair(control_points, basis_args):
    pydrake_trajectories = pytest.importorskip("pydrake.trajectories")
    pydrake_math = pytest.importorskip("pydrake.math")
    return (BsplineTrajectory(BsplineBasis(*basis_args), control_points),
            pydrake_trajectories.BsplineTrajectory(pydrake_math.BsplineBasis(*basis_args), control_points))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_and_derivatives_match_pydrake(case):
    require_pydrake()
    ours, theirs = _pair(*CASES[case])
    assert (ours.rows(), ours.cols(), ours.num_control_points()) == \
        (theirs.rows(), theirs.cols(), theirs.num_control_points())
    assert (ours.start_time(), ours.end_time()) == (theirs.start_time(), theirs.end_time())
    for t in np.linspace(theirs.start_time() - 0.3, theirs.end_time() + 0.3, 17):  # clamped outside the domain
        np.testing.assert_allclose(ours.value(t), theirs.value(t), rtol=0, atol=1e-12)
        for order in range(6):
            np.testing.assert_allclose(ours.EvalDerivative(t, order), theirs.EvalDerivative(t, order), atol=1e-10)
            np.testing.assert_allclose(ours.MakeDerivative(order).value(t), theirs.MakeDerivative(order).value(t),
                                       atol=1e-10)
            if ours.cols() == 1:
                np.testing.assert_allclose(ours.EvaluateLinearInControlPoints(t, order),
                                           theirs.EvaluateLinearInControlPoints(t, order), atol=1e-10)
    if ours.cols() == 1:
        for order in range(6):
            M, N = ours.AsLinearInControlPoints(derivative_order=order), theirs.AsLinearInControlPoints(order)
            assert isinstance(M, scipy.sparse.csc_matrix) and M.shape == N.shape
            np.testing.assert_allclose(M.toarray(), N.toarray(), atol=1e-12)
        np.testing.assert_allclose(ours.vector_values([1.1, 1.7]), theirs.vector_values([1.1, 1.7]), atol=1e-12)
    np.testing.assert_allclose(ours.InitialValue(), theirs.InitialValue(), atol=1e-12)
    np.testing.assert_allclose(ours.FinalValue(), theirs.FinalValue(), atol=1e-12)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_insert_knots_and_block_copies_match_pydrake(case):
    require_pydrake()
    ours, theirs = _pair(*CASES[case])
    knots = [theirs.start_time() + 0.37, theirs.end_time() - 0.1, theirs.start_time() + 0.37]
    ours.InsertKnots(additional_knots=knots)
    theirs.InsertKnots(knots)
    assert ours.basis().knots() == list(theirs.basis().knots())
    for a, b in zip(ours.control_points(), theirs.control_points(), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    block = ours.CopyBlock(start_row=1, start_col=0, block_rows=1, block_cols=1)
    np.testing.assert_allclose(block.value(1.3), theirs.CopyBlock(1, 0, 1, 1).value(1.3), atol=1e-12)
    if ours.cols() == 1:
        np.testing.assert_allclose(ours.CopyHead(n=1).value(1.3), theirs.CopyHead(1).value(1.3), atol=1e-12)
    with pytest.raises(RuntimeError, match="outside the domain"):
        ours.InsertKnots([ours.end_time() + 1.0])


def test_control_point_layouts_match_pydrake():
    """A matrix (array or nested lists, also a list of 1-D arrays) holds one control point per column; a list of
    matrices one per item."""
    require_pydrake()
    basis = (2, [0, 1, 2, 3])
    for points in (np.zeros((4, 2)), [[0, 1], [0, 1], [0, 1]], [[1.0, 2.0]], [np.zeros((3, 4)), np.ones((3, 4))],
                   [np.zeros((3, 1)), np.ones((3, 1))]):
        ours, theirs = _pair(points, basis)
        assert (ours.rows(), ours.cols(), ours.num_control_points()) == \
            (theirs.rows(), theirs.cols(), theirs.num_control_points())
        np.testing.assert_allclose(ours.value(1.5), theirs.value(1.5))
    with pytest.raises(RuntimeError, match="3 control points for a basis of 2 basis functions"):
        BsplineTrajectory(BsplineBasis(*basis), [np.zeros(3), np.ones(3)])  # a 2x3 matrix: 3 control points


def test_pickle_copy_and_drake_v1_12_pickle():
    trajectory = BsplineTrajectory(BsplineBasis(2, [0, 1, 2, 3]), [[0, 1], [0, 1], [0, 1]])
    for other in (pickle.loads(pickle.dumps(trajectory)), copy.copy(trajectory), copy.deepcopy(trajectory),
                  trajectory.Clone()):
        assert isinstance(other, BsplineTrajectory) and other.basis() == trajectory.basis()
        np.testing.assert_array_equal(np.hstack(other.control_points()), [[0, 1], [0, 1], [0, 1]])
    assert type(trajectory).__module__ == "mallard.trajectories"
    assert BsplineTrajectory().num_control_points() == 0
    with pytest.raises(RuntimeError, match="empty"):
        BsplineTrajectory().start_time()
    # Drake v1.12's pickle of BsplineTrajectory_[float](BsplineBasis_[float](2, [0, 1, 2, 3]), [zeros(3), ones(3)])
    # (from Drake's trajectories_test.py), with the module names swapped to mallard's.
    legacy = (b'\x80\x04\x95q\x01\x00\x00\x00\x00\x00\x00\x8c\x14mallard.trajectories\x94\x8c\x19BsplineTrajectory_'
              b'[float]\x94\x93\x94)\x81\x94\x8c\x0cmallard.math\x94\x8c\x14BsplineBasis_[float]\x94\x93\x94)\x81\x94K'
              b'\x02]\x94(G\x00\x00\x00\x00\x00\x00\x00\x00G?\xf0\x00\x00\x00\x00\x00\x00G@\x00\x00\x00\x00\x00\x00\x00'
              b'G@\x08\x00\x00\x00\x00\x00\x00e\x86\x94b]\x94(\x8c\x15numpy.core.multiarray\x94\x8c\x0c_reconstruct\x94'
              b'\x93\x94\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94C\x01b\x94\x87\x94R\x94(K\x01K\x03K'
              b'\x01\x86\x94h\x0e\x8c\x05dtype\x94\x93\x94\x8c\x02f8\x94\x89\x88\x87\x94R\x94(K\x03\x8c\x01<\x94NNNJ'
              b'\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t\x94b\x89C\x18\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
              b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x94t\x94bh\rh\x10K\x00\x85\x94h\x12\x87\x94R\x94(K'
              b'\x01K\x03K\x01\x86\x94h\x1a\x89C\x18\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\xf0?\x00\x00'
              b'\x00\x00\x00\x00\xf0?\x94t\x94be\x86\x94b.')
    loaded = pickle.loads(legacy)
    assert isinstance(loaded, BsplineTrajectory) and (loaded.rows(), loaded.cols()) == (3, 1)
    np.testing.assert_array_equal(loaded.value(2.0), np.ones((3, 1)))
