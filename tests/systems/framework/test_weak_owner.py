"""A system's parts hold it weakly (systems/framework/weak_owner.py): reference counting alone frees a system, as
pydrake does, while its ports, cache entries, events and witness functions keep working, pickle and deep-copy to
the copied system."""
from __future__ import annotations

import copy
import gc
import pickle
import weakref

import numpy as np
import pytest

from mallard.common.value import Value
from mallard.geometry import SceneGraph
from mallard.systems.analysis import Simulator
from mallard.systems.framework import (DiagramBuilder, LeafSystem, UnrestrictedUpdateEvent, ValueProducer,
                                       WitnessFunctionDirection)
from mallard.systems.primitives import ConstantVectorSource


class _Counter(LeafSystem):
    """Every callback a bound method of the system: the cycles the framework must not make."""

    def __init__(self) -> None:
        super().__init__()
        self.DeclareDiscreteState(1)
        self.DeclareVectorInputPort("u", 1)
        self.DeclareVectorOutputPort("y", 1, self.CalcY)
        self.DeclareAbstractOutputPort("label", self.AllocateLabel, self.CalcLabel)
        self.entry = self.DeclareCacheEntry("twice", ValueProducer(allocate=self.AllocateTwice, calc=self.CalcTwice))
        self.DeclarePeriodicDiscreteUpdateEvent(0.1, 0.0, self.Update)
        self.DeclarePerStepUnrestrictedUpdateEvent(self.Tick)
        self.DeclareAbstractState(Value(0))
        self.witness = self.MakeWitnessFunction("x - 1", WitnessFunctionDirection.kCrossesZero, self.CalcWitness,
                                                UnrestrictedUpdateEvent(self.Count))

    def CalcY(self, context, output) -> None:
        output.SetFromVector(context.get_discrete_state(0).CopyToVector())

    def AllocateLabel(self):
        return Value("")

    def CalcLabel(self, context, value) -> None:
        value.set_value(f"x={context.get_discrete_state(0).GetAtIndex(0):g}")

    def AllocateTwice(self):
        return Value(np.zeros(1))

    def CalcTwice(self, context, value) -> None:
        value.set_value(2 * context.get_discrete_state(0).CopyToVector())

    def Update(self, context, discrete_state) -> None:
        discrete_state.set_value(0, context.get_discrete_state(0).CopyToVector() + self.get_input_port(0).Eval(context))

    def Tick(self, context, state) -> None:
        state.get_mutable_abstract_state(0).set_value(context.get_abstract_state(0).get_value() + 1)

    def Count(self, context, event, state) -> None:
        self.Tick(context, state)

    def CalcWitness(self, context) -> float:
        return context.get_discrete_state(0).GetAtIndex(0) - 1.0


def _freed_without_gc(make) -> bool:
    """True when the object `make()` returns is freed the moment its last reference goes (no cycle)."""
    gc.collect()
    gc.disable()
    try:
        ref = weakref.ref(make())
        return ref() is None
    finally:
        gc.enable()


def test_a_leaf_system_with_bound_method_callbacks_is_freed_by_reference_counting() -> None:
    assert _freed_without_gc(_Counter)
    assert _freed_without_gc(SceneGraph)


def test_the_callbacks_still_see_their_system() -> None:
    system = _Counter()
    context = system.CreateDefaultContext()
    system.get_input_port(0).FixValue(context, [0.5])
    context.SetDiscreteState(0, [3.0])
    assert system.get_output_port(0).Eval(context).tolist() == [3.0]
    assert system.GetOutputPort("label").Eval(context) == "x=3"
    assert system.entry.Eval(context).tolist() == [6.0]
    assert system.witness.get_system() is system
    assert system.witness.CalcWitnessValue(context) == 2.0
    simulator = Simulator(system, context)
    simulator.AdvanceTo(0.35)  # updates at 0, 0.1, 0.2, 0.3: x = 3 + 4 * 0.5
    assert context.get_discrete_state(0).GetAtIndex(0) == 5.0
    assert context.get_abstract_state(0).get_value() > 0  # the per-step event ran


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s))])
def test_copies_of_a_system_refer_to_the_copy(clone) -> None:
    system = _Counter()
    other = clone(system)
    assert other.get_output_port(0).get_system() is other
    assert other.entry._system is other and other.witness.get_system() is other
    context = other.CreateDefaultContext()
    context.SetDiscreteState(0, [2.0])
    assert other.entry.Eval(context).tolist() == [4.0]
    other.get_input_port(0).FixValue(context, [1.0])
    Simulator(other, context).AdvanceTo(0.05)  # the update at t = 0 runs on the copy
    assert context.get_discrete_state(0).GetAtIndex(0) == 3.0
    del system
    assert other.GetOutputPort("label").Eval(context) == "x=3"


def test_a_port_of_a_deleted_system_says_so() -> None:
    port = _Counter().get_output_port(0)
    with pytest.raises(RuntimeError, match="the system that owned it was deleted"):
        port.get_system()


def test_a_subsystem_keeps_its_diagram_alive_as_in_pydrake() -> None:
    """pydrake ties a diagram and its subsystems together (ref_cycle): holding one keeps the other."""
    builder = DiagramBuilder()
    source = builder.AddSystem(ConstantVectorSource([1.0]))
    counter = builder.AddSystem(_Counter())
    builder.Connect(source.get_output_port(), counter.get_input_port(0))
    ref = weakref.ref(builder.Build())
    del builder
    gc.collect()
    assert ref() is not None and counter.GetSystemPathname().count("::") == 2
    context = ref().CreateDefaultContext()
    assert counter.get_input_port(0).Eval(counter.GetMyContextFromRoot(context)).tolist() == [1.0]
