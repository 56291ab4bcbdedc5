"""Aabb, Obb, Plane and the box fitting (CalcObb, ComputeAabb/ObbFor*Mesh) against pydrake."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import mallard.geometry as mg
from mallard.multibody.math import RigidTransform, RollPitchYaw, RotationMatrix
from oracles import require_pydrake


def _pyd():
    require_pydrake()
    import pydrake.geometry
    import pydrake.math

    return pydrake.geometry, pydrake.math


def _X(math_module, rpy, p):
    return math_module.RigidTransform(math_module.RollPitchYaw(*rpy), p)


def test_overlap_tests_match_pydrake():
    pg, pm = _pyd()
    rng = np.random.default_rng(7)
    agree = 0
    for _ in range(300):
        c1, c2 = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
        h1, h2 = rng.uniform(0.05, 0.6, 3), rng.uniform(0.05, 0.6, 3)
        rpy1, rpy2, rpyX = rng.uniform(-3, 3, (3, 3))
        pX = rng.uniform(-1, 1, 3)
        X, X_ref = _X(__import__("mallard.multibody.math", fromlist=["x"]), rpyX, pX), _X(pm, rpyX, pX)
        a, a_ref = mg.Aabb(c1, h1), pg.Aabb(c1, h1)
        b, b_ref = mg.Aabb(c2, h2), pg.Aabb(c2, h2)
        o = mg.Obb(RigidTransform(RollPitchYaw(*rpy2), c2), h2)
        o_ref = pg.Obb(pm.RigidTransform(pm.RollPitchYaw(*rpy2), c2), h2)
        o1 = mg.Obb(RigidTransform(RollPitchYaw(*rpy1), c1), h1)
        o1_ref = pg.Obb(pm.RigidTransform(pm.RollPitchYaw(*rpy1), c1), h1)
        pairs = [(mg.Aabb.HasOverlap(a, b, X), pg.Aabb.HasOverlap(a_ref, b_ref, X_ref)),
                 (mg.Aabb.HasOverlap(a, o, X), pg.Aabb.HasOverlap(a_ref, o_ref, X_ref)),
                 (mg.Obb.HasOverlap(o1, o, X), pg.Obb.HasOverlap(o1_ref, o_ref, X_ref)),
                 (mg.Obb.HasOverlap(o, a, X), pg.Obb.HasOverlap(o_ref, a_ref, X_ref)),
                 (mg.Aabb.HasOverlap(a, mg.HalfSpace(), X), pg.Aabb.HasOverlap(a_ref, pg.HalfSpace(), X_ref)),
                 (mg.Obb.HasOverlap(o, mg.HalfSpace(), X), pg.Obb.HasOverlap(o_ref, pg.HalfSpace(), X_ref))]
        n, q = rng.normal(size=3), rng.uniform(-1, 1, 3)
        pairs += [(mg.Aabb.HasOverlap(a, mg.Plane(n, q), X), pg.Aabb.HasOverlap(a_ref, pg.Plane(n, q), X_ref)),
                  (mg.Obb.HasOverlap(o, mg.Plane(n, q), X), pg.Obb.HasOverlap(o_ref, pg.Plane(n, q), X_ref))]
        for ours, ref in pairs:
            assert ours == ref
            agree += ours
    assert 300 < agree < 2100  # both outcomes are exercised


def test_box_api_padding_pickle_and_keywords():
    pg, pm = _pyd()
    X = RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [1.0, 2.0, 3.0])
    o = mg.Obb(X_HB=X, half_width=[0.5, 1.0, 1.5])
    ref = pg.Obb(X_HB=pm.RigidTransform(pm.RollPitchYaw(0.1, 0.2, 0.3), [1.0, 2.0, 3.0]), half_width=[0.5, 1.0, 1.5])
    np.testing.assert_array_equal(o.half_width(), ref.half_width())  # Drake's boundary padding, to the bit
    assert o.CalcVolume() == ref.CalcVolume()
    a = mg.Aabb(p_HoBo=[1, 2, 3], half_width=[0.5, 1, 1.5])
    np.testing.assert_array_equal(a.lower(), [0.5, 1, 1.5])
    assert a.pose().rotation().IsExactlyIdentity() and a.CalcVolume() == 6.0
    for box in (a, o):
        assert box.Equal(copy.copy(box)) and box.Equal(copy.deepcopy(box)) and box.Equal(pickle.loads(pickle.dumps(box)))
    assert not a.Equal(mg.Aabb([1, 2, 3.5], [0.5, 1, 1.5]))
    assert mg.Aabb.HasOverlap(bv_H=a, plane_P=mg.Plane([0, 0, 1], [0, 0, 3]), X_PH=RigidTransform())
    with pytest.raises(TypeError, match="supported signatures"):
        mg.Aabb.HasOverlap(a, "box", RigidTransform())
    with pytest.raises(ValueError, match="non-negative"):
        mg.Aabb([0, 0, 0], [1, -1, 1])


def test_plane_matches_pydrake():
    pg, pm = _pyd()
    plane = mg.Plane(normal=[0, 0, 2], point_on_plane=[1, 1, 2])
    ref = pg.Plane(normal=[0, 0, 2], point_on_plane=[1, 1, 2])
    np.testing.assert_array_equal(plane.unit_normal(), ref.unit_normal())
    np.testing.assert_array_equal(plane.reference_point(), ref.reference_point())
    assert plane.CalcHeight(point=[3, 4, 5]) == ref.CalcHeight(point=[3, 4, 5]) == 3.0
    R = RotationMatrix(RollPitchYaw(0.3, -0.2, 0.1))
    for center in ([0, 0, 2.5], [0, 0, 4.0]):
        assert plane.BoxOverlaps([1, 2, 1], center, R) == ref.BoxOverlaps([1, 2, 1], center, pm.RotationMatrix(
            pm.RollPitchYaw(0.3, -0.2, 0.1)))
    state = pickle.loads(pickle.dumps(plane))
    np.testing.assert_array_equal(state.reference_point(), plane.reference_point())
    with pytest.raises(RuntimeError, match="magnitude is too small"):
        mg.Plane([0, 0, 1e-12], [0, 0, 0])


def test_calc_obb_matches_pydrake(tmp_path):
    pg, pm = _pyd()
    path = tmp_path / "cube.obj"
    path.write_text("v 1 -1 -1\nv 1 -1 1\nv -1 -1 1\nv -1 -1 -1\nv 1 1 -1\nv 1 1 1\nv -1 1 1\nv -1 1 -1\n"
                    "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 5 1 4 8\n")
    shapes = [(mg.Box(1, 2, 3), pg.Box(1, 2, 3)), (mg.Sphere(0.5), pg.Sphere(0.5)),
              (mg.Capsule(0.2, 1.0), pg.Capsule(0.2, 1.0)), (mg.Cylinder(0.2, 1.0), pg.Cylinder(0.2, 1.0)),
              (mg.Ellipsoid(1, 2, 3), pg.Ellipsoid(1, 2, 3)), (mg.MeshcatCone(1, 2, 3), pg.MeshcatCone(1, 2, 3)),
              (mg.Convex(str(path), 2.0), pg.Convex(str(path), 2.0))]
    for ours, ref in shapes:
        o, r = mg.CalcObb(ours), pg.CalcObb(ref)
        np.testing.assert_allclose(o.half_width(), r.half_width(), rtol=1e-14)
        np.testing.assert_allclose(o.pose().GetAsMatrix4(), r.pose().GetAsMatrix4(), atol=1e-14)
    assert mg.CalcObb(mg.HalfSpace()) is None and pg.CalcObb(pg.HalfSpace()) is None


def test_mesh_bounding_boxes_match_pydrake():
    pg, pm = _pyd()
    rng = np.random.default_rng(3)
    V = rng.normal(size=(40, 3)) * [3.0, 1.0, 0.3]
    tris = [(0, 1, 2), (3, 4, 5)]
    ours = mg.TriangleSurfaceMesh(triangles=[mg.SurfaceTriangle(*t) for t in tris], vertices=V)
    ref = pg.TriangleSurfaceMesh(triangles=[pg.SurfaceTriangle(*t) for t in tris], vertices=list(V))
    some = set(range(0, 40, 3))
    a, a_ref = mg.ComputeAabbForTriangleMesh(mesh_M=ours, vertices=some), pg.ComputeAabbForTriangleMesh(ref, some)
    np.testing.assert_array_equal(a.center(), a_ref.center())
    np.testing.assert_array_equal(a.half_width(), a_ref.half_width())
    o, o_ref = mg.ComputeObbForTriangleMesh(mesh_M=ours, vertices=some), pg.ComputeObbForTriangleMesh(ref, some)
    # Principal axes are defined up to sign; the fitted box is the same box.
    assert o.CalcVolume() == pytest.approx(o_ref.CalcVolume(), rel=1e-9)
    np.testing.assert_allclose(o.half_width(), o_ref.half_width(), rtol=1e-9)
    np.testing.assert_allclose(o.center(), o_ref.center(), atol=1e-9)
    np.testing.assert_allclose(np.abs(o.pose().rotation().matrix()), np.abs(o_ref.pose().rotation().matrix()),
                               atol=1e-9)
    vm = mg.VolumeMesh(elements=[mg.VolumeElement(0, 1, 2, 3)], vertices=V[:4])
    vm_ref = pg.VolumeMesh(elements=[pg.VolumeElement(0, 1, 2, 3)], vertices=list(V[:4]))
    np.testing.assert_array_equal(mg.ComputeAabbForVolumeMesh(vm, {0, 1, 2, 3}).half_width(),
                                  pg.ComputeAabbForVolumeMesh(vm_ref, {0, 1, 2, 3}).half_width())
    assert mg.ComputeObbForVolumeMesh(vm, {0, 1, 2, 3}).CalcVolume() == pytest.approx(
        pg.ComputeObbForVolumeMesh(vm_ref, {0, 1, 2, 3}).CalcVolume(), rel=1e-9)
