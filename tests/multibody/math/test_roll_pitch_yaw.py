"""RollPitchYaw against pydrake.math.RollPitchYaw: conversions (incl. gimbal lock) and rate kinematics."""
import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.math import Quaternion, RollPitchYaw, RotationMatrix

TOL = 1e-12


@pytest.fixture(scope="module")
def dm():
    require_pydrake()
    import pydrake.math as dm
    return dm


def angles(seed, n=30):
    rng = np.random.default_rng(seed)
    return rng.uniform([-np.pi, -1.5, -np.pi], [np.pi, 1.5, np.pi], size=(n, 3))


def test_constructors_and_accessors():
    rpy = RollPitchYaw(0.1, 0.2, 0.3)
    assert (rpy.roll_angle(), rpy.pitch_angle(), rpy.yaw_angle()) == (0.1, 0.2, 0.3)
    np.testing.assert_array_equal(RollPitchYaw([0.1, 0.2, 0.3]).vector(), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(RollPitchYaw(roll=0.1, pitch=0.2, yaw=0.3).vector(), [0.1, 0.2, 0.3])
    assert repr(rpy) == "RollPitchYaw(roll=0.1, pitch=0.2, yaw=0.3)"
    with pytest.raises(ValueError, match="3-vector"):
        RollPitchYaw([1.0, 2.0])
    with pytest.raises(ValueError, match="not orthonormal"):
        RollPitchYaw(np.diag([1.0, 2.0, 3.0]))


def test_to_rotation_and_quaternion_match_pydrake(dm):
    for v in angles(0):
        d = dm.RollPitchYaw(v)
        np.testing.assert_allclose(RollPitchYaw(v).ToRotationMatrix().matrix(), d.ToRotationMatrix().matrix(),
                                   atol=TOL)
        np.testing.assert_allclose(RollPitchYaw(v).ToQuaternion().wxyz(), d.ToQuaternion().wxyz(), atol=TOL)


def test_from_rotation_quaternion_and_matrix_match_pydrake(dm):
    from pydrake.common.eigen_geometry import Quaternion as DQuaternion
    samples = list(np.random.default_rng(1).uniform(-4, 4, size=(30, 3)))
    samples += [[0.1, np.pi / 2, 0.3], [0.1, -np.pi / 2, 0.3], [2.0, np.pi / 2 - 1e-9, -1.0], [0, np.pi / 2, 0]]
    for v in samples:
        Rd = dm.RollPitchYaw(v).ToRotationMatrix()
        expected = dm.RollPitchYaw(Rd).vector()
        np.testing.assert_allclose(RollPitchYaw(RotationMatrix(Rd.matrix())).vector(), expected, atol=TOL)
        np.testing.assert_allclose(RollPitchYaw(Rd.matrix()).vector(), dm.RollPitchYaw(Rd.matrix()).vector(),
                                   atol=TOL)
        q = Rd.ToQuaternion().wxyz()
        np.testing.assert_allclose(RollPitchYaw(Quaternion(q)).vector(), dm.RollPitchYaw(DQuaternion(q)).vector(),
                                   atol=TOL)


def test_gimbal_lock_round_trip(dm):
    # At pitch = ±π/2 only roll ∓ yaw is determined; Drake reports a specific split that we reproduce.
    R = RotationMatrix(RollPitchYaw(0.1, np.pi / 2, 0.3))
    np.testing.assert_allclose(R.ToRollPitchYaw().vector(), [-0.1, np.pi / 2, 0.1], atol=TOL)
    R = RotationMatrix(RollPitchYaw(0.1, -np.pi / 2, 0.3))
    np.testing.assert_allclose(R.ToRollPitchYaw().vector(), [0.2, -np.pi / 2, 0.2], atol=TOL)
    np.testing.assert_allclose(R.ToRollPitchYaw().ToRotationMatrix().matrix(), R.matrix(), atol=TOL)


def test_rate_kinematics_match_pydrake(dm):
    rng = np.random.default_rng(2)
    for v in angles(3):
        d, m = dm.RollPitchYaw(v), RollPitchYaw(v)
        rpyDt, w, alpha = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
        for name, args in (("CalcAngularVelocityInParentFromRpyDt", (rpyDt,)),
                           ("CalcAngularVelocityInChildFromRpyDt", (rpyDt,)),
                           ("CalcRpyDtFromAngularVelocityInParent", (w,)),
                           ("CalcRpyDtFromAngularVelocityInChild", (w,)),
                           ("CalcRotationMatrixDt", (rpyDt,)),
                           ("CalcRpyDDtFromRpyDtAndAngularAccelInParent", (rpyDt, alpha)),
                           ("CalcRpyDDtFromAngularAccelInChild", (rpyDt, alpha))):
            np.testing.assert_allclose(getattr(m, name)(*args), getattr(d, name)(*args), atol=1e-11, rtol=1e-12,
                                       err_msg=name)


def test_rates_near_gimbal_lock_raise():
    rpy = RollPitchYaw(0.1, np.pi / 2 - 1e-3, 0.3)
    for name in ("CalcRpyDtFromAngularVelocityInParent", "CalcRpyDtFromAngularVelocityInChild"):
        with pytest.raises(ValueError, match="gimbal-lock"):
            getattr(rpy, name)([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="within 0.458371 degrees of gimbal-lock"):
        rpy.CalcRpyDDtFromAngularAccelInChild([1.0, 2.0, 3.0], [0.0, 0.0, 1.0])
    # The forward maps are fine at gimbal lock.
    np.testing.assert_allclose(rpy.CalcAngularVelocityInParentFromRpyDt([0.0, 0.0, 1.0]), [0.0, 0.0, 1.0])
