"""System: the base of LeafSystem and Diagram (ports, contexts, evaluation, events, naming)."""
from __future__ import annotations

import itertools
import secrets

import numpy as np

from .basic_vector import BasicVector, VectorBase
from .dependency import (ALL_KINDS, K_ACC, K_P, K_TIME, K_U, K_XA, K_XC, K_XD, DependencyTicket)
from .system_events import SystemEvents
from .portable import PortableAttributes
from .ports import InputPort, OutputPort
from .state import ContinuousState, InputPortIndex
from .value import AbstractValue, Value

__all__ = ["System", "SystemOutput"]

# System ids are unique across processes (a random 62-bit start per process, then counting), so a context
# pickled with its diagram still names that diagram's systems in a process that built others.
_ids = itertools.count(secrets.randbits(62) << 20)

_STATE = frozenset((K_XC, K_XD, K_XA))
_TICKETS = {
    "nothing_ticket": DependencyTicket((), name="nothing_ticket"),
    "time_ticket": DependencyTicket((K_TIME,), name="time_ticket"),
    "accuracy_ticket": DependencyTicket((K_ACC,), name="accuracy_ticket"),
    "q_ticket": DependencyTicket((K_XC,), name="q_ticket"),
    "v_ticket": DependencyTicket((K_XC,), name="v_ticket"),
    "z_ticket": DependencyTicket((K_XC,), name="z_ticket"),
    "xc_ticket": DependencyTicket((K_XC,), name="xc_ticket"),
    "xd_ticket": DependencyTicket((K_XD,), name="xd_ticket"),
    "xa_ticket": DependencyTicket((K_XA,), name="xa_ticket"),
    "all_state_ticket": DependencyTicket(_STATE, name="all_state_ticket"),
    "pn_ticket": DependencyTicket((K_P,), name="pn_ticket"),
    "pa_ticket": DependencyTicket((K_P,), name="pa_ticket"),
    "all_parameters_ticket": DependencyTicket((K_P,), name="all_parameters_ticket"),
    "all_input_ports_ticket": DependencyTicket((K_U,), all_inputs=True, name="all_input_ports_ticket"),
    "all_sources_except_input_ports_ticket": DependencyTicket(
        (K_TIME, K_ACC, K_XC, K_XD, K_XA, K_P), name="all_sources_except_input_ports_ticket"),
    "all_sources_ticket": DependencyTicket(ALL_KINDS, all_inputs=True, name="all_sources_ticket"),
    "configuration_ticket": DependencyTicket(ALL_KINDS, all_inputs=True, name="configuration_ticket"),
    "kinematics_ticket": DependencyTicket(ALL_KINDS, all_inputs=True, name="kinematics_ticket"),
    "xcdot_ticket": DependencyTicket(ALL_KINDS, all_inputs=True, name="xcdot_ticket"),
}


def _ticket_method(name: str):
    """An accessor returning the fixed ticket `name` (e.g. `system.xc_ticket()`)."""
    ticket = _TICKETS[name]

    def method(self) -> DependencyTicket:
        return ticket
    method.__name__ = name
    method.__doc__ = f"The dependency ticket `{name}` (for prerequisites_of_calc)."
    return method


class SystemOutput:
    """The values of all output ports of a system (`System.AllocateOutput()`)."""

    def __init__(self, values: list[AbstractValue]) -> None:
        self._values = values

    def num_ports(self) -> int:
        return len(self._values)

    def get_vector_data(self, index: int) -> VectorBase:
        return self._values[index].get_value()

    def get_mutable_vector_data(self, index: int) -> VectorBase:
        return self._values[index].get_value()

    def get_data(self, index: int) -> AbstractValue:
        return self._values[index]

    def get_mutable_data(self, index: int) -> AbstractValue:
        return self._values[index]


class System(PortableAttributes, SystemEvents):
    """Base class of every system: ports, names, contexts, evaluation of inputs, outputs and dynamics."""

    def __init__(self) -> None:
        self._system_id = next(_ids)
        self._system_name = ""
        self._input_ports: list[InputPort] = []
        self._output_ports: list[OutputPort] = []
        self._parent_diagram = None           # the Diagram this system belongs to, once built
        self._index_in_parent = -1
        self._owner_builder = None    # the DiagramBuilder holding it before Build()

    # ----- names ---------------------------------------------------------------------------------
    def get_name(self) -> str:
        return self._system_name

    def set_name(self, name: str) -> None:
        if self._parent_diagram is not None:
            raise RuntimeError(f"set_name: {self.GetSystemPathname()} is already part of a built Diagram")
        self._system_name = str(name)

    def GetSystemName(self) -> str:
        return self._system_name if self._system_name else "_"

    def GetSystemPathname(self) -> str:
        parts = []
        system = self
        while system is not None:
            parts.append(system.GetSystemName())
            system = system._parent_diagram
        return "::" + "::".join(reversed(parts))

    def GetSystemType(self) -> str:
        cls = type(self)
        return f"{cls.__module__}.{cls.__qualname__}"

    def GetMemoryObjectName(self) -> str:
        cls = type(self)
        return f"{cls.__module__.replace('.', '/')}/{cls.__qualname__}@{id(self):016x}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.GetSystemPathname()}>"

    # ----- tickets with an index -------------------------------------------------------------------
    def input_port_ticket(self, index: int) -> DependencyTicket:
        return self.get_input_port(index).ticket()

    def discrete_state_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["xd_ticket"]

    def abstract_state_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["xa_ticket"]

    def numeric_parameter_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["pn_ticket"]

    def abstract_parameter_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["pa_ticket"]

    def cache_entry_ticket(self, index: int) -> DependencyTicket:
        return DependencyTicket(cache_index=int(index), name=f"cache_entry_ticket({int(index)})")

    # ----- ports -----------------------------------------------------------------------------------
    def num_input_ports(self) -> int:
        return len(self._input_ports)

    def num_output_ports(self) -> int:
        return len(self._output_ports)

    def get_input_port(self, port_index: int | None = None, warn_deprecated: bool = True) -> InputPort:
        try:
            if port_index >= 0:
                return self._input_ports[port_index]
        except (IndexError, TypeError):
            pass
        if port_index is None:
            if len(self._input_ports) != 1:
                raise RuntimeError(f"get_input_port(): {self.GetSystemPathname()} has {len(self._input_ports)} "
                                   "input ports; pass an index or use GetInputPort(name)")
            return self._input_ports[0]
        raise IndexError(f"get_input_port({port_index}): {self.GetSystemPathname()} has "
                         f"{len(self._input_ports)} input ports {self._port_names(self._input_ports)}")

    def get_output_port(self, port_index: int | None = None, warn_deprecated: bool = True) -> OutputPort:
        try:
            if port_index >= 0:
                return self._output_ports[port_index]
        except (IndexError, TypeError):
            pass
        if port_index is None:
            if len(self._output_ports) != 1:
                raise RuntimeError(f"get_output_port(): {self.GetSystemPathname()} has "
                                   f"{len(self._output_ports)} output ports; pass an index or use GetOutputPort(name)")
            return self._output_ports[0]
        raise IndexError(f"get_output_port({port_index}): {self.GetSystemPathname()} has "
                         f"{len(self._output_ports)} output ports {self._port_names(self._output_ports)}")

    @staticmethod
    def _port_names(ports) -> list[str]:
        return [p.get_name() for p in ports]

    def GetInputPort(self, port_name: str) -> InputPort:
        for port in self._input_ports:
            if port._name == port_name:
                return port
        raise KeyError(f"GetInputPort: {self.GetSystemPathname()} ({type(self).__name__}) has no input port named "
                       f"'{port_name}'; its input ports are {self._port_names(self._input_ports)}")

    def GetOutputPort(self, port_name: str) -> OutputPort:
        for port in self._output_ports:
            if port._name == port_name:
                return port
        raise KeyError(f"GetOutputPort: {self.GetSystemPathname()} ({type(self).__name__}) has no output port "
                       f"named '{port_name}'; its output ports are {self._port_names(self._output_ports)}")

    def HasInputPort(self, port_name: str) -> bool:
        return any(p._name == port_name for p in self._input_ports)

    def HasOutputPort(self, port_name: str) -> bool:
        return any(p._name == port_name for p in self._output_ports)

    def _unique_port_name(self, name: str, ports, what: str) -> None:
        if any(p._name == name for p in ports):
            raise ValueError(f"{self.GetSystemPathname()} already has an {what} port named '{name}'")

    def _new_input_port(self, name, data_type, size, model, required=True, random_type=None) -> InputPort:
        from .ports import kUseDefaultName, UseDefaultName
        index = InputPortIndex(len(self._input_ports))
        if name is None or isinstance(name, UseDefaultName) or name is kUseDefaultName:
            name = f"u{int(index)}"
        self._unique_port_name(name, self._input_ports, "input")
        port = InputPort(self, index, name, data_type, size, model, required, random_type)
        self._input_ports.append(port)
        return port

    # ----- contexts ------------------------------------------------------------------------------
    def CreateDefaultContext(self):
        """A new root context with default state and parameters."""
        context = self.AllocateContext()
        self.SetDefaultContext(context)
        return context

    def AllocateContext(self):
        if self._parent_diagram is not None:
            raise RuntimeError(f"CreateDefaultContext: {self.GetSystemPathname()} is a subsystem of a Diagram; "
                               "create the diagram's context and use GetMyContextFromRoot(root_context)")
        context = self._allocate_context_tree()
        context._make_root()
        return context

    def SetDefaultContext(self, context) -> None:
        self._check_context(context, "SetDefaultContext")
        for leaf, leaf_context in self._leaf_pairs(context):
            leaf.SetDefaultParameters(leaf_context, leaf_context._params)
            leaf.SetDefaultState(leaf_context, leaf_context._state)
        root = context._root
        for kind in (K_XC, K_XD, K_XA, K_P):
            root._bump(kind)

    def SetRandomContext(self, context, generator) -> None:
        self._check_context(context, "SetRandomContext")
        for leaf, leaf_context in self._leaf_pairs(context):
            leaf.SetRandomParameters(leaf_context, leaf_context._params, generator)
            leaf.SetRandomState(leaf_context, leaf_context._state, generator)
        root = context._root
        for kind in (K_XC, K_XD, K_XA, K_P):
            root._bump(kind)

    def ValidateContext(self, context) -> None:
        self._check_context(context, "ValidateContext")

    def _check_context(self, context, what: str) -> None:
        if getattr(context, "_system_id", None) != self._system_id:
            if getattr(context, "_system_id", None) is None:
                raise TypeError(f"{what}: expected a Context of {self.GetSystemPathname()}, got {type(context).__name__}")
            raise RuntimeError(
                f"{what}: the context passed belongs to {context._pathname}, not to {self.GetSystemPathname()} "
                f"({type(self).__name__}). If you hold the diagram's root context, use "
                f"system.GetMyContextFromRoot(root_context).")
        if context._root is None:
            raise RuntimeError(f"{what}: this context is detached from its root; use Clone() on a root context")

    def _path_from(self, ancestor) -> list[int]:
        path = []
        system = self
        while system is not ancestor:
            if system._parent_diagram is None:
                return None  # type: ignore[return-value]
            path.append(system._index_in_parent)
            system = system._parent_diagram
        return list(reversed(path))

    def GetMyContextFromRoot(self, root_context):
        """This system's context inside the root context of a diagram that contains it."""
        if root_context._system_id == self._system_id:
            return root_context
        system = self
        path = []
        while system._parent_diagram is not None:
            path.append(system._index_in_parent)
            system = system._parent_diagram
            if system._system_id == root_context._system_id:
                context = root_context
                for index in reversed(path):
                    context = context._children[index]
                return context
        raise RuntimeError(f"GetMyContextFromRoot: the context given belongs to {root_context._pathname}, which does "
                           f"not contain {self.GetSystemPathname()}; pass the root context of its diagram")

    def GetMyMutableContextFromRoot(self, root_context):
        return self.GetMyContextFromRoot(root_context)

    def GetSubsystemContext(self, subsystem: "System", context):
        self._check_context(context, "GetSubsystemContext")
        path = subsystem._path_from(self)
        if path is None:
            raise RuntimeError(f"GetSubsystemContext: {subsystem.GetSystemPathname()} is not a subsystem of "
                               f"{self.GetSystemPathname()}")
        for index in path:
            context = context._children[index]
        return context

    def GetMutableSubsystemContext(self, subsystem: "System", context):
        return self.GetSubsystemContext(subsystem, context)

    def _leaf_pairs(self, context) -> list:
        """(leaf system, leaf context) for every leaf under this system, in subsystem order."""
        if context._root is context:
            return list(zip(self._leaf_systems(), context._leaf_contexts))
        pairs = []
        self._collect_leaf_pairs(context, pairs)
        return pairs

    # ----- input evaluation ------------------------------------------------------------------------
    def _resolve_input(self, context, index: int) -> tuple:
        """(0, value) fixed, (1, leaf output port, its context) connected, or (2,) unconnected."""
        fixed = context._fixed_inputs[index]
        if fixed is not None:
            return (0, fixed._value, None)
        parent, parent_context = self._parent_diagram, context._parent
        if parent is None or parent_context is None:
            return (2, None, None)
        source = parent._diagram_input_sources.get((self._index_in_parent, int(index)))
        if source is None:
            return (2, None, None)
        if source[0] == 1:
            _, child, port_index = source
            port = parent._diagram_systems[child]._output_ports[port_index]
            leaf_port, leaf_context = port._leaf_source(parent_context._children[child])
            return (1, leaf_port, leaf_context)
        return parent._resolve_input(parent_context, source[1])

    def _input_source(self, context, index: int) -> tuple:
        """The resolved source of input `index` in `context`, cached until a fixed value changes anywhere."""
        root = context._root
        if context._sources_version != root._wiring_version:
            context._input_sources = [None] * len(context._input_sources)
            context._sources_version = root._wiring_version
        source = context._input_sources[index]
        if source is None:
            source = context._input_sources[index] = self._resolve_input(context, index)
        return source

    def _eval_input_raw(self, context, index: int):
        """The input's BasicVector / AbstractValue without copying, or None when unconnected."""
        root = context._root
        if context._sources_version == root._wiring_version:
            source = context._input_sources[index]
            if source is None:
                source = self._input_source(context, index)
        else:
            source = self._input_source(context, index)
        kind = source[0]
        if kind == 1:
            return source[1]._eval(source[2])
        if kind == 0:
            return source[1]
        return None

    def EvalVectorInput(self, context, port_index: int) -> VectorBase | None:
        port = self.get_input_port(port_index)
        self._check_context(context, "EvalVectorInput")
        port._require_vector("EvalVectorInput")
        return self._eval_input_raw(context, port._index)

    def EvalAbstractInput(self, context, port_index: int) -> AbstractValue | None:
        port = self.get_input_port(port_index)
        self._check_context(context, "EvalAbstractInput")
        raw = self._eval_input_raw(context, port._index)
        return raw if raw is None or isinstance(raw, AbstractValue) else Value(raw)

    def FixInputPortsFrom(self, other_system: "System", other_context, target_context) -> None:
        for port, other in zip(self._input_ports, other_system._input_ports):
            if other.HasValue(other_context):
                port.FixValue(target_context, other.Eval(other_context))

    # ----- outputs ---------------------------------------------------------------------------------
    def AllocateOutput(self) -> SystemOutput:
        return SystemOutput([p.Allocate() for p in self._output_ports])

    def CalcOutput(self, context, outputs: SystemOutput) -> None:
        self._check_context(context, "CalcOutput")
        for port, value in zip(self._output_ports, outputs._values):
            raw = port._eval(context)
            if isinstance(raw, VectorBase):
                value.get_value().SetFromVector(raw._data)
            else:
                value.set_value(raw.get_value())

    # ----- continuous dynamics ---------------------------------------------------------------------
    def num_continuous_states(self) -> int:
        return self._count_continuous()[0]

    def AllocateTimeDerivatives(self) -> ContinuousState:
        n, nq, nv, nz = self._count_continuous()
        return ContinuousState(BasicVector(n), nq, nv, nz)

    def CalcTimeDerivatives(self, context, derivatives: ContinuousState) -> None:
        self._check_context(context, "CalcTimeDerivatives")
        out = derivatives.get_mutable_vector()._data
        if out.shape[0] != context.num_continuous_states():
            raise ValueError(f"CalcTimeDerivatives: derivatives has size {out.shape[0]}, the context of "
                             f"{self.GetSystemPathname()} has {context.num_continuous_states()} continuous states")
        self._calc_derivatives_into(context, out)

    def EvalTimeDerivatives(self, context) -> ContinuousState:
        """The cached time derivatives of the continuous state."""
        self._check_context(context, "EvalTimeDerivatives")
        root = context._root
        slot = getattr(context, "_xcdot_slot", None)
        if slot is None or slot[0] != root._vsum or not root._caching:
            derivatives = self.AllocateTimeDerivatives() if slot is None else slot[1]
            self._calc_derivatives_into(context, derivatives._vector._data)
            slot = context._xcdot_slot = [root._vsum, derivatives]
        return slot[1]

    def MapVelocityToQDot(self, context, generalized_velocity) -> np.ndarray:
        v = np.asarray(generalized_velocity.CopyToVector() if isinstance(generalized_velocity, VectorBase)
                       else generalized_velocity, dtype=float)
        return self._map_v_to_qdot(context, v)

    def MapQDotToVelocity(self, context, qdot) -> np.ndarray:
        qd = np.asarray(qdot.CopyToVector() if isinstance(qdot, VectorBase) else qdot, dtype=float)
        return self._map_qdot_to_v(context, qd)

    # ----- structure queries -------------------------------------------------------------------------
    def HasDirectFeedthrough(self, *args: int) -> bool:
        """`HasDirectFeedthrough(output_port_index)` or `HasDirectFeedthrough(input_port_index, output_port_index)`."""
        if len(args) == 1:
            return any(self._feedthrough(i, int(args[0])) for i in range(self.num_input_ports()))
        return self._feedthrough(int(args[0]), int(args[1]))

    def HasAnyDirectFeedthrough(self) -> bool:
        return any(self._feedthrough(i, j) for i in range(self.num_input_ports())
                   for j in range(self.num_output_ports()))

    def GetGraphvizString(self, max_depth: int | None = None, options: dict | None = None) -> str:
        from .graphviz import graphviz_string
        return graphviz_string(self, max_depth, options or {})

    def Clone(self) -> "System":
        import copy
        if self._parent_diagram is not None or self._owner_builder is not None:
            raise RuntimeError(f"Clone: {self.GetSystemPathname()} belongs to a diagram or builder; clone the whole diagram")
        return copy.deepcopy(self)

    def ToAutoDiffXd(self):
        raise RuntimeError(f"{self.GetSystemPathname()} ({type(self).__name__}): mallard systems compute in double "
                           "precision only; Linearize and LinearQuadraticRegulator work on any system by finite "
                           "differences, so no AutoDiffXd conversion is needed")

    ToSymbolic = ToAutoDiffXd

    def ToScalarType(self, *args):
        return self.ToAutoDiffXd()


for _name in _TICKETS:
    setattr(System, _name, _ticket_method(_name))
del _name
