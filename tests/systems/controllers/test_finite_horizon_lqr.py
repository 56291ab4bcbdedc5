"""FiniteHorizonLinearQuadraticRegulator and its controller system against pydrake."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.analysis import SimulatorConfig
from mallard.systems.controllers import (FiniteHorizonLinearQuadraticRegulator,
                                         FiniteHorizonLinearQuadraticRegulatorOptions, LinearQuadraticRegulator,
                                         MakeFiniteHorizonLinearQuadraticRegulator)
from mallard.systems.framework import LeafSystem
from mallard.systems.primitives import LinearSystem
from mallard.systems.trajectories import PiecewisePolynomial
from oracles import require_pydrake

A = np.array([[0.0, 1.0], [0.0, -0.1]])
B = np.array([[0.0], [1.0]])


def _drake():
    require_pydrake()
    import pydrake.systems.analysis as da
    import pydrake.systems.controllers as dc
    import pydrake.systems.primitives as dp
    import pydrake.trajectories as dt
    return da, dc, dp, dt


class Pendulum(LeafSystem):
    """pydrake.examples.PendulumPlant's dynamics with its default PendulumParams, in plain Python."""

    def __init__(self):
        super().__init__()
        self.DeclareVectorInputPort("tau", 1)
        self.DeclareContinuousState(1, 1, 0)

    def DoCalcTimeDerivatives(self, context, derivatives):
        theta, thetadot = context.get_continuous_state_vector().CopyToVector()
        u = self.get_input_port(0).Eval(context)[0]
        m, l, b, g = 1.0, 0.5, 0.1, 9.81
        derivatives.get_mutable_vector().SetFromVector([thetadot, (u - m * g * l * np.sin(theta) - b * thetadot)
                                                        / (m * l * l)])


def _solve(engine: str, sqrt: bool = False):
    """The same double-integrator-with-drag problem in either engine (tight integration accuracy)."""
    da, dc, dp, _ = _drake()
    if engine == "mallard":
        system, options, solve = LinearSystem(A, B, np.eye(2), np.zeros((2, 1))), \
            FiniteHorizonLinearQuadraticRegulatorOptions(), FiniteHorizonLinearQuadraticRegulator
        options.simulator_config = SimulatorConfig(accuracy=1e-9, max_step_size=0.05)
    else:
        system, options, solve = dp.LinearSystem(A, B, np.eye(2), np.zeros((2, 1))), \
            dc.FiniteHorizonLinearQuadraticRegulatorOptions(), dc.FiniteHorizonLinearQuadraticRegulator
        options.simulator_config = da.SimulatorConfig(accuracy=1e-9, max_step_size=0.05)
    context = system.CreateDefaultContext()
    system.get_input_port(0).FixValue(context, [0.0])
    options.Qf = np.diag([5.0, 1.0])
    options.use_square_root_method = sqrt
    return solve(system, context, 0.0, 3.0, np.diag([1.0, 0.5]), np.array([[0.2]]), options)


@pytest.mark.parametrize("sqrt", [False, True])
def test_linear_system_matches_pydrake(sqrt):
    r_m, r_d = _solve("mallard", sqrt), _solve("drake", sqrt)
    for t in (0.0, 1.3, 3.0):
        # Both interpolate between integrator steps with cubics, and the steps differ: ~1e-7 relative.
        np.testing.assert_allclose(r_m.S.value(t), r_d.S.value(t), rtol=1e-6, atol=1e-8)
    for t in (0.0, 1.3, 2.9):
        np.testing.assert_allclose(r_m.K.value(t), r_d.K.value(t), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(r_m.S.value(3.0), np.diag([5.0, 1.0]), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(r_m.sx.value(1.0), 0.0, atol=1e-12)
    np.testing.assert_allclose(r_m.k0.value(1.0), 0.0, atol=1e-12)
    assert r_m.S.start_time() == 0.0 and r_m.S.end_time() == 3.0 and r_m.K.end_time() == 3.0


def test_long_horizon_approaches_the_algebraic_riccati_solution():
    system = LinearSystem(A, B, np.eye(2), np.zeros((2, 1)))
    context = system.CreateDefaultContext()
    system.get_input_port(0).FixValue(context, [0.0])
    Q, R = np.diag([1.0, 0.5]), np.array([[0.2]])
    result = FiniteHorizonLinearQuadraticRegulator(system, context, 0.0, 30.0, Q, R)
    K, S = LinearQuadraticRegulator(A, B, Q, R)
    np.testing.assert_allclose(result.S.value(0.0), S, rtol=1e-4)
    np.testing.assert_allclose(result.K.value(0.0), K, rtol=1e-4)


def test_affine_time_varying_problem_matches_pydrake_pendulum():
    """Nominal x0(t) off equilibrium (c ≠ 0), desired xd/ud and a cross term N: all of S, sx, s0, K, k0."""
    da, dc, _, dt = _drake()
    from pydrake.examples import PendulumPlant
    Q, R, Qf, N = np.diag([10.0, 1.0]), np.array([[0.5]]), np.diag([20.0, 2.0]), np.array([[0.1], [0.05]])
    results = []
    for system, options, PP, config, solve in (
            (Pendulum(), FiniteHorizonLinearQuadraticRegulatorOptions(), PiecewisePolynomial,
             SimulatorConfig(accuracy=1e-9, max_step_size=0.05), FiniteHorizonLinearQuadraticRegulator),
            (PendulumPlant(), dc.FiniteHorizonLinearQuadraticRegulatorOptions(), dt.PiecewisePolynomial,
             da.SimulatorConfig(accuracy=1e-9, max_step_size=0.05), dc.FiniteHorizonLinearQuadraticRegulator)):
        context = system.CreateDefaultContext()
        context.SetContinuousState([1.0, 0.0])
        system.get_input_port(0).FixValue(context, [0.3])
        options.Qf, options.N, options.simulator_config = Qf, N, config
        options.xd = PP.FirstOrderHold([0.0, 2.0], np.array([[1.2, 1.5], [0.0, 0.0]]))
        options.ud = PP(np.array([[0.5]]))
        options.x0 = PP.CubicShapePreserving([0.0, 1.0, 2.0], np.array([[1.0, 1.1, 1.3], [0.0, 0.1, 0.2]]), True)
        results.append(solve(system, context, 0.0, 2.0, Q, R, options))
    r_m, r_d = results
    for name, times, rtol in (("S", (0.0, 2.0), 1e-8), ("S", (1.3,), 1e-5), ("K", (0.0, 1.3, 1.9), 1e-5),
                              ("sx", (0.0, 1.0), 1e-8), ("s0", (0.0, 1.0), 1e-8), ("k0", (0.0, 1.0), 1e-8),
                              ("x0", (0.5,), 1e-14), ("u0", (0.5,), 1e-14)):
        for t in times:
            np.testing.assert_allclose(getattr(r_m, name).value(t), getattr(r_d, name).value(t), rtol=rtol,
                                       atol=1e-9, err_msg=f"{name}({t})")


def test_controller_system_matches_pydrake():
    da, dc, dp, _ = _drake()
    controllers = []
    for system, options, config, make in (
            (LinearSystem(A, B, np.eye(2), np.zeros((2, 1))), FiniteHorizonLinearQuadraticRegulatorOptions(),
             SimulatorConfig(accuracy=1e-9, max_step_size=0.05), MakeFiniteHorizonLinearQuadraticRegulator),
            (dp.LinearSystem(A, B, np.eye(2), np.zeros((2, 1))), dc.FiniteHorizonLinearQuadraticRegulatorOptions(),
             da.SimulatorConfig(accuracy=1e-9, max_step_size=0.05), dc.MakeFiniteHorizonLinearQuadraticRegulator)):
        context = system.CreateDefaultContext()
        context.SetContinuousState([0.4, 0.0])
        system.get_input_port(0).FixValue(context, [0.0])
        options.simulator_config = config
        options.Qf = np.eye(2)
        controllers.append(make(system, context, 0.0, 2.0, np.eye(2), np.eye(1), options))
    c_m, c_d = controllers
    assert c_m.get_input_port(0).get_name() == c_d.get_input_port(0).get_name() == "plant_state"
    assert c_m.get_output_port(0).get_name() == c_d.get_output_port(0).get_name() == "command"
    ctx_m, ctx_d = c_m.CreateDefaultContext(), c_d.CreateDefaultContext()
    for t, x in ((0.0, [1.0, -0.5]), (1.5, [0.2, 0.3])):
        for c, ctx in ((c_m, ctx_m), (c_d, ctx_d)):
            ctx.SetTime(t)
            c.get_input_port(0).FixValue(ctx, x)
        np.testing.assert_allclose(c_m.get_output_port(0).Eval(ctx_m), c_d.get_output_port(0).Eval(ctx_d), rtol=1e-5)


def test_bad_input_raises_clear_errors():
    system = LinearSystem(A, B, np.eye(2), np.zeros((2, 1)))
    context = system.CreateDefaultContext()
    system.get_input_port(0).FixValue(context, [0.0])
    Q, R = np.eye(2), np.eye(1)
    with pytest.raises(ValueError, match="t0 < tf"):
        FiniteHorizonLinearQuadraticRegulator(system, context, 1.0, 1.0, Q, R)
    with pytest.raises(ValueError, match=r"Q must be 2x2 and R 1x1"):
        FiniteHorizonLinearQuadraticRegulator(system, context, 0.0, 1.0, np.eye(3), R)
    with pytest.raises(ValueError, match="R must be positive definite"):
        FiniteHorizonLinearQuadraticRegulator(system, context, 0.0, 1.0, Q, np.zeros((1, 1)))
    options = FiniteHorizonLinearQuadraticRegulatorOptions()
    options.use_square_root_method = True
    with pytest.raises(ValueError, match="options.Qf is required"):
        FiniteHorizonLinearQuadraticRegulator(system, context, 0.0, 1.0, Q, R, options)
    options = FiniteHorizonLinearQuadraticRegulatorOptions()
    options.x0 = PiecewisePolynomial.FirstOrderHold([0.0, 0.5], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="must cover"):
        FiniteHorizonLinearQuadraticRegulator(system, context, 0.0, 1.0, Q, R, options)
    discrete = LinearSystem(np.eye(2), B, np.eye(2), np.zeros((2, 1)), 0.1)
    dctx = discrete.CreateDefaultContext()
    discrete.get_input_port(0).FixValue(dctx, [0.0])
    with pytest.raises(ValueError, match="continuous-time problem only"):
        FiniteHorizonLinearQuadraticRegulator(discrete, dctx, 0.0, 1.0, Q, R)
    with pytest.raises(RuntimeError, match="neither connected nor fixed"):
        FiniteHorizonLinearQuadraticRegulator(system, system.CreateDefaultContext(), 0.0, 1.0, Q, R)


def test_multibody_acrobot_matches_pydrake():
    """The twin acrobot (double pendulum driven at the elbow) about the upright, through the actuation port."""
    _da, dc, _dp, _dt = _drake()
    import mb_twin_models as tw
    spec = tw.double_pendulum()
    spec["actuators"] = [("elbow_act", "elbow", 0, 0)]
    gains = []
    for E, options, solve in ((tw.engine_mallard(), FiniteHorizonLinearQuadraticRegulatorOptions(),
                               FiniteHorizonLinearQuadraticRegulator),
                              (tw.engine_drake(), dc.FiniteHorizonLinearQuadraticRegulatorOptions(),
                               dc.FiniteHorizonLinearQuadraticRegulator)):
        plant, _, _ = tw.build(E, spec)
        context = plant.CreateDefaultContext()
        plant.SetPositions(context, [np.pi, 0.0])
        plant.get_actuation_input_port().FixValue(context, [0.0])
        options.input_port_index = plant.get_actuation_input_port().get_index()
        options.Qf = 10.0 * np.eye(4)
        result = solve(plant, context, 0.0, 2.0, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1), options)
        gains.append((result.K.value(0.0), result.S.value(0.0)))
    np.testing.assert_allclose(gains[0][0], gains[1][0], rtol=1e-6)
    np.testing.assert_allclose(gains[0][1], gains[1][1], rtol=1e-6)
