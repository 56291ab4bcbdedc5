"""Simulated trajectories: continuous (RK45) and discrete plants against pydrake; energy conservation."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from oracles import require_pydrake


def _simulate_mallard(plant, x0, t_final, accuracy=None, u=None):
    from mallard.systems.analysis import ResetIntegratorFromFlags, Simulator
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, x0)
    if u is not None:
        plant.get_actuation_input_port().FixValue(context, u)
    sim = Simulator(plant, context)
    if accuracy is not None:
        ResetIntegratorFromFlags(sim, "runge_kutta5", 0.1)
        sim.get_mutable_integrator().set_target_accuracy(accuracy)
    sim.AdvanceTo(t_final)
    return np.array(plant.GetPositionsAndVelocities(context)), plant, context, sim


def _simulate_drake(plant, x0, t_final, accuracy=None, u=None):
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator
    context = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context, x0)
    if u is not None:
        plant.get_actuation_input_port().FixValue(context, u)
    sim = Simulator(plant, context)
    if accuracy is not None:
        ResetIntegratorFromFlags(sim, "runge_kutta5", 0.1)
        sim.get_mutable_integrator().set_target_accuracy(accuracy)
    sim.AdvanceTo(t_final)
    return np.array(plant.GetPositionsAndVelocities(context))


def test_continuous_double_pendulum_matches_drake():
    require_pydrake()
    spec = tw.double_pendulum()
    pm = tw.build(tw.engine_mallard(), spec)[0]
    pd = tw.build(tw.engine_drake(), spec)[0]
    x0 = np.array([0.9, -0.4, 0.3, 1.2])
    u = np.array([0.2, -0.1])
    xm = _simulate_mallard(pm, x0, 1.0, 1e-10, u)[0]
    xd = _simulate_drake(pd, x0, 1.0, 1e-10, u)
    np.testing.assert_allclose(xm, xd, atol=1e-7)


@pytest.mark.parametrize("model", ["serial_arm", "branched_tree"])
def test_discrete_plant_matches_drake(model):
    require_pydrake()
    spec = tw.MODELS[model]()
    pm = tw.build(tw.engine_mallard(), spec, time_step=1e-3)[0]
    pd = tw.build(tw.engine_drake(), spec, time_step=1e-3)[0]
    rng = np.random.default_rng(3)
    q, v = tw.random_state(pd, pd.CreateDefaultContext(), rng)
    x0 = np.concatenate([q, 0.3 * v])
    u = 0.5 * np.ones(pm.num_actuated_dofs()) if pm.num_actuated_dofs() else None
    xm, _, cm, sim = _simulate_mallard(pm, x0, 0.2, None, u)
    xd = _simulate_drake(pd, x0, 0.2, None, u)
    np.testing.assert_allclose(xm, xd, atol=1e-9)
    assert sim.get_num_unrestricted_updates() == 200
    assert sim.get_num_discrete_updates() == 0
    vdot = pm.get_generalized_acceleration_output_port().Eval(cm)
    assert np.all(np.isfinite(vdot)) and np.abs(vdot).max() > 0


def _energy(plant, context):
    return plant.CalcKineticEnergy(context) + plant.CalcPotentialEnergy(context)


@pytest.mark.parametrize("model", ["free_body", "triple_pendulum"])
def test_energy_conservation_rk45(model):
    spec = tw.free_body() if model == "free_body" else tw.triple_pendulum()
    plant = tw.build(tw.engine_mallard(), spec)[0]
    if model == "free_body":
        x0 = np.array([1, 0, 0, 0, 0, 0, 0, 3.0, -1.0, 5.0, 0.1, 0.2, 0.3])
    else:
        x0 = np.array([1.2, -0.7, 2.0, 0.0, 1.0, -2.0])
    context0 = plant.CreateDefaultContext()
    plant.SetPositionsAndVelocities(context0, x0)
    E0 = _energy(plant, context0)
    x, plant, context, _ = _simulate_mallard(plant, x0, 2.0, 1e-10)
    E = _energy(plant, context)
    assert abs(E - E0) <= 1e-7 * max(1.0, abs(E0)), (E, E0)
    if model == "free_body":
        # Torque-free: spatial momentum about the (moving) center of mass is conserved in W.
        p0 = plant.CalcCenterOfMassPositionInWorld(context0)
        p1 = plant.CalcCenterOfMassPositionInWorld(context)
        L0 = plant.CalcSpatialMomentumInWorldAboutPoint(context0, p0).rotational()
        L1 = plant.CalcSpatialMomentumInWorldAboutPoint(context, p1).rotational()
        np.testing.assert_allclose(L1, L0, atol=1e-7)
