"""Linearize / FirstOrderTaylorApproximation by finite differences, and the controllability tests."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.systems.framework import DiagramBuilder, LeafSystem
from mallard.systems.primitives import (AffineSystem, ControllabilityMatrix, FirstOrderLowPassFilter,
                                        FirstOrderTaylorApproximation, Gain, IsControllable, IsDetectable,
                                        IsObservable, IsStabilizable, LinearSystem, Linearize, ObservabilityMatrix,
                                        ZeroOrderHold)

G, L, M, B_DAMP = 9.81, 0.7, 1.3, 0.2


class Pendulum(LeafSystem):
    """theta'' = (u - b theta' - m g l sin(theta)) / (m l^2); output y = [theta, theta'] (plain Python)."""

    def __init__(self):
        super().__init__()
        self.DeclareVectorInputPort("tau", 1)
        state = self.DeclareContinuousState(1, 1, 0)
        self.DeclareStateOutputPort("state", state)

    def DoCalcTimeDerivatives(self, context, derivatives):
        theta, thetadot = context.get_continuous_state_vector().CopyToVector()
        tau = self.get_input_port(0).Eval(context)[0]
        thetaddot = (tau - B_DAMP * thetadot - M * G * L * np.sin(theta)) / (M * L * L)
        derivatives.get_mutable_vector().SetFromVector([thetadot, thetaddot])


def _pendulum_context(theta, tau=0.0):
    p = Pendulum()
    ctx = p.CreateDefaultContext()
    ctx.SetContinuousState([theta, 0.0])
    p.get_input_port(0).FixValue(ctx, [tau])
    return p, ctx


@pytest.mark.parametrize("theta", [0.0, np.pi])
def test_pendulum_matches_analytic_jacobians(theta):
    p, ctx = _pendulum_context(theta)
    lin = Linearize(p, ctx)
    A = np.array([[0.0, 1.0], [-G / L * np.cos(theta), -B_DAMP / (M * L * L)]])
    B = np.array([[0.0], [1.0 / (M * L * L)]])
    np.testing.assert_allclose(lin.A(), A, rtol=0, atol=1e-8)
    np.testing.assert_allclose(lin.B(), B, rtol=0, atol=1e-8)
    np.testing.assert_allclose(lin.C(), np.eye(2), atol=1e-12)
    np.testing.assert_allclose(lin.D(), np.zeros((2, 1)), atol=1e-12)
    assert lin.time_period() == 0.0
    np.testing.assert_array_equal(ctx.get_continuous_state_vector().CopyToVector(), [theta, 0.0])  # untouched


def test_pendulum_not_an_equilibrium_raises_with_residual():
    p, ctx = _pendulum_context(0.5)
    with pytest.raises(RuntimeError, match=r"not an equilibrium.*max \|xdot\|"):
        Linearize(p, ctx)
    # A torque holding it there makes it an equilibrium again.
    p, ctx = _pendulum_context(0.5, tau=M * G * L * np.sin(0.5))
    lin = Linearize(p, ctx)
    assert lin.A()[1, 0] == pytest.approx(-G / L * np.cos(0.5), abs=1e-7)


def test_taylor_approximation_off_equilibrium():
    p, ctx = _pendulum_context(0.5, tau=0.3)
    aff = FirstOrderTaylorApproximation(p, ctx)
    x0, u0 = np.array([0.5, 0.0]), np.array([0.3])
    xdot0 = np.array([0.0, (0.3 - M * G * L * np.sin(0.5)) / (M * L * L)])
    np.testing.assert_allclose(aff.A() @ x0 + aff.B() @ u0 + aff.f0(), xdot0, atol=1e-8)
    np.testing.assert_allclose(aff.C() @ x0 + aff.D() @ u0 + aff.y0(), x0, atol=1e-10)


def test_linearize_matches_pydrake_on_primitive_diagrams(drake_ns, mallard_ns):
    A = np.array([[0.0, 1.0, 0.0], [-2.0, -0.5, 1.0], [0.3, 0.0, -1.0]])
    B = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, -0.5]])
    C = np.array([[1.0, 0.0, 2.0]])
    D = np.array([[0.1, 0.0]])

    def build(ns):
        b = ns.DiagramBuilder()
        plant = b.AddSystem(ns.LinearSystem(A, B, C, D))
        filt = b.AddSystem(ns.FirstOrderLowPassFilter(np.array([0.2])))
        gain = b.AddSystem(ns.Gain(np.array([3.0, -1.0])))
        b.Connect(plant.get_output_port(), filt.get_input_port())
        b.Connect(gain.get_output_port(), plant.get_input_port())
        b.ExportInput(gain.get_input_port(), "u")
        b.ExportOutput(filt.get_output_port(), "y")
        diagram = b.Build()
        ctx = diagram.CreateDefaultContext()
        diagram.get_input_port(0).FixValue(ctx, np.zeros(2))
        return diagram, ctx

    mine = Linearize(*build(mallard_ns))
    theirs = drake_ns.Linearize(*build(drake_ns))
    for name in ("A", "B", "C", "D"):
        np.testing.assert_allclose(getattr(mine, name)(), getattr(theirs, name)(), rtol=0, atol=1e-9, err_msg=name)

    def build_aff(ns):
        d, ctx = build(ns)
        ctx.SetContinuousState(np.array([0.1, -0.2, 0.3, 0.4]))
        d.get_input_port(0).FixValue(ctx, np.array([0.5, 1.0]))
        return d, ctx
    mine = FirstOrderTaylorApproximation(*build_aff(mallard_ns))
    theirs = drake_ns.FirstOrderTaylorApproximation(*build_aff(drake_ns))
    for name in ("A", "B", "f0", "C", "D", "y0"):
        np.testing.assert_allclose(getattr(mine, name)(), getattr(theirs, name)(), rtol=0, atol=1e-9, err_msg=name)


def test_discrete_linearize_matches_pydrake(drake_ns, mallard_ns):
    Ad = np.array([[0.9, 0.2], [-0.1, 0.7]])
    Bd = np.array([[0.0], [0.5]])

    def build(ns):
        sys = ns.AffineSystem(Ad, Bd, np.array([0.1, 0.0]), np.eye(2), np.zeros((2, 1)), np.zeros(2), 0.05)
        ctx = sys.CreateDefaultContext()
        sys.get_input_port(0).FixValue(ctx, [0.4])
        x_eq = np.linalg.solve(np.eye(2) - Ad, Bd @ [0.4] + [0.1, 0.0])
        ctx.SetDiscreteState(x_eq)
        return sys, ctx

    mine = Linearize(*build(mallard_ns))
    theirs = drake_ns.Linearize(*build(drake_ns))
    assert mine.time_period() == theirs.time_period() == 0.05
    np.testing.assert_allclose(mine.A(), theirs.A(), atol=1e-9)
    np.testing.assert_allclose(mine.B(), theirs.B(), atol=1e-9)
    sys, ctx = build(mallard_ns)
    ctx.SetDiscreteState([5.0, 5.0])
    with pytest.raises(RuntimeError, match=r"not an equilibrium.*x\[n\+1\] - x"):
        Linearize(sys, ctx)


def test_linearize_subsystem_and_port_selection():
    b = DiagramBuilder()
    p = b.AddSystem(Pendulum())
    k = b.AddSystem(Gain(-2.0, 1))
    select_theta = b.AddSystem(LinearSystem(D=np.array([[1.0, 0.0]])))
    b.Connect(p.get_output_port(), select_theta.get_input_port())
    b.Connect(select_theta.get_output_port(), k.get_input_port())
    b.Connect(k.get_output_port(), p.get_input_port(0))
    diagram = b.Build()
    root = diagram.CreateDefaultContext()
    lin = Linearize(p, p.GetMyContextFromRoot(root))  # the input is frozen at its connected value
    np.testing.assert_allclose(lin.B(), [[0.0], [1.0 / (M * L * L)]], atol=1e-8)
    closed = Linearize(diagram, root)  # the closed loop: tau = -2 theta
    np.testing.assert_allclose(closed.A(), [[0.0, 1.0], [-G / L - 2.0 / (M * L * L), -B_DAMP / (M * L * L)]],
                               atol=1e-8)
    assert closed.B().shape == (2, 0) and closed.C().shape == (0, 2)
    no_out = Linearize(p, p.GetMyContextFromRoot(root), output_port_index=-1)
    assert no_out.num_outputs() == 0
    with pytest.raises(ValueError, match="out of range"):
        Linearize(p, p.GetMyContextFromRoot(root), input_port_index=3)


def test_linearize_errors():
    p = Pendulum()
    ctx = p.CreateDefaultContext()
    with pytest.raises(RuntimeError, match="neither connected nor fixed"):
        Linearize(p, ctx)
    b = DiagramBuilder()
    f = b.AddSystem(FirstOrderLowPassFilter(1.0))
    z = b.AddSystem(ZeroOrderHold(0.1, 1))
    b.Connect(f.get_output_port(), z.get_input_port())
    b.ExportInput(f.get_input_port(), "u")
    d = b.Build()
    dctx = d.CreateDefaultContext()
    d.get_input_port(0).FixValue(dctx, [0.0])
    with pytest.raises(RuntimeError, match="both continuous .* and discrete"):
        Linearize(d, dctx)
    with pytest.raises(RuntimeError, match="belongs to"):
        Linearize(f, dctx)


def test_controllability_and_observability_match_pydrake(drake_ns):
    rng = np.random.default_rng(3)
    cases = [
        (rng.normal(size=(3, 3)), rng.normal(size=(3, 1)), rng.normal(size=(1, 3)), 0.0),
        (np.diag([1.0, -2.0, 0.5]), np.array([[1.0], [0.0], [1.0]]), np.array([[0.0, 1.0, 1.0]]), 0.0),
        (np.diag([-1.0, -2.0, 3.0]), np.array([[1.0], [0.0], [1.0]]), np.array([[0.0, 1.0, 1.0]]), 0.0),
        (np.diag([0.5, 1.5]), np.array([[1.0], [0.0]]), np.array([[1.0, 0.0]]), 0.1),
        (np.diag([1.5, 0.5]), np.array([[1.0], [0.0]]), np.array([[1.0, 0.0]]), 0.1),
    ]
    for A, B, C, dt in cases:
        mine = LinearSystem(A, B, C, np.zeros((C.shape[0], B.shape[1])), dt)
        theirs = drake_ns.LinearSystem(A, B, C, np.zeros((C.shape[0], B.shape[1])), dt)
        np.testing.assert_allclose(ControllabilityMatrix(mine), drake_ns.ControllabilityMatrix(theirs), atol=1e-12)
        np.testing.assert_allclose(ObservabilityMatrix(mine), drake_ns.ObservabilityMatrix(theirs), atol=1e-12)
        for mf, df in ((IsControllable, drake_ns.IsControllable), (IsObservable, drake_ns.IsObservable),
                       (IsStabilizable, drake_ns.IsStabilizable), (IsDetectable, drake_ns.IsDetectable)):
            assert mf(mine) == df(theirs), (mf.__name__, A, dt)


def test_affine_system_bad_sizes():
    with pytest.raises(ValueError, match="inconsistent number of states"):
        AffineSystem(np.eye(2), np.ones((3, 1)))
    with pytest.raises(ValueError, match="time_period"):
        LinearSystem(np.eye(1), np.eye(1), np.eye(1), np.eye(1), -0.1)
    sys = AffineSystem(np.eye(2), np.ones((2, 1)), None, np.ones((1, 2)))
    with pytest.raises(ValueError, match="must be"):
        sys.UpdateCoefficients(np.eye(3), np.ones((2, 1)), [0, 0], np.ones((1, 2)), [[0.0]], [0.0])
