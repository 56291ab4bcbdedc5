"""Diagrams and Monte Carlo factories shared by the pickling, Monte Carlo and gym tests (module level, so worker
processes import them by reference): a cart-pole plant + SceneGraph under a Python PD LeafSystem."""
from __future__ import annotations

import os
import signal
import warnings
from pathlib import Path

import numpy as np

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.controllers import PidController
from mallard.systems.framework import BasicVector, DiagramBuilder, LeafSystem
from mallard.systems.primitives import ConstantVectorSource, LogVectorOutput

from conftest import MODELS

CART_POLE = MODELS / "drake_examples" / "cart_pole.sdf"
IIWA = MODELS / "drake_models" / "iiwa_description" / "urdf" / "iiwa14_no_collision.urdf"


class CartPolePD(LeafSystem):
    """u = kp (x_d − x) − kd ẋ on the cart slider, with x_d a numeric parameter (a module-level Python system)."""

    def __init__(self, kp: float = 20.0, kd: float = 8.0) -> None:
        super().__init__()
        self._kp, self._kd = kp, kd
        self.DeclareVectorInputPort("state", 4)
        self._target = self.DeclareNumericParameter(BasicVector([0.0]))
        self.DeclareVectorOutputPort("force", 1, self._calc_force)

    def _calc_force(self, context, output) -> None:
        x = self.get_input_port(0).Eval(context)
        x_d = context.get_numeric_parameter(self._target).GetAtIndex(0)
        output.SetAtIndex(0, self._kp * (x_d - x[0]) - self._kd * x[2])

    def SetRandomParameters(self, context, parameters, generator) -> None:
        parameters.get_mutable_numeric_parameter(0).SetAtIndex(0, generator.uniform(-0.5, 0.5))


def cart_pole_diagram(time_step: float = 0.0, log: bool = True):
    """(diagram, plant): cart_pole.sdf in a MultibodyPlant + SceneGraph, its cart under CartPolePD; SetRandomContext
    draws the cart position and pole angle (±0.2) and the PD's target."""
    builder = DiagramBuilder()
    plant, _scene_graph = AddMultibodyPlantSceneGraph(builder, time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(CART_POLE))
        plant.Finalize()
    plant.GetJointByName("CartSlider").set_random_translation_distribution(_uniform_02)
    plant.GetJointByName("PolePin").set_random_angle_distribution(lambda generator: generator.uniform(-0.2, 0.2))
    controller = builder.AddNamedSystem("pd", CartPolePD())
    builder.Connect(plant.get_state_output_port(), controller.get_input_port(0))
    builder.Connect(controller.get_output_port(0), plant.get_actuation_input_port())
    if log:
        LogVectorOutput(plant.get_state_output_port(), builder, 0.05)
    builder.ExportOutput(plant.get_state_output_port(), "state")
    return builder.Build(), plant


def iiwa_pd_diagram(time_step: float = 0.0):
    """(diagram, plant): iiwa14 welded to the world (plant + SceneGraph) under a joint PD toward q = 0."""
    builder = DiagramBuilder()
    plant, _scene_graph = AddMultibodyPlantSceneGraph(builder, time_step)
    parser = Parser(plant)
    parser.package_map().Remove("drake_models")  # the default map knows it as a remote package, as pydrake's
    parser.package_map().AddPackageXml(str(MODELS / "drake_models" / "package.xml"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parser.AddModels(str(IIWA))
        plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base"))
        plant.Finalize()
    pid = builder.AddNamedSystem("pid", PidController(np.full(7, 100.0), np.zeros(7), np.full(7, 20.0)))
    target = builder.AddNamedSystem("target", ConstantVectorSource(np.zeros(14)))
    builder.Connect(plant.get_state_output_port(), pid.get_input_port_estimated_state())
    builder.Connect(target.get_output_port(0), pid.get_input_port_desired_state())
    builder.Connect(pid.get_output_port_control(), plant.get_actuation_input_port())
    builder.ExportOutput(plant.get_state_output_port(), "state")
    return builder.Build(), plant


class CartPoleFactory:
    """make_simulator for MonteCarloSimulation: a new simulator and context per sample over one diagram (whose
    SetRandomContext draws the initial state and the cart target); with `crash_marker`, the first sample to pass
    t = 0.1 s kills its process."""

    def __init__(self, time_step: float = 0.0, crash_marker: str | None = None) -> None:
        self.diagram, self.plant = cart_pole_diagram(time_step)
        self.crash_marker = crash_marker

    def __call__(self, generator) -> Simulator:
        simulator = Simulator(self.diagram)
        simulator.set_monitor(_CrashOnce(self.crash_marker) if self.crash_marker else None)
        return simulator


def cart_pole_plant_diagram(time_step: float = 0.01):
    """(diagram, plant): cart_pole.sdf alone, its actuation exported as input "actions" and its state as output
    "observations"; SetRandomContext draws the cart position and pole angle uniformly (±0.2 m, ±0.2 rad)."""
    builder = DiagramBuilder()
    plant, _scene_graph = AddMultibodyPlantSceneGraph(builder, time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(CART_POLE))
        plant.Finalize()
    plant.GetJointByName("CartSlider").set_random_translation_distribution(_uniform_02)
    plant.GetJointByName("PolePin").set_random_angle_distribution(_uniform_02)
    builder.ExportInput(plant.get_actuation_input_port(), "actions")
    builder.ExportOutput(plant.get_state_output_port(), "observations")
    return builder.Build(), plant


def _uniform_02(generator) -> float:
    return generator.uniform(-0.2, 0.2)


def upright_reward(system, context) -> float:
    """Gym reward: 1 − θ² − 0.1 x² with θ the pole angle from upright (π) and x the cart position."""
    x, theta = system.GetOutputPort("observations").Eval(context)[:2]
    return 1.0 - (theta - np.pi) ** 2 - 0.1 * x ** 2


class CartPoleGymFactory:
    """make_simulator for DrakeGymEnv: a new Simulator per episode over one cart-pole diagram."""

    def __init__(self, time_step: float = 0.01) -> None:
        self.diagram, self.plant = cart_pole_plant_diagram(time_step)

    def __call__(self, generator) -> Simulator:
        return Simulator(self.diagram)


class _CrashOnce:
    """A simulator monitor that kills its own process the first time any sample runs (marker file absent)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __call__(self, context):
        if context.get_time() > 0.1 and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return None


def final_state_norm(system, context) -> float:
    """Monte Carlo output: |x(final_time)| of the cart-pole."""
    return float(np.linalg.norm(system.GetOutputPort("state").Eval(context)))


def raise_on_large_target(system, context) -> float:
    """Monte Carlo output that raises for samples whose cart target is above 0.3 (a sample that fails)."""
    pd = system.GetSubsystemByName("pd")
    target = pd.GetMyContextFromRoot(context).get_numeric_parameter(0).GetAtIndex(0)
    if target > 0.3:
        raise ValueError(f"target {target} above 0.3")
    return target
