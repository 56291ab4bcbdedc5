"""Assets: meshes (OBJ/STL via trimesh, or inline vertex/face), height fields, materials, sub-models.

Meshes are processed as MuJoCo's compiler does (spec/mjcf.md §6.1): scale, refpos/refquat, mass
properties per `inertia` mode, then re-centred at the COM and aligned with the principal axes; the
removed offset is kept as the mesh pos/quat that referencing geoms compose with their own pose.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .context import CompileContext
from .defaults import merge_value
from .errors import error_at
from .inertia import inertia_box, mesh_mass_properties
from .model import MjcfMesh
from .reader import Element
from .rotations import eig3, mat_to_quat, quat_conj, quat_normalize, quat_to_mat
from .schema import attributes


def asset_path(ctx: CompileContext, file: str, kind: str = "mesh") -> Path:
    """Resolve an asset file name with compiler strippath and meshdir/texturedir (spec §17.7)."""
    if ctx.compiler["strippath"]:
        file = os.path.basename(file)
    p = Path(file)
    if p.is_absolute():
        return p
    d = ctx.compiler.get("meshdir" if kind == "mesh" else "texturedir")
    if d:
        dp = Path(d)
        return dp / p if dp.is_absolute() else ctx.model_dir / dp / p
    return ctx.model_dir / p


def _load_mesh_file(path: Path, el: Element) -> tuple[np.ndarray, np.ndarray]:
    if not path.is_file():
        raise error_at(el.where, f"mesh file '{path}' not found")
    ext = path.suffix.lower()
    if ext not in (".obj", ".stl"):
        raise error_at(el.where, f"mesh file '{path.name}': only .obj and .stl are supported")
    import trimesh  # heavy import, only when a mesh file is used

    try:
        mesh = trimesh.load(str(path), force="mesh", process=(ext == ".stl"))
    except Exception as exc:  # trimesh raises many types for corrupt files
        raise error_at(el.where, f"cannot read mesh file '{path.name}': {exc}") from None
    return np.asarray(mesh.vertices, float), np.asarray(mesh.faces, int)


def _hull(vertices: np.ndarray, el: Element) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and outward-oriented faces of the convex hull of a point set."""
    import trimesh

    try:
        hull = trimesh.Trimesh(vertices, process=False).convex_hull
    except Exception as exc:  # qhull raises its own error types for degenerate point sets
        raise error_at(el.where, f"cannot build the convex hull of the mesh: {exc}") from None
    return np.asarray(hull.vertices, float), np.asarray(hull.faces, int)


def _principal(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and a right-handed principal frame, to full double precision."""
    _, q_jacobi = eig3(inertia)  # MuJoCo's axis order and signs
    approx = quat_to_mat(q_jacobi)
    w, v = np.linalg.eigh(inertia)
    out_w, out_v = np.zeros(3), np.zeros((3, 3))
    used: set[int] = set()
    for k in range(3):
        dots = [abs(float(approx[:, k] @ v[:, i])) if i not in used else -1.0 for i in range(3)]
        i = int(np.argmax(dots))
        used.add(i)
        vec = v[:, i] if float(approx[:, k] @ v[:, i]) >= 0 else -v[:, i]
        out_w[k], out_v[:, k] = w[i], vec
    if np.linalg.det(out_v) < 0:
        out_v[:, 2] = -out_v[:, 2]
    return out_w, mat_to_quat(out_v)


def compile_mesh(ctx: CompileContext, el: Element) -> MjcfMesh:
    """Load and process one <mesh> asset."""
    a = {n: s.default for n, s in attributes("mesh").items()}
    cls = ctx.defaults.check(el.get("class"), el.where) if el.get("class") else "main"
    table = attributes("mesh")
    for k, v in ctx.defaults.values[cls]["mesh"].items():
        a[k] = v
    for k, v in el.attrs.items():
        a[k] = merge_value(table[k], a.get(k), v)
    if a.get("file") and a.get("vertex"):
        raise error_at(el.where, "mesh: give either 'file' or 'vertex', not both")
    if a.get("file"):
        path = asset_path(ctx, a["file"])
        v, f = _load_mesh_file(path, el)
        name = a.get("name") or Path(a["file"]).stem
    elif a.get("vertex"):
        v = np.asarray(a["vertex"], float)
        if len(v) % 3 or len(v) < 12:
            raise error_at(el.where, "mesh vertex needs at least 4 points and a multiple of 3 numbers")
        v = v.reshape(-1, 3)
        f = np.asarray(a.get("face") or (), int)
        if len(f) % 3:
            raise error_at(el.where, "mesh face needs a multiple of 3 vertex indices")
        f = f.reshape(-1, 3)
        if f.size and (f.min() < 0 or f.max() >= len(v)):
            raise error_at(el.where, f"mesh face index out of range [0, {len(v) - 1}]")
        name = a.get("name")
        if not name:
            raise error_at(el.where, "a mesh given by vertex data needs a name")
    else:
        raise error_at(el.where, "mesh needs a 'file' or 'vertex' attribute")
    # MuJoCo's order: subtract refpos, rotate by the conjugate of refquat, then scale
    v = (v - np.asarray(a["refpos"], float)) @ quat_to_mat(quat_conj(quat_normalize(a["refquat"]))).T
    v = v * np.asarray(a["scale"], float)
    mode = a["inertia"]
    if len(f) == 0:  # a point cloud: MuJoCo always uses its convex hull
        v, f = _hull(v, el)
        mass_v, mass_f = v, f
    elif mode == "convex":  # mass properties of the hull, rendering/collision data unchanged
        mass_v, mass_f = _hull(v, el)
    else:
        mass_v, mass_f = v, f
    try:
        vol, com, inertia = mesh_mass_properties(mass_v, mass_f, mode)
    except ValueError as exc:
        raise error_at(el.where, f"mesh '{name}': {exc}") from None
    if vol <= 1e-14:
        raise error_at(el.where, f"mesh '{name}' has non-positive volume; check face orientation")
    principal, quat = _principal(inertia)
    verts = (v - com) @ quat_to_mat(quat)
    return MjcfMesh(name, verts, f, com, quat, vol, inertia_box(principal), mode, a.get("file"))


def read_assets(ctx: CompileContext, root: Element) -> None:
    """Fill the context with the meshes, height fields, materials and sub-models of all <asset> sections."""
    for sec in root.find_all("asset"):
        for el in sec.children:
            if el.tag == "mesh":
                m = compile_mesh(ctx, el)
                if m.name in ctx.meshes:
                    raise error_at(el.where, f"repeated mesh name '{m.name}'")
                ctx.meshes[m.name] = len(ctx.mesh_list)
                ctx.mesh_list.append(m)
            elif el.tag == "hfield":
                name = el.get("name") or (Path(el.get("file")).stem if el.get("file") else None)
                if not name:
                    raise error_at(el.where, "hfield needs a name or a file")
                if el.get("file") and (el.get("nrow", 0) or el.get("ncol", 0)):
                    raise error_at(el.where, "hfield: nrow/ncol cannot be combined with a file")
                size = el.get("size")
                if any(s <= 0 for s in size[:3]) or size[3] < 0:
                    raise error_at(el.where, "hfield size must be positive (base may be 0)")
                ctx.hfields[name] = {"size": tuple(size), "attrs": dict(el.attrs)}
            elif el.tag == "material":
                if not el.get("name"):
                    raise error_at(el.where, "material needs a name")
                ctx.materials[el.get("name")] = ctx.defaults.resolve(el, "material", "main")
            elif el.tag == "texture":
                ctx.textures.append(ctx.defaults.resolve(el, "texture", "main"))
            elif el.tag == "model":
                name = el.get("name") or Path(el.get("file")).stem
                ctx.submodels[name] = el
