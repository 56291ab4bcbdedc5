"""Mesh data structures and their algorithms against pydrake: TriangleSurfaceMesh, VolumeMesh,
PolygonSurfaceMesh, ReadObjToTriangleSurfaceMesh, ConvertVolumeToSurfaceMesh, RefineVolumeMesh(+VTK),
convex hulls."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.geometry as mg
from oracles import require_pydrake

def _pydrake_geometry():
    require_pydrake()
    import pydrake.geometry

    return pydrake.geometry


# A cube of quads (Drake's geometry/test/quad_cube.obj has this structure: 8 vertices, 6 quad faces).
QUAD_CUBE = """# cube of quads
v  1.0 -1.0 -1.0
v  1.0 -1.0  1.0
v -1.0 -1.0  1.0
v -1.0 -1.0 -1.0
v  1.0  1.0 -1.0
v  1.0  1.0  1.0
v -1.0  1.0  1.0
v -1.0  1.0 -1.0
vn 0 -1 0
f 1//1 2//1 3//1 4//1
f 5 8 7 6
f 1 5 6 2
f 2 6 7 3
f 3 7 8 4
f 5 1 4 8
"""

# Two tetrahedra sharing face (1, 2, 3), and a five-tet mesh around a center vertex.
TWO_TETS = (((2, 1, 3, 4), (3, 1, 2, 0)), ((1, 0, 0), (0, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0)))
STAR = (((0, 1, 2, 4), (0, 3, 1, 4), (3, 2, 1, 4), (3, 0, 2, 4)),
        ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0.25, 0.25, 0.25)))
# A cube cut into six tetrahedra: many interior simplices have all their vertices on the boundary.
CUBE6 = (((0, 1, 3, 7), (0, 1, 7, 5), (0, 5, 7, 4), (0, 3, 2, 7), (0, 6, 4, 7), (0, 2, 6, 7)),
         tuple((x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)))


def _volume(mod, data):
    elements, vertices = data
    return mod.VolumeMesh(elements=[mod.VolumeElement(*e) for e in elements], vertices=[np.array(v, float)
                                                                                     for v in vertices])


def _tri_arrays(mesh):
    return (np.array([[t.vertex(i) for i in range(3)] for t in mesh.triangles()]),
            np.array([mesh.vertex(i) for i in range(mesh.num_vertices())]))


def _tet_arrays(mesh):
    return (np.array([[t.vertex(i) for i in range(4)] for t in mesh.tetrahedra()]),
            np.array([mesh.vertex(i) for i in range(mesh.num_vertices())]))


def test_triangle_surface_mesh_matches_pydrake():
    pyd = _pydrake_geometry()
    tris = ((3, 1, 2), (2, 1, 0), (0, 1, 4))
    verts = ((-1, 1, 0), (1, 1, 0), (-1, -1, 0), (1, -1, 0.5), (0.2, 3, 1))
    ours = mg.TriangleSurfaceMesh(triangles=[mg.SurfaceTriangle(*t) for t in tris], vertices=verts)
    ref = pyd.TriangleSurfaceMesh(triangles=[pyd.SurfaceTriangle(*t) for t in tris],
                                  vertices=[np.array(v, float) for v in verts])
    for t in range(3):
        assert ours.area(t=t) == pytest.approx(ref.area(t=t), rel=1e-15)
        np.testing.assert_allclose(ours.face_normal(t=t), ref.face_normal(t=t), atol=1e-15)
        np.testing.assert_allclose(ours.element_centroid(t=t), ref.element_centroid(t=t), atol=1e-15)
        p = np.array([0.1, -0.3, 0.7])
        np.testing.assert_allclose(ours.CalcBarycentric(p_MQ=p, t=t), ref.CalcBarycentric(p_MQ=p, t=t), atol=1e-12)
        b = np.array([0.2, 0.3, 0.5])
        np.testing.assert_allclose(ours.CalcCartesianFromBarycentric(element_index=t, b_Q=b),
                                   ref.CalcCartesianFromBarycentric(element_index=t, b_Q=b), atol=1e-15)
    assert ours.total_area() == pytest.approx(ref.total_area(), rel=1e-15)
    np.testing.assert_allclose(ours.centroid(), ref.centroid(), atol=1e-15)
    for a, b in zip(ours.CalcBoundingBox(), ref.CalcBoundingBox()):
        np.testing.assert_array_equal(a, b)
    assert ours.Equal(mesh=ours) and not ours.Equal(mg.TriangleSurfaceMesh(tris[:2], verts))
    assert ours.element(e=2).vertex(i=2) == 4 and ours.num_elements() == ours.num_triangles() == 3


def test_volume_mesh_matches_pydrake():
    pyd = _pydrake_geometry()
    ours, ref = _volume(mg, TWO_TETS), _volume(pyd, TWO_TETS)
    assert ours.CalcVolume() == pytest.approx(ref.CalcVolume(), rel=1e-15)
    for e in range(2):
        assert ours.CalcTetrahedronVolume(e=e) == pytest.approx(ref.CalcTetrahedronVolume(e=e), rel=1e-15)
        np.testing.assert_allclose(ours.CalcBarycentric(p_MQ=[-0.25, 0.25, 0.25], e=e),
                                   ref.CalcBarycentric(p_MQ=[-0.25, 0.25, 0.25], e=e), atol=1e-14)
        for f in range(4):
            np.testing.assert_allclose(ours.inward_normal(e=e, f=f), ref.inward_normal(e=e, f=f), atol=1e-15)
        for a in range(4):
            for b in range(a + 1, 4):
                np.testing.assert_array_equal(ours.edge_vector(e=e, a=a, b=b), ref.edge_vector(e=e, a=a, b=b))
    moved = mg.VolumeMesh(elements=ours.tetrahedra(), vertices=ours.vertex_array() + 1e-9)
    assert ours.Equal(moved, vertex_tolerance=1e-8) and not ours.Equal(moved)


def test_polygon_surface_mesh_matches_pydrake():
    pyd = _pydrake_geometry()
    verts = [(0, 0, 0), (1, 0, 0), (1, 1, 0.2), (0, 1, 0.2), (0.5, 0.5, 2.0)]
    face_data = [4, 0, 1, 2, 3, 3, 0, 4, 1, 3, 1, 4, 2]
    ours = mg.PolygonSurfaceMesh(face_data=face_data, vertices=verts)
    ref = pyd.PolygonSurfaceMesh(face_data=face_data, vertices=[np.array(v, float) for v in verts])
    assert ours.num_faces() == ref.num_faces() == 3
    for f in range(3):
        assert ours.area(f=f) == pytest.approx(ref.area(f=f), rel=1e-14)
        np.testing.assert_allclose(ours.face_normal(f=f), ref.face_normal(f=f), atol=1e-14)
        np.testing.assert_allclose(ours.element_centroid(e=f), ref.element_centroid(e=f), atol=1e-14)
        assert ours.element(e=f).num_vertices() == ref.element(e=f).num_vertices()
    np.testing.assert_allclose(ours.centroid(), ref.centroid(), atol=1e-14)
    assert ours.total_area() == pytest.approx(ref.total_area(), rel=1e-14)
    assert ours.face_data() == ref.face_data()
    with pytest.raises(ValueError, match="declares 4 vertices"):
        mg.PolygonSurfaceMesh(face_data=[4, 0, 1, 2], vertices=verts)


def test_read_obj_matches_pydrake(tmp_path):
    pyd = _pydrake_geometry()
    path = tmp_path / "quad_cube.obj"
    path.write_text(QUAD_CUBE)
    for kw in ({}, {"scale": 2.0}, {"scale3": [1.0, -2.0, 3.0]}):
        ours = mg.ReadObjToTriangleSurfaceMesh(filename=str(path), **kw)
        ref = pyd.ReadObjToTriangleSurfaceMesh(filename=str(path), **kw)
        T, V = _tri_arrays(ours)
        T_ref, V_ref = _tri_arrays(ref)
        np.testing.assert_array_equal(V, V_ref)
        assert T.shape == T_ref.shape
        # same outward winding: the enclosed volume agrees (a fan and tinyobj's quad split differ in the diagonal)
        for Tk, Vk in ((T, V), (T_ref, V_ref)):
            vol = np.einsum("ij,ij->i", Vk[Tk[:, 0]], np.cross(Vk[Tk[:, 1]], Vk[Tk[:, 2]])).sum() / 6
            assert vol == pytest.approx(8.0 * abs(np.prod(kw.get("scale3", [kw.get("scale", 1.0)] * 3))))
    empty = tmp_path / "points.obj"
    empty.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\n")
    with pytest.raises(ValueError, match="contains no objects"):
        mg.ReadObjToTriangleSurfaceMesh(str(empty))


def test_convert_volume_to_surface_matches_pydrake():
    pyd = _pydrake_geometry()
    for data in (TWO_TETS, STAR, CUBE6):
        ours = mg.ConvertVolumeToSurfaceMesh(_volume(mg, data))
        ref = pyd.ConvertVolumeToSurfaceMesh(_volume(pyd, data))
        for a, b in zip(_tri_arrays(ours), _tri_arrays(ref)):
            np.testing.assert_array_equal(a, b)


def test_refine_volume_mesh_matches_pydrake(tmp_path):
    pyd = _pydrake_geometry()
    for data in (TWO_TETS, STAR, CUBE6, (((0, 1, 2, 3),), ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)))):
        ours = mg.RefineVolumeMesh(mesh=_volume(mg, data))
        ref = pyd.RefineVolumeMesh(mesh=_volume(pyd, data))
        (E, V), (E_ref, V_ref) = _tet_arrays(ours), _tet_arrays(ref)
        np.testing.assert_array_equal(E, E_ref)
        np.testing.assert_allclose(V, V_ref, atol=1e-15)
    assert mg.RefineVolumeMesh(_volume(mg, STAR)).Equal(_volume(mg, STAR))
    vtk = tmp_path / "one.vtk"
    vtk.write_text("# vtk DataFile Version 2.0\none tetrahedron\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n"
                   "0.0 0.0 0.0\n1.0 0.0 0.0\n0.0 1.0 0.0\n0.0 0.0 1.0\n\nCELLS 1 5\n4 0 1 2 3\n\nCELL_TYPES 1\n10\n")
    ours = mg.RefineVolumeMeshIntoVtkFileContents(mesh_source=mg.MeshSource(str(vtk)))
    assert ours == pyd.RefineVolumeMeshIntoVtkFileContents(mesh_source=pyd.MeshSource(str(vtk)))


def test_convex_hull_matches_pydrake(tmp_path):
    pyd = _pydrake_geometry()
    path = tmp_path / "cube.obj"
    path.write_text(QUAD_CUBE)
    for scale3 in ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]):
        ours = mg.Convex(str(path), scale3=scale3).GetConvexHull()
        ref = pyd.Convex(str(path), scale3=scale3).GetConvexHull()
        assert isinstance(ours, mg.PolygonSurfaceMesh)
        assert (ours.num_faces(), ours.num_vertices()) == (ref.num_faces(), ref.num_vertices()) == (6, 8)
        assert ours.total_area() == pytest.approx(ref.total_area(), rel=1e-14)
        np.testing.assert_allclose(ours.centroid(), ref.centroid(), atol=1e-14)
        for a, b in zip(ours.CalcBoundingBox(), ref.CalcBoundingBox()):
            np.testing.assert_allclose(a, b, atol=1e-14)
    flat = mg.Convex(points=np.array([[0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 0]], float), label="square")
    hull = flat.GetConvexHull()  # coplanar points: a two-sided polygon (Drake fans it about an extra center)
    ref = pyd.Convex(points=np.array([[0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 0]], float), label="square")
    assert hull.total_area() == pytest.approx(ref.GetConvexHull().total_area()) == 2.0
    for a, b in zip(hull.CalcBoundingBox(), ref.GetConvexHull().CalcBoundingBox()):
        np.testing.assert_allclose(a, b, atol=1e-15)
    assert isinstance(mg._MakeConvexHull(mg.Convex(str(path))), mg.PolygonSurfaceMesh)
