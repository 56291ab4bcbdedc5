"""PrintSimulatorStatistics prints pydrake's layout and numbers for explicit integrators (error-controlled and
fixed-step), and GetStatisticsSummary returns pydrake's (name, value) list."""
import importlib
import re
import sys

import pytest

from oracles import require_pydrake

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _run(module: str, scheme: str, fixed: bool, capfd) -> tuple[str, list]:
    examples = importlib.import_module(f"{module}.examples")
    analysis = importlib.import_module(f"{module}.systems.analysis")
    plant = examples.PendulumPlant()
    simulator = analysis.Simulator(plant)
    context = simulator.get_mutable_context()
    context.SetContinuousState([1.0, 0.0])
    plant.get_input_port(0).FixValue(context, 0.0)
    integrator = analysis.ResetIntegratorFromFlags(simulator, scheme, 0.01)
    if fixed:
        integrator.set_fixed_step_mode(True)
    simulator.AdvanceTo(1.0)
    capfd.readouterr()
    analysis.PrintSimulatorStatistics(simulator)  # pydrake prints from C++ to file descriptor 1
    sys.stdout.flush()
    return capfd.readouterr().out, integrator.GetStatisticsSummary()


@pytest.mark.parametrize("scheme, fixed", [("runge_kutta3", False), ("runge_kutta3", True), ("runge_kutta2", True)])
def test_statistics_match_pydrake(scheme, fixed, capfd):
    require_pydrake()
    mine, mine_summary = _run("mallard", scheme, fixed, capfd)
    drake, drake_summary = _run("pydrake", scheme, fixed, capfd)
    assert "JSON Statistics" in drake
    assert NUMBER.sub("#", mine) == NUMBER.sub("#", drake)
    assert [float(x) for x in NUMBER.findall(mine)] == pytest.approx([float(x) for x in NUMBER.findall(drake)],
                                                                      rel=1e-12)
    assert [k for k, _ in mine_summary] == [k for k, _ in drake_summary]
    assert [v for _, v in mine_summary] == pytest.approx([v for _, v in drake_summary], rel=1e-12)
