"""PlanarSceneGraphVisualizer: a matplotlib view of a SceneGraph projected onto a plane, for headless
use (pydrake.systems.planar_scenegraph_visualizer).

Each geometry is drawn as the 2D convex hull of its projected surface points, in its illustration
color. ``T_VW`` (3x4) maps world points [x; y; z; 1] to view coordinates [u; v; 1]; the default
views the world x-z plane. The visualizer publishes (redraws) every ``draw_period``; between
``start_recording()`` and ``stop_recording()`` it keeps every drawn frame, and
``SaveAnimation(path)`` writes them as a GIF, an MP4 (when ffmpeg is installed) or PNG frames.
"""
from __future__ import annotations

import math
import os
import shutil
import warnings

import numpy as np

from mallard.geometry import (Box, Capsule, Convex, Cylinder, Ellipsoid, HalfSpace, HeightField, Mesh, QueryObject,
                              Rgba, Role, SceneGraph, Sphere)
from mallard.systems.framework import LeafSystem, Value

_DEFAULT_T_VW = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
_HALF_SPACE_EXTENT = 50.0  # m, half side of the square standing in for a half space


def _sphere_points(n: int = 12) -> np.ndarray:
    """Points on the unit sphere (latitude/longitude grid, poles included)."""
    lat = np.linspace(-0.5 * np.pi, 0.5 * np.pi, n)
    lon = np.linspace(0.0, 2 * np.pi, 2 * n, endpoint=False)
    La, Lo = np.meshgrid(lat, lon)
    return np.column_stack([(np.cos(La) * np.cos(Lo)).ravel(), (np.cos(La) * np.sin(Lo)).ravel(), np.sin(La).ravel()])


def _circle(r: float, z: float, n: int = 32) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([r * np.cos(t), r * np.sin(t), np.full(n, z)])


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
        if not os.path.isfile(shape.filename()):
            raise FileNotFoundError(f"PlanarSceneGraphVisualizer: mesh file not found: {shape.filename()}")
        return shape._hull_arrays()[0]
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


class PlanarSceneGraphVisualizer(LeafSystem):
    """Draws a SceneGraph's geometries projected onto a plane with matplotlib (no display needed)."""

    def __init__(self, scene_graph: SceneGraph | None = None, T_VW=None, xlim=(-1.0, 1.0), ylim=(-1.0, 1.0),
                 facecolor=(1.0, 1.0, 1.0), use_random_colors: bool = False, ax=None, draw_period: float = 1.0 / 30,
                 show: bool = False, figsize=(6.0, 6.0), role=Role.kIllustration):
        super().__init__()
        T = _DEFAULT_T_VW if T_VW is None else np.asarray(T_VW, dtype=float)
        if T.shape != (3, 4) or not np.all(np.isfinite(T)):
            raise ValueError(f"PlanarSceneGraphVisualizer: T_VW must be a finite 3x4 matrix; given shape {T.shape}")
        period = float(draw_period)
        if not math.isfinite(period) or period <= 0:
            raise ValueError(f"PlanarSceneGraphVisualizer: draw_period must be finite and > 0 s; given {draw_period!r}")
        self._T_VW = T
        self._role = Role(role)
        self._random_colors = bool(use_random_colors)
        self._show = bool(show)
        if ax is None and show:
            import matplotlib.pyplot as plt

            self._fig, self._ax = plt.subplots(figsize=figsize)
        elif ax is None:  # headless: a figure outside pyplot, drawn by the Agg canvas
            from matplotlib.figure import Figure

            self._fig = Figure(figsize=figsize)
            self._ax = self._fig.add_subplot()
        else:
            self._fig, self._ax = ax.figure, ax
        self._ax.set_xlim(*xlim)
        self._ax.set_ylim(*ylim)
        self._ax.set_aspect("equal")
        self._ax.set_facecolor(facecolor)
        self._geom_port = self.DeclareAbstractInputPort("geometry_query", Value(QueryObject()))
        self.DeclarePeriodicPublishEvent(period, 0.0, self._draw)
        self.DeclareForcedPublishEvent(self._draw)
        self.DeclareInitializationPublishEvent(self._draw)
        self._version = None
        self._geoms: list = []  # (GeometryId, p_GQ (n, 3), matplotlib Polygon)
        self._recording = False
        self._recorded: list[tuple[float, list[np.ndarray]]] = []
        self._draw_period = period
        self._time_text = self._ax.text(0.02, 0.96, "", transform=self._ax.transAxes, va="top")
        self._scene_graph = scene_graph

    def get_geometry_query_input_port(self):
        """The abstract input port ``geometry_query`` (SceneGraph's QueryObject)."""
        return self._geom_port

    def fig(self):
        return self._fig

    def ax(self):
        return self._ax

    # ----- drawing ----------------------------------------------------------------------------------
    def _color(self, inspector, gid, k: int):
        if self._random_colors:
            return tuple(np.random.default_rng(gid.get_value()).uniform(0.1, 0.9, 3)) + (1.0,)
        props = inspector.GetProperties(gid, self._role)
        c = None if props is None else props.GetPropertyOrDefault("phong", "diffuse", None)
        if isinstance(c, Rgba):
            return tuple(c.rgba)
        return (0.5, 0.5, 0.5, 1.0)

    def _build(self, query: QueryObject) -> None:
        from matplotlib.patches import Polygon

        for _, _, patch in self._geoms:
            patch.remove()
        inspector = query.inspector()
        self._geoms = []
        for k, gid in enumerate(inspector.GetAllGeometryIds(self._role)):
            pts = shape_points(inspector.GetShape(gid))
            patch = Polygon(np.zeros((3, 2)), closed=True, facecolor=self._color(inspector, gid, k),
                            edgecolor="k", linewidth=0.5)
            self._ax.add_patch(patch)
            self._geoms.append((gid, pts, patch))
        self._version = inspector.geometry_version()

    def project(self, p_WQ: np.ndarray) -> np.ndarray:
        """View coordinates (n, 2) of world points p_WQ (n, 3)."""
        V = p_WQ @ self._T_VW[:, :3].T + self._T_VW[:, 3]
        return V[:, :2] / V[:, 2:3]

    def _outlines(self, query: QueryObject) -> list[np.ndarray]:
        out = []
        for gid, pts, _ in self._geoms:
            M = query.GetPoseInWorld(gid).GetAsMatrix4()
            out.append(hull_2d(self.project(pts @ M[:3, :3].T + M[:3, 3])))
        return out

    def _set_outlines(self, outlines: list[np.ndarray], time: float) -> None:
        for (_, _, patch), xy in zip(self._geoms, outlines):
            patch.set_xy(xy)
        self._time_text.set_text(f"t = {time:.3f} s")

    def _draw(self, context) -> None:
        query = self._geom_port.Eval(context)
        if self._version != query.inspector().geometry_version():
            self._build(query)
        outlines = self._outlines(query)
        t = context.get_time()
        self._set_outlines(outlines, t)
        if self._recording:
            if self._recorded and self._recorded[-1][0] == t:  # e.g. initialization and periodic at t = 0
                self._recorded[-1] = (t, outlines)
            else:
                self._recorded.append((t, outlines))
        if self._show:
            import matplotlib.pyplot as plt

            self._fig.canvas.draw_idle()
            plt.pause(1e-3)

    # ----- recording --------------------------------------------------------------------------------
    def start_recording(self) -> None:
        """Keep every frame drawn from now on (earlier recorded frames are dropped)."""
        self._recording = True
        self._recorded = []

    def stop_recording(self) -> None:
        self._recording = False

    def reset_recording(self) -> None:
        self._recorded = []

    def num_recorded_frames(self) -> int:
        return len(self._recorded)

    def get_recording_as_animation(self, **kwargs):
        """A matplotlib FuncAnimation replaying the recorded frames (kwargs go to FuncAnimation)."""
        from matplotlib.animation import FuncAnimation

        if not self._recorded:
            raise RuntimeError("PlanarSceneGraphVisualizer: no frames recorded; call start_recording() before "
                               "simulating and stop_recording() after")
        frames = list(self._recorded)

        def update(i):
            t, outlines = frames[i]
            self._set_outlines(outlines, t)
            return [patch for _, _, patch in self._geoms] + [self._time_text]

        kwargs.setdefault("interval", 1000.0 * self._draw_period)
        kwargs.setdefault("blit", False)
        return FuncAnimation(self._fig, update, frames=len(frames), **kwargs)

    def SaveAnimation(self, filename: str, fps: float | None = None) -> list[str]:
        """(mallard) Write the recorded frames: '.gif' (pillow), '.mp4' (ffmpeg; PNG frames in
        '<name>_frames/' when ffmpeg is missing, with a warning), or a folder / '.png' pattern for PNG
        frames. Returns the paths written."""
        if not self._recorded:
            raise RuntimeError("PlanarSceneGraphVisualizer.SaveAnimation: no frames recorded; call "
                               "start_recording() before simulating and stop_recording() after")
        filename = os.fspath(filename)
        fps = 1.0 / self._draw_period if fps is None else float(fps)
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
        for i, (t, outlines) in enumerate(self._recorded):
            self._set_outlines(outlines, t)
            path = os.path.join(folder, f"frame_{i:05d}.png")
            self._fig.savefig(path)
            paths.append(path)
        return paths


def ConnectPlanarSceneGraphVisualizer(builder, scene_graph: SceneGraph, output_port=None,
                                      **kwargs) -> PlanarSceneGraphVisualizer:
    """Add a PlanarSceneGraphVisualizer to ``builder`` fed by ``scene_graph``'s query output (or
    ``output_port``); kwargs go to the constructor."""
    vis = builder.AddSystem(PlanarSceneGraphVisualizer(scene_graph, **kwargs))
    port = scene_graph.get_query_output_port() if output_port is None else output_port
    builder.Connect(port, vis.get_geometry_query_input_port())
    return vis
