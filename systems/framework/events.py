"""Events, event status, periodic-event data and witness functions (pydrake.systems.framework)."""
from __future__ import annotations

import weakref
from typing import Any, Callable

from mallard.common.cpp_enum import CppEnum

from .portable import PortableAttributes, PortableSlots
from .weak_owner import deref_owner, owner_gone, split_bound

__all__ = [
    "TriggerType", "Event", "PublishEvent", "DiscreteUpdateEvent", "UnrestrictedUpdateEvent", "EventStatus",
    "PeriodicEventData", "WitnessFunction", "WitnessFunctionDirection", "WitnessTriggeredEventData",
]


class TriggerType(CppEnum):
    kUnknown = 0
    kInitialization = 1
    kForced = 2
    kTimed = 3
    kPeriodic = 4
    kPerStep = 5
    kWitness = 6


class EventStatus:
    """Result of an event handler: did nothing, succeeded, reached termination, or failed."""

    class Severity(CppEnum):
        kDidNothing = 0
        kSucceeded = 1
        kReachedTermination = 2
        kFailed = 3

    __slots__ = ("_severity", "_system", "_message")

    def __init__(self, severity: "EventStatus.Severity", system: Any = None, message: str = "") -> None:
        self._severity = EventStatus.Severity(severity)
        self._system = system
        self._message = message

    @staticmethod
    def DidNothing() -> "EventStatus":
        return EventStatus(EventStatus.Severity.kDidNothing)

    @staticmethod
    def Succeeded() -> "EventStatus":
        return EventStatus(EventStatus.Severity.kSucceeded)

    @staticmethod
    def ReachedTermination(system: Any, message: str) -> "EventStatus":
        return EventStatus(EventStatus.Severity.kReachedTermination, system, message)

    @staticmethod
    def Failed(system: Any, message: str) -> "EventStatus":
        return EventStatus(EventStatus.Severity.kFailed, system, message)

    def severity(self) -> "EventStatus.Severity":
        return self._severity

    def system(self) -> Any:
        return self._system

    def message(self) -> str:
        return self._message

    def did_nothing(self) -> bool:
        return self._severity == EventStatus.Severity.kDidNothing

    def succeeded(self) -> bool:
        return self._severity == EventStatus.Severity.kSucceeded

    def reached_termination(self) -> bool:
        return self._severity == EventStatus.Severity.kReachedTermination

    def failed(self) -> bool:
        return self._severity == EventStatus.Severity.kFailed

    def KeepMoreSevere(self, candidate: "EventStatus") -> "EventStatus":
        if candidate._severity > self._severity:
            self._severity, self._system, self._message = candidate._severity, candidate._system, candidate._message
        return self

    def __repr__(self) -> str:
        return f"EventStatus({self._severity.name}{', ' + repr(self._message) if self._message else ''})"


def as_status(result: Any) -> EventStatus:
    """Handlers may return None (success) or an EventStatus."""
    if result is None:
        return EventStatus.Succeeded()
    if isinstance(result, EventStatus):
        return result
    raise TypeError(f"an event handler must return None or an EventStatus, got {type(result).__name__}")


def more_severe(status: "EventStatus | None", result: Any) -> "EventStatus | None":
    """Folds a handler's return value into a running status; None stands for plain success."""
    if result is None:
        return status
    if not isinstance(result, EventStatus):
        raise TypeError(f"an event handler must return None or an EventStatus, got {type(result).__name__}")
    if status is None or result._severity > status._severity:
        return result
    return status


class PeriodicEventData:
    """The period and offset (seconds) of a periodic event."""

    __slots__ = ("_period", "_offset")

    def __init__(self, period_sec: float, offset_sec: float) -> None:
        self._period = float(period_sec)
        self._offset = float(offset_sec)

    def period_sec(self) -> float:
        return self._period

    def offset_sec(self) -> float:
        return self._offset

    def __repr__(self) -> str:
        return f"PeriodicEventData(period_sec={self._period}, offset_sec={self._offset})"


class WitnessTriggeredEventData:
    """Data passed with a witness-triggered event: the witness and the isolated time interval."""

    __slots__ = ("_witness", "_t0", "_tf")

    def __init__(self, witness: "WitnessFunction", t0: float, tf: float) -> None:
        self._witness, self._t0, self._tf = witness, t0, tf

    def triggered_witness(self) -> "WitnessFunction":
        return self._witness

    def t0(self) -> float:
        return self._t0

    def tf(self) -> float:
        return self._tf


class Event(PortableSlots):
    """Base of the three event kinds; holds the callback and the trigger type.

    The handler is `callback(context, event, ...)` or `system_callback(system, context, event, ...)`, the
    system being the one that declared the event. A declared event holds that system weakly (`_owner`, a
    weakref; see weak_owner) and keeps a callback bound to it as the equivalent system callback.
    """

    __slots__ = ("_callback", "_trigger_type", "_event_data", "_system_callback", "_owner")

    def __init__(self, *args: Any, callback: Callable | None = None, system_callback: Callable | None = None,
                 trigger_type: TriggerType | None = None) -> None:
        for a in args:  # accept (callback), (trigger_type, callback) and (trigger_type)
            if isinstance(a, TriggerType):
                trigger_type = a
            elif callable(a):
                callback = a
            else:
                raise TypeError(f"{type(self).__name__}: unexpected argument {a!r}")
        if callback is not None and system_callback is not None:
            raise TypeError(f"{type(self).__name__}: give callback or system_callback, not both")
        self._system_callback = system_callback is not None
        self._callback = system_callback if self._system_callback else callback
        self._trigger_type = TriggerType.kUnknown if trigger_type is None else TriggerType(trigger_type)
        self._event_data = None
        self._owner = None

    def get_trigger_type(self) -> TriggerType:
        return self._trigger_type

    def get_event_data(self) -> Any:
        return self._event_data

    def _with_trigger(self, trigger_type: TriggerType, data: Any = None, owner: Any = None) -> "Event":
        """A copy with the given trigger (and data); `owner` is the declaring system (for system_callback)."""
        ev = object.__new__(type(self))
        ev._callback, ev._trigger_type, ev._event_data = self._callback, trigger_type, data
        ev._system_callback = self._system_callback
        ev._owner = weakref.ref(owner) if owner is not None else self._owner
        if owner is not None and not ev._system_callback and ev._callback is not None:
            function, ref = split_bound(ev._callback, owner)
            if ref is None:  # an adapter of a method bound to the owner (LeafSystem's Declare*Event)
                unbound = getattr(ev._callback, "_system_form", None)
                function = unbound(owner) if unbound is not None else None
            if function is not None and function is not ev._callback:
                ev._callback, ev._system_callback = function, True
        return ev

    def _invoke(self, context, *more):
        callback = self._callback
        if callback is None:
            return None
        if self._system_callback:
            owner = self._owner
            system = None if owner is None else owner()
            if system is None and owner is not None:
                raise owner_gone("an event handler")
            return callback(system, context, self, *more)
        return callback(context, self, *more)


class PublishEvent(Event):
    """An event whose handler `callback(context, event)` may read, not write, the state."""

    __slots__ = ()

    def _handle(self, context, _arg=None):
        """Runs the handler; returns what it returned (None or an EventStatus)."""
        return self._invoke(context)


class DiscreteUpdateEvent(Event):
    """An event whose handler `callback(context, event, discrete_state)` writes the next discrete state."""

    __slots__ = ()

    def _handle(self, context, discrete_state):
        return self._invoke(context, discrete_state)


class UnrestrictedUpdateEvent(Event):
    """An event whose handler `callback(context, event, state)` may write any part of the state."""

    __slots__ = ()

    def _handle(self, context, state):
        return self._invoke(context, state)


class WitnessFunctionDirection(CppEnum):
    kNone = 0
    kPositiveThenNonPositive = 1
    kNegativeThenNonNegative = 2
    kCrossesZero = 3


class WitnessFunction(PortableAttributes):
    """A scalar function of the context whose zero crossings the Simulator isolates in time."""

    def __init__(self, system: Any, description: str, direction_type: WitnessFunctionDirection,
                 calc: Callable, event: Event | None = None) -> None:
        self._sysref = weakref.ref(system)  # weak, and a calc bound to the system unbound (weak_owner)
        self._description = description
        self._direction = WitnessFunctionDirection(direction_type)
        self._calc, self._calc_self = split_bound(calc, system)
        self._event = event if event is not None else PublishEvent(trigger_type=TriggerType.kWitness)

    def description(self) -> str:
        return self._description

    def direction_type(self) -> WitnessFunctionDirection:
        return self._direction

    def get_system(self) -> Any:
        return deref_owner(self._sysref, f"witness function '{self._description}'")

    def get_event(self) -> Event:
        return self._event

    def CalcWitnessValue(self, context) -> float:
        if self._calc_self is None:
            return float(self._calc(context))
        return float(self._calc(deref_owner(self._calc_self, f"witness function '{self._description}'"), context))

    def should_trigger(self, w0: float, wf: float) -> bool:
        d = self._direction
        if d == WitnessFunctionDirection.kNone:
            return False
        down = w0 > 0 and wf <= 0
        up = w0 < 0 and wf >= 0
        if d == WitnessFunctionDirection.kPositiveThenNonPositive:
            return down
        if d == WitnessFunctionDirection.kNegativeThenNonNegative:
            return up
        return down or up

    def __repr__(self) -> str:
        return f"WitnessFunction({self._description!r}, {self._direction.name})"
