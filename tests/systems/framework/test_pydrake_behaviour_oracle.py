"""Framework behaviours pydrake scripts lean on, checked against pydrake: a subsystem's CreateDefaultContext is
a standalone context, contexts and vectors print as pydrake prints them, and typed Values refuse the wrong
type with pydrake's exception types."""
import importlib

import numpy as np
import pytest

from oracles import require_pydrake


def _modules(package: str):
    return (importlib.import_module(f"{package}.systems.framework"),
            importlib.import_module(f"{package}.systems.primitives"))


def _example_diagram(package: str):
    """An adder feeding an integrator and a zero-order hold, all named (so no memory addresses appear)."""
    framework, primitives = _modules(package)
    builder = framework.DiagramBuilder()
    adder = builder.AddNamedSystem("adder", primitives.Adder(2, 3))
    integrator = builder.AddNamedSystem("integrator", primitives.Integrator(3))
    hold = builder.AddNamedSystem("hold", primitives.ZeroOrderHold(0.25, 3))
    builder.Connect(adder.get_output_port(), integrator.get_input_port())
    builder.Connect(integrator.get_output_port(), hold.get_input_port())
    builder.ExportInput(adder.get_input_port(0), "a")
    builder.ExportInput(adder.get_input_port(1), "b")
    builder.ExportOutput(hold.get_output_port(), "held")
    diagram = builder.Build()
    diagram.set_name("example")
    return diagram, adder, integrator, hold


@pytest.mark.parametrize("which", ["adder", "integrator", "hold"])
def test_subsystem_create_default_context_is_standalone(which):
    require_pydrake()
    results = []
    for package in ("mallard", "pydrake"):
        diagram, *subsystems = _example_diagram(package)
        system = dict(zip(["adder", "integrator", "hold"], subsystems))[which]
        context = system.CreateDefaultContext()
        has_value = [system.get_input_port(i).HasValue(context) for i in range(system.num_input_ports())]
        for i in range(system.num_input_ports()):
            system.get_input_port(i).FixValue(context, [1.0 + i, 2.0, 3.0])
        context.SetTime(0.5)
        output = system.get_output_port(0).Eval(context)
        results.append((context.num_continuous_states(), context.num_discrete_state_groups(), has_value,
                        output.tolist(), context.get_time()))
    assert results[0] == results[1]


def test_context_text_matches_pydrake():
    require_pydrake()
    texts = []
    for package in ("mallard", "pydrake"):
        diagram, adder, integrator, hold = _example_diagram(package)
        context = diagram.CreateDefaultContext()
        integrator.GetMyMutableContextFromRoot(context).SetContinuousState([1.5, -2.0, 3e-7])
        hold.GetMyMutableContextFromRoot(context).SetDiscreteState([0.1, 1.0 / 3.0, 12345.678])
        context.SetTime(0.25)
        texts.append((str(context), str(integrator.GetMyContextFromRoot(context))))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("data", [[], [1.0], [1.0, 2.5, -3.0]])
def test_basic_vector_str_and_repr_match_pydrake(data):
    require_pydrake()
    framework, _ = _modules("mallard")
    drake_framework, _ = _modules("pydrake")
    ours, theirs = framework.BasicVector(data), drake_framework.BasicVector(data)
    assert (str(ours), repr(ours)) == (str(theirs), repr(theirs))
    assert np.array_equal(eval(repr(ours), {"BasicVector": framework.BasicVector}).get_value(), ours.get_value())


def test_typed_values_raise_pydrake_exception_types():
    require_pydrake()
    outcomes = []
    for package in ("mallard", "pydrake"):
        value_module = importlib.import_module(f"{package}.common.value")
        framework, primitives = _modules(package)
        Value = value_module.Value
        system = primitives.PassThrough(Value(""))
        context = system.CreateDefaultContext()
        port = system.get_input_port(0)
        row = [type(Value("x")) is Value[str], type(Value(1.0)) is Value[float], type(Value([1])) is Value[object]]
        for bad in (Value(1), 1, np.array([2.0])):
            try:
                port.FixValue(context, bad)
                row.append(None)
            except (RuntimeError, TypeError) as error:
                row.append(type(error).__name__)
        try:
            Value[str]("s").get_mutable_value()
            row.append(None)
        except RuntimeError:
            row.append("RuntimeError")
        port.FixValue(context, "ok")
        row.append(port.Eval(context))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1]


def _text(obj, package: str) -> str:
    """repr/str with the package word, memory addresses and pydrake's template-name mangling (Value𝓣str𝓤, the
    name mallard spells Value[str]) made neutral."""
    import re
    text = re.sub(r"0x[0-9a-f]+", "0x?", str(obj)).replace(package, "PKG")
    return re.sub(r"𝓣(\w+)𝓤", r"[\1]", text)


@pytest.mark.parametrize("make", ["Value(3)", "Value('text')", "Value(2.5)", "Value(True)", "Value([1, 2])",
                                  "AbstractValue.Make(np.array([1.0, 2.0]))"])
def test_value_repr_and_str_match_pydrake(make):
    """A Value prints as pydrake's does (the default object form: no held value, so no extra numbers in output)."""
    require_pydrake()
    texts = []
    for package in ("mallard", "pydrake"):
        value_module = importlib.import_module(f"{package}.common.value")
        value = eval(make, {"np": np, "Value": value_module.Value, "AbstractValue": value_module.AbstractValue})
        texts.append((_text(repr(value), package), _text(str(value), package)))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("rgba", [(0.1, 0.2, 0.3, 0.4), (1, 0.5, 0.25), (0.0, 0.0, 0.0, 0.0), (1 / 3, 2 / 3, 1.0)])
def test_rgba_repr_and_str_match_pydrake(rgba):
    require_pydrake()
    texts = []
    for package in ("mallard", "pydrake"):
        color = importlib.import_module(f"{package}.geometry").Rgba(*rgba)
        texts.append((repr(color), str(color)))
    assert texts[0] == texts[1]
