"""mallard.systems.framework: System, LeafSystem, Diagram, DiagramBuilder, Context, ports, events, values.

Mirrors `pydrake.systems.framework` (and `pydrake.common.value` for AbstractValue / Value).
"""
from .basic_vector import BasicVector, Subvector, Supervector, VectorBase
from .cache import CacheEntry, ValueProducer
from .context import Context, DiagramContext, LeafContext
from .dependency import DependencyTicket
from .diagram import Diagram
from .diagram_builder import DiagramBuilder
from .events import (DiscreteUpdateEvent, Event, EventStatus, PeriodicEventData, PublishEvent, TriggerType,
                     UnrestrictedUpdateEvent, WitnessFunction, WitnessFunctionDirection, WitnessTriggeredEventData)
from .leaf_system import LeafSystem
from .ports import (DiagramOutputPort, FixedInputPortValue, InputPort, InputPortSelection, LeafOutputPort,
                    OutputPort, OutputPortSelection, PortDataType, UseDefaultName, kUseDefaultName)
from .state import (AbstractParameterIndex, AbstractStateIndex, AbstractValues, CacheIndex, ContinuousState,
                    ContinuousStateIndex, DiscreteStateIndex, DiscreteValues, InputPortIndex, NumericParameterIndex,
                    OutputPortIndex, Parameters, State, SubsystemIndex)
from .system import System, SystemOutput
from .value import AbstractValue, Value
from .vector_system import VectorSystem
from mallard.common.scalar_template import ScalarTemplate

LeafSystem_ = ScalarTemplate("LeafSystem_", LeafSystem)
Diagram_ = ScalarTemplate("Diagram_", Diagram)
DiagramBuilder_ = ScalarTemplate("DiagramBuilder_", DiagramBuilder)
BasicVector_ = ScalarTemplate("BasicVector_", BasicVector)
Context_ = ScalarTemplate("Context_", Context)
System_ = ScalarTemplate("System_", System)
VectorSystem_ = ScalarTemplate("VectorSystem_", VectorSystem)

__all__ = [
    "AbstractParameterIndex", "AbstractStateIndex", "AbstractValue", "AbstractValues", "BasicVector", "CacheEntry",
    "CacheIndex", "Context", "ContinuousState", "ContinuousStateIndex", "DependencyTicket", "Diagram",
    "DiagramBuilder", "DiagramContext", "DiagramOutputPort", "DiscreteStateIndex", "DiscreteUpdateEvent",
    "DiscreteValues", "Event", "EventStatus", "FixedInputPortValue", "InputPort", "InputPortIndex",
    "InputPortSelection", "LeafContext", "LeafOutputPort", "LeafSystem", "NumericParameterIndex", "OutputPort",
    "OutputPortIndex", "OutputPortSelection", "Parameters", "PeriodicEventData", "PortDataType", "PublishEvent",
    "State", "Subvector", "SubsystemIndex", "Supervector", "System", "SystemOutput", "TriggerType",
    "UnrestrictedUpdateEvent", "UseDefaultName", "Value", "ValueProducer", "VectorBase", "VectorSystem",
    "WitnessFunction", "WitnessFunctionDirection", "WitnessTriggeredEventData", "kUseDefaultName",
    "BasicVector_", "Context_", "DiagramBuilder_", "Diagram_", "LeafSystem_", "System_", "VectorSystem_",
]
