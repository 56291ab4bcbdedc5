"""Marching cubes (geometry/collision/sdf_mesh.py): closed, consistently oriented surfaces on the zero level set,
with the analytic area and volume of a sphere and a torus."""
from __future__ import annotations

import numpy as np
import pytest
import trimesh

from mallard.geometry.collision.sdf import SDF_TORUS, SdfShape, marching_cubes, sdf_surface_mesh
from mallard.geometry.collision.sdf_mesh import _tables

R1, R2 = 0.35, 0.15  # torus ring and tube radii [m]
TORUS = SdfShape(SDF_TORUS, np.array([R1, R2]), np.array([0, 0, 0, R1 + R2, R1 + R2, R2]))


def _closed(v, f):
    mesh = trimesh.Trimesh(v, f, process=False)
    assert mesh.is_watertight and mesh.is_winding_consistent
    return mesh


def test_case_table_is_complete_and_complementary():
    _TRI_TABLE, _TRI_COUNT, _ = _tables()
    assert _TRI_COUNT[0] == 0 and _TRI_COUNT[255] == 0
    assert _TRI_COUNT[1] == 1 and _TRI_COUNT[0b00001111] == 2  # one corner cut off; a face's four corners
    # every non-trivial case has triangles, and a case and its complement cut the same edges
    for case in range(1, 255):
        assert _TRI_COUNT[case] > 0
        edges = set(_TRI_TABLE[case, :_TRI_COUNT[case]].ravel())
        assert edges == set(_TRI_TABLE[255 - case, :_TRI_COUNT[255 - case]].ravel())


def test_single_corner_triangle_points_outward():
    values = np.ones((2, 2, 2))
    values[0, 0, 0] = -1.0  # only the origin corner inside: one triangle through the edge midpoints
    v, f = marching_cubes(values, np.zeros(3), 1.0)
    assert f.shape == (1, 3)
    np.testing.assert_allclose(sorted(map(tuple, v)), [(0, 0, 0.5), (0, 0.5, 0), (0.5, 0, 0)])
    a, b, c = v[f[0]]
    assert np.cross(b - a, c - a) @ np.ones(3) > 0  # toward the positive (outside) values


def test_random_fields_give_closed_outward_surfaces():
    rng = np.random.default_rng(7)
    for _ in range(25):
        values = rng.normal(size=(6, 7, 5))
        values[[0, -1]] = values[:, [0, -1]] = values[:, :, [0, -1]] = 1.0  # closed: positive on the border
        v, f = marching_cubes(values, np.zeros(3), 0.1)
        if len(f):
            assert _closed(v, f).volume > 0


def test_sphere_area_and_volume():
    r = 0.5
    v, f = sdf_surface_mesh(lambda p: np.linalg.norm(p, axis=1) - r, [0, 0, 0, 0.6, 0.6, 0.6], resolution=20)
    mesh = _closed(v, f)
    # a grid of h = 0.063 m: the chords cut inside the sphere by O(h^2)
    assert mesh.volume == pytest.approx(4 / 3 * np.pi * r ** 3, rel=0.012)
    assert mesh.area == pytest.approx(4 * np.pi * r ** 2, rel=0.007)
    h = 1.2 * 1.05 / 20
    assert np.abs(np.linalg.norm(v, axis=1) - r).max() < 0.03 * h  # vertices on the level set to O(h^2)


@pytest.mark.parametrize("resolution,vol_tol,area_tol", [(24, 0.025, 0.008), (48, 0.006, 0.002)])
def test_torus_area_and_volume_converge(resolution, vol_tol, area_tol):
    v, f = sdf_surface_mesh(TORUS, resolution=resolution)
    mesh = _closed(v, f)
    assert mesh.volume == pytest.approx(2 * np.pi ** 2 * R1 * R2 ** 2, rel=vol_tol)
    assert mesh.area == pytest.approx(4 * np.pi ** 2 * R1 * R2, rel=area_tol)
    d = np.array([TORUS.Distance(p) for p in v])
    h = 2 * (R1 + R2) * 1.05 / resolution
    assert np.abs(d).max() < 0.05 * h
    assert mesh.euler_number == 0  # genus one


def test_empty_region_and_bad_input():
    v, f = sdf_surface_mesh(lambda p: np.linalg.norm(p, axis=1) + 1, [0, 0, 0, 1, 1, 1], resolution=4)
    assert v.shape == (0, 3) and f.shape == (0, 3)
    with pytest.raises(ValueError, match="resolution must be >= 2"):
        sdf_surface_mesh(TORUS, resolution=1)
    with pytest.raises(ValueError, match="non-finite"):
        sdf_surface_mesh(lambda p: np.full(len(p), np.nan), [0, 0, 0, 1, 1, 1], resolution=4)
    with pytest.raises(ValueError, match="aabb"):
        sdf_surface_mesh(lambda p: p[:, 0])
    with pytest.raises(ValueError, match="3D grid"):
        marching_cubes(np.zeros((1, 3, 3)), np.zeros(3), 1.0)
