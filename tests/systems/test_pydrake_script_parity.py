"""A pydrake script that uses only framework/analysis APIs runs after swapping `pydrake` for `mallard`
in its imports, and prints the same numbers (to integrator tolerance)."""
import io
import contextlib

import numpy as np

from oracles import require_pydrake

SCRIPT = '''
import numpy as np
from {pkg}.systems.framework import (BasicVector, DiagramBuilder, EventStatus, LeafSystem, UnrestrictedUpdateEvent,
                                     WitnessFunctionDirection)
from {pkg}.systems.analysis import Simulator, ResetIntegratorFromFlags

class Pendulum(LeafSystem):
    def __init__(self):
        LeafSystem.__init__(self)
        self.DeclareVectorInputPort("tau", 1)
        state = self.DeclareContinuousState(1, 1, 0)
        self.DeclareStateOutputPort("x", state)
        self.DeclareNumericParameter(BasicVector([9.81, 1.0]))

    def DoCalcTimeDerivatives(self, context, derivatives):
        q, v = context.get_continuous_state_vector().CopyToVector()
        g, length = context.get_numeric_parameter(0).CopyToVector()
        tau = self.get_input_port(0).Eval(context)[0]
        derivatives.get_mutable_vector().SetFromVector([v, -g / length * np.sin(q) + tau - 0.1 * v])

class PD(LeafSystem):
    def __init__(self):
        LeafSystem.__init__(self)
        self.DeclareVectorInputPort("x", 2)
        self.DeclareDiscreteState(1)
        self.DeclarePeriodicDiscreteUpdateEvent(0.005, 0.0, self.Update)
        self.DeclareVectorOutputPort("tau", 1, self.CalcTau, prerequisites_of_calc={{self.xd_ticket()}})
        self.samples = []
        self.DeclarePeriodicPublishEvent(0.25, 0.0, lambda c: self.samples.append(c.get_time()))

    def Update(self, context, discrete_state):
        q, v = self.get_input_port(0).Eval(context)
        discrete_state.get_mutable_vector().SetAtIndex(0, -4.0 * (q - 1.0) - 1.5 * v)

    def CalcTau(self, context, output):
        output.SetFromVector(context.get_discrete_state_vector().CopyToVector())

builder = DiagramBuilder()
plant = builder.AddNamedSystem("pendulum", Pendulum())
ctrl = builder.AddNamedSystem("pd", PD())
builder.Connect(plant.get_output_port(0), ctrl.get_input_port(0))
builder.Connect(ctrl.get_output_port(0), plant.get_input_port(0))
diagram = builder.Build()
simulator = Simulator(diagram)
context = simulator.get_mutable_context()
plant.GetMyContextFromRoot(context).SetContinuousState([0.2, 0.0])
simulator.get_mutable_integrator().set_target_accuracy(1e-9)
simulator.AdvanceTo(3.0)
x = plant.GetMyContextFromRoot(context).get_continuous_state_vector().CopyToVector()
print("state", *x)
print("updates", simulator.get_num_discrete_updates(), "publishes", len(ctrl.samples))
print("tau", *diagram.GetSubsystemByName("pd").get_output_port(0).Eval(ctrl.GetMyContextFromRoot(context)))
'''


def run(pkg: str) -> list[list[float]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(SCRIPT.format(pkg=pkg), f"<{pkg} script>", "exec"), {"__name__": "__script__"})
    return [[float(w) for w in line.split()[1:] if w[0].isdigit() or w[0] == "-"] for line in out.getvalue().splitlines()]


def test_same_numbers_as_pydrake():
    require_pydrake()
    theirs, ours = run("pydrake"), run("mallard")
    np.testing.assert_allclose(ours[0], theirs[0], atol=1e-6)  # continuous state: integrator tolerance
    assert ours[1] == theirs[1]  # event counts exactly
    np.testing.assert_allclose(ours[2], theirs[2], atol=1e-6)
