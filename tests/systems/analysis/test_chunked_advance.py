"""Simulator.AdvanceTo reaches a time the same way however the interval is cut into calls: one call, one call per
step, chunks of 7 / 100 steps and boundaries between sample times give bit-identical states, times and step counts
(the lean loop hands MultibodyPlant chunks of up to 256 compiled steps, pipeline/multi_step.py, or one step per call),
and the periodic update times, counts and states follow pydrake's Simulator for every chunking, including an offset
update whose sample times round differently from the boundaries (where pydrake's result depends on the chunking)."""
import numpy as np
import pytest

import mallard.all as ma
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import GetMujocoState, SetMujocoState
from tests.oracles import require_pydrake

STEPS = 240


def _boundaries(kind: str, h: float, steps: int) -> list[float]:
    """The AdvanceTo boundaries of one chunking of `steps` periods of `h`."""
    if kind == "one":
        return [steps * h]
    if kind == "uneven":  # between sample times, repeated, zero, then exactly on one
        half = steps // 2
        return [0.0, 0.37 * h, 0.37 * h, h, 5.5 * h, half * h, half * h, (half + 31.25) * h, steps * h]
    chunk = {"each": 1, "7": 7, "100": 100}[kind]
    return [min(n, steps) * h for n in range(chunk, steps + chunk, chunk)]


@pytest.fixture(scope="module")
def humanoid(models_dir):
    """MuJoCo's humanoid (contacts, 21 motors) on a discrete plant with its SceneGraph: (diagram, plant)."""
    builder = ma.DiagramBuilder()
    plant, _ = ma.AddMultibodyPlantSceneGraph(builder, 0.005)
    ma.Parser(builder).AddModels(str(models_dir / "mujoco" / "model" / "humanoid.xml"))
    plant.Finalize()
    return builder.Build(), plant


def _humanoid_run(diagram, plant, kind: str):
    """A new Simulator from qpos0 raised and tilted, with a fixed ctrl, advanced in `kind` chunks."""
    simulator = ma.Simulator(diagram)
    context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    qpos, _ = GetMujocoState(plant, context)
    qpos[2] += 0.05
    qpos[3:7] = np.array([0.99, 0.05, 0.1, 0.0]) / np.linalg.norm([0.99, 0.05, 0.1, 0.0])
    SetMujocoState(plant, context, qpos)
    ctrl = GetMujocoCtrlInputPort(plant)
    ctrl.FixValue(context, 0.3 * np.sin(np.arange(ctrl.size())))
    for t in _boundaries(kind, plant.time_step(), STEPS):
        simulator.AdvanceTo(t)
    root = simulator.get_context()
    return (root.get_time(), root.get_discrete_state_vector().CopyToVector(), simulator.get_num_steps_taken(),
            simulator.get_num_unrestricted_updates(), GetMujocoState(plant, context)[0][2])


def test_mjcf_humanoid_chunked_advances_are_bit_identical(humanoid):
    reference = _humanoid_run(*humanoid, "one")
    assert reference[0] == STEPS * 0.005 and reference[2] == STEPS
    assert 0.1 < reference[4] < 0.3  # fallen on the floor: the pelvis rests at MuJoCo's 0.14 m height
    for kind in ("each", "7", "100", "uneven"):
        t, x, _steps, updates, _z = _humanoid_run(*humanoid, kind)
        assert t == reference[0] and updates == reference[3], kind
        np.testing.assert_array_equal(x, reference[1], err_msg=kind)


def _counter_run(lib, period: float, offset: float, kind: str):
    """A counter x⁺ = (x₀ + 1, 1.1·x₁ + t) on a periodic update, advanced in `kind` chunks of 100 periods."""
    class Counter(lib.LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareDiscreteState(2)
            self.DeclarePeriodicDiscreteUpdateEvent(period, offset, self.Update)

        def Update(self, context, discrete_state):
            x = context.get_discrete_state_vector().CopyToVector()
            discrete_state.get_mutable_vector(0).SetFromVector([x[0] + 1.0, 1.1 * x[1] + context.get_time()])

    simulator = lib.Simulator(Counter())
    for t in _boundaries(kind, period, 100):
        simulator.AdvanceTo(t)
    context = simulator.get_context()
    return (context.get_time(), tuple(context.get_discrete_state_vector().CopyToVector()),
            simulator.get_num_steps_taken(), simulator.get_num_discrete_updates())


@pytest.mark.parametrize("period, offset", [(0.002, 0.0), (1 / 3, 0.0), (0.001, 0.0005), (0.01, 0.03)])
def test_periodic_update_counts_and_times_match_pydrake_for_every_chunking(period, offset):
    require_pydrake()
    import pydrake.all as pydrake_all
    for kind in ("one", "each", "7", "100", "uneven"):
        assert _counter_run(ma, period, offset, kind) == _counter_run(pydrake_all, period, offset, kind), kind
    if offset == 0.0:  # updates at k·period: every chunking takes the same updates at the same times
        assert len({_counter_run(ma, period, offset, kind)[1] for kind in ("one", "each", "7", "uneven")}) == 1
