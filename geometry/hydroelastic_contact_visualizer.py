"""The hydroelastic half of ContactVisualizer (Drake's internal HydroelasticContactVisualizer): for each contact
surface of a ContactResults, the net force and moment on body A at the surface's centroid C (F_Ac_W) as arrows, and
the surface itself colored by pressure.

Scene paths: ``<prefix>/<nameA>+<nameB>`` at the centroid, holding ``force_C_W`` and ``moment_C_W`` (each a unit
``cylinder`` stretched along z by |f| / newtons_per_meter or |τ| / newton_meters_per_meter [m], and a cone ``head``)
and ``contact_surface``. A pair's names are Drake's (GeometryNames::GetFullName with "."): the body name, preceded by
its model instance's when another body has the same name, followed by the geometry's name (or ``Id(n)``) when the
body has more than one collision geometry.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from mallard.geometry.arrows import frame_along
from mallard.geometry.meshcat import Meshcat
from mallard.geometry.shapes import Cylinder, MeshcatCone


def geometry_full_names(plant, inspector=None) -> dict:
    """{GeometryId: full name} of the plant's collision geometries (geometry names from `inspector` when given)."""
    names = {}
    for i in range(plant.num_bodies()):
        body = plant.get_body(i)
        ids = plant.GetCollisionGeometriesForBody(body)
        if not ids:
            continue
        model = plant.GetModelInstanceName(body.model_instance())
        head = [] if plant.NumBodiesWithName(body.name()) == 1 else [model]
        for gid in ids:
            tokens = head + [body.name()]
            if len(ids) > 1:
                name = None if inspector is None else inspector.GetName(gid)
                if name is not None and name.startswith(model + "::"):
                    name = name[len(model) + 2:]  # Drake reports the name the user gave, without the model scope
                tokens.append(name if name is not None else f"Id({gid.get_value()})")
            names[gid] = ".".join(tokens)
    return names


def _flame(pressure: np.ndarray) -> np.ndarray:
    """3xN RGB in [0, 1] of pressures normalized over the surface (Drake's flame map)."""
    lo, hi = float(pressure.min()), float(pressure.max())
    p = (pressure - lo) / (hi - lo) if hi > lo else np.zeros_like(pressure)
    blue = np.where(p < 0.25, p * 4.0, np.where(p > 0.75, (p - 0.75) * 4.0, 1.0 - (p - 0.25) * 4.0))
    return np.clip(np.stack([(p - 0.25) * 4.0, (p - 0.5) * 4.0, blue]), 0.0, 1.0)


class HydroelasticContactDrawing:
    """Draws contact surfaces' forces and moments under `prefix`; paths are reused and hidden when their contact
    goes away (params: a validated ContactVisualizerParams)."""

    def __init__(self, meshcat: Meshcat, params, prefix: str) -> None:
        self._meshcat, self._params, self._prefix = meshcat, params, prefix
        self._visible: dict[str, bool] = {}

    def Delete(self) -> None:
        self._meshcat.Delete(self._prefix)
        self._visible = {}

    def _add(self, path: str) -> None:
        m, p = self._meshcat, self._params
        m.SetProperty(path, "visible", False, 0.0)  # hidden until placed: no flicker at the origin
        cylinder, head = Cylinder(p.radius, 1.0), MeshcatCone(2.0 * p.radius, 2.0 * p.radius, 2.0 * p.radius)
        for vector, color in (("force_C_W", p.hydro_force_color), ("moment_C_W", p.hydro_moment_color)):
            m.SetObject(f"{path}/{vector}/cylinder", cylinder, color)
            m.SetObject(f"{path}/{vector}/head", head, color)
        self._visible[path] = False

    def _vector(self, path: str, v: np.ndarray, threshold: float, per_meter: float, t: float) -> None:
        m = self._meshcat
        norm = float(np.linalg.norm(v))
        if norm < threshold:
            m.SetProperty(path, "visible", False, t)
            return
        height, head = norm / per_meter, 2.0 * self._params.radius
        m.SetTransform(path, frame_along(v), t)
        m.SetProperty(f"{path}/cylinder", "position", [0.0, 0.0, 0.5 * height], t)
        m.SetProperty(f"{path}/cylinder", "scale", [1.0, 1.0, height], t)
        X = np.diag([1.0, -1.0, -1.0, 1.0])  # the cone turned half a turn about x, its tip at the arrow's end
        X[2, 3] = height + head
        m.SetTransform(f"{path}/head", X, t)
        m.SetProperty(path, "visible", True, t)

    def Update(self, t: float, results, names: Callable[[], dict]) -> None:
        """Draws `results`' contact surfaces at time t [s]; `names()` maps GeometryId to full name."""
        p, m = self._params, self._meshcat
        active = set()
        if results.num_hydroelastic_contacts():
            names = names()
        for i in range(results.num_hydroelastic_contacts()):
            info = results.hydroelastic_contact_info(i)
            surface, F = info.contact_surface(), info.F_Ac_W()
            ids = sorted((surface.id_M(), surface.id_N()), key=lambda g: g.get_value())
            path = f"{self._prefix}/{names[ids[0]]}+{names[ids[1]]}"
            if path not in self._visible:
                self._add(path)
            force, moment = np.asarray(F.translational(), float), np.asarray(F.rotational(), float)
            if not (np.all(np.isfinite(force)) and np.all(np.isfinite(moment))):
                raise RuntimeError(f"ContactVisualizer: hydroelastic contact {path} has a non-finite force or moment "
                                   f"at t = {t} s")
            if np.linalg.norm(force) < p.force_threshold and np.linalg.norm(moment) < p.moment_threshold:
                continue
            active.add(path)
            centroid = np.asarray(surface.centroid(), float)
            X = np.eye(4)
            X[:3, 3] = centroid
            m.SetTransform(path, X, t)
            self._vector(f"{path}/force_C_W", force, p.force_threshold, p.newtons_per_meter, t)
            self._vector(f"{path}/moment_C_W", moment, p.moment_threshold, p.newton_meters_per_meter, t)
            mesh = surface.tri_mesh_W() if surface.is_triangle() else surface.poly_mesh_W()
            vertices, faces, pressure = _triangles(surface, mesh)
            m.SetTriangleColorMesh(f"{path}/contact_surface", vertices, faces, _flame(pressure), False)
            X = np.eye(4)
            X[:3, 3] = -centroid
            m.SetTransform(f"{path}/contact_surface", X)
        for path, visible in self._visible.items():
            if visible != (path in active):
                m.SetProperty(path, "visible", path in active, t)
                self._visible[path] = path in active


def _triangles(surface, mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(3xV vertices in World, 3xF triangle indices, V pressures) of a contact surface; polygons are fanned."""
    vertices = np.array([mesh.vertex(v) for v in range(mesh.num_vertices())], dtype=float).reshape(-1, 3).T
    field = surface.tri_e_MN() if surface.is_triangle() else surface.poly_e_MN()
    pressure = np.array([field.EvaluateAtVertex(v) for v in range(mesh.num_vertices())], dtype=float)
    faces = []
    for e in range(mesh.num_elements()):
        element = mesh.element(e)
        vs = [element.vertex(j) for j in range(element.num_vertices())]
        faces += [[vs[0], vs[j], vs[j + 1]] for j in range(1, len(vs) - 1)]
    return vertices, np.array(faces, dtype=np.int64).reshape(-1, 3).T, pressure
