"""LeafSystem: the base class users subclass to write systems in Python (pydrake's declaration API)."""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .basic_vector import BasicVector, VectorBase
from .cache import CacheEntry, ValueProducer, stamp_pair
from .context import LeafContext
from .dependency import ALL_KINDS, resolve_kinds
from .events import (DiscreteUpdateEvent, Event, PeriodicEventData, PublishEvent, TriggerType,
                     UnrestrictedUpdateEvent, WitnessFunction)
from .overloads import one_argument
from .portable import portable
from .ports import LeafOutputPort, PortDataType, UseDefaultName
from .state import (AbstractParameterIndex, AbstractStateIndex, ContinuousStateIndex, DiscreteStateIndex,
                    NumericParameterIndex, OutputPortIndex)
from .system import System
from .weak_owner import deref_owner, split_bound
from mallard.common.value import AbstractValue, Value

__all__ = ["LeafSystem"]


def _model_vector(arg: Any, what: str) -> BasicVector:
    if isinstance(arg, VectorBase):
        return BasicVector(arg.CopyToVector()) if type(arg) is not BasicVector else arg.Clone()
    if isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
        if arg < 0:
            raise ValueError(f"{what}: size must be non-negative, got {arg}")
        return BasicVector(int(arg))
    return BasicVector(np.asarray(arg, dtype=float).reshape(-1))


def _as_abstract(model: Any) -> AbstractValue:
    return model if isinstance(model, AbstractValue) else Value(model)


class _Adapt:
    """Adapts a pydrake-style declared callback to the event handler signature; picklable (no closures)."""

    __slots__ = ("fn", "kind")

    def __init__(self, fn: Callable, kind: str) -> None:
        if not callable(fn):
            raise TypeError(f"event callback must be callable, got {type(fn).__name__}")
        self.fn, self.kind = fn, kind

    def __call__(self, context, event, state=None):
        if self.kind == "publish":
            return self.fn(context)
        return self.fn(context, state)

    def _system_form(self, owner: Any):
        """The equivalent system callback when `fn` is a method bound to `owner` (so that the event holds the
        system weakly, see weak_owner), else None."""
        function, ref = split_bound(self.fn, owner)
        return None if ref is None else _AdaptUnbound(function, self.kind)

    def __getstate__(self):
        return (portable(self.fn), self.kind)

    def __setstate__(self, state):
        self.fn, self.kind = state


class _AdaptUnbound(_Adapt):
    """_Adapt of a system method kept unbound: called as a system callback `(system, context, event, state)`."""

    __slots__ = ()

    def __call__(self, system, context, event, state=None):
        if self.kind == "publish":
            return self.fn(system, context)
        return self.fn(system, context, state)


class _StateCopy:
    """Output calc of DeclareStateOutputPort: copies one part of the state; picklable."""

    __slots__ = ("kind", "index")

    def __init__(self, kind: str, index: int) -> None:
        self.kind, self.index = kind, index

    def __call__(self, context, output) -> None:
        if self.kind == "xc":
            output.SetFromVector(context._continuous._vector._data)
        elif self.kind == "xd":
            output.SetFromVector(context._discrete._groups[self.index]._data)
        else:
            output.set_value(context._abstract[self.index].get_value())

    def __getstate__(self):
        return (self.kind, self.index)

    def __setstate__(self, state):
        self.kind, self.index = state


class _Allocator:
    """Calls a user allocator and wraps a plain result in a Value; picklable. An allocator bound to the system
    (`owner`) is kept unbound with a weak reference to it (weak_owner)."""

    __slots__ = ("fn", "owner")

    def __init__(self, fn: Callable, owner: Any = None) -> None:
        self.fn, self.owner = split_bound(fn, owner) if owner is not None else (fn, None)

    def __call__(self) -> AbstractValue:
        value = self.fn() if self.owner is None else self.fn(deref_owner(self.owner, "an output port's allocator"))
        return value if isinstance(value, AbstractValue) else Value(value)

    def __getstate__(self):
        return (portable(self.fn), portable(self.owner))

    def __setstate__(self, state):
        self.fn, self.owner = state


class LeafSystem(System):
    """A system written directly in Python: declare state, ports, parameters and events in __init__."""

    # True when every unrestricted-update handler of the system only replaces abstract state values (set_value after
    # reading them, never a change in place): the Simulator's lean loop may then let it write the context's abstract
    # state directly (systems/analysis/lean_loop.py).
    _unrestricted_updates_replace_abstract = False

    def __init__(self, converter: Any = None) -> None:
        """`converter` is accepted for pydrake's `LeafSystem_[T].__init__(self, converter)` and ignored."""
        super().__init__()
        self._xc_nq = self._xc_nv = self._xc_nz = 0
        self._xc_model = np.zeros(0)
        self._discrete_models: list[BasicVector] = []
        self._abstract_models: list[AbstractValue] = []
        self._numeric_parameter_models: list[BasicVector] = []
        self._abstract_parameter_models: list[AbstractValue] = []
        self._cache_entries: list[CacheEntry] = []
        self._num_slots = 0
        self._periodic_events: list[tuple[PeriodicEventData, Event]] = []
        self._per_step_events: list[Event] = []
        self._init_events: list[Event] = []
        self._forced_events: list[Event] = []
        self._prereqs_resolved = False

    # ----- state -----------------------------------------------------------------------------------
    def DeclareContinuousState(self, *args: Any, num_state_variables: int | None = None, model_vector: Any = None,
                               num_q: int | None = None, num_v: int | None = None,
                               num_z: int | None = None) -> ContinuousStateIndex:
        """`(num_state_variables)`, `(num_q, num_v, num_z)`, `(model_vector)` or `(model_vector, num_q, num_v, num_z)`."""
        first = [x for x in (num_state_variables, model_vector) if x is not None]
        args = tuple(first) + args + tuple(x for x in (num_q, num_v, num_z) if x is not None)
        if len(args) == 1:
            if isinstance(args[0], (int, np.integer)):
                model, nq, nv, nz = np.zeros(int(args[0])), 0, 0, int(args[0])
            else:
                model = _model_vector(args[0], "DeclareContinuousState").CopyToVector()
                nq, nv, nz = 0, 0, model.shape[0]
        elif len(args) == 3:
            nq, nv, nz = (int(a) for a in args)
            model = np.zeros(nq + nv + nz)
        elif len(args) == 4:
            model = _model_vector(args[0], "DeclareContinuousState").CopyToVector()
            nq, nv, nz = (int(a) for a in args[1:])
        else:
            raise TypeError("DeclareContinuousState takes (n), (num_q, num_v, num_z), (model_vector) or "
                            "(model_vector, num_q, num_v, num_z)")
        if min(nq, nv, nz) < 0 or nv > nq or nq + nv + nz != model.shape[0]:
            raise ValueError(f"DeclareContinuousState on {self.GetSystemPathname()}: invalid sizes num_q={nq}, "
                             f"num_v={nv}, num_z={nz} for {model.shape[0]} variables (need num_v <= num_q)")
        self._xc_nq, self._xc_nv, self._xc_nz = nq, nv, nz
        self._xc_model = model
        return ContinuousStateIndex(0)

    def DeclareDiscreteState(self, *args: Any, num_state_variables: int | None = None, vector: Any = None,
                             model_vector: Any = None) -> DiscreteStateIndex:
        """`(num_state_variables)`, `(vector)` or `(model_vector: BasicVector)`; returns the group index."""
        arg = one_argument("DeclareDiscreteState", args, num_state_variables=num_state_variables, vector=vector,
                   model_vector=model_vector)
        self._discrete_models.append(_model_vector(arg, f"DeclareDiscreteState on {self.GetSystemPathname()}"))
        return DiscreteStateIndex(len(self._discrete_models) - 1)

    def DeclareAbstractState(self, model_value: Any) -> AbstractStateIndex:
        self._abstract_models.append(_as_abstract(model_value))
        return AbstractStateIndex(len(self._abstract_models) - 1)

    def DeclareNumericParameter(self, model_vector: Any) -> NumericParameterIndex:
        self._numeric_parameter_models.append(_model_vector(model_vector, "DeclareNumericParameter"))
        return NumericParameterIndex(len(self._numeric_parameter_models) - 1)

    def DeclareAbstractParameter(self, model_value: Any) -> AbstractParameterIndex:
        self._abstract_parameter_models.append(_as_abstract(model_value))
        return AbstractParameterIndex(len(self._abstract_parameter_models) - 1)

    def num_discrete_state_groups(self) -> int:
        return len(self._discrete_models)

    def num_abstract_states(self) -> int:
        return len(self._abstract_models)

    def num_numeric_parameter_groups(self) -> int:
        return len(self._numeric_parameter_models)

    def num_abstract_parameters(self) -> int:
        return len(self._abstract_parameter_models)

    # ----- ports -----------------------------------------------------------------------------------
    def DeclareVectorInputPort(self, name: Any, *args: Any, size: Any = None, model_vector: Any = None,
                               random_type: Any = None, required: bool = True):
        """A vector input of `size` or shaped as `model_vector` (a BasicVector). `required=False` (a mallard
        extension) exempts the port from the Simulator's unconnected-input check."""
        if len(args) == 2:  # (name, size_or_model, random_type) positionally
            args, random_type = args[:1], args[1]
        size = one_argument(f"DeclareVectorInputPort({name})", args, size=size, model_vector=model_vector)
        model = _model_vector(size, f"DeclareVectorInputPort({name})")
        return self._new_input_port(name, PortDataType.kVectorValued, model.size(), model, required, random_type)

    def DeclareAbstractInputPort(self, name: Any, model_value: Any, *, required: bool = True):
        return self._new_input_port(name, PortDataType.kAbstractValued, 0, _as_abstract(model_value), required)

    def DeclareInputPort(self, name: Any, type: PortDataType, size: int, random_type: Any = None):
        if type == PortDataType.kAbstractValued:
            raise ValueError("DeclareInputPort(kAbstractValued) needs a model value; use DeclareAbstractInputPort")
        return self.DeclareVectorInputPort(name, size, random_type)

    def _new_output_port(self, name, data_type, size, alloc, calc, prerequisites) -> LeafOutputPort:
        index = OutputPortIndex(len(self._output_ports))
        if name is None or isinstance(name, UseDefaultName):
            name = f"y{int(index)}"
        self._unique_port_name(name, self._output_ports, "output")
        if not callable(calc):
            raise TypeError(f"output port '{name}' of {self.GetSystemPathname()}: calc must be callable")
        if prerequisites is None:
            prerequisites = {self.all_sources_ticket()}
        port = LeafOutputPort(self, index, name, data_type, size, alloc, calc, self._num_slots, set(prerequisites))
        self._num_slots += 1
        self._output_ports.append(port)
        self._prereqs_resolved = False
        return port

    def DeclareVectorOutputPort(self, name: Any, *args: Any, size: Any = None, model_value: Any = None,
                                calc: Callable | None = None, prerequisites_of_calc: set | None = None):
        """A vector output of `size` (or shaped as `model_value`, a BasicVector) computed by
        `calc(context, output: BasicVector)`; it depends on every source unless prerequisites_of_calc says less."""
        args = list(args)
        if size is None and model_value is None and args:
            size = args.pop(0)
        if calc is None and args:
            calc = args.pop(0)
        if prerequisites_of_calc is None and args:
            prerequisites_of_calc = args.pop(0)
        size = one_argument(f"DeclareVectorOutputPort({name})", tuple(args), size=size, model_value=model_value)
        model = _model_vector(size, f"DeclareVectorOutputPort({name})")
        alloc = model.Clone
        return self._new_output_port(name, PortDataType.kVectorValued, model.size(), alloc, calc, prerequisites_of_calc)

    def DeclareAbstractOutputPort(self, name: Any, alloc: Any, calc: Callable, prerequisites_of_calc: set | None = None):
        """`alloc()` returns an AbstractValue (or pass a model value); `calc(context, abstract_value)`."""
        if isinstance(alloc, AbstractValue):
            model = alloc
            allocator = model.Clone
        elif callable(alloc):
            allocator = _Allocator(alloc, self)
        else:
            model = Value(alloc)
            allocator = model.Clone
        return self._new_output_port(name, PortDataType.kAbstractValued, 0, allocator, calc, prerequisites_of_calc)

    def DeclareStateOutputPort(self, name: Any, state_index: Any):
        """An output that copies one part of the state; never direct-feedthrough."""
        if isinstance(state_index, ContinuousStateIndex):
            port = self.DeclareVectorOutputPort(name, self._xc_nq + self._xc_nv + self._xc_nz, _StateCopy("xc", 0),
                                                {self.xc_ticket()})
        elif isinstance(state_index, DiscreteStateIndex):
            group = int(state_index)
            if not 0 <= group < len(self._discrete_models):
                raise IndexError(f"DeclareStateOutputPort: no discrete state group {group} in {self.GetSystemPathname()}")
            port = self.DeclareVectorOutputPort(name, self._discrete_models[group].size(), _StateCopy("xd", group),
                                                {self.discrete_state_ticket(group)})
        elif isinstance(state_index, AbstractStateIndex):
            index = int(state_index)
            port = self.DeclareAbstractOutputPort(name, self._abstract_models[index].Clone, _StateCopy("xa", index),
                                                  {self.abstract_state_ticket(index)})
        else:
            raise TypeError("DeclareStateOutputPort: state_index must be a ContinuousStateIndex, "
                            f"DiscreteStateIndex or AbstractStateIndex, got {state_index!r}")
        port._is_state_port = True
        return port

    # ----- cache entries ---------------------------------------------------------------------------
    def DeclareCacheEntry(self, description: str, value_producer: ValueProducer | None = None,
                          prerequisites_of_calc: set | None = None, *, alloc: Callable | None = None,
                          calc: Callable | None = None) -> CacheEntry:
        """A cached computation: `value_producer` (or alloc=/calc=) plus its prerequisites."""
        if value_producer is None:  # mallard's alloc=/calc= form: a plain allocated object is wrapped in a Value
            value_producer = ValueProducer(allocate=_Allocator(alloc, self), calc=calc)
        default = prerequisites_of_calc is None
        if default:
            prerequisites_of_calc = {self.all_sources_ticket()}
        entry = CacheEntry(self, len(self._cache_entries), self._num_slots, description, value_producer,
                           prerequisites_of_calc, default)
        self._num_slots += 1
        self._cache_entries.append(entry)
        self._prereqs_resolved = False
        return entry

    def get_cache_entry(self, index: int) -> CacheEntry:
        return self._cache_entries[int(index)]

    def num_cache_entries(self) -> int:
        return len(self._cache_entries)

    def _resolve_prerequisites(self) -> None:
        for item in list(self._output_ports) + list(self._cache_entries):
            kinds, _all_inputs, _inputs = resolve_kinds(item._prerequisites, self._cache_entries)
            item._all = kinds == ALL_KINDS
            item._kinds = tuple(sorted(kinds))
            item._pair = stamp_pair(item._kinds)
        self._prereqs_resolved = True

    def _feedthrough(self, input_index: int, output_index: int) -> bool:
        port = self.get_output_port(output_index)
        self.get_input_port(input_index)
        if port._is_state_port:
            return False
        _kinds, all_inputs, inputs = resolve_kinds(port._prerequisites, self._cache_entries)
        return all_inputs or input_index in inputs

    # ----- events ----------------------------------------------------------------------------------
    def _check_period(self, period_sec: float, offset_sec: float, what: str) -> PeriodicEventData:
        if not (period_sec > 0 and math.isfinite(period_sec)):
            raise ValueError(f"{what} on {self.GetSystemPathname()}: period_sec must be positive and finite, "
                             f"got {period_sec}")
        if not (offset_sec >= 0 and math.isfinite(offset_sec)):
            raise ValueError(f"{what} on {self.GetSystemPathname()}: offset_sec must be >= 0, got {offset_sec}")
        return PeriodicEventData(period_sec, offset_sec)

    def DeclarePeriodicEvent(self, period_sec: float, offset_sec: float, event: Event) -> None:
        data = self._check_period(period_sec, offset_sec, "DeclarePeriodicEvent")
        self._periodic_events.append((data, event._with_trigger(TriggerType.kPeriodic, data, self)))

    def DeclarePerStepEvent(self, event: Event) -> None:
        self._per_step_events.append(event._with_trigger(TriggerType.kPerStep, None, self))

    def DeclareInitializationEvent(self, event: Event) -> None:
        self._init_events.append(event._with_trigger(TriggerType.kInitialization, None, self))

    def _forced(self, event: Event) -> None:
        self._forced_events.append(event._with_trigger(TriggerType.kForced, None, self))

    def DeclarePeriodicPublishEvent(self, period_sec: float, offset_sec: float, publish: Callable) -> None:
        self.DeclarePeriodicEvent(period_sec, offset_sec, PublishEvent(_Adapt(publish, "publish")))

    def DeclarePeriodicDiscreteUpdateEvent(self, period_sec: float, offset_sec: float, update: Callable) -> None:
        self.DeclarePeriodicEvent(period_sec, offset_sec, DiscreteUpdateEvent(_Adapt(update, "update")))

    def DeclarePeriodicUnrestrictedUpdateEvent(self, period_sec: float, offset_sec: float, update: Callable) -> None:
        self.DeclarePeriodicEvent(period_sec, offset_sec, UnrestrictedUpdateEvent(_Adapt(update, "update")))

    def DeclarePerStepPublishEvent(self, publish: Callable) -> None:
        self.DeclarePerStepEvent(PublishEvent(_Adapt(publish, "publish")))

    def DeclarePerStepDiscreteUpdateEvent(self, update: Callable) -> None:
        self.DeclarePerStepEvent(DiscreteUpdateEvent(_Adapt(update, "update")))

    def DeclarePerStepUnrestrictedUpdateEvent(self, update: Callable) -> None:
        self.DeclarePerStepEvent(UnrestrictedUpdateEvent(_Adapt(update, "update")))

    def DeclareInitializationPublishEvent(self, publish: Callable) -> None:
        self.DeclareInitializationEvent(PublishEvent(_Adapt(publish, "publish")))

    def DeclareInitializationDiscreteUpdateEvent(self, update: Callable) -> None:
        self.DeclareInitializationEvent(DiscreteUpdateEvent(_Adapt(update, "update")))

    def DeclareInitializationUnrestrictedUpdateEvent(self, update: Callable) -> None:
        self.DeclareInitializationEvent(UnrestrictedUpdateEvent(_Adapt(update, "update")))

    def DeclareForcedPublishEvent(self, publish: Callable) -> None:
        self._forced(PublishEvent(_Adapt(publish, "publish")))

    def DeclareForcedDiscreteUpdateEvent(self, update: Callable) -> None:
        self._forced(DiscreteUpdateEvent(_Adapt(update, "update")))

    def DeclareForcedUnrestrictedUpdateEvent(self, update: Callable) -> None:
        self._forced(UnrestrictedUpdateEvent(_Adapt(update, "update")))

    def MakeWitnessFunction(self, description: str, direction_type, calc: Callable,
                            e: Event | None = None) -> WitnessFunction:
        """A witness function `calc(context) -> float` whose zero crossings (per `direction_type`) trigger the
        event `e` (optional)."""
        if e is not None:
            e = e._with_trigger(TriggerType.kWitness, None, self)
        return WitnessFunction(self, description, direction_type, calc, e)

    def DoGetWitnessFunctions(self, context) -> list:
        """Override to return the witness functions active in `context` (default: none)."""
        return []

    def GetPeriodicEvents(self) -> dict:
        events: dict = {}
        for data, event in self._periodic_events:
            key = (data.period_sec(), data.offset_sec())
            events.setdefault(key, (data, []))[1].append(event)
        return {data: evs for data, evs in events.values()}

    # ----- defaults --------------------------------------------------------------------------------
    def SetDefaultState(self, context, state) -> None:
        """Sets `state` to the declared model values (override to customize)."""
        state._continuous._vector._data[:] = self._xc_model
        for group, model in zip(state._discrete._groups, self._discrete_models):
            group._data[:] = model._data
        for value, model in zip(state._abstract._values, self._abstract_models):
            value.SetFrom(model)

    def SetDefaultParameters(self, context, parameters) -> None:
        for p, model in zip(parameters._numeric, self._numeric_parameter_models):
            p._data[:] = model._data
        for p, model in zip(parameters._abstract._values, self._abstract_parameter_models):
            p.SetFrom(model)

    def SetRandomState(self, context, state, generator) -> None:
        self.SetDefaultState(context, state)

    def SetRandomParameters(self, context, parameters, generator) -> None:
        self.SetDefaultParameters(context, parameters)

    # ----- dynamics hooks ----------------------------------------------------------------------------
    def DoCalcTimeDerivatives(self, context, derivatives) -> None:
        """Override to write d/dt of the continuous state into `derivatives` (a ContinuousState)."""
        if derivatives.size():
            raise RuntimeError(f"{self.GetSystemPathname()} ({type(self).__name__}) declares "
                               f"{derivatives.size()} continuous states but does not override DoCalcTimeDerivatives")

    def DoMapVelocityToQDot(self, context, generalized_velocity, qdot) -> None:
        """q̇ = N(q) v; the default is the identity (override when num_q != num_v)."""
        v = generalized_velocity.CopyToVector() if isinstance(generalized_velocity, VectorBase) else generalized_velocity
        if self._xc_nq != self._xc_nv:
            raise RuntimeError(f"{self.GetSystemPathname()}: num_q != num_v, override DoMapVelocityToQDot")
        qdot.SetFromVector(v)

    def DoMapQDotToVelocity(self, context, qdot, generalized_velocity) -> None:
        qd = qdot.CopyToVector() if isinstance(qdot, VectorBase) else qdot
        if self._xc_nq != self._xc_nv:
            raise RuntimeError(f"{self.GetSystemPathname()}: num_q != num_v, override DoMapQDotToVelocity")
        generalized_velocity.SetFromVector(qd)

    # ----- System internals --------------------------------------------------------------------------
    def _allocate_context_tree(self) -> LeafContext:
        if not self._prereqs_resolved:
            self._resolve_prerequisites()
        context = LeafContext(
            self._system_id, self.GetSystemPathname(), len(self._input_ports), len(self._output_ports),
            self._xc_nq, self._xc_nv, self._xc_nz,
            [m._data for m in self._discrete_models], [m.Clone() for m in self._abstract_models],
            [m.Clone() for m in self._numeric_parameter_models], [m.Clone() for m in self._abstract_parameter_models],
            self._num_slots)
        for port in self._output_ports:
            context._cache[port._slot][2] = port._disabled_by_default
        for entry in self._cache_entries:  # allocated now, so a bad allocator fails at context creation
            slot = context._cache[entry._slot]
            slot[1], slot[2] = entry._alloc(), entry._disabled_by_default
        return context

    def _leaf_systems(self) -> list:
        return [self]

    def _collect_leaf_pairs(self, context, pairs: list) -> None:
        pairs.append((self, context))

    def _count_continuous(self) -> tuple[int, int, int, int]:
        return self._xc_nq + self._xc_nv + self._xc_nz, self._xc_nq, self._xc_nv, self._xc_nz

    def _DescribeStiffness(self, context) -> str | None:
        """What in this system's current state may make its dynamics stiff (for an integrator's error
        message when it crawls), or None; e.g. the plant names its deepest contact penetrations."""
        return None

    def _calc_derivatives_into(self, context, out: np.ndarray) -> None:
        derivatives = getattr(context, "_derivs", None)
        if derivatives is None:
            derivatives = context._derivs = self.AllocateTimeDerivatives()
        self.DoCalcTimeDerivatives(context, derivatives)
        out[:] = derivatives._vector._data

    def _map_v_to_qdot(self, context, v: np.ndarray) -> np.ndarray:
        qdot = BasicVector(self._xc_nq)
        self.DoMapVelocityToQDot(context, BasicVector(v), qdot)
        return qdot._data

    def _map_qdot_to_v(self, context, qdot: np.ndarray) -> np.ndarray:
        v = BasicVector(self._xc_nv)
        self.DoMapQDotToVelocity(context, BasicVector(qdot), v)
        return v._data
