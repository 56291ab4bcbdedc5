"""The meshes that represent geometries in hydroelastic contact (SceneGraphInspector.maybe_get_hydroelastic_mesh)
against pydrake 1.51: compliant Sphere, Box (each medial-axis kind: point, segment, rectangle, along each axis),
Cylinder, Capsule, Ellipsoid and Mesh (.vtk volume mesh) have Drake's tetrahedra, and rigid shapes Drake's
triangles (the same simplices, compared as sets of vertex positions); Convex and .obj Mesh (convex hulls) the same
vertices and volume or area; half spaces have none."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma
from mallard.geometry.hydroelastic.primitive_meshes import MakeBoxVolumeMesh
from mallard.geometry.vtk_io import WriteVolumeMeshToVtkFileContents
from oracles import require_pydrake

OBJ = "/work/shared/models/drake_models/iiwa_description/meshes/iiwa14/collision/link_7.obj"
SHAPES = {"box_point": ("Box", 0.2, 0.2, 0.2), "box_segment_z": ("Box", 0.1, 0.1, 0.4),
          "box_segment_x": ("Box", 0.4, 0.1, 0.1), "box_segment_y": ("Box", 0.1, 0.4, 0.1),
          "box_rectangle_z": ("Box", 0.2, 0.3, 0.1), "box_rectangle_x": ("Box", 0.1, 0.3, 0.2),
          "box_rectangle_y": ("Box", 0.3, 0.1, 0.2), "sphere": ("Sphere", 0.05),
          "ellipsoid": ("Ellipsoid", 0.05, 0.07, 0.03), "cylinder": ("Cylinder", 0.05, 0.2),
          "capsule": ("Capsule", 0.05, 0.2), "convex": ("Convex", OBJ), "obj_mesh": ("Mesh", OBJ),
          "vtk_mesh": ("Mesh", "box.vtk")}
RIGID = ["box_rectangle_z", "sphere", "ellipsoid", "cylinder", "capsule", "convex", "obj_mesh"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("field_meshes")
    (d / "box.vtk").write_text(WriteVolumeMeshToVtkFileContents(MakeBoxVolumeMesh((0.2, 0.3, 0.1)), "box"))
    return d


def _mesh(M, name: str, compliance: str, folder):
    """(vertices, simplices) of the hydroelastic mesh of shape `name` registered with module M (None: no mesh)."""
    kind, *args = SHAPES[name]
    if args[0] == "box.vtk":
        args = [str(folder / "box.vtk")]
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    body = plant.AddRigidBody("b", M.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    props = M.ProximityProperties()
    if compliance == "compliant":
        M.AddCompliantHydroelasticProperties(0.02, 1e6, props)
    else:
        M.AddRigidHydroelasticProperties(0.02, props)
    gid = plant.RegisterCollisionGeometry(body, M.RigidTransform(), getattr(M, kind)(*args), name, props)
    rigid = M.ProximityProperties()
    M.AddRigidHydroelasticProperties(0.02, rigid)
    ground = plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.HalfSpace(), "ground", rigid)
    plant.Finalize()
    builder.Build()
    inspector = sg.model_inspector()
    assert inspector.maybe_get_hydroelastic_mesh(ground) is None
    m = inspector.maybe_get_hydroelastic_mesh(gid)
    V = np.array([m.vertex(i) for i in range(m.num_vertices())])
    n = 4 if compliance == "compliant" else 3
    T = np.array([[m.element(e).vertex(k) for k in range(n)] for e in range(m.num_elements())])
    return V, T


def _simplices(V, T) -> list:
    """Each simplex as the sorted tuple of its vertices' positions (rounded to 1e-9 m), sorted."""
    return sorted(tuple(sorted(tuple(np.round(V[i], 9)) for i in t)) for t in T)


@pytest.mark.parametrize("name, compliance", [(n, "compliant") for n in SHAPES] + [(n, "rigid") for n in RIGID])
def test_hydroelastic_meshes_match_pydrake(name, compliance, folder):
    require_pydrake()
    import pydrake.all as pd
    V, T = _mesh(ma, name, compliance, folder)
    Vd, Td = _mesh(pd, name, compliance, folder)
    assert (len(V), len(T)) == (len(Vd), len(Td))
    if name in ("convex", "obj_mesh"):
        # a convex hull: the same vertices (and, compliant, its centroid) and the same solid; its coplanar facets'
        # triangles differ (Drake fans qhull's polygons from their first vertex)
        assert sorted(map(tuple, np.round(V, 9))) == sorted(map(tuple, np.round(Vd, 9)))
        assert _measure(V, T) == pytest.approx(_measure(Vd, Td), rel=1e-12)
    else:
        assert _simplices(V, T) == _simplices(Vd, Td)


def _measure(V, T) -> float:
    """Total volume of tetrahedra (rows of 4) or total area of triangles (rows of 3)."""
    P = V[T]
    if T.shape[1] == 4:
        return float(np.sum(np.abs(np.einsum("ij,ij->i", P[:, 3] - P[:, 0],
                                             np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])))) / 6.0)
    return float(np.sum(np.linalg.norm(np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), axis=1)) / 2.0)


@pytest.mark.parametrize("size, counts", [((0.2, 0.2, 0.2), (15, 24)), ((0.1, 0.4, 0.1), (17, 40)),
                                          ((0.1, 0.3, 0.2), (18, 44))])
def test_box_meshes_fill_the_box(size, counts):
    """Drake's box meshes (no oracle needed): vertex and tetrahedron counts, positive volumes that sum to the box's,
    every vertex on the boundary or the medial axis."""
    m = MakeBoxVolumeMesh(size)
    assert (m.num_vertices(), m.num_elements()) == counts
    vols = np.array([m.CalcTetrahedronVolume(e) for e in range(m.num_elements())])
    assert vols.min() > 0 and vols.sum() == pytest.approx(np.prod(size), rel=1e-12)
