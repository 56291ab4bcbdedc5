"""ModelVisualizer (pydrake.visualization): load models from files, URLs or strings into a MultibodyPlant +
SceneGraph and show them in Meshcat with a slider per joint, as pydrake's ModelVisualizer does.

mallard adds: ``time_step`` (the plant's, s), and in ``Run``: ``simulate`` (seconds of passive simulation,
recorded), ``html`` (write the scene and recording to a self-contained page), ``plot`` (an image of q(t),
v(t)) and ``wait``. The command line is mallard.cli.
"""
from __future__ import annotations

import copy
import math
import os
import re
import time
from pathlib import Path
from webbrowser import open as _webbrowser_open

import numpy as np

from mallard.common.text_logging import log
from mallard.geometry import Box, MeshcatCone, Rgba, StartMeshcat
from mallard.multibody.math import RigidTransform, RotationMatrix
from mallard.visualization.default_visualization import ApplyVisualizationConfig
from mallard.visualization.joint_sliders import JointSliders
from mallard.visualization.triad import AddFrameTriadIllustration
from mallard.visualization.visualization_config import VisualizationConfig

__all__ = ["ModelVisualizer", "check_model_file"]

_log = log()
MODEL_EXTENSIONS = (".urdf", ".sdf", ".xml")


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


def _package_xmls_above(path: str) -> list[str]:
    """package.xml manifests in the model's folder and its ancestors (nearest first)."""
    found, folder = [], os.path.dirname(os.path.abspath(path))
    while True:
        candidate = os.path.join(folder, "package.xml")
        if os.path.isfile(candidate):
            found.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def _add_package_xmls_above(package_map, path: str) -> None:
    """Register the package.xml manifests above a model file so its package:// URIs resolve: a local copy of a
    default remote package (drake_models) replaces it; of two local packages with one name, the nearest stays."""
    for manifest in _package_xmls_above(path):
        try:
            package_map.AddPackageXml(manifest)
        except (ValueError, KeyError, RuntimeError):
            name = package_map._package_name_of(manifest)
            if package_map._is_remote(name):
                package_map.Remove(name)
                package_map.AddPackageXml(manifest)


class ModelVisualizer:
    """Visualizes models in Meshcat: make one, add models (``AddModels`` or ``parser()``), then ``Run()``."""

    def __init__(self, meshcat=None, *, visualize_frames: bool = False, triad_length: float = 0.3,
                 triad_radius: float = 0.005, triad_opacity: float = 0.9, publish_contacts: bool = True,
                 show_rgbd_sensor: bool = False, browser_new: bool = False, pyplot: bool = False,
                 environment_map: Path = Path(), no_lights: bool = False, compliance_type: str = "undefined",
                 time_step: float = 1e-3):
        if show_rgbd_sensor:
            raise ValueError("ModelVisualizer(show_rgbd_sensor=True) needs a camera renderer; mallard has no "
                             "rendering engine (cameras and rendering are outside its scope)")
        if not (math.isfinite(float(time_step)) and float(time_step) >= 0):
            raise ValueError(f"ModelVisualizer: time_step must be finite and >= 0 s; given {time_step!r}")
        self._visualize_frames = visualize_frames
        self._triad_length = triad_length
        self._triad_radius = triad_radius
        self._triad_opacity = triad_opacity
        self._publish_contacts = publish_contacts
        self._show_rgbd_sensor = show_rgbd_sensor
        self._browser_new = browser_new
        self._pyplot = pyplot
        self._meshcat = meshcat
        self._environment_map = Path(environment_map)
        self._no_lights = no_lights
        self._compliance_type = compliance_type
        self._time_step = float(time_step)
        self._added_models: list | None = []  # AddModels kwargs (None once parser() was handed out)
        self._reload_button_name = None
        self._diagram = self._sliders = self._context = self._logger = None
        self._original_package_map = None
        self._NewBuilder()

    def _NewBuilder(self) -> None:
        from mallard.multibody.plant import AddMultibodyPlantSceneGraph
        from mallard.parsers import Parser
        from mallard.systems.framework import DiagramBuilder

        self._builder = DiagramBuilder()
        self._plant, self._scene_graph = AddMultibodyPlantSceneGraph(self._builder, self._time_step)
        self._parser = Parser(self._plant)
        self._parser.SetAutoRenaming(True)
        config = copy.deepcopy(self._scene_graph.get_config())
        config.default_proximity_properties.compliance_type = self._compliance_type
        self._scene_graph.set_config(config)

    @staticmethod
    def _get_constructor_defaults() -> dict:
        """The defaults of the constructor's named options (what the command line shares)."""
        prototype = ModelVisualizer()
        names = ("visualize_frames", "triad_length", "triad_radius", "triad_opacity", "publish_contacts",
                 "show_rgbd_sensor", "browser_new", "pyplot", "environment_map", "compliance_type")
        return {name: getattr(prototype, f"_{name}") for name in names}

    def _check_not_finalized(self) -> None:
        if self._builder is None:
            raise ValueError("Finalize has already been called.")

    def package_map(self):
        """The PackageMap used when parsing (add packages here); only before Finalize."""
        self._check_not_finalized()
        return self._parser.package_map()

    def parser(self):
        """(Advanced) The Parser that loads models into this visualizer; only before Finalize. Using it turns
        off the Reload button, as the models added through it cannot be replayed."""
        self._check_not_finalized()
        self._added_models = None
        return self._parser

    def meshcat(self):
        """The Meshcat this visualizer draws in (started on first use when none was given)."""
        if self._meshcat is None:
            self._meshcat = StartMeshcat()
        return self._meshcat

    def AddModels(self, filename: Path | None = None, *, url: str | None = None) -> list:
        """Add every model of a file or of a package:// URL (exactly one); glTF files are shown as visual-only
        models. package.xml manifests above a file are registered so its package:// URIs resolve."""
        self._check_not_finalized()
        if (filename is None) == (url is None):
            raise ValueError("Must provide either filename= or url=")
        if filename is not None:
            filename = Path(filename)
            if filename.suffix == ".gltf":
                kwargs = self._wrap_gltf_as_visual(filename=filename)
            else:
                path = check_model_file(str(filename))
                _add_package_xmls_above(self._parser.package_map(), path)
                kwargs = dict(file_name=path)
        else:
            kwargs = self._wrap_gltf_as_visual(url=url) if url.endswith(".gltf") else dict(url=url)
        added = self._parser.AddModels(**kwargs)
        if self._added_models is not None:
            self._added_models.append(kwargs)
        return added

    def _wrap_gltf_as_visual(self, *, filename: Path | None = None, url: str | None = None) -> dict:
        """AddModels arguments that load a glTF mesh as a visual-only SDFormat model."""
        if filename is not None:
            package = re.sub(r"[^A-Za-z0-9_]", "", str(filename.parent))
            self._parser.package_map().Add(package_name=package, package_path=str(filename.parent))
            url = f"package://{package}/{filename.name}"
        name = Path(url.split("/")[-1]).stem
        contents = (f'<?xml version="1.0"?><sdf version="1.12"><model name="{name}"><link name="body">'
                    f'<visual name="visual"><geometry><mesh><uri>{url}</uri></mesh></geometry></visual>'
                    "</link></model></sdf>")
        return dict(file_contents=contents, file_type="sdf")

    def Finalize(self, position=None) -> None:
        """Finalize the plant and set up the visualization: Meshcat layers (illustration, proximity, contacts,
        inertia), joint sliders, frame triads when asked, and a pyplot view when asked. ``position`` sets the
        plant's positions (all of them, free bodies' 7 included)."""
        if self._builder is None:
            raise RuntimeError("Finalize has already been called.")
        from mallard.multibody.tree import FrameIndex
        from mallard.systems.analysis import Simulator
        from mallard.systems.primitives import LogVectorOutput

        plant, builder = self._plant, self._builder
        if self._visualize_frames:
            for i in range(1, plant.num_frames()):
                AddFrameTriadIllustration(plant=plant, scene_graph=self._scene_graph, frame_index=FrameIndex(i),
                                          length=self._triad_length, radius=self._triad_radius,
                                          opacity=self._triad_opacity)
        plant.SetUseSampledOutputPorts(False)
        plant.Finalize()
        meshcat = self.meshcat()
        meshcat.Delete()
        meshcat.DeleteAddedControls()
        if self._no_lights:
            meshcat.SetProperty("/Lights", "visible", False)
        if self._environment_map.is_file():
            meshcat.SetEnvironmentMap(self._environment_map)
        if self._added_models:
            self._reload_button_name = "Reload Model Files"
            meshcat.AddButton(self._reload_button_name)
        ApplyVisualizationConfig(VisualizationConfig(publish_contacts=self._publish_contacts,
                                                     enable_alpha_sliders=True),
                                 builder, plant=plant, scene_graph=self._scene_graph, meshcat=meshcat)
        self._sliders = builder.AddNamedSystem("joint_sliders", JointSliders(meshcat=meshcat, plant=plant))
        if self._pyplot:
            from mallard.visualization.planar_scenegraph_visualizer import ConnectPlanarSceneGraphVisualizer

            ConnectPlanarSceneGraphVisualizer(builder, self._scene_graph)
        self._logger = LogVectorOutput(plant.get_state_output_port(), builder, 1.0 / 64.0)
        self._original_package_map = copy.copy(self._parser.package_map())
        self._diagram = builder.Build()
        self._builder = None
        self._context = self._diagram.CreateDefaultContext()
        if plant.num_actuators():  # nothing drives the model: zero actuation (pydrake's unconnected default)
            plant.get_actuation_input_port().FixValue(self._plant_context(), np.zeros(plant.num_actuators()))
        if position is not None and len(position) > 0:
            self._set_positions(position)
        Simulator(self._diagram, self._context.Clone()).Initialize()
        self._diagram.ForcedPublish(self._context)

    def _plant_context(self):
        return self._plant.GetMyMutableContextFromRoot(self._context)

    def _set_positions(self, position) -> None:
        q = np.asarray(position, dtype=float).reshape(-1)
        if q.size != self._plant.num_positions():
            raise ValueError(f"Number of passed positions ({q.size}) does not match the number in the model "
                             f"({self._plant.num_positions()}).")
        self._plant.SetPositions(self._plant_context(), q)
        self._sliders.SetPositions(q)

    def _reload(self) -> None:
        """Rebuild the diagram from the same AddModels calls (picking up edits to the model files)."""
        package_map = self._original_package_map
        self._diagram = self._sliders = self._context = None
        self._remove_traffic_cone()
        self._NewBuilder()
        self._parser.package_map().AddMap(package_map)
        try:
            for kwargs in self._added_models:
                self._parser.AddModels(**kwargs)
            _log.info("Reload was successful")
        except Exception as exc:  # show a model error in the viewer instead of stopping
            _log.error("%s", exc)
            _log.warning("Click '%s' to try again", self._reload_button_name)
            self._NewBuilder()
            self._parser.package_map().AddMap(package_map)
            self._add_traffic_cone()
        self.Finalize()

    def Run(self, position=None, loop_once: bool = False, *, simulate: float = 0.0, html: str | None = None,
            plot: str | None = None, wait: bool = True):
        """Show the models (Finalize first if needed) and follow the joint sliders until the "Stop Running"
        button is clicked or Esc pressed (one pass with ``loop_once``). mallard: ``simulate`` seconds of passive
        simulation are recorded first; ``html`` / ``plot`` write the recording and a plot of the state, and then
        no loop runs; the logged state {"times", "data"} is returned when any of these is used."""
        T = float(simulate)
        if not math.isfinite(T) or T < 0:
            raise ValueError(f"ModelVisualizer.Run: simulate must be finite and >= 0 s; given {simulate!r}")
        if self._builder is not None:
            self.Finalize(position=position)
        elif position is not None and len(position) > 0:
            self._set_positions(position)
            self._diagram.ForcedPublish(self._context)
        if self._browser_new:
            self._browser_new = False
            _webbrowser_open(url=self._meshcat.web_url(), new=True)
        if T > 0 or html or plot:
            return self._simulate(T, html, plot)
        if wait:
            self._loop(loop_once)
        return None

    def _loop(self, loop_once: bool) -> None:
        stop = "Stop Running"
        meshcat = self._meshcat
        if not loop_once:
            _log.info("Click '%s' or press Esc to quit", stop)
        try:
            meshcat.AddButton(stop, "Escape")
            while True:
                time.sleep(1 / 32.0)
                if self._reload_button_name and meshcat.GetButtonClicks(self._reload_button_name) > 0:
                    meshcat.DeleteButton(stop)
                    values = {name: meshcat.GetSliderValue(name) for name in meshcat.GetSliderNames()}
                    self._reload()
                    for name, value in values.items():
                        if name in meshcat.GetSliderNames():
                            meshcat.SetSliderValue(name, value)
                    meshcat.AddButton(stop, "Escape")
                sliders_context = self._sliders.GetMyContextFromRoot(self._context)
                self._plant.SetPositions(self._plant_context(), self._sliders.get_output_port().Eval(sliders_context))
                self._diagram.ForcedPublish(self._context)
                if loop_once or meshcat.GetButtonClicks(stop) > 0:
                    break
        except KeyboardInterrupt:
            pass
        meshcat.DeleteButton(stop, strict=False)
        if self._reload_button_name is not None:
            meshcat.DeleteButton(self._reload_button_name, strict=False)
            self._reload_button_name = None

    def _simulate(self, T: float, html: str | None, plot: str | None) -> dict:
        """Simulate passively for T seconds (actuation zero) while recording; write the page and the plot."""
        from mallard.systems.analysis import Simulator

        simulator = Simulator(self._diagram, self._context)
        meshcat = self._meshcat
        if T > 0:
            meshcat.StartRecording(64.0)
        simulator.Initialize()
        if T > 0:
            simulator.AdvanceTo(self._context.get_time() + T)
            meshcat.StopRecording()
            meshcat.PublishRecording()
        log = self._logger.FindLog(self._context)
        out = {"times": log.sample_times(), "data": log.data()}
        if html:
            with open(html, "w", encoding="utf-8") as f:
                f.write(meshcat.StaticHtml())
        if plot:
            self._plot(out["times"], out["data"], plot)
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
        fig.savefig(path)

    def _add_traffic_cone(self) -> None:
        """An orange cone at the origin (under /PARSE_ERROR) telling the user a reload failed."""
        base_width, base_thickness, cone_height = 0.4, 0.01, 0.6
        radius = 0.75 * (base_width / 2)
        orange = Rgba(1.0, 0.33, 0)
        meshcat = self._meshcat
        meshcat.SetObject(path="/PARSE_ERROR/base", shape=Box(base_width, base_width, base_thickness), rgba=orange)
        meshcat.SetObject(path="/PARSE_ERROR/cone", shape=MeshcatCone(cone_height, radius, radius), rgba=orange)
        meshcat.SetTransform("/PARSE_ERROR/base", RigidTransform([0, 0, base_thickness * 0.5]))
        meshcat.SetTransform("/PARSE_ERROR/cone", RigidTransform(RotationMatrix.MakeYRotation(np.pi),
                                                                 [0, 0, base_thickness + cone_height]))

    def _remove_traffic_cone(self) -> None:
        self._meshcat.Delete("/PARSE_ERROR")
