"""PlanarSceneGraphVisualizer: a matplotlib view of a SceneGraph projected onto a plane
(pydrake.systems.planar_scenegraph_visualizer), headless or in a window.

Each geometry is drawn as the 2D convex hull of its projected surface points, in its illustration
color. ``T_VW`` (3x4) maps world points [x; y; z; 1] to view coordinates [u; v; 1]; the default
views the world x-z plane. It redraws every ``draw_period``; between ``start_recording()`` and
``stop_recording()`` it keeps every frame, and ``SaveAnimation(path)`` (mallard) writes them as a GIF, an MP4
(when ffmpeg is installed) or PNG frames. Beyond pydrake's shapes it draws capsules, ellipsoids, height
fields and cones.
"""
from __future__ import annotations

import os
import shutil
import warnings

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.geometry import (Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, HeightField, Mesh, MeshcatCone,
                              QueryObject, Rgba, Role, SceneGraph, Sphere)
from mallard.multibody.math import RigidTransform
from mallard.systems.framework import Value
from mallard.visualization.pyplot_visualizer import PyPlotVisualizer

matplotlib = LazyModule("matplotlib")  # loaded on first use (import time)

_DEFAULT_T_VW = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
_HALF_SPACE_EXTENT = 50.0  # m, half side of the square standing in for a half space


def _sphere_points(n: int = 12) -> np.ndarray:
    """Points on the unit sphere (latitude/longitude grid, poles included)."""
    lat = np.linspace(-0.5 * np.pi, 0.5 * np.pi, n)
    lon = np.linspace(0.0, 2 * np.pi, 2 * n, endpoint=False)
    La, Lo = np.meshgrid(lat, lon)
    return np.column_stack([(np.cos(La) * np.cos(Lo)).ravel(), (np.cos(La) * np.sin(Lo)).ravel(), np.sin(La).ravel()])


def _ellipse(a: float, b: float, z: float, n: int = 32) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([a * np.cos(t), b * np.sin(t), np.full(n, z)])


def _circle(r: float, z: float, n: int = 32) -> np.ndarray:
    return _ellipse(r, r, z, n)


def shape_points(shape) -> np.ndarray:
    """Points p_GQ (n, 3) on the surface of ``shape`` whose projected convex hull outlines it."""
    if isinstance(shape, Sphere):
        return shape.radius() * _sphere_points()
    if isinstance(shape, Ellipsoid):
        return _sphere_points() * np.array([shape.a(), shape.b(), shape.c()])
    if isinstance(shape, Box):
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        return 0.5 * corners * shape.size()
    if isinstance(shape, Cylinder):
        return np.vstack([_circle(shape.radius(), -0.5 * shape.length()), _circle(shape.radius(), 0.5 * shape.length())])
    if isinstance(shape, Capsule):
        s = shape.radius() * _sphere_points()
        return np.vstack([s + [0, 0, 0.5 * shape.length()], s - [0, 0, 0.5 * shape.length()]])
    if isinstance(shape, HalfSpace):
        e = _HALF_SPACE_EXTENT
        return np.array([[x, y, z] for x in (-e, e) for y in (-e, e) for z in (-2 * e, 0.0)])
    if isinstance(shape, HeightField):
        h = shape.heights()
        x, y, z_top, z_bot = shape.size()
        X, Y = np.meshgrid(np.linspace(-x, x, h.shape[1]), np.linspace(-y, y, h.shape[0]))
        top = np.column_stack([X.ravel(), Y.ravel(), (h * z_top).ravel()])
        bottom = top.copy()
        bottom[:, 2] = -z_bot
        return np.vstack([top, bottom])
    if isinstance(shape, (Mesh, Convex)):
        return _mesh_points(shape, substitute=False)
    if isinstance(shape, MeshcatCone):
        return np.vstack([[0.0, 0.0, 0.0], _ellipse(shape.a(), shape.b(), shape.height())])
    raise ValueError(f"PlanarSceneGraphVisualizer: cannot draw a {type(shape).__name__}; supported: Sphere, "
                     "Ellipsoid, Box, Cylinder, Capsule, HalfSpace, HeightField, Mesh, Convex")


def hull_2d(points: np.ndarray) -> np.ndarray:
    """The 2D convex hull of ``points`` (n, 2) as a closed polygon's vertices in order; a degenerate
    (collinear) set gives its two extreme points."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return points[ConvexHull(points).vertices]
    except (QhullError, ValueError):
        d = points - points.mean(axis=0)
        axis = np.linalg.svd(d, full_matrices=False)[2][0] if len(points) > 1 else np.array([1.0, 0.0])
        s = d @ axis
        return points[[int(np.argmin(s)), int(np.argmax(s))]]


class PlanarSceneGraphVisualizer(PyPlotVisualizer):
    """Draws a SceneGraph's illustration geometry projected onto a plane with matplotlib, as pydrake's
    PlanarSceneGraphVisualizer: each geometry is the 2D convex hull of its projected surface points (meshes:
    of their convex hull's vertices), filled in its ("phong", "diffuse") color; the title shows the time."""

    def __init__(self, scene_graph: SceneGraph, draw_period: float | None = None, T_VW=_DEFAULT_T_VW,
                 xlim=(-1.0, 1.0), ylim=(-1.0, 1.0), facecolor=(1, 1, 1), use_random_colors: bool = False,
                 substitute_collocated_mesh_files: bool = True, ax=None, show: bool | None = None, *,
                 figsize=None):
        T = np.asarray(T_VW, dtype=float)
        if T.shape != (3, 4) or not np.all(np.isfinite(T)):
            raise ValueError(f"PlanarSceneGraphVisualizer: T_VW must be a finite 3x4 matrix; given shape {T.shape}")
        if not isinstance(scene_graph, SceneGraph):
            raise TypeError(f"PlanarSceneGraphVisualizer needs a SceneGraph; given {type(scene_graph).__name__}")
        if figsize is None:
            default = matplotlib.rcParams["figure.figsize"]
            figsize = (default[0], default[0] * (ylim[1] - ylim[0]) / (xlim[1] - xlim[0]))
        super().__init__(draw_period=draw_period, facecolor=facecolor, figsize=figsize, ax=ax, show=show)
        self.set_name("planar_scenegraph_visualizer")
        self._scene_graph = scene_graph
        self._T_VW = T
        self._geometry_query_input_port = self.DeclareAbstractInputPort("geometry_query", Value(QueryObject()))
        self.ax.axis("equal")
        self.ax.axis("off")
        self.ax.set_xlim(xlim)
        self.ax.set_ylim(ylim)
        self.fig.set_size_inches(figsize[0], figsize[1])
        self._build_body_patches(use_random_colors, substitute_collocated_mesh_files, scene_graph.model_inspector())
        self._body_fills: dict[str, list] = {}
        identity = RigidTransform()
        for name, patches in self._patch_Blist.items():
            self._body_fills[name] = []
            for patch_B, color in zip(patches, self._patch_Blist_colors[name]):
                xy = hull_2d(self._project(identity, patch_B))
                fill = self.ax.fill(xy[:, 0], xy[:, 1], zorder=0, edgecolor="k", facecolor=color, closed=True)[0]
                self._body_fills[name].append(fill)

    def get_geometry_query_input_port(self):
        """The abstract input port ``geometry_query`` (SceneGraph's QueryObject)."""
        return self._geometry_query_input_port

    @staticmethod
    def frame_name(frame_id, inspector) -> str:
        """The name of a frame's patches: "world", or "<source>::<frame>"."""
        if frame_id == inspector.world_frame_id():
            return "world"
        return f"{inspector.GetOwningSourceName(frame_id)}::{inspector.GetName(frame_id)}"

    def _build_body_patches(self, use_random_colors: bool, substitute: bool, inspector) -> None:
        """Points p_BQ (3, n) of each illustration geometry in its frame B, grouped by frame, with colors."""
        self._patch_Blist: dict[str, list[np.ndarray]] = {}
        self._patch_Blist_colors: dict[str, list] = {}
        self._frame_ids: dict[str, object] = {}
        for frame_id in inspector.GetAllFrameIds():
            gids = inspector.GetGeometries(frame_id, Role.kIllustration)
            if not gids:
                continue
            name = self.frame_name(frame_id, inspector)
            patches, colors = [], []
            for gid in gids:
                shape = inspector.GetShape(gid)
                p_GQ = _mesh_points(shape, substitute) if isinstance(shape, (Mesh, Convex)) else shape_points(shape)
                if p_GQ is None:
                    continue
                X_BG = inspector.GetPoseInFrame(gid).GetAsMatrix4()
                patches.append(X_BG[:3, :3] @ p_GQ.T + X_BG[:3, 3:4])
                rgba = inspector.GetIllustrationProperties(gid).GetPropertyOrDefault("phong", "diffuse",
                                                                                     Rgba(0.9, 0.9, 0.9, 1.0))
                colors.append(tuple(rgba.rgba) if isinstance(rgba, Rgba) else tuple(np.asarray(rgba, float)))
            self._patch_Blist[name] = patches
            self._patch_Blist_colors[name] = colors
            self._frame_ids[name] = frame_id
        if use_random_colors:
            import matplotlib.cm

            palette = iter(matplotlib.cm.rainbow(np.linspace(0, 1, len(self._patch_Blist_colors))))
            for name in self._patch_Blist_colors:
                color = tuple(next(palette))
                self._patch_Blist_colors[name] = [color] * len(self._patch_Blist[name])

    def _project(self, X_WB, patch_B: np.ndarray) -> np.ndarray:
        """View coordinates (n, 2) of the points patch_B (3, n) of frame B posed at X_WB."""
        M = X_WB.GetAsMatrix4()
        p_W = M[:3, :3] @ patch_B + M[:3, 3:4]
        V = self._T_VW[:, :3] @ p_W + self._T_VW[:, 3:4]
        return (V[:2] / V[2:3]).T

    def _snapshot(self, context) -> "_FramePoses":
        """The time and every drawn frame's pose, which is all ``draw`` needs to redraw the frame later."""
        query = self._geometry_query_input_port.Eval(context)
        return _FramePoses(context.get_time(), {name: query.GetPoseInWorld(fid) for name, fid in
                                                self._frame_ids.items()})

    def draw(self, context) -> None:
        """Move every patch to its frame's pose in ``context`` (or in a recorded frame) and title the axes
        with the time."""
        frame = context if isinstance(context, _FramePoses) else self._snapshot(context)
        view_dir = np.cross(self._T_VW[0, :3], self._T_VW[1, :3])
        for name, patches in self._patch_Blist.items():
            X_WB = frame.poses[name]
            for fill, patch_B in zip(self._body_fills[name], patches):
                fill.set_xy(hull_2d(self._project(X_WB, patch_B)))
                fill.zorder = float(X_WB.translation() @ view_dir)
        self.ax.set_title("t = {:.1f}".format(frame.get_time()))

    # ----- mallard: saving the recording ------------------------------------------------------------------
    def SaveAnimation(self, filename: str, fps: float | None = None) -> list[str]:
        """(mallard) Write the recorded frames: '.gif' (pillow), '.mp4' (ffmpeg; PNG frames in
        '<name>_frames/' when ffmpeg is missing, with a warning), or a folder / '.png' pattern for PNG
        frames. Returns the paths written."""
        if not self._recorded_contexts:
            raise RuntimeError("PlanarSceneGraphVisualizer.SaveAnimation: no frames recorded; call "
                               "start_recording() before simulating and stop_recording() after")
        filename = os.fspath(filename)
        fps = 1.0 / self.time_step if fps is None else float(fps)
        ext = os.path.splitext(filename)[1].lower()
        folder = os.path.dirname(os.path.abspath(filename))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"PlanarSceneGraphVisualizer.SaveAnimation: folder does not exist: {folder}")
        if ext == ".gif":
            from matplotlib.animation import PillowWriter

            self.get_recording_as_animation().save(filename, writer=PillowWriter(fps=fps))
            return [filename]
        if ext == ".mp4":
            if shutil.which("ffmpeg"):
                from matplotlib.animation import FFMpegWriter

                self.get_recording_as_animation().save(filename, writer=FFMpegWriter(fps=fps))
                return [filename]
            frames_dir = os.path.splitext(filename)[0] + "_frames"
            warnings.warn(f"PlanarSceneGraphVisualizer: ffmpeg is not installed, so {filename} cannot be written; "
                          f"writing PNG frames to {frames_dir}/ instead", RuntimeWarning, stacklevel=2)
            return self._save_pngs(frames_dir)
        if ext in ("", ".png"):
            return self._save_pngs(os.path.splitext(filename)[0] if ext else filename)
        raise ValueError(f"PlanarSceneGraphVisualizer.SaveAnimation: unsupported file type '{ext}' for {filename}; "
                         "use .gif, .mp4, .png or a folder")

    def _save_pngs(self, folder: str) -> list[str]:
        os.makedirs(folder, exist_ok=True)
        paths = []
        for i in range(len(self._recorded_contexts)):
            self._draw_recorded_frame(i)
            path = os.path.join(folder, f"frame_{i:05d}.png")
            self.fig.savefig(path)
            paths.append(path)
        return paths


class _FramePoses:
    """A recorded frame of a PlanarSceneGraphVisualizer: the time and X_WB of each drawn frame."""

    __slots__ = ("time", "poses")

    def __init__(self, time: float, poses: dict):
        self.time, self.poses = time, poses

    def get_time(self) -> float:
        return self.time


_KNOWN_MESH_SUFFIXES = (".obj", ".vtk", ".gltf")


def _mesh_points(shape, substitute: bool) -> np.ndarray:
    """The convex-hull vertices (n, 3) of a Mesh / Convex, as pydrake finds them: a path of another type may be
    replaced by a file of the same name with a known suffix; otherwise errors name the mesh."""
    source = shape.source()
    search = source.is_path() and substitute
    hull = None
    try:
        hull = shape.GetConvexHull()
    except RuntimeError:
        if source.extension() in _KNOWN_MESH_SUFFIXES:
            raise
        if search:
            for suffix in _KNOWN_MESH_SUFFIXES:
                alt = source.path().with_suffix(suffix)
                if alt.exists():
                    hull = Convex(alt, scale3=shape.scale3()).GetConvexHull()
                    break
    if hull is None:
        extra = " No supported alternative could be found." if search else ""
        raise RuntimeError(f"The {type(shape).__name__} instance with mesh data '{source.description()}' has an "
                           f"unsupported extension ('{source.extension()}').{extra}")
    return hull.vertex_array().copy()


def ConnectPlanarSceneGraphVisualizer(builder, scene_graph: SceneGraph, output_port=None,
                                      **kwargs) -> PlanarSceneGraphVisualizer:
    """Add a PlanarSceneGraphVisualizer to ``builder`` fed by ``scene_graph``'s query output (or
    ``output_port``); kwargs go to the constructor."""
    vis = builder.AddSystem(PlanarSceneGraphVisualizer(scene_graph, **kwargs))
    vis.set_name("planar_scenegraph_visualizer")
    port = scene_graph.get_query_output_port() if output_port is None else output_port
    builder.Connect(port, vis.get_geometry_query_input_port())
    return vis
