"""mallard.systems.framework: System, LeafSystem, Diagram, DiagramBuilder, Context, ports, events, values.

Mirrors `pydrake.systems.framework` (and `pydrake.common.value` for AbstractValue / Value).
"""
from mallard.common.scalar_template import define_scalar_templates

from .basic_vector import BasicVector, Subvector, Supervector, VectorBase
from .bus_value import BusValue
from .cache import CacheEntry, CacheEntryValue, ValueProducer
from .context import Context, ContextBase, DiagramContext, LeafContext
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
                    OutputPortIndex, Parameters, State, SubsystemIndex, SystemConstraintIndex)
from .system import System, SystemOutput
from .system_base import SystemBase
from .system_constraint import ExternalSystemConstraint as _ExternalSystemConstraint
from .system_scalar_converter import SystemScalarConverter
from .system_visitor import SystemVisitor
from mallard.common.value import AbstractValue, Value
from .vector_system import VectorSystem

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
    "BusValue", "CacheEntryValue", "ContextBase", "SystemBase", "SystemConstraintIndex", "SystemScalarConverter",
    "SystemVisitor", "_ExternalSystemConstraint",
]
# pydrake's scalar-template spellings (`LeafSystem_[float]`, ...): every one instantiates the float class.
__all__ += define_scalar_templates(globals(), [
    "BasicVector", "Context", "ContinuousState", "Diagram", "DiagramBuilder", "DiscreteUpdateEvent",
    "DiscreteValues", "Event", "InputPort", "LeafContext", "LeafOutputPort", "LeafSystem", "OutputPort",
    "Parameters", "PublishEvent", "State", "Subvector", "Supervector", "System", "SystemOutput",
    "SystemVisitor", "UnrestrictedUpdateEvent", "VectorBase", "VectorSystem", "WitnessFunction",
])
