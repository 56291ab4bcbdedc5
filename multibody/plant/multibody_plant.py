"""MultibodyPlant: a LeafSystem modelling a tree of rigid bodies, with pydrake's API."""
from __future__ import annotations

import numpy as np

from ...geometry import SceneGraph
from ...systems.framework import LeafSystem
from ..tree.element import hands_out
from ._builder import _TreeBuilderMixin
from .contact_config import ApplyMultibodyPlantConfig, MultibodyPlantConfig, _ContactMixin, _ContactSettingsMixin
from ._constraints import _ConstraintsMixin
from ._discrete_step import _DiscreteStepMixin
from ._pipeline_step import _PipelineStepMixin
from ._dynamics import _ContinuousDynamicsMixin, _DynamicsMixin
from ._geometry import _GeometryMixin
from ._kinematics import _KinematicsMixin
from ._state_access import _RandomStateMixin, _StateAccessMixin
from ._system import _SystemMixin


class MultibodyPlant(_TreeBuilderMixin, _StateAccessMixin, _KinematicsMixin, _DynamicsMixin, _ConstraintsMixin,
                     _RandomStateMixin, _GeometryMixin, _ContactSettingsMixin, _ContactMixin, _DiscreteStepMixin,
                     _PipelineStepMixin, _ContinuousDynamicsMixin, _SystemMixin,
                     LeafSystem):
    """Rigid multibody system ẋ = f(t, x, u) (time_step = 0) or x⁺ = f(x, u) (time_step > 0).

    Build with AddRigidBody / AddJoint / ..., call Finalize(), then create a Context.  State x = [q; v]
    with Drake's per-joint layouts; body mass properties are Context parameters.
    """

    # the step's handler (_DiscreteStepUpdate) replaces its results value after reading it (lean_loop.py)
    _unrestricted_updates_replace_abstract = True

    def __init__(self, time_step: float):
        LeafSystem.__init__(self)
        time_step = float(time_step)
        if not np.isfinite(time_step) or time_step < 0:
            raise ValueError(f"MultibodyPlant: time_step must be >= 0 (0 = continuous), got {time_step}")
        self._time_step = time_step
        self._force_contributors: list = []
        self._use_sampled_output_ports = True
        self._free_random: dict[int, dict] = {}
        self._discrete_solver = None
        self._pipeline_last = None  # the compiled step's last StepResults (_pipeline_step.py)
        self._pipeline_failures = 0  # its non-converged solves
        self._geometry_pose_rows = None  # memo of _system.py's pose rows
        self._mjcf_maps: list = []  # the MJCF models attached by the parser, in load order (mjcf/plant_maps.py)
        self._mjcf_integrator: str | None = None  # MJCF <option integrator> of the discrete step (None: Euler)
        self._ResetPipeline()
        self._DeclareGeometryPorts()
        self._init_geometry()
        self._init_tree()
        self._init_contact_settings()

    def time_step(self) -> float:
        """The discrete period [s]; 0 for a continuous plant."""
        return self._time_step

    def __copy__(self):
        raise TypeError("MultibodyPlant cannot be copied")

    def __deepcopy__(self, memo):
        raise TypeError("MultibodyPlant cannot be copied")

    # ---- ports ------------------------------------------------------------------------------------------
    def get_actuation_input_port(self, model_instance=None):
        self._ThrowIfNotFinalized("get_actuation_input_port")
        if model_instance is None:
            return self._actuation_port
        return self._instance_actuation_ports[int(self._CheckModelInstance(model_instance))]

    def get_desired_state_input_port(self, model_instance):
        """[q_d; v_d] (2·num_actuators(model_instance)) for the instance's PD-controlled actuators."""
        self._ThrowIfNotFinalized("get_desired_state_input_port")
        return self._instance_desired_state_ports[int(self._CheckModelInstance(model_instance))]

    def get_applied_generalized_force_input_port(self):
        self._ThrowIfNotFinalized("get_applied_generalized_force_input_port")
        return self._applied_generalized_force_port

    def get_applied_spatial_force_input_port(self):
        self._ThrowIfNotFinalized("get_applied_spatial_force_input_port")
        return self._applied_spatial_force_port

    def get_geometry_query_input_port(self):
        return self._geometry_query_port

    def get_geometry_pose_output_port(self):
        return self._geometry_pose_port

    def get_deformable_body_configuration_output_port(self):
        """The configurations of deformable geometries (a GeometryConfigurationVector; always empty: mallard
        models rigid bodies only)."""
        return self._deformable_configuration_port

    get_geometry_poses_output_port = get_geometry_pose_output_port

    def get_state_output_port(self, model_instance=None):
        self._ThrowIfNotFinalized("get_state_output_port")
        if model_instance is None:
            return self._state_port
        return self._instance_state_ports[int(self._CheckModelInstance(model_instance))]

    def get_generalized_acceleration_output_port(self, model_instance=None):
        self._ThrowIfNotFinalized("get_generalized_acceleration_output_port")
        if model_instance is None:
            return self._accel_port
        return self._instance_accel_ports[int(self._CheckModelInstance(model_instance))]

    def get_net_actuation_output_port(self, model_instance=None):
        self._ThrowIfNotFinalized("get_net_actuation_output_port")
        if model_instance is None:
            return self._net_actuation_port
        return self._instance_net_actuation_ports[int(self._CheckModelInstance(model_instance))]

    def get_generalized_contact_forces_output_port(self, model_instance):
        self._ThrowIfNotFinalized("get_generalized_contact_forces_output_port")
        return self._instance_contact_ports[int(self._CheckModelInstance(model_instance))]

    def get_body_poses_output_port(self):
        self._ThrowIfNotFinalized("get_body_poses_output_port")
        return self._body_poses_port

    def get_body_spatial_velocities_output_port(self):
        self._ThrowIfNotFinalized("get_body_spatial_velocities_output_port")
        return self._body_velocities_port

    def get_body_spatial_accelerations_output_port(self):
        self._ThrowIfNotFinalized("get_body_spatial_accelerations_output_port")
        return self._body_accelerations_port

    def get_reaction_forces_output_port(self):
        self._ThrowIfNotFinalized("get_reaction_forces_output_port")
        return self._reaction_forces_port


# The plant's element accessors give users handles that keep the plant alive, as pybind's keep_alive does
# (multibody/tree/element.py).
hands_out(MultibodyPlant, (
    "world_body", "world_frame", "get_body", "GetBodyByName", "GetRigidBodyByName", "AddRigidBody", "AddFrame",
    "get_frame", "GetFrameByName", "AddJoint", "WeldFrames", "get_joint", "get_mutable_joint", "GetJointByName",
    "GetMutableJointByName", "AddJointActuator", "get_joint_actuator", "get_mutable_joint_actuator",
    "GetJointActuatorByName", "AddForceElement", "get_force_element", "GetForceElement", "gravity_field",
    "mutable_gravity_field", "GetBodiesWeldedTo", "GetBodyFromFrameId", "GetUniqueFloatingBaseBodyOrThrow",
    "GetUniqueFreeBaseBodyOrThrow"))


class AddMultibodyPlantSceneGraphResult(tuple):
    """(plant, scene_graph), also usable by field name."""

    def __new__(cls, plant, scene_graph):
        return super().__new__(cls, (plant, scene_graph))

    @property
    def plant(self):
        return self[0]

    @property
    def scene_graph(self):
        return self[1]


def AddMultibodyPlantSceneGraph(builder, time_step=None, scene_graph=None, *, plant=None
                                ) -> AddMultibodyPlantSceneGraphResult:
    """Add a MultibodyPlant (named 'plant') and a SceneGraph ('scene_graph') to `builder` and connect them.

    AddMultibodyPlantSceneGraph(builder, time_step, scene_graph=None) or (builder, plant, scene_graph=None) with an
    existing plant, as pydrake's two overloads.
    """
    if builder is None:
        raise ValueError("AddMultibodyPlantSceneGraph: builder is None")
    if isinstance(time_step, MultibodyPlant):
        time_step, plant = None, time_step
    if (time_step is None) == (plant is None):
        raise TypeError("AddMultibodyPlantSceneGraph: pass one of time_step or plant")
    plant = plant if plant is not None else MultibodyPlant(time_step)
    plant.set_name("plant")
    if scene_graph is None:
        scene_graph = SceneGraph()
        scene_graph.set_name("scene_graph")
    builder.AddSystem(plant)
    builder.AddSystem(scene_graph)
    plant.RegisterAsSourceForSceneGraph(scene_graph)
    builder.Connect(plant.get_geometry_pose_output_port(), scene_graph.get_source_pose_port(plant.get_source_id()))
    builder.Connect(scene_graph.get_query_output_port(), plant.get_geometry_query_input_port())
    return AddMultibodyPlantSceneGraphResult(plant, scene_graph)


def AddMultibodyPlant(config: MultibodyPlantConfig | None = None, *args, builder=None, plant_config=None,
                      scene_graph_config=None):
    """AddMultibodyPlantSceneGraph with a plant configured from `config` (or `plant_config`) and, when given, a
    SceneGraph configured from `scene_graph_config`; returns (plant, scene_graph)."""
    if len(args) == 2:  # (plant_config, scene_graph_config, builder)
        scene_graph_config, builder = args
    elif len(args) == 1:  # (config, builder)
        builder = args[0]
    elif args:
        raise TypeError(f"AddMultibodyPlant: too many arguments ({1 + len(args)})")
    if config is not None and plant_config is not None:
        raise TypeError("AddMultibodyPlant: pass the plant's config once (config= or plant_config=)")
    config = plant_config if config is None else config
    if config is None or builder is None:
        raise TypeError("AddMultibodyPlant(config, builder) or AddMultibodyPlant(plant_config, scene_graph_config, "
                        "builder)")
    scene_graph = None
    if scene_graph_config is not None:
        scene_graph = SceneGraph(scene_graph_config)
        scene_graph.set_name("scene_graph")
    result = AddMultibodyPlantSceneGraph(builder, config.time_step, scene_graph)
    ApplyMultibodyPlantConfig(config, result.plant)
    return result
