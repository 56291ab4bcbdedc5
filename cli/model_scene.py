"""A model file as the command line runs it: the plant's time step (an MJCF model's own `<option timestep>`,
read from the file before the plant is built, so the plant steps as MuJoCo does; URDF / SDFormat models a
default the user may change), a MultibodyPlant + SceneGraph diagram with Meshcat visualizers and signal
loggers, and a passive simulation of it recorded to a self-contained HTML replay and a plot."""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import numpy as np

from mallard.geometry import Rgba, Role
from mallard.geometry.meshcat import Meshcat
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, GetMujocoSensorOutputPort
from mallard.multibody.mjcf.plant_maps import GetMjcfPlantMaps
from mallard.parsers import Parser
from mallard.parsers.mjcf.reader import read_mjcf
from mallard.parsers.mjcf.sections import read_option
from mallard.systems.analysis import Simulator
from mallard.systems.drawing import plot_logged_signals
from mallard.systems.framework import DiagramBuilder
from mallard.systems.primitives import LogVectorOutput
from mallard.visualization._model_visualizer import _add_package_xmls_above, check_model_file

__all__ = ["DEFAULT_TIME_STEP", "PlantTimeStep", "ModelTimeStep", "ModelScene"]

DEFAULT_TIME_STEP = 1e-3  # s: Drake's MultibodyPlantConfig default, for URDF / SDFormat models
PUBLISH_PERIOD = 1.0 / 64  # s: the replay's frame period and the loggers' sample period


@dataclass(frozen=True)
class PlantTimeStep:
    """The plant's time step (s, 0 = continuous), where it came from, and the step's integration scheme."""

    time_step: float
    source: str
    integrator: str

    def describe(self) -> str:
        """E.g. "time step 0.002 s (the model's <option timestep>), MuJoCo's implicitfast integrator"."""
        if self.time_step == 0:
            return f"continuous plant ({self.source}), {self.integrator}"
        return f"time step {self.time_step:g} s ({self.source}), {self.integrator}"


def ModelTimeStep(path: str, time_step: float | None = None) -> PlantTimeStep:
    """The time step to build `path`'s plant with: `time_step` when given (s, >= 0), else an MJCF model's own
    `<option timestep>` (with its integrator), else DEFAULT_TIME_STEP. MJCF errors name the file and line."""
    is_mjcf = os.path.splitext(path)[1].lower() == ".xml"
    integrator = "Drake's discrete plant step"
    if is_mjcf:
        option, _ = read_option(read_mjcf(path)[0])
        integrator = f"MuJoCo's {option.integrator} integrator"
    if time_step is not None:
        h = float(time_step)
        if not (math.isfinite(h) and h >= 0):
            raise ValueError(f"the time step must be a finite number of seconds >= 0 (0: continuous); given {h}")
        if h == 0:
            return PlantTimeStep(0.0, "--time-step 0", "the simulator's error-controlled RK3 integrator")
        return PlantTimeStep(h, "--time-step", integrator)
    if is_mjcf:
        return PlantTimeStep(float(option.timestep), "the model's <option timestep>", integrator)
    return PlantTimeStep(DEFAULT_TIME_STEP, "default for URDF/SDFormat; change it with --time-step", integrator)


class ModelScene:
    """One model file in a MultibodyPlant + SceneGraph diagram, with Meshcat visualizers (when given a Meshcat)
    and loggers of the plant's state and, for MJCF models with sensors, of their sensordata."""

    def __init__(self, model_file: str, time_step: float | None = None, meshcat: Meshcat | None = None) -> None:
        self.path = check_model_file(model_file)
        self.step = ModelTimeStep(self.path, time_step)
        builder = DiagramBuilder()
        self.plant, self.scene_graph = AddMultibodyPlantSceneGraph(builder, self.step.time_step)
        parser = Parser(self.plant)
        _add_package_xmls_above(parser.package_map(), self.path)
        self.model_instances = parser.AddModels(self.path)
        self.plant.Finalize()
        self.meshcat = meshcat
        self.visualizer = None
        if meshcat is not None:
            self.visualizer = MeshcatVisualizer.AddToBuilder(
                builder, self.scene_graph, meshcat, MeshcatVisualizerParams(publish_period=PUBLISH_PERIOD,
                                                                            prefix="illustration"))
            MeshcatVisualizer.AddToBuilder(
                builder, self.scene_graph, meshcat,
                MeshcatVisualizerParams(publish_period=PUBLISH_PERIOD, role=Role.kProximity, prefix="proximity",
                                        default_color=Rgba(1.0, 0.35, 0.1, 0.5), visible_by_default=False))
        self.loggers = [LogVectorOutput(self.plant.get_state_output_port(), builder, PUBLISH_PERIOD)]
        for plant_map in GetMjcfPlantMaps(self.plant):
            if plant_map.model.sensors:
                port = GetMujocoSensorOutputPort(self.plant, plant_map.instance)
                self.loggers.append(LogVectorOutput(port, builder, PUBLISH_PERIOD))
        self.diagram = builder.Build()
        self.simulator = Simulator(self.diagram)
        if self.plant.num_actuators():  # a passive run: no actuation
            plant_context = self.plant.GetMyMutableContextFromRoot(self.simulator.get_mutable_context())
            self.plant.get_actuation_input_port().FixValue(plant_context, np.zeros(self.plant.num_actuators()))
        self.wall_time = 0.0

    def name(self) -> str:
        return os.path.basename(self.path)

    def Publish(self) -> None:
        """Draw the model at its default state (in Meshcat, when there is one)."""
        self.simulator.Initialize()

    def Simulate(self, duration: float, show_progress: bool = True) -> None:
        """Simulate passively (no actuation) for `duration` s from the default state, recording the replay."""
        T = float(duration)
        if not (math.isfinite(T) and T >= 0):
            raise ValueError(f"the duration must be a finite number of seconds >= 0; given {duration}")
        if self.visualizer is not None and T > 0:
            self.visualizer.StartRecording()
        self.simulator.Initialize()
        start = time.perf_counter()
        try:
            self.simulator.AdvanceTo(T, show_progress=show_progress and T > 0)
        finally:
            self.wall_time = time.perf_counter() - start
            if self.visualizer is not None and T > 0:
                self.visualizer.StopRecording()
                self.visualizer.PublishRecording()

    def num_steps(self) -> int:
        return self.simulator.get_num_steps_taken()

    def WriteHtml(self, path: str) -> None:
        """The scene (and its recording) as one self-contained HTML file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.meshcat.StaticHtml())

    def WritePlot(self, path: str, title: str | None = None) -> None:
        """The logged signals (positions, velocities, sensors) in labelled panels, saved to `path`."""
        step = f"{self.step.time_step:g} s steps" if self.step.time_step else "continuous"
        fig = plot_logged_signals(self.loggers, self.simulator.get_context(),
                                  title=title or f"{self.name()}: passive simulation ({step})")
        fig.savefig(path, dpi=90)
