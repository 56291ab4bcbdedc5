"""Shapes as pydrake has them: the `measures` constructors, reprs that eval back, Mesh/Convex sources
(paths and InMemoryMesh), pickles, and MemoryFile (against pydrake)."""
from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest

import mallard.geometry as mg
from mallard.common import MemoryFile
from oracles import require_pydrake


def _pyd():
    require_pydrake()
    import pydrake.common
    import pydrake.geometry

    return pydrake.geometry, pydrake.common


def test_primitive_reprs_and_measures_match_pydrake():
    pg, _ = _pyd()
    pairs = [(mg.Box(1.5, 0.1, 1e-3), pg.Box(1.5, 0.1, 1e-3)), (mg.Box(measures=[1, 2, 3]), pg.Box([1, 2, 3])),
             (mg.Sphere(radius=2), pg.Sphere(2)), (mg.Capsule(measures=(1.0, 2.0)), pg.Capsule(1, 2)),
             (mg.Cylinder(radius=0.25, length=3), pg.Cylinder(0.25, 3)),
             (mg.Ellipsoid(measures=(1, 2, 3)), pg.Ellipsoid(1, 2, 3)), (mg.HalfSpace(), pg.HalfSpace()),
             (mg.MeshcatCone(1.2), pg.MeshcatCone(1.2)), (mg.MeshcatCone(measures=[1, 2, 3]), pg.MeshcatCone(1, 2, 3))]
    for ours, ref in pairs:
        assert repr(ours) == repr(ref)
        again = eval(repr(ours), {type(ours).__name__: type(ours)})
        assert again == ours and repr(again) == repr(ours)
        assert pickle.loads(pickle.dumps(ours)) == ours
        clone = ours.Clone()
        assert clone == ours and clone is not ours and type(clone) is type(ours)
    with pytest.raises(ValueError, match="needs 3 values"):
        mg.Box(measures=[1, 2])


def test_mesh_sources_and_reprs_match_pydrake(tmp_path):
    pg, pc = _pyd()
    f, f_ref = MemoryFile("v 0 0 0\n", ".OBJ", "hint"), pc.MemoryFile("v 0 0 0\n", ".OBJ", "hint")
    assert repr(f) == repr(f_ref) and f.extension() == f_ref.extension() == ".obj"
    big = "x" * 150
    assert repr(MemoryFile(big, ".obj", "h")) == repr(pc.MemoryFile(big, ".obj", "h"))
    im, im_ref = mg.InMemoryMesh(mesh_file=f), pg.InMemoryMesh(mesh_file=f_ref)
    assert repr(im) == repr(im_ref)
    cases = [(mg.Mesh("/a/p.obj", 2.0), pg.Mesh("/a/p.obj", 2.0)),
             (mg.Mesh(filename="rel/p.obj", scale3=[1, 2, 3]), pg.Mesh(filename="rel/p.obj", scale3=[1, 2, 3])),
             (mg.Convex(mesh_data=im, scale=0.5), pg.Convex(mesh_data=im_ref, scale=0.5)),
             (mg.Mesh(source=mg.MeshSource("/x/y.gltf")), pg.Mesh(source=pg.MeshSource("/x/y.gltf"))),
             (mg.Convex(points=np.eye(3, 4), label="pts", scale=2), pg.Convex(points=np.eye(3, 4), label="pts", scale=2))]
    for ours, ref in cases:
        assert repr(ours) == repr(ref)
        assert ours.extension() == ref.extension()
        np.testing.assert_array_equal(ours.scale3(), ref.scale3())
        assert ours.source().is_path() == ref.source().is_path()
        assert ours.source().description() == ref.source().description()
        names = {"Mesh": mg.Mesh, "Convex": mg.Convex, "InMemoryMesh": mg.InMemoryMesh, "MemoryFile": MemoryFile}
        assert eval(repr(ours), names) == ours
        assert pickle.loads(pickle.dumps(ours)) == ours and copy.deepcopy(ours) == ours
    assert mg.Mesh("/a/p.obj", 2.0).source().path() == Path("/a/p.obj")
    with pytest.raises(RuntimeError, match="uniform"):
        mg.Mesh("/a/p.obj", scale3=[1, 2, 3]).scale()
    with pytest.raises(RuntimeError, match="is a path"):
        mg.MeshSource("/a/b.obj").in_memory()


def test_legacy_pickles_of_meshes_load():
    # Drake 1.33 pickled a Mesh as (filename, scale); mallard reads that state too.
    mesh = mg.Mesh.__new__(mg.Mesh)
    mesh.__setstate__(("/path/to/file.obj", 2.0))
    assert mesh.source().path() == Path("/path/to/file.obj") and mesh.scale() == 2.0
    source = mg.MeshSource.__new__(mg.MeshSource)
    source.__setstate__({"path": "/a/b.obj"})
    assert source.is_path() and source.extension() == ".obj"
    im = mg.InMemoryMesh.__new__(mg.InMemoryMesh)
    im.__setstate__({"mesh_file": MemoryFile("a", ".obj", "h")})
    assert im.supporting_files == {} and im.mesh_file.contents() == b"a"


def test_in_memory_mesh_is_read_like_a_file(tmp_path):
    obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    path = tmp_path / "tet.obj"
    path.write_text(obj)
    from_file = mg.Mesh(str(path), scale3=[1, 2, 3])
    in_memory = mg.Mesh(mg.InMemoryMesh(MemoryFile.Make(path)), scale3=[1, 2, 3])
    for a, b in zip(from_file._mesh_arrays(), in_memory._mesh_arrays()):
        np.testing.assert_array_equal(a, b)
    assert mg.CalcVolume(from_file) == pytest.approx(6.0 / 6.0)
    with pytest.raises(RuntimeError, match="cannot read the file"):
        MemoryFile.Make(tmp_path / "missing.obj")


def test_gltf_buffer_behind_a_symlink_is_read_as_pydrake_reads_it(tmp_path, models_dir):
    """A glTF whose .bin is a symlink to another folder (Bazel runfiles, a package cache of links): trimesh 5's
    default resolver refuses it; Drake reads it, and so does mallard (convex hull and Meshcat both load it)."""
    pg, _ = _pyd()
    visual = models_dir / "drake_models" / "iiwa_description" / "meshes" / "iiwa14" / "visual"
    (tmp_path / "kuka.gltf").write_bytes((visual / "kuka.gltf").read_bytes())
    (tmp_path / "kuka.bin").symlink_to(visual / "kuka.bin")
    ours, theirs = mg.Mesh(str(tmp_path / "kuka.gltf")).GetConvexHull(), \
        pg.Mesh(str(tmp_path / "kuka.gltf")).GetConvexHull()
    assert (ours.num_vertices(), ours.num_faces()) == (theirs.num_vertices(), theirs.num_faces())

    def corners(m):
        return sorted(map(tuple, np.round([m.vertex(i) for i in range(m.num_vertices())], 9)))

    np.testing.assert_allclose(corners(ours), corners(theirs), atol=1e-9)
    from mallard.geometry.meshcat_shapes import _trimesh_parts

    V, F, _ = _trimesh_parts(str(tmp_path / "kuka.gltf"), True)
    assert V.shape[1] == 3 and len(F) > 0
