"""mallard.math (pydrake.math's names) against pydrake.math: float functions, BarycentricMesh, BsplineBasis,
matrix and quaternion utilities, Riccati / Lyapunov solvers, numerical gradients and legacy pickles."""
import math
import pickle

import numpy as np
import pytest
from oracles import require_pydrake

import mallard.math as mm
from mallard.common.eigen_geometry import Isometry3, Quaternion, Quaternion_


@pytest.fixture(scope="module")
def dm():
    require_pydrake()
    import pydrake.math as dm
    return dm


UNARY = ["log", "abs", "exp", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "ceil",
         "floor"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_pydrake(dm, name):
    for x in (0.1, 0.7, -0.3 if name not in ("log", "sqrt") else 2.5):
        got, want = getattr(mm, name)(x), getattr(dm, name)(x)
        assert type(got) is type(want) is float
        assert got == want


def test_binary_and_logical_functions_match_pydrake(dm):
    for name in ("min", "max", "pow", "atan2"):
        assert getattr(mm, name)(0.1, 0.2) == getattr(dm, name)(0.1, 0.2)
    assert mm.isnan(float("nan")) is True and mm.isnan(0.1) is False
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(mm.inv(A), dm.inv(A))
    np.testing.assert_array_equal(mm.matmul(A, A), dm.matmul(A, A))
    np.testing.assert_array_equal(mm.lt(A, 2.5), dm.lt(A, 2.5))
    assert mm.wrap_to(1.5, 0.0, 1.0) == dm.wrap_to(1.5, 0.0, 1.0) == 0.5


def test_barycentric_mesh_matches_pydrake(dm):
    grid = [{0.0, 1.0, 2.5}, {-1.0, 0.5}, {3.0}]
    ours, theirs = mm.BarycentricMesh(grid), dm.BarycentricMesh(grid)
    assert ours.get_num_mesh_points() == theirs.get_num_mesh_points()
    assert ours.get_num_interpolants() == theirs.get_num_interpolants()
    np.testing.assert_array_equal(ours.get_all_mesh_points(), theirs.get_all_mesh_points())
    values = np.arange(2.0 * ours.get_num_mesh_points()).reshape(2, -1) ** 1.5
    for x in ([0.3, 0.1, 3.0], [2.0, -0.9, 3.0], [-1.0, 4.0, 2.0], [1.0, 0.5, 3.0]):
        i1, w1 = ours.EvalBarycentricWeights(x)
        i2, w2 = theirs.EvalBarycentricWeights(x)
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_allclose(w1, w2, atol=1e-15)
        np.testing.assert_allclose(ours.Eval(values, x), theirs.Eval(values, x), atol=1e-12)
    f = lambda x: [x.sum(), x[0] * x[1]]  # noqa: E731
    np.testing.assert_array_equal(ours.MeshValuesFrom(f), theirs.MeshValuesFrom(f))


def test_bspline_basis_matches_pydrake(dm):
    for order, n, kind in ((3, 6, "kClampedUniform"), (4, 5, "kUniform"), (2, 3, "kUniform")):
        ours = mm.BsplineBasis(order, n, getattr(mm.KnotVectorType, kind), 0.5, 2.0)
        theirs = dm.BsplineBasis(order, n, getattr(dm.KnotVectorType, kind), 0.5, 2.0)
        np.testing.assert_allclose(ours.knots(), theirs.knots(), atol=1e-15)
        cps = [[float(i), float(i * i)] for i in range(n)]
        for t in np.linspace(ours.initial_parameter_value(), ours.final_parameter_value(), 7):
            assert ours.FindContainingInterval(t) == theirs.FindContainingInterval(t)
            assert ours.ComputeActiveBasisFunctionIndices(parameter_value=t) == \
                theirs.ComputeActiveBasisFunctionIndices(parameter_value=t)
            np.testing.assert_allclose(ours.EvaluateCurve(cps, t), theirs.EvaluateCurve(cps, t), atol=1e-12)
            np.testing.assert_allclose(ours.EvaluateLinearInControlPoints(t),
                                       theirs.EvaluateLinearInControlPoints(t), atol=1e-12)
    b = mm.BsplineBasis(order=2, knots=[0, 1, 3, 5])
    assert pickle.loads(pickle.dumps(b)) == b
    with pytest.raises(ValueError, match="twice the order"):
        mm.BsplineBasis(order=3, knots=[0, 1, 2])


def test_matrix_utilities_match_pydrake(dm):
    rng = np.random.default_rng(3)
    M = rng.normal(size=(4, 4))
    S = M @ M.T + 0.1 * np.eye(4)
    assert mm.IsSymmetric(S) == dm.IsSymmetric(S)
    assert mm.IsSymmetric(M, 0.1) == dm.IsSymmetric(M, 0.1)
    assert mm.IsPositiveDefinite(S, 1e-3) == dm.IsPositiveDefinite(S, 1e-3)
    assert mm.IsPositiveDefinite(-S) == dm.IsPositiveDefinite(-S)
    low = mm.ToLowerTriangularColumnsFromMatrix(S)
    np.testing.assert_array_equal(low, dm.ToLowerTriangularColumnsFromMatrix(S))
    np.testing.assert_array_equal(mm.ToSymmetricMatrixFromLowerTriangularColumns(low),
                                  dm.ToSymmetricMatrixFromLowerTriangularColumns(low))
    np.testing.assert_array_equal(mm.ExtractPrincipalSubmatrix(S, {0, 2, 3}), dm.ExtractPrincipalSubmatrix(S, {0, 2, 3}))
    np.testing.assert_allclose(mm.DecomposePSDmatrixIntoXtransposeTimesX(S, 1e-8),
                               dm.DecomposePSDmatrixIntoXtransposeTimesX(S, 1e-8), atol=1e-12)
    P = np.diag([1.0, 2.0, 0.0])  # singular: the eigen-decomposition branch, rank-many rows
    X = mm.DecomposePSDmatrixIntoXtransposeTimesX(P, 1e-8)
    assert X.shape == dm.DecomposePSDmatrixIntoXtransposeTimesX(P, 1e-8).shape == (2, 3)
    np.testing.assert_allclose(X.T @ X, P, atol=1e-12)
    R, d = mm.DecomposePositiveQuadraticForm(S, np.ones(4), 9.0)
    R2, d2 = dm.DecomposePositiveQuadraticForm(S, np.ones(4), 9.0)
    np.testing.assert_allclose(R, R2, atol=1e-12)
    np.testing.assert_allclose(d, d2, atol=1e-12)
    T = mm.BalanceQuadraticForms(S, np.diag([1.0, -2.0, 3.0, 4.0]))
    np.testing.assert_allclose(np.abs(T.T @ S @ T), np.abs(dm.BalanceQuadraticForms(S, np.diag([1.0, -2.0, 3.0, 4.0]))
                                                          .T @ S @ dm.BalanceQuadraticForms(S, np.diag([1.0, -2.0, 3.0, 4.0]))), atol=1e-10)
    for name in ("SoftOverMax", "SoftUnderMax", "SoftOverMin", "SoftUnderMin"):
        assert getattr(mm, name)([1.0, 2.0, 3.0], alpha=2.0) == pytest.approx(
            getattr(dm, name)([1.0, 2.0, 3.0], alpha=2.0), abs=1e-14)


def test_riccati_lyapunov_and_gradient_match_pydrake(dm):
    A, B, Q, R = np.array([[0.0, 1.0], [2.0, -0.5]]), np.array([[0.0], [1.0]]), np.eye(2), np.array([[0.3]])
    np.testing.assert_allclose(mm.ContinuousAlgebraicRiccatiEquation(A, B, Q, R),
                               dm.ContinuousAlgebraicRiccatiEquation(A, B, Q, R), rtol=1e-8)
    Ad = np.array([[1.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(mm.DiscreteAlgebraicRiccatiEquation(A=Ad, B=B, Q=Q, R=R),
                               dm.DiscreteAlgebraicRiccatiEquation(A=Ad, B=B, Q=Q, R=R), rtol=1e-8)
    As = np.array([[-1.0, 0.3], [0.0, -2.0]])
    np.testing.assert_allclose(mm.RealContinuousLyapunovEquation(As, Q), dm.RealContinuousLyapunovEquation(As, Q),
                               rtol=1e-10)
    np.testing.assert_allclose(mm.RealDiscreteLyapunovEquation(0.4 * As, Q),
                               dm.RealDiscreteLyapunovEquation(0.4 * As, Q), rtol=1e-10)

    def f(x):
        return np.array([math.sin(x[0]) * x[1], x[1] ** 3])

    for method in ("kForward", "kBackward", "kCentral"):
        ours = mm.ComputeNumericalGradient(f, np.array([0.4, 1.5]),
                                           mm.NumericalGradientOption(getattr(mm.NumericalGradientMethod, method)))
        theirs = dm.ComputeNumericalGradient(f, np.array([0.4, 1.5]),
                                             dm.NumericalGradientOption(getattr(dm.NumericalGradientMethod, method)))
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    assert repr(mm.NumericalGradientOption(mm.NumericalGradientMethod.kCentral)) == \
        repr(dm.NumericalGradientOption(dm.NumericalGradientMethod.kCentral))


def test_quaternion_functions_match_pydrake(dm):
    from pydrake.common.eigen_geometry import Quaternion as DQ
    q1 = np.array([0.5, 0.5, -0.5, 0.5])
    q2 = np.array([-0.1, 0.7, 0.7, 0.1]) / np.linalg.norm([-0.1, 0.7, 0.7, 0.1])
    w = np.array([0.3, -1.2, 2.0])
    assert np.allclose(mm.ClosestQuaternion(Quaternion(q1), Quaternion(q2)).wxyz(),
                       dm.ClosestQuaternion(DQ(q1), DQ(q2)).wxyz())
    assert mm.QuaternionToCanonicalForm(Quaternion(q2)).wxyz().tolist() == \
        dm.QuaternionToCanonicalForm(DQ(q2)).wxyz().tolist()
    assert mm.is_quaternion_in_canonical_form(Quaternion(q2)) == dm.is_quaternion_in_canonical_form(DQ(q2))
    assert mm.AreQuaternionsEqualForOrientation(Quaternion(q2), Quaternion(-q2), 1e-12)
    qdot = mm.CalculateQuaternionDtFromAngularVelocityExpressedInB(Quaternion(q1), w)
    np.testing.assert_allclose(qdot, dm.CalculateQuaternionDtFromAngularVelocityExpressedInB(DQ(q1), w), atol=1e-15)
    np.testing.assert_allclose(mm.CalculateAngularVelocityExpressedInBFromQuaternionDt(Quaternion(q1), qdot), w,
                               atol=1e-14)
    assert mm.IsBothQuaternionAndQuaternionDtOK(Quaternion(q1), qdot, 1e-12) == \
        dm.IsBothQuaternionAndQuaternionDtOK(DQ(q1), qdot, 1e-12)
    rng = np.random.default_rng(0)
    R = mm.UniformlyRandomRotationMatrix(rng)
    assert R.IsValid() and isinstance(mm.UniformlyRandomQuaternion(rng), Quaternion_[float])


def test_random_rotations_match_pydrake_draw_for_draw(dm):
    from mallard.common import RandomGenerator
    from pydrake.common import RandomGenerator as DrakeGenerator
    ours, theirs = RandomGenerator(7), DrakeGenerator(7)
    for _ in range(3):
        np.testing.assert_array_equal(mm.UniformlyRandomQuaternion(ours).wxyz(),
                                      dm.UniformlyRandomQuaternion(theirs).wxyz())
    np.testing.assert_allclose(mm.UniformlyRandomRPY(ours), dm.UniformlyRandomRPY(theirs), atol=1e-15)
    np.testing.assert_allclose(mm.UniformlyRandomRotationMatrix(ours).matrix(),
                               dm.UniformlyRandomRotationMatrix(theirs).matrix(), atol=1e-15)
    a, b = mm.UniformlyRandomAngleAxis(ours), dm.UniformlyRandomAngleAxis(theirs)
    assert a.angle() == pytest.approx(b.angle(), abs=1e-15)


def test_value_types_pickle_as_pydrake_does(dm):
    """The pickle state is pydrake's (a matrix or vector), so pickles written by Drake's v1.12 still load."""
    legacy_rotation = pickle.dumps(dm.RotationMatrix.MakeZRotation(0.3)).replace(
        b"\x8c\x0cpydrake.math\x94\x8c\x0eRotationMatrix", b"\x8c\x0cmallard.math\x94\x8c\x0eRotationMatrix")
    R = pickle.loads(legacy_rotation)
    np.testing.assert_allclose(R.matrix(), dm.RotationMatrix.MakeZRotation(0.3).matrix())
    X = mm.RigidTransform(mm.RollPitchYaw(0.1, 0.2, 0.3), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(X.__getstate__(), dm.RigidTransform(X.GetAsMatrix4()).__getstate__())
    assert getattr(mm, "RigidTransform_[float]") is mm.RigidTransform
    iso = X.GetAsIsometry3()
    assert isinstance(iso, Isometry3)
    np.testing.assert_allclose(mm.RigidTransform(iso).GetAsMatrix4(), X.GetAsMatrix4())


def test_other_scalar_types_are_a_clear_error():
    with pytest.raises(TypeError, match="double precision only"):
        mm.RigidTransform_["AutoDiffXd"]
    with pytest.raises(TypeError, match="double precision only"):
        mm.RotationMatrix().cast["Expression"]
