"""Register an MJCF model's geoms with the plant's SceneGraph: collision geometry carrying the geom's
MuJoCo contact parameters (ProximityProperties "mujoco" group) and visual geometry with its rgba.

MuJoCo sizes map onto Drake shapes: sphere (r), capsule/cylinder (r, half-length → full length),
box (half sizes → full sizes), ellipsoid (semi-axes), plane → MujocoPlane (a half space z ≤ 0 of the geom
frame). A geom with contype = conaffinity = 0 is visual only, as in MuJoCo where it never collides, unless an
explicit pair names it (it then collides through that pair only).
With `<flag override="enable">` every geom carries the option's o_margin / o_solref / o_solimp / o_friction
(as MuJoCo's override replaces every contact's values). Explicit <contact><pair> elements are attached to their
geoms' proximity properties (to_plant_pairs.py). A mesh geom collides as the convex hull of its
compiled vertices (an in-memory `Convex`, as MuJoCo collides meshes) and is drawn as the compiled mesh itself
(an in-memory `Mesh`: vertices and faces). A type="sdf" geom is a SignedDistanceField of its engine plugin
(collision and visual: the plugin mesh). A height-field geom is a `HeightField` of its compiled <hfield>
asset (normalized elevations, size), for collision and visual.
"""
from __future__ import annotations

import warnings

import numpy as np

from mallard.geometry.properties import MUJOCO_GROUP

from .errors import MjcfUnsupportedWarning
from .mesh_hull import MujocoMeshHull, MujocoMeshHullTriangles
from .model import MjcfGeom, MjcfModel
from .rotations import quat_to_mat


def _Shape(geom: MjcfGeom):
    """The Drake shape of a primitive geom, or None for mesh / hfield / sdf geoms (meshes: _MeshHull)."""
    from mallard.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere
    from mallard.geometry.shapes import MujocoPlane
    s = np.asarray(geom.size, float)
    if geom.type == "sphere":
        return Sphere(s[0])
    if geom.type == "capsule":
        return Capsule(s[0], 2.0 * s[1])
    if geom.type == "cylinder":
        return Cylinder(s[0], 2.0 * s[1])
    if geom.type == "box":
        return Box(2.0 * s[0], 2.0 * s[1], 2.0 * s[2])
    if geom.type == "ellipsoid":
        return Ellipsoid(s[0], s[1], s[2])
    if geom.type == "plane":
        return MujocoPlane(np.abs(s[:3]))
    return None


def _MeshHull(model: MjcfModel, geom: MjcfGeom, g: int, collides: bool):
    """(an in-memory Convex in the geom frame (= the mesh inertial frame), single precision as MuJoCo stores
    mesh vertices; the packed faces of its hull over its points, or None; MuJoCo's hull triangles over them, or
    None): for a colliding geom the vertices of the mesh's collision hull, its faces and triangles (mesh_hull.py),
    else all compiled vertices (not used for contact)."""
    from mallard.geometry import Convex
    mesh = model.meshes[geom.mesh]
    label = mesh.name or geom.name or f"geom{g}"
    if not collides:
        return Convex(np.asarray(mesh.vertices, float).astype(np.float32).astype(float).T, label), None, None
    try:
        vertices, faces = MujocoMeshHull(mesh)
        return Convex(vertices.T, label), faces, MujocoMeshHullTriangles(mesh)
    except ValueError as exc:
        where = f"{geom.where}: " if geom.where is not None else "MJCF: "
        raise ValueError(f"{where}geom '{geom.name or g}': mesh '{mesh.name}': {exc}") from None


def _MeshVisual(model: MjcfModel, geom: MjcfGeom, g: int):
    """An in-memory Mesh of a mesh geom's compiled vertices and faces (in the geom frame), for drawing."""
    from mallard.geometry.shapes import InMemoryMesh, MemoryFile, Mesh
    mesh = model.meshes[geom.mesh]
    v = np.asarray(mesh.vertices, float)
    f = np.asarray(mesh.faces, np.int64).reshape(-1, 3)
    if len(f) == 0:
        return None
    text = "".join(f"v {a!r} {b!r} {c!r}\n" for a, b, c in v.tolist())
    text += "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f.tolist())
    return Mesh(InMemoryMesh(MemoryFile(text, ".obj", mesh.name or geom.name or f"geom{g}")))


def _HeightField(model: MjcfModel, geom: MjcfGeom):
    """The HeightField of an hfield geom: its asset's normalized elevations and size."""
    from mallard.geometry import HeightField
    hf = model.hfields[geom.hfield]
    return HeightField(np.asarray(hf["data"], float), hf["size"])


def RegisterMjcfGeometries(plant, model: MjcfModel, pm) -> None:
    """Register every geom of `model` on the plant bodies of `pm` (MjcfPlantMap): visual always, proximity when it
    can collide (contype/conaffinity or an explicit pair) and the contact flag is on."""
    from mallard.geometry import CoulombFriction, ProximityProperties
    from mallard.geometry.properties import AddMujocoContactParameters
    from mallard.multibody.math import RigidTransform, RotationMatrix
    skipped = []
    names: set = set()
    opt = model.option
    override = None
    if opt.flags.get("override", False):
        override = dict(margin=float(opt.o_margin), solref=np.asarray(opt.o_solref, float),
                        solimp=np.asarray(opt.o_solimp, float),
                        friction=np.asarray(opt.o_friction, float)[[0, 2, 3]])  # (slide, spin, roll)
    pair_geoms = {g for pair in model.pairs for g in (pair.geom1, pair.geom2)}
    collide = opt.flags.get("contact", True)  # <flag contact="disable">: no collision geometry, no contacts
    for g, geom in enumerate(model.geoms):
        try:
            shape = _Shape(geom)
        except ValueError as exc:  # e.g. an infinite size
            where = f"{geom.where}: " if geom.where is not None else "MJCF: "
            raise ValueError(f"{where}geom '{geom.name or g}': {exc}") from None
        if geom.type == "sdf" and geom.plugin >= 0:  # engine-plugin SDF (multibody/mjcf/plugins.py)
            from mallard.multibody.mjcf.plugins import MjcfSdfShape
            shape = MjcfSdfShape(model, geom)
        collides = collide and bool(geom.contype or geom.conaffinity or g in pair_geoms)  # pairs: any masks
        hull_faces = hull_triangles = None
        if geom.type == "mesh" and geom.mesh >= 0:  # MuJoCo collides meshes as their convex hulls
            shape, hull_faces, hull_triangles = _MeshHull(model, geom, g, collides)
        if geom.type == "hfield" and geom.hfield in model.hfields:
            shape = _HeightField(model, geom)
        if shape is None:
            skipped.append(geom.type)
            pm.geoms.append((None, None))
            continue
        body = pm.bodies[geom.body]
        X_BG = RigidTransform(RotationMatrix(quat_to_mat(np.asarray(geom.quat, float))), np.asarray(geom.pos, float))
        name = geom.name or f"geom{g}"
        while name in names:
            name = "_" + name
        names.add(name)
        try:
            cid = None
            if collides:
                params = dict(margin=float(geom.margin), friction=np.asarray(geom.friction, float),
                              solref=np.asarray(geom.solref, float), solimp=np.asarray(geom.solimp, float))
                if override:  # <flag override="enable">: every contact uses the option's o_* values
                    params.update(override)
                mu = float(params["friction"][0])
                props = ProximityProperties()
                props.AddProperty("material", "coulomb_friction", CoulombFriction(mu, mu))
                AddMujocoContactParameters(
                    props, condim=int(geom.condim), contype=int(geom.contype), conaffinity=int(geom.conaffinity),
                    priority=int(geom.priority), solmix=float(geom.solmix), gap=float(geom.gap), **params)
                if hull_faces is not None:
                    props.AddProperty(MUJOCO_GROUP, "hull_faces", hull_faces)
                    props.AddProperty(MUJOCO_GROUP, "hull_triangles", hull_triangles)
                cid = plant.RegisterCollisionGeometry(body, X_BG, shape, name, props)
            vid = None
            visual = _MeshVisual(model, geom, g) if geom.type == "mesh" else shape  # meshes: drawn as themselves
            if visual is not None:
                vid = plant.RegisterVisualGeometry(body, X_BG, visual, name + "_visual",
                                                   np.clip(np.asarray(geom.rgba, float), 0.0, 1.0))
        except (ValueError, RuntimeError) as exc:
            where = f"{geom.where}: " if geom.where is not None else "MJCF: "
            raise ValueError(f"{where}geom '{name}': {exc}") from None
        pm.geoms.append((cid, vid))
    _ApplyMujocoCollisionFilters(plant, model, pm)
    if model.pairs and collide:
        from .to_plant_pairs import RegisterMjcfContactPairs
        RegisterMjcfContactPairs(plant, model, pm)
    if skipped:
        warnings.warn(f"MJCF model '{model.name}': {len(skipped)} geom(s) of type {sorted(set(skipped))} are not "
                      "registered with SceneGraph (only primitive shapes, meshes and height fields are); their mass "
                      "properties are kept",
                      MjcfUnsupportedWarning, stacklevel=4)


def _ApplyMujocoCollisionFilters(plant, model: MjcfModel, pm) -> None:
    """MuJoCo's body-pair filtering: bodies of one weld group never collide; with the filterparent flag, a
    weld group does not collide with its parent weld group unless either is the world; <exclude> pairs.
    (The plant filters bodies it joins directly; a multi-joint MJCF body hangs from its MJCF parent through
    massless bodies, so the pairs are declared here on the MJCF bodies themselves.)"""
    from mallard.geometry import CollisionFilterDeclaration, GeometrySet
    geoms: dict = {}
    for (cid, _), geom in zip(pm.geoms, model.geoms):
        if cid is not None:
            geoms.setdefault(geom.body, []).append(cid)
    bodies = sorted(geoms)
    weld = [b.weldid for b in model.bodies]
    parent_weld = [weld[model.bodies[w].parent] if w else 0 for w in weld]
    filterparent = model.option.flags.get("filterparent", True)
    # MuJoCo's rules below replace the plant's adjacent-body rule for MJCF bodies: a body whose parent is welded
    # to the world collides with it (the plant's rule would filter that joint's pair)
    plant._adjacent_filter_exempt.update(int(b.index()) for b in pm.bodies[1:] if b is not None)
    # one statement per weld group and per (group, parent group) pair: a statement per body pair made O(bodies²)
    # GeometrySets (test/engine/testdata/sleep/perf/static.xml: 1372 world-welded bodies)
    groups: dict = {}
    for b in bodies:
        groups.setdefault(weld[b], []).extend(geoms[b])
    decl = CollisionFilterDeclaration()
    for w, ids in groups.items():
        if len(ids) > 1:
            decl.ExcludeWithin(GeometrySet(ids))
    if filterparent:
        for w, ids in groups.items():
            pw = parent_weld[w]
            if w and pw and pw != w and pw in groups:
                decl.ExcludeBetween(GeometrySet(ids), GeometrySet(groups[pw]))
    for ex in model.excludes:
        if ex.body1 in geoms and ex.body2 in geoms and ex.body1 != ex.body2:
            decl.ExcludeBetween(GeometrySet(geoms[ex.body1]), GeometrySet(geoms[ex.body2]))
    if not decl.statements():
        return
    plant._scene_graph.collision_filter_manager().Apply(decl)
