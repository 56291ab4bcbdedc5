"""`VectorLogSink` and `LogVectorOutput`: record a vector signal into a per-context VectorLog (pydrake).

Default triggers: publish_period == 0 -> {kForced, kPerStep} (one sample at initialization and after every
simulator step); publish_period > 0 -> {kForced, kPeriodic} (samples at 0, T, 2T, ...). Each context has its
own log, held as an abstract parameter of the sink's context and written in place (so no cache is
invalidated). That gives pydrake's copy rules: `Context.Clone()` and pickling copy the log, and
`SetDefaultContext` / `SetRandomContext` keep it.
"""
from __future__ import annotations

import math
import numbers
from typing import Iterable

from mallard.systems.framework import LeafSystem, PortDataType, TriggerType, Value
from ._util import input_data, positive_int
from .vector_log import VectorLog

_SUPPORTED = (TriggerType.kForced, TriggerType.kPeriodic, TriggerType.kPerStep)


class VectorLogSink(LeafSystem):
    """Logs its `data` input: `VectorLogSink(input_size, publish_period=0.0)` or
    `VectorLogSink(input_size, publish_triggers, publish_period=0.0)`."""

    def __init__(self, input_size: int, *args, **kwargs) -> None:
        super().__init__()
        publish_triggers, publish_period = _parse_trigger_args(args, kwargs, "VectorLogSink")
        n = positive_int(input_size, "VectorLogSink: input_size", allow_zero=True)
        self._triggers, self._period = _check_triggers(publish_triggers, publish_period, "VectorLogSink")
        self._log_index = self.DeclareAbstractParameter(Value(VectorLog(n)))
        self.DeclareVectorInputPort("data", n)
        if TriggerType.kForced in self._triggers:
            self.DeclareForcedPublishEvent(self._write)
        if TriggerType.kPeriodic in self._triggers:
            self.DeclarePeriodicPublishEvent(self._period, 0.0, self._write)
        if TriggerType.kPerStep in self._triggers:
            self.DeclarePerStepPublishEvent(self._write)

    def _log(self, context) -> VectorLog:
        return context._abstract_params[self._log_index].get_value()

    def _write(self, context) -> None:
        self._log(context).AddData(context.get_time(), input_data(self, context, 0))

    def SetDefaultParameters(self, context, parameters) -> None:
        """Parameters to defaults, except that an existing log is kept (as pydrake keeps it)."""
        value = parameters.get_abstract_parameter(self._log_index)
        log = value.get_value()
        super().SetDefaultParameters(context, parameters)
        value.set_value(log)

    def SetRandomParameters(self, context, parameters, generator) -> None:
        self.SetDefaultParameters(context, parameters)

    def publish_triggers(self) -> set:
        return set(self._triggers)

    def publish_period(self) -> float:
        return self._period

    def GetLog(self, context) -> VectorLog:
        """The log held in this sink's own context."""
        self.ValidateContext(context)
        return self._log(context)

    def GetMutableLog(self, context) -> VectorLog:
        return self.GetLog(context)

    def FindLog(self, context) -> VectorLog:
        """The log, given the root context of a diagram containing this sink (or the sink's own context)."""
        if getattr(context, "_system_id", None) == self._system_id:
            return self.GetLog(context)
        return self.GetLog(self.GetMyContextFromRoot(context))

    def FindMutableLog(self, context) -> VectorLog:
        return self.FindLog(context)


def _parse_trigger_args(args: tuple, kwargs: dict, what: str):
    triggers = kwargs.pop("publish_triggers", None)
    period = kwargs.pop("publish_period", None)
    if kwargs:
        raise TypeError(f"{what}: unexpected arguments {sorted(kwargs)}")
    rest = list(args)
    if rest and not isinstance(rest[0], numbers.Real) and triggers is None:
        triggers = rest.pop(0)
    if rest:
        if period is not None or len(rest) > 1:
            raise TypeError(f"{what}: too many arguments")
        period = rest[0]
    return triggers, 0.0 if period is None else period


def _check_triggers(triggers: Iterable | None, period, what: str) -> tuple[frozenset, float]:
    period = float(period)
    if not (period >= 0.0 and math.isfinite(period)):
        raise ValueError(f"{what}: publish_period must be >= 0 (0 = log every simulator step), got {period}")
    if triggers is None:
        triggers = {TriggerType.kForced, TriggerType.kPeriodic} if period > 0 else \
            {TriggerType.kForced, TriggerType.kPerStep}
    triggers = frozenset(TriggerType(t) for t in triggers)
    if not triggers:
        raise ValueError(f"{what}: publish_triggers must not be empty; use a subset of "
                         f"{{{', '.join(t.name for t in _SUPPORTED)}}}")
    bad = [t.name for t in triggers if t not in _SUPPORTED]
    if bad:
        raise ValueError(f"{what}: unsupported publish triggers {bad}; supported are "
                         f"{[t.name for t in _SUPPORTED]}")
    if TriggerType.kPeriodic in triggers and not period > 0:
        raise ValueError(f"{what}: the kPeriodic trigger needs publish_period > 0, got {period}")
    if TriggerType.kPeriodic not in triggers and period != 0.0:
        raise ValueError(f"{what}: publish_period {period} is given but kPeriodic is not among the triggers")
    return triggers, period


def LogVectorOutput(src, builder, *args, **kwargs) -> VectorLogSink:
    """Add a VectorLogSink sized for output port `src` to `builder` and connect it; returns the sink.

    `LogVectorOutput(src, builder, publish_period=0.0)` or
    `LogVectorOutput(src, builder, publish_triggers, publish_period=0.0)`.
    """
    if not hasattr(src, "size") or not hasattr(src, "get_system"):
        raise TypeError(f"LogVectorOutput: src must be an OutputPort, got {type(src).__name__}")
    if src.get_data_type() != PortDataType.kVectorValued:
        raise ValueError(f"LogVectorOutput: {src.GetFullDescription()} is abstract-valued; only vector outputs "
                         "can be logged")
    triggers, period = _parse_trigger_args(args, kwargs, "LogVectorOutput")
    sink = builder.AddSystem(VectorLogSink(src.size(), triggers, period) if triggers is not None
                             else VectorLogSink(src.size(), period))
    builder.Connect(src, sink.get_input_port(0))
    return sink
