"""Hydroelastic representations of a scene's proximity geometries (Drake's hydroelastic::Geometries), packed into
arrays for the compiled contact-surface kernels (surface_kernels.py).

A geometry with ("hydroelastic", "compliance_type") = "rigid" gets a triangle surface mesh (a half space stays a
plane); "compliant" gets a tetrahedral mesh with a pressure field (a half space gets a slab of thickness
slab_thickness). All arrays are in each geometry's frame G; per geometry k, soft tetrahedra are rows
tet_adr[k] : tet_adr[k] + tet_num[k] and rigid triangles tri_adr[k] : tri_adr[k] + tri_num[k] of the shared arrays.
Built once per GeometryState version, when the scene is compiled.
"""
from __future__ import annotations

import numpy as np

from mallard.geometry import shapes as S
from mallard.geometry.hydroelastic.fields import (BoxPressure, CapsulePressure, CylinderPressure, EllipsoidPressure,
                                                  LinearFieldGradients, SpherePressure, VolumeMeshPressure)
from mallard.geometry.hydroelastic.surface_kernels import (HYDRO_NONE, HYDRO_RIGID_MESH, HYDRO_RIGID_PLANE,
                                                           HYDRO_SOFT_MESH, HYDRO_SOFT_PLANE)
from mallard.geometry.hydroelastic.primitive_meshes import (MakeBoxSurfaceMesh, MakeBoxVolumeMesh,
                                                            MakeEllipsoidSurfaceMesh, MakeEllipsoidVolumeMesh,
                                                            MakeSphereSurfaceMesh, MakeSphereVolumeMesh)
from mallard.geometry.hydroelastic.round_meshes import (MakeCapsuleSurfaceMesh, MakeCapsuleVolumeMesh,
                                                        MakeConvexVolumeMesh, MakeCylinderSurfaceMesh,
                                                        MakeCylinderVolumeMesh)
from mallard.geometry.mesh_shapes import Convex, Mesh
from mallard.geometry.surface_mesh import TriangleSurfaceMesh
from mallard.geometry.volume_mesh import VolumeMesh
from mallard.geometry.vtk_io import ReadVtkToVolumeMesh
from mallard.geometry.properties import HYDRO_GROUP

__all__ = ["HydroelasticMesh", "HydroelasticScene", "HYDRO_NONE", "HYDRO_RIGID_MESH", "HYDRO_RIGID_PLANE", "HYDRO_SOFT_MESH",
           "HYDRO_SOFT_PLANE", "ComplianceOf"]



def ComplianceOf(props) -> str:
    """The geometry's hydroelastic compliance type: 'undefined', 'rigid' or 'compliant'."""
    if props is None:
        return "undefined"
    return str(props.GetPropertyOrDefault(HYDRO_GROUP, "compliance_type", "undefined"))


def _positive(props, name: str, shape: str, compliance: str) -> float:
    """A required positive ("hydroelastic", name) property, with Drake's error when missing or not positive."""
    full = f"('{HYDRO_GROUP}', '{name}')"
    if props is None or not props.HasProperty(HYDRO_GROUP, name):
        raise RuntimeError(f"Cannot create {compliance} {shape}; missing the {full} property")
    value = float(props.GetProperty(HYDRO_GROUP, name))
    if not value > 0:
        raise RuntimeError(f"Cannot create {compliance} {shape}; the {full} property must be positive")
    return value


def _rigid_surface(shape, props, name: str):
    """(vertices (n, 3), triangles (m, 3)) of a rigid geometry's surface mesh in G."""
    if isinstance(shape, S.Box):
        m = MakeBoxSurfaceMesh(shape.size())
    elif isinstance(shape, S.Sphere):
        m = MakeSphereSurfaceMesh(shape.radius(), _positive(props, "resolution_hint", "Sphere", "rigid"))
    elif isinstance(shape, S.Ellipsoid):
        m = MakeEllipsoidSurfaceMesh(shape.a(), shape.b(), shape.c(),
                                     _positive(props, "resolution_hint", "Ellipsoid", "rigid"))
    elif isinstance(shape, S.Cylinder):
        m = MakeCylinderSurfaceMesh(shape.radius(), shape.length(),
                                    _positive(props, "resolution_hint", "Cylinder", "rigid"))
    elif isinstance(shape, S.Capsule):
        m = MakeCapsuleSurfaceMesh(shape.radius(), shape.length(),
                                   _positive(props, "resolution_hint", "Capsule", "rigid"))
    elif isinstance(shape, Convex):
        return shape._hull_arrays()
    elif isinstance(shape, Mesh):
        if shape.extension() not in (".obj", ".vtk"):
            raise RuntimeError(f"hydroelastic::MakeRigidRepresentation(): for rigid hydroelastic Mesh shapes can "
                               f"only use .obj or .vtk files; given: {shape.filename()} (geometry '{name}')")
        return shape._mesh_arrays()
    else:
        raise RuntimeError(f"geometry '{name}': mallard has no rigid hydroelastic representation of "
                           f"{type(shape).__name__} shapes (Box, Sphere, Cylinder, Capsule, Ellipsoid, Convex, Mesh, "
                           "HalfSpace have one); remove its hydroelastic properties to use point contact for it")
    return m.vertex_array(), m.element_array()


def _soft_volume(shape, props, name: str):
    """(vertices, tetrahedra, vertex pressures) of a compliant geometry in G."""
    if props.HasProperty(HYDRO_GROUP, "margin") and float(props.GetProperty(HYDRO_GROUP, "margin")) != 0.0:
        raise RuntimeError(f"geometry '{name}': a hydroelastic margin is not supported by mallard; remove the "
                           f"('{HYDRO_GROUP}', 'margin') property")
    kind = type(shape).__name__
    if isinstance(shape, S.Box):
        m = MakeBoxVolumeMesh(shape.size())
        E = _positive(props, "hydroelastic_modulus", kind, "soft")
        return m.vertex_array(), m.element_array(), BoxPressure(m.vertex_array(), shape.size(), E)
    if isinstance(shape, S.Sphere):
        m = MakeSphereVolumeMesh(shape.radius(), _positive(props, "resolution_hint", kind, "soft"))
        E = _positive(props, "hydroelastic_modulus", kind, "soft")
        return m.vertex_array(), m.element_array(), SpherePressure(m.vertex_array(), shape.radius(), E)
    if isinstance(shape, S.Ellipsoid):
        abc = (shape.a(), shape.b(), shape.c())
        m = MakeEllipsoidVolumeMesh(*abc, _positive(props, "resolution_hint", kind, "soft"))
        E = _positive(props, "hydroelastic_modulus", kind, "soft")
        return m.vertex_array(), m.element_array(), EllipsoidPressure(m.vertex_array(), abc, E)
    if isinstance(shape, S.Cylinder):
        m = MakeCylinderVolumeMesh(shape.radius(), shape.length(), _positive(props, "resolution_hint", kind, "soft"))
        E = _positive(props, "hydroelastic_modulus", kind, "soft")
        V, T = m.vertex_array(), m.element_array()
        return V, T, CylinderPressure(V, T, shape.radius(), shape.length(), E)
    if isinstance(shape, S.Capsule):
        m = MakeCapsuleVolumeMesh(shape.radius(), shape.length(), _positive(props, "resolution_hint", kind, "soft"))
        E = _positive(props, "hydroelastic_modulus", kind, "soft")
        return m.vertex_array(), m.element_array(), CapsulePressure(m.vertex_array(), E)
    if isinstance(shape, (Convex, Mesh)):
        E = _positive(props, "hydroelastic_modulus", kind, "soft")
        if isinstance(shape, Mesh) and shape.extension() == ".vtk":  # a tetrahedral mesh as given
            m = ReadVtkToVolumeMesh(shape.source(), shape.scale3())
            V, T = m.vertex_array(), m.element_array()
            vol = np.array([m.CalcTetrahedronVolume(e) for e in range(m.num_elements())])
            T = T[vol > 0]  # Drake drops the non-positive tetrahedra
        else:  # the convex hull joined to its centroid
            m = MakeConvexVolumeMesh(*shape._hull_arrays())
            V, T = m.vertex_array(), m.element_array()
        return V, T, VolumeMeshPressure(V, T, E, name)
    raise RuntimeError(f"geometry '{name}': mallard has no compliant hydroelastic representation of {kind} shapes; "
                       "make it rigid or remove its hydroelastic properties to use point contact for it")


def HydroelasticMesh(shape, props, name: str) -> VolumeMesh | TriangleSurfaceMesh | None:
    """The mesh that represents a geometry in hydroelastic contact (in its frame G), as Drake's
    SceneGraphInspector.maybe_get_hydroelastic_mesh: a compliant geometry's tetrahedral mesh, a rigid one's triangle
    surface mesh, None for a half space or a geometry without hydroelastic properties."""
    compliance = ComplianceOf(props)
    if compliance not in ("rigid", "compliant") or isinstance(shape, S.HalfSpace):
        return None
    if compliance == "rigid":
        V, T = _rigid_surface(shape, props, name)
        return TriangleSurfaceMesh(triangles=np.asarray(T, np.int64), vertices=np.asarray(V, float))
    V, T, _pressure = _soft_volume(shape, props, name)
    return VolumeMesh(elements=np.asarray(T, np.int64), vertices=np.asarray(V, float))


def _spheres(P: np.ndarray) -> np.ndarray:
    """Bounding spheres (center (3), radius) of the simplices P (m, k, 3)."""
    if P.shape[0] == 0:
        return np.zeros((0, 4))
    c = P.mean(axis=1)
    r = np.sqrt(np.max(np.sum((P - c[:, None, :]) ** 2, axis=2), axis=1))
    return np.column_stack([c, r])


class HydroelasticScene:
    """The packed hydroelastic representations of proximity geometries (rows in proximity order) and the
    geometry pairs that get a contact surface."""

    def __init__(self, shapes: list, props: list, names: list, filtered, gid: np.ndarray):
        n = len(shapes)
        self.gid = np.asarray(gid, np.int64)  # GeometryId value of each row (M is the smaller)
        self.kind = np.zeros(n, np.int64)
        self.modulus = np.full(n, np.inf)       # hydroelastic modulus E [Pa]; inf for rigid geometries
        self.slab = np.zeros(n)                 # slab thickness of a compliant half space [m]
        self.bound = np.zeros((n, 4))           # bounding sphere of the representation in G (inf for half spaces)
        self.tet_adr = np.zeros(n, np.int64)
        self.tet_num = np.zeros(n, np.int64)
        self.tri_adr = np.zeros(n, np.int64)
        self.tri_num = np.zeros(n, np.int64)
        sv, st, sp, rv, rt = [], [], [], [], []
        nsv = nst = nrv = nrt = 0
        for k, (shape, p) in enumerate(zip(shapes, props)):
            compliance = ComplianceOf(p)
            if compliance == "undefined":
                continue
            if compliance not in ("rigid", "compliant"):
                raise RuntimeError(f"geometry '{names[k]}': unknown hydroelastic compliance_type '{compliance}'")
            if isinstance(shape, S.HalfSpace):
                self.bound[k] = (0.0, 0.0, 0.0, np.inf)
                if compliance == "rigid":
                    self.kind[k] = HYDRO_RIGID_PLANE
                else:
                    self.kind[k] = HYDRO_SOFT_PLANE
                    self.slab[k] = _positive(p, "slab_thickness", "HalfSpace", "soft")
                    self.modulus[k] = _positive(p, "hydroelastic_modulus", "HalfSpace", "soft")
                continue
            if compliance == "rigid":
                V, T = _rigid_surface(shape, p, names[k])
                V, T = np.ascontiguousarray(V, float), np.ascontiguousarray(T, np.int64)
                self.kind[k] = HYDRO_RIGID_MESH
                self.tri_adr[k], self.tri_num[k] = nrt, len(T)
                rv.append(V)
                rt.append(T + nrv)
                nrv += len(V)
                nrt += len(T)
            else:
                V, T, pressure = _soft_volume(shape, p, names[k])
                self.kind[k] = HYDRO_SOFT_MESH
                self.modulus[k] = _positive(p, "hydroelastic_modulus", type(shape).__name__, "soft")
                self.tet_adr[k], self.tet_num[k] = nst, len(T)
                sv.append(V)
                st.append(T + nsv)
                sp.append(pressure)
                nsv += len(V)
                nst += len(T)
            self.bound[k, 3] = float(np.max(np.linalg.norm(V, axis=1)))
        self.soft_verts = np.concatenate(sv) if sv else np.zeros((0, 3))
        self.soft_tets = np.concatenate(st) if st else np.zeros((0, 4), np.int64)
        self.soft_pressure = np.concatenate(sp) if sp else np.zeros(0)
        self.soft_grad, self.soft_e0, _flat = LinearFieldGradients(self.soft_verts, self.soft_tets, self.soft_pressure)
        self.tet_sphere = _spheres(self.soft_verts[self.soft_tets])
        self.rigid_verts = np.concatenate(rv) if rv else np.zeros((0, 3))
        self.rigid_tris = np.concatenate(rt) if rt else np.zeros((0, 3), np.int64)
        A = self.rigid_verts[self.rigid_tris]
        nrm = np.cross(A[:, 1] - A[:, 0], A[:, 2] - A[:, 0]) if len(A) else np.zeros((0, 3))
        ln = np.linalg.norm(nrm, axis=1) if len(A) else np.zeros(0)
        self.tri_normal = np.divide(nrm, ln[:, None], out=np.zeros_like(nrm), where=ln[:, None] > 0)
        self.tri_sphere = _spheres(A)
        self.pairs = self._pairs(filtered)
        self._pair_set = frozenset((int(i), int(j)) for i, j in self.pairs)

    def pair_set(self) -> frozenset:
        """The rows (i, j), i < j, of `pairs` as a set."""
        return self._pair_set

    def _pairs(self, filtered) -> np.ndarray:
        """(np, 2) rows (i < j) of the unfiltered pairs that get a contact surface: both geometries have a
        representation, at least one is compliant, and they are not two half spaces."""
        kinds = self.kind
        out = []
        soft = (HYDRO_SOFT_MESH, HYDRO_SOFT_PLANE)
        for i in range(len(kinds)):
            if kinds[i] == HYDRO_NONE:
                continue
            for j in range(i + 1, len(kinds)):
                if kinds[j] == HYDRO_NONE or not (kinds[i] in soft or kinds[j] in soft):
                    continue
                planes = (kinds[i] in (HYDRO_RIGID_PLANE, HYDRO_SOFT_PLANE)) + \
                    (kinds[j] in (HYDRO_RIGID_PLANE, HYDRO_SOFT_PLANE))
                if planes == 2 or filtered(i, j):
                    continue
                out.append((i, j))
        out.sort(key=lambda ij: (min(self.gid[ij[0]], self.gid[ij[1]]), max(self.gid[ij[0]], self.gid[ij[1]])))
        return np.array(out, np.int64).reshape(-1, 2)

    def has_representation(self, k: int) -> bool:
        return bool(self.kind[k] != HYDRO_NONE)

    def is_soft(self, k: int) -> bool:
        return bool(self.kind[k] in (HYDRO_SOFT_MESH, HYDRO_SOFT_PLANE))

    def arrays(self) -> tuple:
        """The arrays the surface kernels take, in their argument order."""
        return (self.kind, self.modulus, self.slab, self.bound, self.tet_adr, self.tet_num, self.soft_verts,
                self.soft_tets, self.soft_pressure, self.soft_grad, self.soft_e0, self.tet_sphere, self.tri_adr,
                self.tri_num, self.rigid_verts, self.rigid_tris, self.tri_normal, self.tri_sphere)
