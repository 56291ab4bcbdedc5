"""MultibodyPlant: a LeafSystem modelling a tree of rigid bodies, with pydrake's API."""
from __future__ import annotations

import numpy as np

from ...systems.framework import LeafSystem
from ._builder import _TreeBuilderMixin
from .contact_config import _ContactSettingsMixin
from ._constraints import _ConstraintsMixin
from ._continuous_dynamics import _ContinuousDynamicsMixin
from ._discrete_step import _DiscreteStepMixin
from ._pipeline_step import _PipelineStepMixin
from ._dynamics import _DynamicsMixin
from ._geometry import _GeometryMixin
from ._kinematics import _KinematicsMixin
from ._random import _RandomStateMixin
from ._state_access import _StateAccessMixin
from ._system import _SystemMixin
from ._contact_mixin import _ContactMixin


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
    # per-process scratch of the MJCF RK4 step (keyed by context identity), rebuilt on demand after pickling
    _transient_attributes = frozenset({"_mjcf_rk4_scratch", "_mjcf_rk4_act"})

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
