"""mallard.multibody.plant: MultibodyPlant and its companions (pydrake.multibody.plant)."""
from ..applied_forces.externally_applied_spatial_force import (ExternallyAppliedSpatialForce,
                                                               ExternallyAppliedSpatialForceMultiplexer)
from ..applied_forces.propeller import Propeller, PropellerInfo
from ..applied_forces.wing import Wing
from .contact_config import (ApplyMultibodyPlantConfig, ContactModel, DiscreteContactApproximation,
                             DiscreteContactSolver, HydroelasticContactRepresentation, MultibodyPlantConfig)
from .multibody_plant import (AddMultibodyPlant, AddMultibodyPlantSceneGraph, AddMultibodyPlantSceneGraphResult,
                              MultibodyPlant)
from ._constraints import DistanceConstraintParams
from ..contact.mujoco_parameters import (ConstraintSolverOptions, GetConstraintMujocoParameters,
                                         GetJointMujocoParameters, SetConstraintMujocoParameters,
                                         SetJointMujocoParameters)
from ..mjcf.actuation import GetMujocoCtrlInputPort
from ..mjcf.plugins import GetMujocoPluginState, SetMujocoPluginState
from ..mjcf.sensors import GetMujocoSensorOutputPort
from .signal_names import PlantPortSignalNames  # (registers the plant's port names for plots)
from ..mjcf.state import (CalcMujocoVelocityMap, GetMjcfPlantMap, GetMujocoActivations, GetMujocoState,
                          SetMujocoActivations, SetMujocoState)
from ..mjcf.keyframes import GetMujocoKeyframe, GetMujocoKeyframeNames, SetMujocoKeyframe
from ..contact.contact_results import ContactResults, HydroelasticContactInfo, PointPairContactInfo
from ...geometry.properties import CalcContactFrictionFromSurfaceProperties, CoulombFriction

__all__ = ["AddMultibodyPlant", "AddMultibodyPlantSceneGraph", "AddMultibodyPlantSceneGraphResult",
           "CalcContactFrictionFromSurfaceProperties", "DistanceConstraintParams",
           "ApplyMultibodyPlantConfig", "ContactModel", "CoulombFriction", "DiscreteContactApproximation",
           "DiscreteContactSolver", "ExternallyAppliedSpatialForce", "HydroelasticContactRepresentation",
           "MultibodyPlant", "MultibodyPlantConfig"]
__all__ += ["ConstraintSolverOptions", "ContactResults", "GetConstraintMujocoParameters", "GetJointMujocoParameters",
            "HydroelasticContactInfo",
            "PointPairContactInfo", "SetConstraintMujocoParameters", "SetJointMujocoParameters"]
__all__ += ["CalcMujocoVelocityMap", "GetMjcfPlantMap", "GetMujocoActivations", "GetMujocoCtrlInputPort",
            "GetMujocoKeyframe", "GetMujocoKeyframeNames", "GetMujocoSensorOutputPort", "GetMujocoState",
            "SetMujocoActivations", "SetMujocoKeyframe", "SetMujocoState"]
__all__ += ["GetMujocoPluginState", "SetMujocoPluginState"]

from mallard.common.scalar_template import ScalarTemplate as _ScalarTemplate

# pydrake's scalar-template spellings (Foo_[float] is Foo; other scalar types are a clear error).
for _cls in (ContactResults, CoulombFriction, ExternallyAppliedSpatialForce, ExternallyAppliedSpatialForceMultiplexer,
             MultibodyPlant, PointPairContactInfo, Propeller, Wing, HydroelasticContactInfo):
    globals()[f"{_cls.__name__}_"] = _ScalarTemplate(f"{_cls.__name__}_", _cls)
    globals()[f"{_cls.__name__}_[float]"] = _cls  # the names Drake <= v1.12 wrote into pickles
del _cls
__all__ += ["ContactResults_", "CoulombFriction_", "ExternallyAppliedSpatialForce_",
            "ExternallyAppliedSpatialForceMultiplexer", "ExternallyAppliedSpatialForceMultiplexer_", "MultibodyPlant_",
            "HydroelasticContactInfo_",
            "PointPairContactInfo_", "Propeller", "PropellerInfo", "Propeller_", "Wing", "Wing_"]
