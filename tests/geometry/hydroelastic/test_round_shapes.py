"""Hydroelastic Cylinder, Capsule, Convex and Mesh (.vtk volume mesh, .obj convex hull) against pydrake 1.51: the
contact surfaces of compliant ones on a rigid half space and a compliant sphere, and of rigid cylinders / capsules
under a compliant sphere (area, ∫p·n dA and centroid to 1e-9; polygon counts equal where the tetrahedra are Drake's);
the meshes' volumes and orientation; a compliant cylinder and capsule dropped on the ground (rest pose and force)."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma
from mallard.geometry.hydroelastic.fields import CylinderPressure
from mallard.geometry.hydroelastic.primitive_meshes import MakeBoxVolumeMesh
from mallard.geometry.hydroelastic.round_meshes import (MakeCapsuleVolumeMesh, MakeConvexVolumeMesh,
                                                        MakeCylinderVolumeMesh)
from mallard.geometry.vtk_io import WriteVolumeMeshToVtkFileContents
from oracles import require_pydrake

OBJ = "/work/shared/models/drake_models/iiwa_description/meshes/iiwa14/collision/link_7.obj"
# (shape, height of the body's origin above its lowest point before the 5 mm penetration)
SHAPES = {"cylinder_long": (("Cylinder", 0.05, 0.3), 0.15), "cylinder_medium": (("Cylinder", 0.05, 0.1), 0.05),
          "cylinder_short": (("Cylinder", 0.1, 0.06), 0.03), "capsule": (("Capsule", 0.05, 0.2), 0.15),
          "vtk": (("Mesh", "box.vtk"), 0.05), "convex": (("Convex", OBJ), 0.0), "obj_mesh": (("Mesh", OBJ), 0.0)}


def _props(M, kind, E=1e6, res=0.02):
    p = M.ProximityProperties()
    M.AddContactMaterial(dissipation=1.0, friction=M.CoulombFriction(0.5, 0.5), properties=p)
    if kind == "soft":
        M.AddCompliantHydroelasticProperties(res, E, p)
    else:
        M.AddRigidHydroelasticProperties(res, p)
    return p


def _shape(M, spec, folder):
    kind, *args = spec
    if kind == "Mesh" and args[0] == "box.vtk":
        return M.Mesh(str(folder / "box.vtk"))
    return getattr(M, kind)(*args)


def _surfaces(M, name, kind, other, folder):
    spec, z = SHAPES[name]
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    body = plant.AddRigidBody("b", M.SpatialInertia.SolidBoxWithMass(2.0, .2, .3, .1))
    plant.RegisterCollisionGeometry(body, M.RigidTransform(), _shape(M, spec, folder), "g", _props(M, kind))
    if other == "plane":
        plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.HalfSpace(), "ground",
                                        _props(M, "rigid"))
    else:
        plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform([0, 0, -0.1]), M.Sphere(0.1), "ball",
                                        _props(M, "soft", E=3e6))
    plant.Finalize()
    diagram = builder.Build()
    ctx = diagram.CreateDefaultContext()
    plant.SetFreeBodyPose(plant.GetMyContextFromRoot(ctx), body,
                          M.RigidTransform(M.RollPitchYaw(0.1, -0.05, 0.3), [0.01, 0, z - 0.005]))
    q = sg.get_query_output_port().Eval(sg.GetMyContextFromRoot(ctx))
    out = []
    for s in q.ComputeContactSurfaces(M.HydroelasticContactRepresentation.kPolygon):
        F = sum(s.area(f) * s.poly_e_MN().EvaluateCartesian(f, s.centroid(f)) * s.face_normal(f)
                for f in range(s.num_faces()))
        out.append((s.num_faces(), s.total_area(), F, s.centroid()))
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("hydro_shapes")
    (d / "box.vtk").write_text(WriteVolumeMeshToVtkFileContents(MakeBoxVolumeMesh((0.2, 0.3, 0.1)), "box"))
    return d


CASES = [(n, "soft", o) for n in SHAPES for o in ("plane", "sphere")] + \
    [(n, "rigid", "sphere") for n in ("cylinder_long", "cylinder_short", "capsule")]


@pytest.mark.parametrize("name,kind,other", CASES)
def test_surfaces_match_pydrake(name, kind, other, folder):
    require_pydrake()
    import pydrake.all as pd
    got, want = _surfaces(ma, name, kind, other, folder), _surfaces(pd, name, kind, other, folder)
    assert len(got) == len(want) == 1
    (nf, area, F, c), (nf_d, area_d, F_d, c_d) = got[0], want[0]
    assert area == pytest.approx(area_d, rel=1e-9)
    np.testing.assert_allclose(F, F_d, rtol=1e-9, atol=1e-9 * np.linalg.norm(F_d))
    np.testing.assert_allclose(c, c_d, atol=1e-10)
    if name.startswith(("cylinder", "capsule")) or other == "plane" and name == "vtk":
        assert nf == nf_d  # Drake's tetrahedra: the same polygons


def _volumes(m):
    return np.array([m.CalcTetrahedronVolume(e) for e in range(m.num_elements())])


@pytest.mark.parametrize("r,length", [(0.05, 0.3), (0.05, 0.1), (0.2, 0.1)])
def test_meshes(r, length):
    cyl = MakeCylinderVolumeMesh(r, length, 0.02)
    n = int(np.ceil(2 * np.pi * r / 0.02))
    v = _volumes(cyl)
    # n rim vertices: the volume of the inscribed prism, every tetrahedron positive
    assert v.min() > 0 and v.sum() == pytest.approx(0.5 * n * r * r * np.sin(2 * np.pi / n) * length, rel=1e-12)
    p = CylinderPressure(cyl.vertex_array(), cyl.element_array(), r, length, 1.0)
    assert p.max() == pytest.approx(1.0) and p.min() == 0.0
    cap = MakeCapsuleVolumeMesh(r, length, 0.02)
    assert _volumes(cap).min() > 0
    np.testing.assert_array_equal(cap.vertex_array()[:2], [[0, 0, length / 2], [0, 0, -length / 2]])
    V, F = ma.Convex(OBJ)._hull_arrays()
    hull = MakeConvexVolumeMesh(V, F)  # the hull's triangles joined to its centroid: all positive, same volume
    enclosed = np.einsum("ij,ij->i", np.cross(V[F[:, 0]], V[F[:, 1]]), V[F[:, 2]]).sum() / 6.0
    assert _volumes(hull).min() > 0 and _volumes(hull).sum() == pytest.approx(enclosed, rel=1e-12)


def _drop(M, spec, rpy, z0):
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    body = plant.AddRigidBody("b", M.SpatialInertia.SolidCylinderWithMass(1.0, 0.05, 0.2, [0, 0, 1]))
    plant.RegisterCollisionGeometry(body, M.RigidTransform(), getattr(M, spec[0])(*spec[1:]), "g",
                                    _props(M, "soft", E=1e6, res=0.01))
    plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.HalfSpace(), "ground",
                                    _props(M, "rigid"))
    plant.Finalize()
    sim = M.Simulator(builder.Build())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    plant.SetFreeBodyPose(pc, body, M.RigidTransform(M.RollPitchYaw(*rpy), [0, 0, z0]))
    sim.AdvanceTo(1.0)
    r = plant.get_contact_results_output_port().Eval(pc)
    info = r.hydroelastic_contact_info(0)
    return plant.EvalBodyPoseInWorld(pc, body).translation(), info.F_Ac_W().translational()


@pytest.mark.parametrize("spec,rpy,z0", [(("Cylinder", 0.05, 0.2), (0.02, 0.01, 0.2), 0.102),
                                         (("Capsule", 0.05, 0.2), (1.5, 0.0, 0.3), 0.052)])
def test_drop_matches_pydrake(spec, rpy, z0):
    """A compliant cylinder dropped on its end and a capsule on its side (discrete, kLagged) for 1 s."""
    require_pydrake()
    import pydrake.all as pd
    (p, F), (p_d, F_d) = _drop(ma, spec, rpy, z0), _drop(pd, spec, rpy, z0)
    np.testing.assert_allclose(p, p_d, atol=1e-4)
    np.testing.assert_allclose(F, F_d, rtol=2e-2, atol=2e-2 * np.linalg.norm(F_d))
