"""Shapes, ids, Rgba, mesh files and shape mass properties (checked against MuJoCo's compiler)."""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from mallard.geometry import (Box, CalcShapeMassProperties, CalcVolume, Capsule, Convex, Cylinder, Ellipsoid,
                              FrameId, GeometryId, HalfSpace, HeightField, Mesh, MujocoPlane, Rgba, SourceId, Sphere)
from oracles import require_mujoco


def test_pydrake_constructors_and_accessors():
    b = Box(1.0, 2.0, 3.0)
    assert (b.width(), b.depth(), b.height()) == (1.0, 2.0, 3.0)
    np.testing.assert_array_equal(b.size(), [1, 2, 3])
    assert Box([1, 2, 3]) == b and Box.MakeCube(2.0).size().tolist() == [2, 2, 2]
    assert Sphere(0.5).radius() == 0.5
    c = Cylinder(0.1, 0.4)
    assert (c.radius(), c.length()) == (0.1, 0.4)
    k = Capsule(0.2, 0.6)
    assert (k.radius(), k.length()) == (0.2, 0.6)
    e = Ellipsoid(1, 2, 3)
    assert (e.a(), e.b(), e.c()) == (1, 2, 3)
    assert isinstance(b.Clone(), Box) and b.Clone() == b
    # MuJoCo-convention half sizes used by the kernels
    np.testing.assert_array_equal(b._kernel_size(), [0.5, 1.0, 1.5])
    np.testing.assert_array_equal(k._kernel_size(), [0.2, 0.3, 0.0])
    assert MujocoPlane([1, 2, 0.1])._kernel_type() == HalfSpace()._kernel_type() == 0


@pytest.mark.parametrize("make", [lambda: Sphere(-1), lambda: Box(1, 0, 1), lambda: Box(1, 1, float("nan")),
                                  lambda: Cylinder(0.1, -2), lambda: Capsule(0, 1), lambda: Ellipsoid(1, 1, 0),
                                  lambda: Box([1, 2])])
def test_non_positive_dimensions_raise(make):
    with pytest.raises(ValueError, match="must|needs"):
        make()


def test_halfspace_make_pose():
    X = HalfSpace.MakePose([0, 0, 2.0], [1, 2, 3])
    np.testing.assert_allclose(X.rotation().matrix()[:, 2], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(X.translation(), [0, 0, 3])  # (Drake: the boundary point nearest Fo)
    X = HalfSpace.MakePose([1.0, 1.0, 0], [0, 0, 0])
    np.testing.assert_allclose(X.rotation().matrix()[:, 2], [2 ** -0.5, 2 ** -0.5, 0], atol=1e-15)
    with pytest.raises(ValueError, match="non-zero normal"):
        HalfSpace.MakePose([0, 0, 0], [0, 0, 0])


def test_ids_are_unique_ordered_hashable_and_typed():
    a, b = GeometryId.get_new_id(), GeometryId.get_new_id()
    assert a != b and a < b and len({a, b, a}) == 2 and a.is_valid() and not GeometryId().is_valid()
    f = FrameId.get_new_id()
    assert f != a and SourceId.get_new_id() != f
    assert pickle.loads(pickle.dumps(a)) == a
    assert "GeometryId" in repr(a)


def test_rgba():
    c = Rgba(0.1, 0.2, 0.3)
    assert (c.r(), c.g(), c.b(), c.a()) == (0.1, 0.2, 0.3, 1.0)
    c.update(a=0.5)
    np.testing.assert_allclose(c.rgba, [0.1, 0.2, 0.3, 0.5])
    assert c.scale_rgb(2.0) == Rgba(0.2, 0.4, 0.6, 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Rgba(1.5, 0, 0)


def test_heightfield():
    h = HeightField(np.array([[0.0, 2.0], [1.0, 4.0]]), [1, 2, 0.5, 0.1])
    np.testing.assert_allclose(h.heights(), [[0, 0.5], [0.25, 1.0]])
    assert (h.nrow(), h.ncol()) == (2, 2)
    with pytest.raises(ValueError, match="4 values"):
        HeightField(np.zeros((2, 2)), [1, 1, 1])


@pytest.mark.parametrize("shape, volume", [
    (Sphere(0.3), 4 / 3 * math.pi * 0.027),
    (Box(0.2, 0.4, 0.6), 0.048),
    (Cylinder(0.1, 0.5), math.pi * 0.01 * 0.5),
    (Capsule(0.1, 0.5), math.pi * (0.01 * 0.5 + 4 / 3 * 0.001)),
    (Ellipsoid(0.1, 0.2, 0.3), 4 / 3 * math.pi * 0.006),
])
def test_primitive_mass_properties_match_mujoco(shape, volume):
    """Mass and inertia of a geom compiled by MuJoCo (density 1000) equal ours."""
    mujoco = require_mujoco()
    assert CalcVolume(shape) == pytest.approx(volume, rel=1e-14)
    t = {Sphere: "sphere", Box: "box", Cylinder: "cylinder", Capsule: "capsule", Ellipsoid: "ellipsoid"}[type(shape)]
    size = shape._kernel_size()
    size = size[:{"sphere": 1, "capsule": 2, "cylinder": 2}.get(t, 3)]
    m = mujoco.MjModel.from_xml_string(
        f'<mujoco><worldbody><body><freejoint/><geom type="{t}" size="{" ".join(map(repr, size.tolist()))}"/>'
        "</body></worldbody></mujoco>")
    mass, I = CalcShapeMassProperties(shape).inertia(1000.0)
    assert mass == pytest.approx(m.body_mass[1], rel=1e-12)
    np.testing.assert_allclose(np.sort(np.diag(I)), np.sort(m.body_inertia[1]), rtol=1e-10)
    np.testing.assert_allclose(I, np.diag(np.diag(I)), atol=0)


def test_halfspace_has_no_volume():
    with pytest.raises(ValueError, match="unbounded"):
        CalcVolume(HalfSpace())


def test_mesh_files_load_with_trimesh(models_dir, tmp_path):
    obj = models_dir / "drake_models/iiwa_description/meshes/iiwa14/collision/link_3.obj"
    mesh = Mesh(str(obj), scale=2.0)
    assert mesh.extension() == ".obj" and mesh.scale() == 2.0 and mesh.filename() == str(obj)
    v, f = mesh._mesh_arrays()
    import trimesh

    ref = trimesh.load(str(obj), force="mesh", process=False)
    np.testing.assert_allclose(v, 2.0 * np.asarray(ref.vertices))
    hull = Convex(str(obj)).GetConvexHull()
    assert 4 <= hull.num_vertices() <= v.shape[0]
    # the convex hull's volume matches trimesh's
    props = CalcShapeMassProperties(Convex(str(obj), scale3=[1, 1, 1]))
    assert props.volume == pytest.approx(ref.convex_hull.volume, rel=1e-9)
    np.testing.assert_allclose(props.p_GoGcm_G, ref.convex_hull.center_mass, atol=1e-12)
    G = ref.convex_hull.moment_inertia / ref.convex_hull.mass
    np.testing.assert_allclose(props.G_GGcm_G, G, rtol=1e-8, atol=1e-14)
    gltf = models_dir / "drake_models/iiwa_description/meshes/iiwa14/visual/link_3.gltf"
    assert Mesh(str(gltf))._mesh_arrays()[0].shape[0] > 10


def test_mesh_file_errors(tmp_path):
    # As in Drake, a Mesh is made without reading its file; using the data raises, naming the file.
    missing = tmp_path / "nope.obj"
    m = Mesh(str(missing))
    with pytest.raises(FileNotFoundError, match="nope.obj"):
        m._mesh_arrays()
    with pytest.raises(RuntimeError, match="cannot read the file"):  # pydrake's exception type
        m.GetConvexHull()
    bad = tmp_path / "broken.obj"
    bad.write_text("this is not an obj file\nv 1 2\n")
    m = Convex(str(bad))
    with pytest.raises(ValueError, match="broken.obj"):
        m._mesh_arrays()
    weird = tmp_path / "model.xyz"
    weird.write_text("1 2 3")
    with pytest.raises(ValueError, match="unsupported mesh file type"):
        Mesh(str(weird))._mesh_arrays()
    with pytest.raises(RuntimeError, match="MakeConvexHull only applies to"):
        Mesh(str(weird)).GetConvexHull()
    with pytest.raises(ValueError, match="scale"):
        Mesh(str(bad), scale=0.0)


def test_gltf_meshes_are_read_z_up_like_drake(models_dir):
    from mallard.geometry.meshes import load_mesh
    base = models_dir / "drake_models" / "iiwa_description" / "meshes" / "iiwa14"
    v_gltf, _ = load_mesh(str(base / "visual" / "link_1.gltf"))
    v_obj, _ = load_mesh(str(base / "collision" / "link_1.obj"))
    ext_gltf = v_gltf.max(axis=0) - v_gltf.min(axis=0)
    ext_obj = v_obj.max(axis=0) - v_obj.min(axis=0)
    # the visual and collision meshes of one link agree in extent along each axis (z is the long axis)
    np.testing.assert_allclose(ext_gltf, ext_obj, rtol=0.15)
    assert np.argmax(ext_gltf) == np.argmax(ext_obj) == 2
