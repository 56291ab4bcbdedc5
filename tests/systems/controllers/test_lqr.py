"""LinearQuadraticRegulator / DiscreteTimeLinearQuadraticRegulator against pydrake, and their errors."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.controllers import DiscreteTimeLinearQuadraticRegulator, LinearQuadraticRegulator
from mallard.systems.framework import LeafSystem
from mallard.systems.primitives import AffineSystem, LinearSystem
from oracles import require_pydrake

A_DI = np.array([[0.0, 1.0], [0.0, 0.0]])
B_DI = np.array([[0.0], [1.0]])


def _controllers():
    require_pydrake()
    import pydrake.systems.controllers as dc
    import pydrake.systems.primitives as dp
    return dc, dp


def test_double_integrator_matches_pydrake_and_closed_form():
    dc, _ = _controllers()
    Q, R = np.diag([2.0, 0.5]), np.array([[0.3]])
    K, S = LinearQuadraticRegulator(A_DI, B_DI, Q, R)
    K_d, S_d = dc.LinearQuadraticRegulator(A_DI, B_DI, Q, R)
    np.testing.assert_allclose(K, K_d, rtol=1e-10)
    np.testing.assert_allclose(S, S_d, rtol=1e-10)
    # Closed form for Q = I, R = 1: K = [1, sqrt(3)].
    K1, S1 = LinearQuadraticRegulator(A_DI, B_DI, np.eye(2), np.eye(1))
    np.testing.assert_allclose(K1, [[1.0, np.sqrt(3.0)]], rtol=1e-12)
    np.testing.assert_allclose(S1, [[np.sqrt(3.0), 1.0], [1.0, np.sqrt(3.0)]], rtol=1e-12)


def test_cross_term_and_multi_input_match_pydrake():
    dc, _ = _controllers()
    rng = np.random.default_rng(11)
    A = rng.standard_normal((4, 4))
    B = rng.standard_normal((4, 2))
    L = rng.standard_normal((4, 4))
    Q = L @ L.T + np.eye(4)
    R = np.array([[2.0, 0.3], [0.3, 1.0]])
    N = 0.1 * rng.standard_normal((4, 2))
    K, S = LinearQuadraticRegulator(A, B, Q, R, N)
    K_d, S_d = dc.LinearQuadraticRegulator(A, B, Q, R, N)
    np.testing.assert_allclose(K, K_d, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(S, S_d, rtol=1e-9, atol=1e-10)


def test_discrete_time_matches_pydrake():
    dc, _ = _controllers()
    h = 0.05
    A = np.array([[1.0, h], [0.0, 1.0]])
    B = np.array([[0.5 * h * h], [h]])
    Q, R, N = np.diag([3.0, 0.2]), np.array([[0.1]]), np.array([[0.01], [0.02]])
    for args in ((A, B, Q, R), (A, B, Q, R, N)):
        K, S = DiscreteTimeLinearQuadraticRegulator(*args)
        K_d, S_d = dc.DiscreteTimeLinearQuadraticRegulator(*args)
        np.testing.assert_allclose(K, K_d, rtol=1e-9)
        np.testing.assert_allclose(S, S_d, rtol=1e-9)


@pytest.mark.parametrize("time_period", [0.0, 0.1])
def test_linear_system_form_returns_static_gain_as_pydrake(time_period):
    dc, dp = _controllers()
    A = A_DI if time_period == 0.0 else np.eye(2) + time_period * A_DI
    B = B_DI if time_period == 0.0 else time_period * B_DI
    C, D = np.eye(2), np.zeros((2, 1))
    Q, R = np.diag([1.0, 0.1]), np.array([[0.5]])
    ctrl = LinearQuadraticRegulator(LinearSystem(A, B, C, D, time_period), Q, R)
    ctrl_d = dc.LinearQuadraticRegulator(dp.LinearSystem(A, B, C, D, time_period), Q, R)
    assert isinstance(ctrl, LinearSystem) and ctrl.num_states() == 0 and ctrl.time_period() == time_period
    assert ctrl.get_input_port(0).size() == 2 and ctrl.get_output_port(0).size() == 1
    np.testing.assert_allclose(ctrl.D(), ctrl_d.D(), rtol=1e-9)


def test_context_form_on_linear_system_with_offset_equilibrium_matches_pydrake():
    dc, dp = _controllers()
    Q, R = np.diag([4.0, 1.0]), np.array([[0.2]])
    sys_m, sys_d = LinearSystem(A_DI, B_DI, np.eye(2), np.zeros((2, 1))), dp.LinearSystem(A_DI, B_DI, np.eye(2),
                                                                                       np.zeros((2, 1)))
    out = []
    for system in (sys_m, sys_d):
        ctx = system.CreateDefaultContext()
        ctx.SetContinuousState([1.5, 0.0])  # any position is an equilibrium of the double integrator
        system.get_input_port(0).FixValue(ctx, [0.0])
        out.append((dc.LinearQuadraticRegulator if system is sys_d else LinearQuadraticRegulator)(
            system, ctx, Q, R))
    ctrl, ctrl_d = out
    assert isinstance(ctrl, AffineSystem) and ctrl.num_states() == 0
    np.testing.assert_allclose(ctrl.D(), ctrl_d.D(), rtol=1e-7)
    np.testing.assert_allclose(ctrl.y0(), ctrl_d.y0(), rtol=1e-7)
    # u = u0 - K (x - x0): zero at the equilibrium.
    c = ctrl.CreateDefaultContext()
    ctrl.get_input_port(0).FixValue(c, [1.5, 0.0])
    np.testing.assert_allclose(ctrl.get_output_port(0).Eval(c), [0.0], atol=1e-9)


class Acrobot(LeafSystem):
    """Spong's acrobot in plain Python with Drake's AcrobotParams defaults; input: elbow torque."""

    m1, m2, l1, lc1, lc2, Ic1, Ic2, b1, b2, g = 1.0, 1.0, 1.0, 0.5, 1.0, 0.083, 0.33, 0.1, 0.1, 9.81

    def __init__(self):
        super().__init__()
        self.DeclareVectorInputPort("elbow_torque", 1)
        state = self.DeclareContinuousState(2, 2, 0)
        self.DeclareStateOutputPort("acrobot_state", state)

    def DoCalcTimeDerivatives(self, context, derivatives):
        q1, q2, v1, v2 = context.get_continuous_state_vector().CopyToVector()
        u = self.get_input_port(0).Eval(context)[0]
        I1 = self.Ic1 + self.m1 * self.lc1 ** 2
        I2 = self.Ic2 + self.m2 * self.lc2 ** 2
        m2l1lc2 = self.m2 * self.l1 * self.lc2
        c2, s2 = np.cos(q2), np.sin(q2)
        s1, s12 = np.sin(q1), np.sin(q1 + q2)
        M = np.array([[I1 + I2 + self.m2 * self.l1 ** 2 + 2 * m2l1lc2 * c2, I2 + m2l1lc2 * c2],
                      [I2 + m2l1lc2 * c2, I2]])
        Cv = np.array([-2 * m2l1lc2 * s2 * v2 * v1 - m2l1lc2 * s2 * v2 ** 2, m2l1lc2 * s2 * v1 ** 2])
        tau_g = np.array([-self.m1 * self.g * self.lc1 * s1 - self.m2 * self.g * (self.l1 * s1 + self.lc2 * s12),
                          -self.m2 * self.g * self.lc2 * s12])
        damping = np.array([self.b1 * v1, self.b2 * v2])
        vdot = np.linalg.solve(M, tau_g - Cv - damping + np.array([0.0, u]))
        derivatives.get_mutable_vector().SetFromVector([v1, v2, vdot[0], vdot[1]])


def test_acrobot_python_leaf_system_matches_pydrake_acrobot_plant():
    dc, _ = _controllers()
    from pydrake.examples import AcrobotPlant
    Q, R = np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1)
    acrobot = Acrobot()
    ctx = acrobot.CreateDefaultContext()
    ctx.SetContinuousState([np.pi, 0.0, 0.0, 0.0])
    acrobot.get_input_port(0).FixValue(ctx, [0.0])
    ctrl = LinearQuadraticRegulator(acrobot, ctx, Q, R)
    plant_d = AcrobotPlant()
    ctx_d = plant_d.CreateDefaultContext()
    ctx_d.SetContinuousState([np.pi, 0.0, 0.0, 0.0])
    plant_d.get_input_port(0).FixValue(ctx_d, [0.0])
    ctrl_d = dc.LinearQuadraticRegulator(plant_d, ctx_d, Q, R)
    # Finite-difference Jacobians (~1e-10 relative) against pydrake's autodiff; K is O(100).
    np.testing.assert_allclose(ctrl.D(), ctrl_d.D(), rtol=1e-6)
    np.testing.assert_allclose(ctrl.y0(), ctrl_d.y0(), rtol=1e-6)
    np.testing.assert_allclose(-ctrl.D(), [[-278.44223126, -112.29125985, -119.72457377, -56.82824017]], rtol=1e-6)


MC, MP, LP, G = 1.0, 0.3, 0.6, 9.81


class CartPole(LeafSystem):
    """Cart-pole (x, theta, xdot, thetadot); theta = 0 hangs down; input: horizontal force on the cart."""

    def __init__(self):
        super().__init__()
        self.DeclareVectorInputPort("force", 1)
        self.DeclareContinuousState(2, 2, 0)

    def DoCalcTimeDerivatives(self, context, derivatives):
        x, th, xd, thd = context.get_continuous_state_vector().CopyToVector()
        f = self.get_input_port(0).Eval(context)[0]
        s, c = np.sin(th), np.cos(th)
        den = MC + MP * s * s
        xdd = (f + MP * s * (LP * thd ** 2 + G * c)) / den
        thdd = (-f * c - MP * LP * thd ** 2 * c * s - (MC + MP) * G * s) / (LP * den)
        derivatives.get_mutable_vector().SetFromVector([xd, thd, xdd, thdd])


def test_cart_pole_linearization_matches_pydrake_on_the_analytic_model():
    dc, _ = _controllers()
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    A[2, 1] = MP * G / MC
    A[3, 1] = (MC + MP) * G / (LP * MC)
    B = np.array([[0.0], [0.0], [1.0 / MC], [1.0 / (LP * MC)]])
    Q, R = np.diag([10.0, 10.0, 1.0, 1.0]), np.array([[0.1]])
    K_d, _S = dc.LinearQuadraticRegulator(A, B, Q, R)
    cart_pole = CartPole()
    ctx = cart_pole.CreateDefaultContext()
    ctx.SetContinuousState([0.4, np.pi, 0.0, 0.0])
    cart_pole.get_input_port(0).FixValue(ctx, [0.0])
    ctrl = LinearQuadraticRegulator(cart_pole, ctx, Q, R)
    np.testing.assert_allclose(-ctrl.D(), K_d, rtol=1e-6)
    np.testing.assert_allclose(ctrl.y0(), K_d @ [0.4, np.pi, 0.0, 0.0], rtol=1e-6)


def test_discrete_python_system_gives_discrete_controller():
    dc, dp = _controllers()
    h = 0.1
    A, B = np.eye(2) + h * A_DI, h * B_DI
    Q, R = np.eye(2), np.eye(1)
    system = LinearSystem(A, B, np.eye(2), np.zeros((2, 1)), h)
    ctx = system.CreateDefaultContext()
    system.get_input_port(0).FixValue(ctx, [0.0])
    ctrl = LinearQuadraticRegulator(system, ctx, Q, R)
    system_d = dp.LinearSystem(A, B, np.eye(2), np.zeros((2, 1)), h)
    ctx_d = system_d.CreateDefaultContext()
    system_d.get_input_port(0).FixValue(ctx_d, [0.0])
    ctrl_d = dc.LinearQuadraticRegulator(system_d, ctx_d, Q, R)
    assert ctrl.time_period() == ctrl_d.time_period() == h
    np.testing.assert_allclose(ctrl.D(), ctrl_d.D(), rtol=1e-7)


def test_errors_are_clear():
    with pytest.raises(RuntimeError, match="not stabilizable"):
        LinearQuadraticRegulator(np.eye(2), np.array([[1.0], [0.0]]), np.eye(2), np.eye(1))
    with pytest.raises(RuntimeError, match="not stabilizable"):
        DiscreteTimeLinearQuadraticRegulator(np.diag([2.0, 1.0]), np.array([[0.0], [1.0]]), np.eye(2), np.eye(1))
    with pytest.raises(RuntimeError, match="no stabilizing solution"):  # marginal mode not seen by Q
        LinearQuadraticRegulator(np.zeros((1, 1)), np.ones((1, 1)), np.zeros((1, 1)), np.eye(1))
    with pytest.raises(ValueError, match="R must be positive definite"):
        LinearQuadraticRegulator(A_DI, B_DI, np.eye(2), -np.eye(1))
    with pytest.raises(ValueError, match=r"Q must be num_states x num_states = 2 x 2"):
        LinearQuadraticRegulator(A_DI, B_DI, np.eye(3), np.eye(1))
    with pytest.raises(ValueError, match=r"R must be num_inputs x num_inputs = 1 x 1"):
        LinearQuadraticRegulator(A_DI, B_DI, np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match=r"N must be num_states x num_inputs = 2 x 1"):
        LinearQuadraticRegulator(A_DI, B_DI, np.eye(2), np.eye(1), np.ones((1, 2)))
    with pytest.raises(ValueError, match="Q must be symmetric"):
        LinearQuadraticRegulator(A_DI, B_DI, np.array([[1.0, 1.0], [0.0, 1.0]]), np.eye(1))
    with pytest.raises(TypeError, match="must be a LinearSystem"):
        LinearQuadraticRegulator(CartPole(), np.eye(4), np.eye(1))
    # Off-equilibrium operating point: Linearize refuses, naming the system.
    cart_pole = CartPole()
    ctx = cart_pole.CreateDefaultContext()
    ctx.SetContinuousState([0.0, 1.0, 0.0, 0.0])
    cart_pole.get_input_port(0).FixValue(ctx, [0.0])
    with pytest.raises(RuntimeError, match="not an equilibrium point"):
        LinearQuadraticRegulator(cart_pole, ctx, np.eye(4), np.eye(1))
    # Unfixed input: clear error instead of an evaluation failure deep inside.
    ctx2 = cart_pole.CreateDefaultContext()
    ctx2.SetContinuousState([0.0, np.pi, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="neither connected nor fixed"):
        LinearQuadraticRegulator(cart_pole, ctx2, np.eye(4), np.eye(1))
    with pytest.raises(RuntimeError, match="belongs to"):
        LinearQuadraticRegulator(CartPole(), ctx, np.eye(4), np.eye(1))
