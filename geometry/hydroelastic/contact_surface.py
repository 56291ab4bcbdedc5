"""ContactSurface and its pressure fields (pydrake.geometry.ContactSurface, PolygonSurfaceMeshFieldLinear,
TriangleSurfaceMeshFieldLinear): the surface where two geometries' hydroelastic pressures meet, in World.

The surface's mesh is polygons or triangles (HydroelasticContactRepresentation); the pressure e_MN [Pa] is linear on
each face. Face normals point out of N and into M (M is the geometry of smaller GeometryId). ∇e_M and ∇e_N [Pa/m]
per face are the pressure gradients of the compliant geometries (absent for a rigid one).
"""
from __future__ import annotations

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.identifiers import GeometryId
from mallard.geometry.polygon_mesh import PolygonSurfaceMesh
from mallard.geometry.query_results import HydroelasticContactRepresentation
from mallard.geometry.surface_mesh import TriangleSurfaceMesh

__all__ = ["ContactSurface", "PolygonSurfaceMeshFieldLinear", "PolygonSurfaceMeshFieldLinear_",
           "TriangleSurfaceMeshFieldLinear", "TriangleSurfaceMeshFieldLinear_",
           "MakeContactSurfaces"]


class _SurfaceFieldLinear:
    """A field linear on each face of a surface mesh: values at vertices, one gradient per face."""

    def __init__(self, values: np.ndarray, mesh, gradients: np.ndarray, base_vertex: np.ndarray):
        self._values = np.asarray(values, dtype=float)
        self._mesh = mesh
        self._grad = np.asarray(gradients, dtype=float)
        self._base = base_vertex  # a vertex of each face (the gradient's base point)

    def EvaluateAtVertex(self, v: int) -> float:
        return float(self._values[int(v)])

    def EvaluateCartesian(self, e: int, p_MQ) -> float:
        """The field at point Q, measured in the mesh's frame M (World for a contact surface), evaluated with face
        e's linear function."""
        e = int(e)
        b = int(self._base[e])
        return float(self._values[b] + self._grad[e] @ (np.asarray(p_MQ, dtype=float).reshape(3)
                                                         - self._mesh.vertex_array()[b]))

    def values(self) -> list[float]:
        return self._values.tolist()


class PolygonSurfaceMeshFieldLinear(_SurfaceFieldLinear):
    """The pressure on a polygonal contact surface."""

    def EvaluateGradient(self, e: int) -> np.ndarray:
        return self._grad[int(e)].copy()

    def Equal(self, other: "PolygonSurfaceMeshFieldLinear") -> bool:
        return np.array_equal(self._values, other._values) and np.array_equal(self._grad, other._grad)


class TriangleSurfaceMeshFieldLinear(_SurfaceFieldLinear):
    """The pressure on a triangular contact surface."""

    def Evaluate(self, e: int, b) -> float:
        """The field at barycentric coordinates b (3) of triangle e."""
        tri = self._mesh.element_array()[int(e)]
        return float(np.asarray(b, dtype=float).reshape(3) @ self._values[tri])

    def Equal(self, other: "TriangleSurfaceMeshFieldLinear") -> bool:
        return np.array_equal(self._values, other._values)


class ContactSurface:
    """The contact surface of geometries M and N (pydrake.geometry.ContactSurface)."""

    def __init__(self, id_M: GeometryId, id_N: GeometryId, mesh_W, e_MN, grad_eM_W, grad_eN_W,
                 face_centroids: np.ndarray, face_areas: np.ndarray, face_normals: np.ndarray,
                 face_pressures: np.ndarray):
        self._id_M, self._id_N = id_M, id_N
        self._mesh = mesh_W
        self._field = e_MN
        self._gM = grad_eM_W
        self._gN = grad_eN_W
        self._fc, self._fa, self._fn, self._fp = face_centroids, face_areas, face_normals, face_pressures

    def id_M(self) -> GeometryId:
        return self._id_M

    def id_N(self) -> GeometryId:
        return self._id_N

    def is_triangle(self) -> bool:
        return isinstance(self._mesh, TriangleSurfaceMesh)

    def representation(self) -> HydroelasticContactRepresentation:
        return HydroelasticContactRepresentation.kTriangle if self.is_triangle() else \
            HydroelasticContactRepresentation.kPolygon

    def num_faces(self) -> int:
        return int(self._fa.shape[0])

    def num_vertices(self) -> int:
        return self._mesh.num_vertices()

    def area(self, face_index: int) -> float:
        return float(self._fa[int(face_index)])

    def total_area(self) -> float:
        return self._mesh.total_area()

    def face_normal(self, face_index: int) -> np.ndarray:
        return self._fn[int(face_index)].copy()

    def centroid(self, face_index: int | None = None) -> np.ndarray:
        """The centroid of one face, or (no argument) the area-weighted centroid of the surface [m, World]."""
        if face_index is None:
            return self._mesh.centroid()
        return self._fc[int(face_index)].copy()

    def _face_pressures(self) -> np.ndarray:
        """Pressure at each face's centroid [Pa] (the discrete contact model's quadrature values)."""
        return self._fp

    def poly_mesh_W(self) -> PolygonSurfaceMesh:
        if self.is_triangle():
            raise RuntimeError("ContactSurface::poly_mesh_W() cannot be called on a triangle surface")
        return self._mesh

    def tri_mesh_W(self) -> TriangleSurfaceMesh:
        if not self.is_triangle():
            raise RuntimeError("ContactSurface::tri_mesh_W() cannot be called on a polygon surface")
        return self._mesh

    def poly_e_MN(self) -> PolygonSurfaceMeshFieldLinear:
        if self.is_triangle():
            raise RuntimeError("ContactSurface::poly_e_MN() cannot be called on a triangle surface")
        return self._field

    def tri_e_MN(self) -> TriangleSurfaceMeshFieldLinear:
        if not self.is_triangle():
            raise RuntimeError("ContactSurface::tri_e_MN() cannot be called on a polygon surface")
        return self._field

    def HasGradE_M(self) -> bool:
        return self._gM is not None

    def HasGradE_N(self) -> bool:
        return self._gN is not None

    def EvaluateGradE_M_W(self, index: int) -> np.ndarray:
        if self._gM is None:
            raise RuntimeError("ContactSurface::EvaluateGradE_M_W() invalid; no gradient values stored. Mesh M may "
                               "be rigid, or the constituent gradients weren't requested.")
        return self._gM[int(index)].copy()

    def EvaluateGradE_N_W(self, index: int) -> np.ndarray:
        if self._gN is None:
            raise RuntimeError("ContactSurface::EvaluateGradE_N_W() invalid; no gradient values stored. Mesh N may "
                               "be rigid, or the constituent gradients weren't requested.")
        return self._gN[int(index)].copy()

    def Equal(self, surface: "ContactSurface") -> bool:
        return self.is_triangle() == surface.is_triangle() and self._mesh.Equal(surface._mesh) and \
            self._field.Equal(surface._field)

    def __repr__(self) -> str:
        return (f"ContactSurface(id_M={self._id_M}, id_N={self._id_N}, faces={self.num_faces()}, "
                f"area={self.total_area():.6g})")


def MakeContactSurfaces(out, ids: list, triangles: bool) -> list[ContactSurface]:
    """ContactSurface objects from contact_surfaces()'s arrays (surface_kernels.py); ids[row] is the GeometryId of a
    proximity row."""
    surf, sface, V, vp, fi, fs, fn, fc, fa, fp, gM, gN = out
    result = []
    for s in range(surf.shape[0]):
        f0, f1 = int(sface[s]), int(sface[s + 1])
        i0, i1 = int(fs[f0]), int(fs[f1])
        used = np.unique(fi[i0:i1])
        remap = np.full(V.shape[0], -1, np.int64)
        remap[used] = np.arange(used.shape[0])
        verts, values = V[used], vp[used]
        base = remap[fi[fs[f0:f1]]]
        g_first = gM[f0:f1] if not np.isnan(gM[f0:f1]).any() else gN[f0:f1]  # the field the faces sampled
        if triangles:
            mesh = TriangleSurfaceMesh(triangles=remap[fi[i0:i1]].reshape(-1, 3), vertices=verts)
            field = TriangleSurfaceMeshFieldLinear(values, mesh, g_first, base)
        else:
            data = []
            for f in range(f0, f1):
                idx = remap[fi[fs[f]:fs[f + 1]]]
                data.append(idx.shape[0])
                data.extend(idx.tolist())
            mesh = PolygonSurfaceMesh(face_data=data, vertices=verts)
            field = PolygonSurfaceMeshFieldLinear(values, mesh, g_first, base)
        grad_M = None if np.isnan(gM[f0:f1]).any() else gM[f0:f1].copy()
        grad_N = None if np.isnan(gN[f0:f1]).any() else gN[f0:f1].copy()
        result.append(ContactSurface(ids[int(surf[s, 0])], ids[int(surf[s, 1])], mesh, field, grad_M, grad_N,
                                     fc[f0:f1].copy(), fa[f0:f1].copy(), fn[f0:f1].copy(), fp[f0:f1].copy()))
    return result


ContactSurface_ = ScalarTemplate("ContactSurface_", ContactSurface)
PolygonSurfaceMeshFieldLinear_ = ScalarTemplate("PolygonSurfaceMeshFieldLinear_", PolygonSurfaceMeshFieldLinear)
TriangleSurfaceMeshFieldLinear_ = ScalarTemplate("TriangleSurfaceMeshFieldLinear_", TriangleSurfaceMeshFieldLinear)
