"""Assets: meshes (OBJ/STL via trimesh, or inline vertex/face), height fields, materials, sub-models.

Meshes are processed as MuJoCo's compiler does (spec/mjcf.md §6.1): scale, refpos/refquat, mass
properties per `inertia` mode, then re-centred at the COM and aligned with the principal axes; the
removed offset is kept as the mesh pos/quat that referencing geoms compose with their own pose.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
from lxml import etree

from .. import resources
from .context import CompileContext
from .defaults import merge_value
from .errors import error_at
from .inertia import inertia_box, mesh_mass_properties
from .mesh_files import ReadObj, ReadStl
from .model import MjcfMesh
from .plugins import plugin_of
from .plugins import resolve as resolve_plugin
from .reader import Element
from .rotations import eig3, quat_conj, quat_normalize, quat_to_mat
from .schema import attributes


def asset_path(ctx: CompileContext, file: str, kind: str = "mesh") -> Path | str:
    """Resolve an asset file name with compiler strippath and meshdir/texturedir (spec §17.7).

    Resource-provider names (`scheme:rest`, e.g. `data:` URIs) are returned unchanged; relative
    names are joined to the asset folder, which may itself be a provider directory.
    """
    if resources.GetResourceProvider(file) is not None:
        return file
    if ctx.compiler["strippath"]:
        file = os.path.basename(file)
    p = Path(file)
    if p.is_absolute():
        return p
    d = ctx.compiler.get("meshdir" if kind == "mesh" else "texturedir")
    if d and isinstance(ctx.model_dir, Path) and resources.GetResourceProvider(d) is None:
        dp = Path(d)
        return dp / p if dp.is_absolute() else ctx.model_dir / dp / p
    base = ctx.model_dir
    if d:
        base = d if resources.GetResourceProvider(d) is not None or os.path.isabs(d) else \
            resources.JoinResourceName(ctx.model_dir, d)
        if resources.GetResourceProvider(str(base)) is not None and not str(base).endswith("/"):
            base = str(base) + "/"
    if isinstance(base, Path):
        return base / p
    return resources.JoinResourceName(base, file)


_MESH_TYPES = {"model/obj": "obj", "model/stl": "stl", "application/sla": "stl", "model/x.stl-binary": "stl"}


def _mesh_format(name: str, content_type: str | None, media: str | None, el: Element) -> str:
    """'obj' or 'stl', from the mesh content_type attribute, the resource's media type or the file extension."""
    for ct in (content_type, media):
        if ct:
            fmt = _MESH_TYPES.get(ct.split(";")[0].strip().lower())
            if fmt is None and ct is content_type:
                raise error_at(el.where, f"mesh content_type '{ct}' is not supported (valid: model/obj, model/stl)")
            if fmt is not None:
                return fmt
    ext = Path(name).suffix.lower()
    if ext in (".obj", ".stl"):
        return ext[1:]
    raise error_at(el.where, f"mesh file '{_label(name)}': only .obj and .stl are supported (give content_type="
                             f"'model/obj' or 'model/stl' for names without an extension)")


def _label(name: str) -> str:
    return name if len(name) <= 60 else name[:57] + "..."


def _load_mesh_file(path: Path | str, el: Element, content_type: str | None = None, raw_name: str | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    name = str(path)
    is_uri = resources.GetResourceProvider(name) is not None
    if not is_uri and not Path(name).is_file():
        try:
            resources.CheckScheme(raw_name or name)
        except ValueError as exc:
            raise error_at(el.where, f"mesh file '{_label(raw_name or name)}': {exc}") from None
        raise error_at(el.where, f"mesh file '{path}' not found")
    try:
        with resources.OpenResource(name) as res:
            data = res.read()
            media = res.content_type
    except (OSError, ValueError, RuntimeError) as exc:
        raise error_at(el.where, f"cannot read mesh file '{_label(name)}': {exc}") from None
    fmt = _mesh_format(name, content_type, media, el)
    try:  # MuJoCo's own decoders' rules (mesh_files.py)
        v, f = ReadObj(data.decode("utf-8", errors="replace")) if fmt == "obj" else ReadStl(data)
    except ValueError as exc:
        raise error_at(el.where, f"cannot read mesh file '{_label(name)}': {exc}") from None
    if len(v) == 0:
        raise error_at(el.where, f"mesh file '{_label(name)}' has no vertices")
    return v, f


def _hull(vertices: np.ndarray, el: Element) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and outward-oriented faces of the convex hull of a point set."""
    import trimesh

    try:
        hull = trimesh.Trimesh(vertices, process=False).convex_hull
    except Exception as exc:  # qhull raises its own error types for degenerate point sets
        raise error_at(el.where, f"cannot build the convex hull of the mesh: {exc}") from None
    return np.asarray(hull.vertices, float), np.asarray(hull.faces, int)


def _principal(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (decreasing) and principal frame of a mesh's inertia as MuJoCo 4's mesh compiler finds
    them: Jacobi rotations stopped at MuJoCo's mesh tolerance 1e-7 (rotations.eig3), so the frame is off the exact
    eigenvectors by up to ~1e-8 rad and the moments are the diagonal there. Exact eigenvectors left body inertia
    tensors up to 5e-8 (relative) away from MuJoCo's (Allegro's fingers: M eigenvalues 2e-9; ARX L5, Flexiv Rizon 4,
    FR3, Google Robot, low-cost arm)."""
    return eig3(inertia, 1e-7)


def compile_mesh(ctx: CompileContext, el: Element) -> MjcfMesh:
    """Load and process one <mesh> asset."""
    a = {n: s.default for n, s in attributes("mesh").items()}
    cls = ctx.defaults.check(el.get("class"), el.where) if el.get("class") else "main"
    table = attributes("mesh")
    for k, v in ctx.defaults.values[cls]["mesh"].items():
        a[k] = v
    for k, v in el.attrs.items():
        a[k] = merge_value(table[k], a.get(k), v)
    pel = plugin_of(el)
    if pel is not None:
        return _plugin_mesh(ctx, el, pel, a)
    if int(a["maxhullvert"]) != -1 and int(a["maxhullvert"]) < 4:
        raise error_at(el.where, f"mesh maxhullvert must be -1 (no cap) or larger than 3; given {a['maxhullvert']}")
    if a.get("file") and a.get("vertex"):
        raise error_at(el.where, "mesh: give either 'file' or 'vertex', not both")
    if a.get("file"):
        path = asset_path(ctx, a["file"])
        v, f = _load_mesh_file(path, el, a.get("content_type"), a["file"])
        if a.get("name"):
            name = a["name"]
        elif resources.GetResourceProvider(a["file"]) is not None:
            raise error_at(el.where, "a mesh loaded from a resource URI needs a name")
        else:
            name = Path(a["file"]).stem
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
    # MuJoCo keeps mesh vertices in single precision (mjModel.mesh_vert is float32) and transforms them in double
    v = np.asarray(v, np.float32).astype(float)
    file_vertices = v
    # MuJoCo's order: subtract refpos, rotate by the conjugate of refquat, then scale
    v = (v - np.asarray(a["refpos"], float)) @ quat_to_mat(quat_conj(quat_normalize(a["refquat"]))).T
    v = v * np.asarray(a["scale"], float)
    every = v  # all points (a point cloud keeps only its hull's below), for the collision hull
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
    principal, quat = _principal(inertia)
    verts = (v - com) @ quat_to_mat(quat)
    return MjcfMesh(name, verts, f, com, quat, vol, inertia_box(principal), mode, a.get("file"),
                    file_vertices=file_vertices, maxhullvert=int(a["maxhullvert"]),
                    left_handed=bool(np.prod(np.asarray(a["scale"], float)) < 0),
                    file_vertices_compiled=verts if every is v else (every - com) @ quat_to_mat(quat))


def _plugin_mesh(ctx: CompileContext, el: Element, pel: Element, a: dict) -> MjcfMesh:
    """A mesh showing the zero level set of an SDF plugin instance (surface extraction over its AABB)."""
    name = a.get("name")
    if not name:
        raise error_at(el.where, "a mesh generated by a plugin needs a name")
    for key in ("file", "vertex", "face", "normal", "texcoord"):
        if a.get(key):
            raise error_at(el.where, f"mesh '{name}': '{key}' cannot be combined with a <plugin> child")
    if tuple(a["scale"]) != (1.0, 1.0, 1.0) or tuple(a["refpos"]) != (0.0, 0.0, 0.0) or \
            tuple(a["refquat"]) != (1.0, 0.0, 0.0, 0.0):
        raise error_at(el.where, f"mesh '{name}': scale/refpos/refquat are not supported for plugin meshes; "
                                 f"place the sdf geom instead")
    iid = resolve_plugin(ctx, pel, "mesh", f"mesh '{name}'")
    from mallard.geometry.collision.sdf_fields import shape_distance_grid
    from mallard.geometry.collision.sdf_mesh import mujoco_sdf_grid, mujoco_sdf_mesh, sdf_surface_mesh
    from mallard.multibody.plugins import GetPlugin

    inst = ctx.plugins.instances[iid]
    plugin = GetPlugin(inst.plugin)
    try:
        aabb = np.asarray(plugin.sdf_aabb(inst.config), float)
        kernel = plugin.sdf_kernel(inst.config)
        if kernel is not None:  # MuJoCo's sampling: its body mass and inertia come from this mesh
            axes = mujoco_sdf_grid(aabb)
            v, f = mujoco_sdf_mesh(aabb, shape_distance_grid(kernel[0], np.asarray(kernel[1], float), *axes))
        else:  # a Python plugin: a coarser grid (MuJoCo's ~1e6 samples would be ~1e6 Python calls)
            v, f = sdf_surface_mesh(lambda pts: [plugin.sdf_staticdistance(q, inst.config) for q in pts], aabb,
                                    resolution=40)
    except ValueError as exc:
        raise error_at(el.where, f"mesh '{name}': {exc}") from None
    if len(f) == 0:
        raise error_at(el.where, f"mesh '{name}': the SDF of plugin '{inst.plugin}' has no surface inside its "
                                 f"bounding box")
    try:
        vol, _, inertia = mesh_mass_properties(v, f, a["inertia"])
    except ValueError as exc:
        raise error_at(el.where, f"mesh '{name}': {exc}") from None
    principal, _ = _principal(inertia)
    return MjcfMesh(name, v, f, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), vol, inertia_box(principal),
                    a["inertia"], None, plugin=iid)


def _hfield_file(ctx: CompileContext, el: Element, name: str) -> np.ndarray:
    """The raw elevation grid (row 0 at -y) of an hfield file: PNG (grey levels, image rows reversed as
    MuJoCo reads them) or MuJoCo's binary format (int32 nrow, int32 ncol, float32 data row-major)."""
    file = el.get("file")
    path = asset_path(ctx, file)
    try:
        with resources.OpenResource(str(path)) as res:
            data = res.read()
            media = res.content_type
    except (OSError, ValueError, RuntimeError) as exc:
        raise error_at(el.where, f"hfield '{name}': cannot read file '{file}': {exc}") from None
    kind = el.get("content_type") or media or ""
    if kind not in ("image/png", "image/vnd.mujoco.hfield"):
        kind = "image/png" if str(file).lower().endswith(".png") else "image/vnd.mujoco.hfield"
    if kind == "image/png":
        from matplotlib import image as mpimg

        try:
            img = np.asarray(mpimg.imread(io.BytesIO(data), format="png"), float)
        except Exception as exc:  # matplotlib/PIL raise many types for corrupt files
            raise error_at(el.where, f"hfield '{name}': cannot read PNG file '{file}': {exc}") from None
        if img.ndim == 3:  # MuJoCo decodes grey; a colour image contributes its first channel
            img = img[:, :, 0]
        return np.round(img * 255.0)[::-1].astype(np.float32)
    if len(data) < 8:
        raise error_at(el.where, f"hfield '{name}': file '{file}' has no nrow/ncol header")
    nrow, ncol = (int(x) for x in np.frombuffer(data[:8], "<i4"))
    if nrow < 1 or ncol < 1:
        raise error_at(el.where, f"hfield '{name}': non-positive dimensions {nrow} x {ncol} in file '{file}'")
    if len(data) != 8 + 4 * nrow * ncol:
        raise error_at(el.where, f"hfield '{name}': file '{file}' holds {len(data) - 8} data bytes; "
                                 f"{nrow} x {ncol} needs {4 * nrow * ncol}")
    return np.frombuffer(data[8:], "<f4").reshape(nrow, ncol).copy()


def compile_hfield(ctx: CompileContext, el: Element, name: str) -> np.ndarray:
    """The elevation grid (nrow x ncol, float32, row 0 at y = -size[1]) of an <hfield>, from its file or its
    nrow/ncol/elevation attributes (rows listed from +y down, zeros without elevation), normalized to [0, 1]
    as MuJoCo's compiler does (in single precision: minus the minimum, over the range when it exceeds 1e-14)."""
    nrow, ncol = int(el.get("nrow", 0) or 0), int(el.get("ncol", 0) or 0)
    elevation = el.get("elevation")
    if el.get("file"):
        data = _hfield_file(ctx, el, name)
    else:
        if nrow < 1 or ncol < 1:
            raise error_at(el.where, f"hfield '{name}': needs a file or nrow and ncol (got {nrow} x {ncol})")
        if elevation:
            if len(elevation) != nrow * ncol:
                raise error_at(el.where, f"hfield '{name}': elevation has {len(elevation)} values; nrow*ncol = "
                                         f"{nrow * ncol}")
            # the text reads like an image, first row at +y: MuJoCo reverses the rows
            data = np.ascontiguousarray(np.asarray(elevation, float).astype(np.float32).reshape(nrow, ncol)[::-1])
        else:
            data = np.zeros((nrow, ncol), np.float32)
    if data.shape[0] < 2 or data.shape[1] < 2:
        raise error_at(el.where, f"hfield '{name}': the grid must be at least 2 x 2; got {data.shape}")
    if not np.all(np.isfinite(data)):
        raise error_at(el.where, f"hfield '{name}': elevation data contain NaN or inf")
    lo, hi = np.float32(data.min()), np.float32(data.max())
    data = (data - lo).astype(np.float32)
    if float(np.float32(hi - lo)) > 1e-14:
        data = (data / np.float32(hi - lo)).astype(np.float32)
    return data


def _submodel_name(ctx: CompileContext, el: Element) -> str:
    """Name of an unnamed `<model>` asset: as MuJoCo, the `model` attribute of the file's root element
    (MuJoCo's default "MuJoCo Model" when absent), read without parsing the rest of the file."""
    path = Path(el.get("file"))
    if not path.is_absolute() and isinstance(ctx.model_dir, Path):
        path = ctx.model_dir / path
    try:
        for _, root in etree.iterparse(str(path), events=("start",)):
            return root.get("model") or "MuJoCo Model"
    except (OSError, etree.XMLSyntaxError):
        pass  # the attach that uses it reports the missing or malformed file
    return Path(el.get("file")).stem


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
                if any(s <= 0 for s in size):  # MuJoCo: "size parameter is not positive in hfield"
                    raise error_at(el.where, f"hfield '{name}': all four size values (radius_x, radius_y, "
                                             f"elevation_z, base_z) must be positive; got {list(size)}")
                ctx.hfields[name] = {"size": tuple(size), "attrs": dict(el.attrs),
                                     "data": compile_hfield(ctx, el, name)}
            elif el.tag == "material":
                if not el.get("name"):
                    raise error_at(el.where, "material needs a name")
                ctx.materials[el.get("name")] = ctx.defaults.resolve(el, "material", "main")
            elif el.tag == "texture":
                ctx.textures.append(ctx.defaults.resolve(el, "texture", "main"))
            elif el.tag == "model":
                ctx.submodels[el.get("name") or _submodel_name(ctx, el)] = el
