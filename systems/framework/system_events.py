"""Event execution on any System: forced, initialization and unique periodic discrete updates, witnesses.

A mixin of `System`: these methods act on every leaf under the system, in subsystem order.
"""
from __future__ import annotations

from .basic_vector import BasicVector
from .event_handling import calc_discrete, handle_discrete, handle_publish, handle_unrestricted
from .events import DiscreteUpdateEvent, PeriodicEventData, PublishEvent, UnrestrictedUpdateEvent

__all__ = ["SystemEvents"]


class SystemEvents:
    """Methods of System that run events of its leaves (see System)."""

    # ----- events ----------------------------------------------------------------------------------
    def ForcedPublish(self, context) -> None:
        """Runs every forced publish event of this system (and its subsystems)."""
        self._check_context(context, "ForcedPublish")
        _raise_on_failure(self._run_publish(self._collect(context, "_forced_events", PublishEvent)))

    def Publish(self, context) -> None:
        self.ForcedPublish(context)

    def ExecuteForcedEvents(self, context, publish: bool = True) -> None:
        self._check_context(context, "ExecuteForcedEvents")
        _raise_on_failure(handle_unrestricted(context, self._collect(context, "_forced_events", UnrestrictedUpdateEvent)))
        _raise_on_failure(handle_discrete(context, self._collect(context, "_forced_events", DiscreteUpdateEvent)))
        if publish:
            self.ForcedPublish(context)

    def ExecuteInitializationEvents(self, context) -> None:
        self._check_context(context, "ExecuteInitializationEvents")
        _raise_on_failure(handle_unrestricted(context, self._collect(context, "_init_events", UnrestrictedUpdateEvent)))
        _raise_on_failure(handle_discrete(context, self._collect(context, "_init_events", DiscreteUpdateEvent)))
        _raise_on_failure(self._run_publish(self._collect(context, "_init_events", PublishEvent)))

    def _collect(self, context, attribute: str, event_type) -> list:
        return [(leaf, leaf_context, event) for leaf, leaf_context in self._leaf_pairs(context)
                for event in getattr(leaf, attribute) if isinstance(event, event_type)]

    @staticmethod
    def _run_publish(events):
        return handle_publish(events)

    def GetUniquePeriodicDiscreteUpdateAttribute(self) -> PeriodicEventData | None:
        """The (period, offset) shared by every periodic discrete update, or None if there are none or several."""
        found = None
        for leaf in self._leaf_systems():
            for data, event in leaf._periodic_events:
                if isinstance(event, DiscreteUpdateEvent):
                    key = (data.period_sec(), data.offset_sec())
                    if found is not None and (found.period_sec(), found.offset_sec()) != key:
                        return None
                    found = data
        return found

    def EvalUniquePeriodicDiscreteUpdate(self, context):
        """The discrete state after the unique periodic discrete update, computed without changing `context`."""
        self._check_context(context, "EvalUniquePeriodicDiscreteUpdate")
        if self.GetUniquePeriodicDiscreteUpdateAttribute() is None:
            raise RuntimeError(f"EvalUniquePeriodicDiscreteUpdate: {self.GetSystemPathname()} does not have exactly "
                               "one (period, offset) of periodic discrete updates")
        pairs = self._leaf_pairs(context)
        events = [(leaf, lc, ev) for leaf, lc in pairs
                  for _data, ev in leaf._periodic_events if isinstance(ev, DiscreteUpdateEvent)]
        return _updated_discrete(context, pairs, events)

    def IsDifferenceEquationSystem(self) -> tuple[bool, float]:
        """(True, period) when the only state is one discrete group updated by one periodic discrete update."""
        data = self.GetUniquePeriodicDiscreteUpdateAttribute()
        context = self.CreateDefaultContext()
        ok = (data is not None and context.num_continuous_states() == 0 and context.num_discrete_state_groups() == 1
              and context.num_abstract_states() == 0)
        return (ok, data.period_sec() if ok else 0.0)

    def IsDifferentialEquationSystem(self) -> bool:
        context = self.CreateDefaultContext()
        return context.num_discrete_state_groups() == 0 and context.num_abstract_states() == 0

    def CalcForcedDiscreteVariableUpdate(self, context, discrete_state) -> None:
        self._check_context(context, "CalcForcedDiscreteVariableUpdate")
        pairs = self._leaf_pairs(context)
        events = self._collect(context, "_forced_events", DiscreteUpdateEvent)
        discrete_state.SetFrom(_updated_discrete(context, pairs, events))

    def CalcForcedUnrestrictedUpdate(self, context, state) -> None:
        """Writes into `state` the state after this system's forced unrestricted updates (context unchanged)."""
        self._check_context(context, "CalcForcedUnrestrictedUpdate")
        scratch = context.Clone()
        _raise_on_failure(handle_unrestricted(scratch, self._collect(scratch, "_forced_events",
                                                                     UnrestrictedUpdateEvent)))
        state.SetFrom(scratch.get_state())

    def GetWitnessFunctions(self, context) -> list:
        self._check_context(context, "GetWitnessFunctions")
        witnesses = []
        for leaf, leaf_context in self._leaf_pairs(context):
            witnesses.extend(leaf.DoGetWitnessFunctions(leaf_context))
        return witnesses

    def CalcWitnessValue(self, context, witness_func) -> float:
        owner = witness_func.get_system()
        return witness_func.CalcWitnessValue(owner.GetMyContextFromRoot(context._root))



def _raise_on_failure(status) -> None:
    if status is not None and status.failed():
        system = status.system()
        who = system.GetSystemPathname() if hasattr(system, "GetSystemPathname") else str(system)
        raise RuntimeError(f"An event handler of {who} failed: {status.message()}")


def _updated_discrete(context, pairs, events):
    """Runs discrete-update `events` into scratch storage; returns the resulting DiscreteValues (copies)."""
    from .state import DiscreteValues
    status, _scratch = calc_discrete(context, events)
    _raise_on_failure(status)
    return DiscreteValues([BasicVector(g.CopyToVector()) for _leaf, lc in pairs
                           for g in lc._scratch_state._discrete._groups])
