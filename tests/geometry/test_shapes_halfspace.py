"""HalfSpace.MakePose and the shared half-space frame against pydrake's HalfSpace.MakePose."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import HalfSpace
from mallard.geometry.shapes import CalcHalfSpaceRotation
from mallard.parsers.sdformat_geometry import CalcHalfSpaceFrame
from oracles import require_pydrake

NORMALS = [[0, 0, 1], [0, 0, -2], [1, 0, 0], [0, -3, 0], [1, 2, 3], [-1, 0.2, 0.1], [1, 1, 0],
           [0.3, -0.9, 0.3], [1e-3, 1, -1e-3], [-5, -5, -5], [0.2, 0.2, 0.9]]
POINTS = [[0, 0, 0], [1, 2, 3], [-0.5, 4, 0.25]]


@pytest.mark.parametrize("normal", NORMALS)
def test_make_pose_matches_pydrake(normal):
    require_pydrake()
    import pydrake.geometry as pydrake_geometry
    for p in POINTS:
        X = HalfSpace.MakePose(normal, p)
        X_drake = pydrake_geometry.HalfSpace.MakePose(np.array(normal, float), np.array(p, float))
        np.testing.assert_allclose(X.rotation().matrix(), X_drake.rotation().matrix(), rtol=0, atol=1e-15)
        np.testing.assert_allclose(X.translation(), X_drake.translation(), rtol=0, atol=1e-14)
    # The SDFormat plane reader uses the same rotation.
    np.testing.assert_array_equal(CalcHalfSpaceFrame(np.array(normal, float))[:3, :3],
                                  X.rotation().matrix())


def test_rotation_is_proper_with_z_along_the_normal():
    for n in NORMALS:
        R = CalcHalfSpaceRotation(n)
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)
        assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-15)
        np.testing.assert_allclose(R[:, 2], np.asarray(n, float) / np.linalg.norm(n), atol=1e-15)


@pytest.mark.parametrize("bad", [[0, 0, 0], [np.nan, 0, 1], [np.inf, 0, 0]])
def test_bad_normal_raises(bad):
    with pytest.raises(ValueError, match="non-zero normal"):
        HalfSpace.MakePose(bad, [0, 0, 0])
    with pytest.raises(ValueError, match="non-zero normal"):
        CalcHalfSpaceRotation(bad)
