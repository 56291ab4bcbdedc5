"""SetPositions / SetVelocities followed by CalcMassMatrix, CalcBiasTerm and CalcInverseDynamics (the arm benchmark's
loop): after a state change the kinematics and M (and C·v, when the previous state's was read) come from one compiled
call; the values are pydrake's on the iiwa14 and the same bits whatever the order of the queries."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_pydrake

TOL = 1e-12  # relative to the largest entry (at least 1)


def _iiwa(plant, parser_cls, models_dir):
    parser = parser_cls(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # pydrake knows it as a remote package: use the local copy
        package_map.Remove("drake_models")
    package_map.Add("drake_models", str(models_dir / "drake_models"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parser.AddModels(str(models_dir / "drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf"))
        plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base"))
        plant.Finalize()
    return plant


def _close(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.abs(b).max()))
    err = float(np.abs(a - b).max())
    assert err <= TOL * scale, f"{what}: max error {err:.3e} (scale {scale:.3e})"


@pytest.fixture(scope="module")
def iiwa_pair(models_dir):
    from mallard.multibody.plant import MultibodyPlant
    from mallard.parsers import Parser
    mallard_plants = {ts: _iiwa(MultibodyPlant(ts), Parser, models_dir) for ts in (0.0, 1e-3)}
    return mallard_plants, models_dir


@pytest.mark.parametrize("time_step", [0.0, 1e-3])
def test_iiwa_dynamics_after_each_state_change_match_pydrake(iiwa_pair, time_step):
    """Each query order (M then C, C then M, M only, C only, with ID) after SetPositions and after SetVelocities
    gives pydrake's M, C·v and inverse dynamics to 1e-12, in a continuous and a discrete plant."""
    require_pydrake()
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.tree import MultibodyForces as DrakeForces

    from mallard.multibody.tree import MultibodyForces
    plants, models_dir = iiwa_pair
    pm, pd = plants[time_step], _iiwa(DrakePlant(time_step), DrakeParser, models_dir)
    cm, cd = pm.CreateDefaultContext(), pd.CreateDefaultContext()
    fm, fd = MultibodyForces(pm), DrakeForces(pd)
    rng = np.random.default_rng(3)
    orders = ["MC", "CM", "M", "C", "MCI", "I", "CMC"]
    for k in range(2 * len(orders)):
        q, v, vdot = rng.uniform(-1.5, 1.5, 7), rng.uniform(-2, 2, 7), rng.uniform(-1, 1, 7)
        if k % 2:  # a velocity change alone: C changes, M does not
            pm.SetVelocities(cm, v)
            pd.SetVelocities(cd, v)
        else:
            pm.SetPositions(cm, q)
            pd.SetPositions(cd, q)
        for query in orders[k // 2]:
            if query == "M":
                _close(pm.CalcMassMatrix(cm), pd.CalcMassMatrix(cd), f"M (step {k}, order {orders[k // 2]})")
            elif query == "C":
                _close(pm.CalcBiasTerm(cm), pd.CalcBiasTerm(cd), f"C·v (step {k}, order {orders[k // 2]})")
            else:
                _close(pm.CalcInverseDynamics(cm, vdot, fm), pd.CalcInverseDynamics(cd, vdot, fd),
                       f"inverse dynamics (step {k})")


def test_query_order_gives_the_same_bits(iiwa_pair):
    """M and C·v computed together after a state change (one compiled call, C·v kept with the kinematics) are
    bitwise those of a context that computes each alone, through q and v changes, a mass change and a clone."""
    plants, _ = iiwa_pair
    plant = plants[0.0]
    fused, alone = plant.CreateDefaultContext(), plant.CreateDefaultContext()
    rng = np.random.default_rng(11)
    body = plant.GetBodyByName("iiwa_link_5")
    for k in range(8):
        x = rng.uniform(-1.5, 1.5, 14)
        for context in (fused, alone):
            if k == 5:
                body.SetMass(context, 1.5 + k)  # a parameter change invalidates the kinematics, M and C·v
            elif k % 3 == 2:
                plant.SetVelocities(context, x[7:])
            else:
                plant.SetPositionsAndVelocities(context, x)
        M, C = plant.CalcMassMatrix(fused), plant.CalcBiasTerm(fused)
        C_alone = plant.CalcBiasTerm(alone)
        M_alone = plant.CalcMassMatrix(alone)
        np.testing.assert_array_equal(M, M_alone)
        np.testing.assert_array_equal(C, C_alone)
        np.testing.assert_array_equal(plant.CalcBiasTerm(fused), C)  # a second read: the same value, a new array
        assert plant.CalcBiasTerm(fused) is not plant.CalcBiasTerm(fused)
    clone = fused.Clone()
    plant.SetPositions(clone, np.zeros(7))
    M0, C0 = plant.CalcMassMatrix(clone), plant.CalcBiasTerm(clone)
    np.testing.assert_array_equal(plant.CalcBiasTerm(fused), C)  # the clone's state change leaves fused alone
    plant.SetPositions(alone, np.zeros(7))
    plant.SetVelocities(alone, plant.GetVelocities(clone))
    np.testing.assert_array_equal(plant.CalcMassMatrix(alone), M0)
    np.testing.assert_array_equal(plant.CalcBiasTerm(alone), C0)


def test_state_written_through_the_context_invalidates_m_and_c(iiwa_pair):
    """A state written by the Context's own API (not the plant's setters) invalidates the cached kinematics and the
    C·v kept with them; a frozen cache refuses to recompute M after a state change."""
    plants, _ = iiwa_pair
    for time_step, plant in plants.items():
        context, reference = plant.CreateDefaultContext(), plant.CreateDefaultContext()
        plant.SetVelocities(context, np.full(7, 0.7))
        plant.CalcMassMatrix(context)
        plant.CalcBiasTerm(context)
        plant.SetPositions(context, np.full(7, 0.1))
        plant.CalcMassMatrix(context)
        plant.CalcBiasTerm(context)  # C·v of this state is now kept with its kinematics
        x = np.concatenate([np.full(7, -0.4), np.full(7, 0.3)])
        if time_step > 0:
            context.SetDiscreteState(x)
        else:
            context.SetContinuousState(x)
        plant.SetPositionsAndVelocities(reference, x)
        np.testing.assert_array_equal(plant.CalcMassMatrix(context), plant.CalcMassMatrix(reference))
        np.testing.assert_array_equal(plant.CalcBiasTerm(context), plant.CalcBiasTerm(reference))
        context.FreezeCache()
        plant.SetPositions(context, np.full(7, 0.2))
        with pytest.raises(RuntimeError, match="frozen"):
            plant.CalcMassMatrix(context)
        context.UnfreezeCache()
        plant.SetPositions(reference, np.full(7, 0.2))
        np.testing.assert_array_equal(plant.CalcMassMatrix(context), plant.CalcMassMatrix(reference))


def test_set_positions_accepts_any_vector_and_rejects_a_wrong_size(iiwa_pair):
    """SetPositions takes lists, integer arrays, strided and reversed views and read-only arrays (copied as float64),
    and a wrong size (contiguous or strided) raises naming the argument; the state after it is what GetPositions
    returns."""
    plants, _ = iiwa_pair
    plant = plants[1e-3]
    context = plant.CreateDefaultContext()
    wide = np.arange(14, dtype=float) / 10
    readonly = np.linspace(-1, 1, 7)
    readonly.flags.writeable = False
    for q in ([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], np.arange(7), wide[::2], wide[:7][::-1], readonly):
        plant.SetPositions(context, q)
        np.testing.assert_array_equal(plant.GetPositions(context), np.asarray(q, dtype=float))
    np.testing.assert_array_equal(plant.GetVelocities(context), np.zeros(7))
    for q in (np.zeros(6), wide[::3]):
        with pytest.raises(ValueError, match="SetPositions q"):
            plant.SetPositions(context, q)
    np.testing.assert_array_equal(plant.GetPositions(context), readonly)  # (a refused q leaves the state alone)


def test_locked_joint_is_refused_after_a_state_change(iiwa_pair):
    """The element-parameter check reads the values kept with the kinematics: a joint locked in the context is
    refused by M and inverse dynamics (computed or not), and accepted again once unlocked."""
    from mallard.multibody.tree import MultibodyForces
    plants, _ = iiwa_pair
    plant = plants[1e-3]
    context = plant.CreateDefaultContext()
    forces = MultibodyForces(plant)
    plant.SetPositions(context, np.full(7, 0.3))
    plant.CalcMassMatrix(context)
    joint = plant.GetJointByName("iiwa_joint_4")
    joint.Lock(context)
    for _ in range(2):  # just after the parameter change, then with the kinematics cached
        with pytest.raises(RuntimeError, match="locked"):
            plant.CalcInverseDynamics(context, np.zeros(7), forces)
        with pytest.raises(RuntimeError, match="locked"):
            plant.CalcMassMatrix(context)
        plant.SetPositions(context, np.full(7, -0.2))
    joint.Unlock(context)
    reference = plant.CreateDefaultContext()
    plant.SetPositions(reference, np.full(7, -0.2))
    np.testing.assert_array_equal(plant.CalcInverseDynamics(context, np.ones(7), forces),
                                  plant.CalcInverseDynamics(reference, np.ones(7), forces))
