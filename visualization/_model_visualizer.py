"""Load any model file, show it in Meshcat, optionally simulate it passively, record it to HTML and
plot its state (pydrake.visualization.ModelVisualizer). The command line is mallard.cli.
"""
from __future__ import annotations

import math
import os
import time

import numpy as np

from mallard.geometry import Rgba, Role
from mallard.geometry.meshcat import Meshcat, MeshcatParams
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams

MODEL_EXTENSIONS = (".urdf", ".sdf", ".xml")


def _package_xmls_above(path: str) -> list[str]:
    """package.xml manifests in the model's folder and its ancestors (nearest first)."""
    found = []
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        candidate = os.path.join(folder, "package.xml")
        if os.path.isfile(candidate):
            found.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def check_model_file(path: str) -> str:
    """The absolute path of a loadable model file; FileNotFoundError / ValueError otherwise."""
    full = os.path.abspath(os.path.expanduser(os.fspath(path)))
    ext = os.path.splitext(full)[1].lower()
    if ext not in MODEL_EXTENSIONS:
        raise ValueError(f"model file {full}: unsupported extension '{ext}'; use one of "
                         f"{', '.join(MODEL_EXTENSIONS)} (URDF, SDFormat, MJCF)")
    if not os.path.isfile(full):
        raise FileNotFoundError(f"model file not found: {full}")
    return full


class ModelVisualizer:
    """Loads models into a MultibodyPlant + SceneGraph and shows them in Meshcat."""

    def __init__(self, meshcat: Meshcat | None = None, time_step: float = 1e-3, publish_period: float = 1.0 / 64):
        if not (math.isfinite(float(time_step)) and float(time_step) >= 0):
            raise ValueError(f"ModelVisualizer: time_step must be finite and >= 0 s; given {time_step!r}")
        from mallard.multibody.plant import AddMultibodyPlantSceneGraph
        from mallard.parsers import Parser
        from mallard.systems.framework import DiagramBuilder

        self._meshcat = meshcat
        self._publish_period = float(publish_period)
        self._builder = DiagramBuilder()
        self._plant, self._scene_graph = AddMultibodyPlantSceneGraph(self._builder, float(time_step))
        self._parser = Parser(self._plant)
        self._diagram = None
        self._models: list[str] = []

    def parser(self):
        return self._parser

    def meshcat(self) -> Meshcat:
        if self._meshcat is None:
            self._meshcat = Meshcat(MeshcatParams())
        return self._meshcat

    def AddModels(self, file_name: str) -> list:
        """Add every model in ``file_name``; package.xml manifests above it are registered first so
        its package:// URLs resolve."""
        path = check_model_file(file_name)
        package_map = self._parser.package_map()
        for manifest in _package_xmls_above(path):
            try:
                package_map.AddPackageXml(manifest)
            except (ValueError, KeyError, RuntimeError):
                pass  # a second package of the same name: keep the nearest one
        self._models.append(path)
        return self._parser.AddModels(path)

    def _build(self):
        if self._diagram is not None:
            return
        from mallard.systems.primitives import LogVectorOutput

        if not self._models:
            raise RuntimeError("ModelVisualizer: no model added; call AddModels(file) first")
        plant = self._plant
        plant.Finalize()
        meshcat = self.meshcat()
        self._vis = MeshcatVisualizer.AddToBuilder(
            self._builder, self._scene_graph, meshcat, MeshcatVisualizerParams(publish_period=self._publish_period))
        MeshcatVisualizer.AddToBuilder(
            self._builder, self._scene_graph, meshcat,
            MeshcatVisualizerParams(publish_period=self._publish_period, role=Role.kProximity,
                                    default_color=Rgba(1.0, 0.35, 0.1, 0.5), visible_by_default=False))
        self._logger = LogVectorOutput(plant.get_state_output_port(), self._builder, self._publish_period)
        self._diagram = self._builder.Build()

    def Run(self, simulate: float = 0.0, html: str | None = None, plot: str | None = None,
            position=None, wait: bool = True) -> dict:
        """Show the models (at ``position``, default the plant's default), simulate them passively
        for ``simulate`` seconds while recording, then write the recording to ``html`` and a plot of
        q(t), v(t) to ``plot``. Waits for Ctrl-C when neither file is asked for and ``wait``."""
        from mallard.systems.analysis import Simulator

        T = float(simulate)
        if not math.isfinite(T) or T < 0:
            raise ValueError(f"ModelVisualizer.Run: simulate must be finite and >= 0 s; given {simulate!r}")
        self._build()
        plant = self._plant
        context = self._diagram.CreateDefaultContext()
        plant_context = plant.GetMyMutableContextFromRoot(context)
        if position is not None:
            q = np.asarray(position, dtype=float).reshape(-1)
            if q.size != plant.num_positions():
                raise ValueError(f"ModelVisualizer.Run: position has {q.size} values; the plant has "
                                 f"{plant.num_positions()} positions")
            plant.SetPositions(plant_context, q)
        if plant.num_actuators():
            plant.get_actuation_input_port().FixValue(plant_context, np.zeros(plant.num_actuators()))
        simulator = Simulator(self._diagram, context)
        meshcat = self.meshcat()
        if T > 0:
            self._vis.StartRecording()
        simulator.Initialize()
        if T > 0:
            simulator.AdvanceTo(T)
            self._vis.StopRecording()
            self._vis.PublishRecording()
        log = self._logger.FindLog(context)
        out = {"times": log.sample_times(), "data": log.data()}
        if html:
            with open(html, "w", encoding="utf-8") as f:
                f.write(meshcat.StaticHtml())
        if plot:
            self._plot(out["times"], out["data"], plot)
        if wait and not html and not plot:
            print(f"Showing the model at {meshcat.web_url()}; press Ctrl-C to exit.")
            try:
                while True:
                    time.sleep(0.5)
            except KeyboardInterrupt:
                pass
        return out

    def _plot(self, times: np.ndarray, data: np.ndarray, path: str) -> None:
        from matplotlib.figure import Figure

        plant = self._plant
        nq, nv = plant.num_positions(), plant.num_velocities()
        names = plant.GetStateNames(add_model_instance_prefix=False)
        fig = Figure(figsize=(8, 6))
        ax_q, ax_v = fig.subplots(2, 1, sharex=True)
        for i in range(nq):
            ax_q.plot(times, data[i], label=names[i])
        for i in range(nv):
            ax_v.plot(times, data[nq + i], label=names[nq + i])
        ax_q.set_ylabel("q")
        ax_v.set_ylabel("v")
        ax_v.set_xlabel("time (s)")
        for ax in (ax_q, ax_v):
            ax.grid(True)
            if 0 < len(ax.lines) <= 12:
                ax.legend(fontsize="small", loc="upper right")
        fig.suptitle(", ".join(os.path.basename(m) for m in self._models))
        fig.savefig(path)
