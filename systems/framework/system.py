"""System: the base of LeafSystem and Diagram (ports, contexts, evaluation, events, naming)."""
from __future__ import annotations

import numpy as np

from mallard.common.scalar_template import double_only_error

from .basic_vector import BasicVector, VectorBase
from .dependency import K_P, K_XA, K_XC, K_XD
from .portable import PortableAttributes
from .ports import InputPort, OutputPort, PortDataType
from .state import ContinuousState, DiscreteValues, InputPortIndex, SystemConstraintIndex
from .system_base import SystemBase
from .system_constraint import ExternalSystemConstraint
from .system_events import SystemEvents
from .system_scalar_converter import ScalarConversionMethod, SystemScalarConverter
from .system_visitor import SystemVisitor
from mallard.common.value import AbstractValue, Value

__all__ = ["System", "SystemOutput"]


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


class System(SystemBase, PortableAttributes, SystemEvents):
    """Base class of every system: ports, names, contexts, evaluation of inputs, outputs and dynamics."""

    def __init__(self) -> None:
        SystemBase.__init__(self)
        self._input_ports: list[InputPort] = []
        self._output_ports: list[OutputPort] = []
        # The Diagram this system belongs to, once built, and the DiagramBuilder holding it before Build(). Strong
        # on purpose: a subsystem keeps its diagram (and builder) alive, as pydrake's ref_cycle annotations of
        # AddSystem and Build do; such a diagram is freed by the garbage collector, as in pydrake.
        self._parent_diagram = None
        self._index_in_parent = -1
        self._owner_builder = None

    # ----- ports -----------------------------------------------------------------------------------
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
        """A new root context of this system alone (for a subsystem of a diagram: a standalone context whose
        inputs are unconnected, as in pydrake; use GetMyContextFromRoot for its context inside the diagram)."""
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
    def HasDirectFeedthrough(self, *args: int, input_port: int | None = None,
                             output_port: int | None = None) -> bool:
        """`HasDirectFeedthrough(output_port)` or `HasDirectFeedthrough(input_port, output_port)` (indices)."""
        if input_port is not None:
            args = (input_port,) + args
        if output_port is not None:
            args = args + (output_port,)
        if len(args) == 1:
            return any(self._feedthrough(i, int(args[0])) for i in range(self.num_input_ports()))
        return self._feedthrough(int(args[0]), int(args[1]))

    def HasAnyDirectFeedthrough(self) -> bool:
        return any(self._feedthrough(i, j) for i in range(self.num_input_ports())
                   for j in range(self.num_output_ports()))

    def Clone(self) -> "System":
        import copy
        if self._parent_diagram is not None or self._owner_builder is not None:
            raise RuntimeError(f"Clone: {self.GetSystemPathname()} belongs to a diagram or builder; clone the whole diagram")
        return copy.deepcopy(self)

    def _double_only(self, what: str):
        return double_only_error(f"{self.GetSystemPathname()} ({type(self).__name__}).{what}")

    def ToAutoDiffXd(self):
        raise self._double_only("ToAutoDiffXd")

    def ToAutoDiffXdMaybe(self):
        raise self._double_only("ToAutoDiffXdMaybe")

    def ToSymbolic(self):
        raise self._double_only("ToSymbolic")

    def ToSymbolicMaybe(self):
        raise self._double_only("ToSymbolicMaybe")

    ToScalarType = ScalarConversionMethod(maybe=False)
    ToScalarTypeMaybe = ScalarConversionMethod(maybe=True)

    def get_system_scalar_converter(self) -> SystemScalarConverter:
        return SystemScalarConverter()

    # ----- allocation helpers ----------------------------------------------------------------------
    def AllocateDiscreteVariables(self) -> DiscreteValues:
        """New discrete state groups shaped as this system's, holding the default (model) values."""
        context = self._allocate_context_tree()
        context._make_root()
        return context.get_discrete_state().Clone()

    def AllocateInputVector(self, input_port: InputPort) -> BasicVector:
        """A new vector suited to the vector-valued `input_port`."""
        input_port._require_vector("AllocateInputVector")
        return input_port.Allocate().get_value()

    def AllocateInputAbstract(self, input_port: InputPort) -> AbstractValue:
        """A new value suited to the abstract-valued `input_port`."""
        if input_port.get_data_type() == PortDataType.kVectorValued:
            raise RuntimeError(f"AllocateInputAbstract: {input_port.GetFullDescription()} is vector-valued")
        return input_port.Allocate()

    def AllocateImplicitTimeDerivativesResidual(self) -> np.ndarray:
        return np.zeros(self.implicit_time_derivatives_residual_size())

    def CalcImplicitTimeDerivativesResidual(self, context, proposed_derivatives: ContinuousState,
                                            residual: np.ndarray | None = None) -> np.ndarray | None:
        """residual = proposed xcdot - f(x) (Drake's default for explicit dynamics); written into `residual`
        when given, else returned."""
        value = proposed_derivatives.CopyToVector() - self.EvalTimeDerivatives(context).CopyToVector()
        if residual is None:
            return value
        residual[:] = value
        return None

    # ----- energy (0 unless a leaf overrides DoCalc*; diagrams sum their leaves) --------------------------
    def _sum_over_leaves(self, context, method: str) -> float:
        self._check_context(context, method)
        pairs = self._leaf_pairs(context)
        if len(pairs) == 1 and pairs[0][0] is self:
            return float(getattr(self, "Do" + method)(context))
        return float(sum(getattr(leaf, method)(leaf_context) for leaf, leaf_context in pairs))

    def CalcPotentialEnergy(self, context) -> float:
        return self._sum_over_leaves(context, "CalcPotentialEnergy")

    def CalcKineticEnergy(self, context) -> float:
        return self._sum_over_leaves(context, "CalcKineticEnergy")

    def CalcConservativePower(self, context) -> float:
        return self._sum_over_leaves(context, "CalcConservativePower")

    def CalcNonConservativePower(self, context) -> float:
        return self._sum_over_leaves(context, "CalcNonConservativePower")

    def EvalPotentialEnergy(self, context) -> float:
        return self.CalcPotentialEnergy(context)

    def EvalKineticEnergy(self, context) -> float:
        return self.CalcKineticEnergy(context)

    def DoCalcPotentialEnergy(self, context) -> float:
        return 0.0

    def DoCalcKineticEnergy(self, context) -> float:
        return 0.0

    def DoCalcConservativePower(self, context) -> float:
        return 0.0

    def DoCalcNonConservativePower(self, context) -> float:
        return 0.0

    # ----- system constraints and visitors -----------------------------------------------------------
    def num_constraints(self) -> int:
        return len(self.__dict__.get("_external_constraints", ()))

    def _AddExternalConstraint(self, constraint: ExternalSystemConstraint) -> SystemConstraintIndex:
        constraints = self.__dict__.setdefault("_external_constraints", [])
        constraints.append(constraint)
        return SystemConstraintIndex(len(constraints) - 1)

    def Accept(self, v: SystemVisitor) -> None:
        """Calls `v.VisitSystem(self)` (a Diagram calls `v.VisitDiagram(self)`)."""
        v.VisitSystem(self)
