"""Portable systems and contexts: lambdas and closures held by ports, caches and events pickle by value; diagrams
with plants, SceneGraph and parsed models pickle; a pickled simulator resumes bit-exactly in a fresh process."""
from __future__ import annotations

import functools
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.framework.portable import portable

from scaleout_models import cart_pole_diagram, iiwa_pd_diagram

TESTS = Path(__file__).resolve().parents[2]


def _roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


class _Holder:
    def __init__(self, fn):
        self.fn = fn

    def __getstate__(self):
        return {"fn": portable(self.fn)}


def test_lambda_and_closure_pickle_by_value_and_keep_identity():
    scale = np.array([2.0, 3.0])
    box = {"offset": 1.0}
    f = lambda x, k=scale: k * x + box["offset"]  # noqa: E731
    holder_a, holder_b = _Holder(f), _Holder(f)
    a, b = _roundtrip((holder_a, holder_b))
    assert a.fn is b.fn                      # one function referenced twice comes back as one object
    np.testing.assert_array_equal(a.fn(np.ones(2)), [3.0, 4.0])

    def factorial(n):                         # a local function whose closure refers to itself
        return 1 if n <= 1 else n * factorial(n - 1)
    assert _roundtrip(_Holder(factorial)).fn(6) == 720

    partial = functools.partial(lambda a, b: a - b, 10)
    assert _roundtrip(_Holder(partial)).fn(4) == 6
    assert portable(np.sin) is np.sin        # found by reference: left alone
    assert portable(test_lambda_and_closure_pickle_by_value_and_keep_identity) is \
        test_lambda_and_closure_pickle_by_value_and_keep_identity


class _LambdaGain(LeafSystem):
    """Output y = gain · u through a lambda closing over self (as the plant declares its ports)."""

    def __init__(self, gain):
        super().__init__()
        self.gain = gain
        self.DeclareVectorInputPort("u", 1)
        self.DeclareVectorOutputPort("y", 1, lambda c, out: out.SetAtIndex(0, self.gain * self.get_input_port(0).Eval(c)[0]))
        self.cache = self.DeclareCacheEntry("twice", alloc=lambda: 0.0,
                                            calc=lambda c, v: v.set_value(2 * self.gain))


def test_clone_and_pickle_rebind_closures_to_the_copy():
    original = _LambdaGain(3.0)
    for copy_of in (original.Clone(), _roundtrip(original)):
        copy_of.gain = 5.0
        context = copy_of.CreateDefaultContext()
        copy_of.get_input_port(0).FixValue(context, [2.0])
        assert copy_of.get_output_port(0).Eval(context)[0] == 10.0  # the copy's gain, not the original's
        assert copy_of.cache.Eval(context) == 10.0
    context = original.CreateDefaultContext()
    original.get_input_port(0).FixValue(context, [2.0])
    assert original.get_output_port(0).Eval(context)[0] == 6.0


def _mjcf_diagram(path):
    builder = DiagramBuilder()
    AddMultibodyPlantSceneGraph(builder, 0.002)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModels(str(path))
    builder.GetSubsystemByName("plant").Finalize()
    return builder.Build()


def _state(context) -> np.ndarray:
    parts = [context.get_continuous_state_vector().CopyToVector()]
    parts += [context.get_discrete_state(i).CopyToVector() for i in range(context.num_discrete_state_groups())]
    return np.concatenate(parts + [[context.get_time()]])


_CHILD = """
import pickle, sys
import numpy as np
from test_portable import _state
with open(sys.argv[1], "rb") as f:
    simulators = pickle.load(f)
np.save(sys.argv[2], np.stack([np.pad(_state((s.AdvanceTo(0.08), s.get_context())[1]), (0, 200))[:200]
                               for s in simulators]))
"""


def test_simulators_pickled_mid_run_resume_bit_exactly_in_a_fresh_process(models_dir, tmp_path):
    """Plants (continuous, discrete, MJCF with contact), SceneGraph, parsed models and a module-level Python
    LeafSystem, pickled mid-simulation; a process that never built anything resumes them to the same bits."""
    diagrams = [cart_pole_diagram(0.0)[0], cart_pole_diagram(0.01)[0], iiwa_pd_diagram(0.0)[0], iiwa_pd_diagram(0.001)[0],
                _mjcf_diagram(models_dir / "mujoco" / "model" / "humanoid.xml")]
    simulators = []
    for diagram in diagrams:
        simulator = Simulator(diagram)
        context = simulator.get_mutable_context()
        context.SetContinuousState(np.linspace(0.1, 0.3, context.num_continuous_states()))
        simulator.AdvanceTo(0.03)
        simulators.append(simulator)
    blob = tmp_path / "simulators.pkl"
    blob.write_bytes(pickle.dumps(simulators))
    expected = np.stack([np.pad(_state((s.AdvanceTo(0.08), s.get_context())[1]), (0, 200))[:200]
                         for s in simulators])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), str(Path(__file__).parent),
                                                        os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", _CHILD, str(blob), str(tmp_path / "x.npy")], check=True, env=env,
                   cwd=tmp_path, timeout=600)
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), expected)


def test_context_pickled_with_its_diagram_names_its_own_systems():
    diagram, plant = cart_pole_diagram(0.0)
    context = diagram.CreateDefaultContext()
    plant.SetPositions(plant.GetMyContextFromRoot(context), [0.2, -0.1])
    other, other_plant = cart_pole_diagram(0.0)         # built here after: system ids must not collide
    loaded_diagram, loaded_context = _roundtrip((diagram, context))
    loaded_plant = loaded_diagram.GetSubsystemByName("plant")
    np.testing.assert_array_equal(loaded_plant.GetPositions(loaded_plant.GetMyContextFromRoot(loaded_context)),
                                  [0.2, -0.1])
    with pytest.raises(RuntimeError, match="does not contain"):
        other_plant.GetMyContextFromRoot(loaded_context)
    with pytest.raises(RuntimeError, match="belongs to"):
        other.ValidateContext(loaded_context)
