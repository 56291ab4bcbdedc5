"""pydrake.examples' acrobot: the two-link underactuated arm with an elbow motor (AcrobotPlant, Spong's swing-up and
LQR balance controller), as Drake's examples/acrobot. Angles in rad, torques in N·m; θ₁ is the shoulder angle from
straight down, θ₂ the elbow angle relative to the first link."""
from __future__ import annotations

import math

import numpy as np

from mallard.math import wrap_to
from mallard.systems.controllers import LinearQuadraticRegulator
from mallard.systems.framework import Context, LeafSystem
from mallard.systems.primitives import Linearize

from .named_vector import NamedVector, view_as

__all__ = ["AcrobotInput", "AcrobotParams", "AcrobotPlant", "AcrobotSpongController", "AcrobotState",
           "SpongControllerParams"]


def _inverse_2x2(M: np.ndarray) -> np.ndarray:
    """M⁻¹ by the closed form (adjugate over determinant), in the order Eigen evaluates it, so that the controller's
    exact cancellations (θ̈₂ = 0 when θ₂ = θ̇₂ = 0) hold to the last bit as in Drake."""
    inv_det = 1.0 / (M[0, 0] * M[1, 1] - M[1, 0] * M[0, 1])
    return np.array([[M[1, 1] * inv_det, -M[0, 1] * inv_det], [-M[1, 0] * inv_det, M[0, 0] * inv_det]])


def _times(A: np.ndarray, v: np.ndarray) -> np.ndarray:
    """A v for a 2×2 A, term by term."""
    return np.array([A[0, 0] * v[0] + A[0, 1] * v[1], A[1, 0] * v[0] + A[1, 1] * v[1]])


class AcrobotState(NamedVector):
    """[θ₁, θ₂, θ̇₁, θ̇₂] (rad, rad/s)."""
    _rows = (("theta1", 0.0), ("theta2", 0.0), ("theta1dot", 0.0), ("theta2dot", 0.0))


class AcrobotInput(NamedVector):
    """The elbow torque τ (N·m)."""
    _rows = (("tau", 0.0),)


class AcrobotParams(NamedVector):
    """Masses (kg), link lengths and center-of-mass distances (m), inertias about the centers of mass (kg·m²),
    joint damping (N·m·s/rad) and gravity (m/s²), with Drake's defaults."""
    _rows = (("m1", 1.0), ("m2", 1.0), ("l1", 1.0), ("l2", 2.0), ("lc1", 0.5), ("lc2", 1.0), ("Ic1", 0.083),
             ("Ic2", 0.33), ("b1", 0.1), ("b2", 0.1), ("gravity", 9.81))


class SpongControllerParams(NamedVector):
    """Spong's swing-up gains (energy k_e, partial feedback linearization k_p, k_d) and the LQR cost below which
    the balancing controller takes over."""
    _rows = (("k_e", 5.0), ("k_p", 50.0), ("k_d", 5.0), ("balancing_threshold", 1e3))


class AcrobotPlant(LeafSystem):
    """The acrobot's manipulator equations M(q)q̈ + bias(q, q̇) = Bτ, B = [0, 1]ᵀ: input port `elbow_torque`,
    output port `acrobot_state` (the continuous state [θ₁, θ₂, θ̇₁, θ̇₂]), one AcrobotParams parameter."""

    def __init__(self) -> None:
        super().__init__()
        self.DeclareNumericParameter(AcrobotParams())
        self.DeclareVectorInputPort("elbow_torque", AcrobotInput())
        state_index = self.DeclareContinuousState(AcrobotState(), 2, 2, 0)
        self.DeclareStateOutputPort("acrobot_state", state_index)

    @staticmethod
    def get_state(context: Context) -> AcrobotState:
        """The context's continuous state as an AcrobotState (a view)."""
        return view_as(AcrobotState, context.get_continuous_state_vector())

    @staticmethod
    def get_mutable_state(context: Context) -> AcrobotState:
        """The context's continuous state as a writable AcrobotState (a view)."""
        return view_as(AcrobotState, context.get_mutable_continuous_state_vector())

    def get_parameters(self, context: Context) -> AcrobotParams:
        """The context's AcrobotParams (a view)."""
        return view_as(AcrobotParams, context.get_numeric_parameter(0))

    def get_mutable_parameters(self, context: Context) -> AcrobotParams:
        """The context's AcrobotParams, writable (a view)."""
        return view_as(AcrobotParams, context.get_mutable_numeric_parameter(0))

    def SetMitAcrobotParameters(self, parameters: AcrobotParams) -> None:
        """Drake's system-identified parameters of MIT's acrobot (torque in motor amps; negative inertias)."""
        for name, value in (("m1", 2.4367), ("m2", 0.6178), ("l1", 0.2563), ("lc1", 1.6738), ("lc2", 1.5651),
                            ("Ic1", -4.7443), ("Ic2", -1.0068), ("b1", 0.0320), ("b2", 0.0413)):
            getattr(parameters, f"set_{name}")(value)

    def MassMatrix(self, context: Context) -> np.ndarray:
        """M(q) (kg·m²), 2×2."""
        x, p = self.get_state(context), self.get_parameters(context)
        c2 = math.cos(x.theta2())
        I1 = p.Ic1() + p.m1() * p.lc1() * p.lc1()
        I2 = p.Ic2() + p.m2() * p.lc2() * p.lc2()
        m2l1lc2 = p.m2() * p.l1() * p.lc2()
        m12 = I2 + m2l1lc2 * c2
        return np.array([[I1 + I2 + p.m2() * p.l1() * p.l1() + 2 * m2l1lc2 * c2, m12], [m12, I2]])

    def DynamicsBiasTerm(self, context: Context) -> np.ndarray:
        """C(q, q̇)q̇ − τ_g(q) + damping (N·m), so that M q̈ = Bτ − bias."""
        x, p = self.get_state(context), self.get_parameters(context)
        s1, s2 = math.sin(x.theta1()), math.sin(x.theta2())
        s12 = math.sin(x.theta1() + x.theta2())
        m2l1lc2 = p.m2() * p.l1() * p.lc2()
        bias = np.array([-2 * m2l1lc2 * s2 * x.theta2dot() * x.theta1dot()
                         + -m2l1lc2 * s2 * x.theta2dot() * x.theta2dot(),
                         m2l1lc2 * s2 * x.theta1dot() * x.theta1dot()])
        bias[0] += p.gravity() * p.m1() * p.lc1() * s1 + p.gravity() * p.m2() * (p.l1() * s1 + p.lc2() * s12)
        bias[1] += p.gravity() * p.m2() * p.lc2() * s12
        bias[0] += p.b1() * x.theta1dot()
        bias[1] += p.b2() * x.theta2dot()
        return bias

    def DoCalcTimeDerivatives(self, context: Context, derivatives) -> None:
        x = self.get_state(context)
        tau = self.get_input_port(0).Eval(context)[0]
        vdot = _times(_inverse_2x2(self.MassMatrix(context)), np.array([0.0, tau]) - self.DynamicsBiasTerm(context))
        derivatives.SetFromVector(np.array([x.theta1dot(), x.theta2dot(), vdot[0], vdot[1]]))

    def DoCalcKineticEnergy(self, context: Context) -> float:
        x = self.get_state(context)
        qdot = np.array([x.theta1dot(), x.theta2dot()])
        return float(0.5 * qdot @ self.MassMatrix(context) @ qdot)

    def DoCalcPotentialEnergy(self, context: Context) -> float:
        x, p = self.get_state(context), self.get_parameters(context)
        c1, c12 = math.cos(x.theta1()), math.cos(x.theta1() + x.theta2())
        return -p.m1() * p.gravity() * p.lc1() * c1 - p.m2() * p.gravity() * (p.l1() * c1 + p.lc2() * c12)


class AcrobotSpongController(LeafSystem):
    """Spong's energy-shaping swing-up with partial feedback linearization of the elbow, switching to LQR about
    the upright equilibrium when (x − x₀)ᵀS(x − x₀) < balancing_threshold; the torque is clipped to ±20 N·m.
    Input `acrobot_state`, output `elbow_torque`, one SpongControllerParams parameter."""

    def __init__(self) -> None:
        super().__init__()
        self._acrobot = AcrobotPlant()
        self._acrobot_context = self._acrobot.CreateDefaultContext()
        self.DeclareVectorInputPort("acrobot_state", AcrobotState())
        self.DeclareVectorOutputPort("elbow_torque", AcrobotInput(), self.CalcControlTorque)
        self.DeclareNumericParameter(SpongControllerParams())
        upright = self._acrobot.CreateDefaultContext()
        upright.SetContinuousState([math.pi, 0.0, 0.0, 0.0])
        self._acrobot.GetInputPort("elbow_torque").FixValue(upright, 0.0)
        linear = Linearize(self._acrobot, upright)
        Q = np.diag([10.0, 10.0, 1.0, 1.0])
        self._K, self._S = LinearQuadraticRegulator(linear.A(), linear.B(), Q, np.ones((1, 1)))

    def get_parameters(self, context: Context) -> SpongControllerParams:
        """The context's SpongControllerParams (a view)."""
        return view_as(SpongControllerParams, context.get_numeric_parameter(0))

    def get_mutable_parameters(self, context: Context) -> SpongControllerParams:
        """The context's SpongControllerParams, writable (a view)."""
        return view_as(SpongControllerParams, context.get_mutable_numeric_parameter(0))

    def CalcControlTorque(self, context: Context, output) -> None:
        """The elbow torque (N·m) for the state on the input port."""
        acrobot, inner = self._acrobot, self._acrobot_context
        inner.SetContinuousState(self.get_input_port(0).Eval(context))
        state, p = acrobot.get_state(inner), acrobot.get_parameters(inner)
        gains = self.get_parameters(context)
        x0 = np.array([math.pi, 0.0, 0.0, 0.0])
        x = state.CopyToVector()
        x[0] = wrap_to(x[0], 0.0, 2.0 * math.pi)
        x[1] = wrap_to(x[1], -math.pi, math.pi)
        cost = (x - x0) @ (self._S @ (x - x0))
        if cost < gains.balancing_threshold():
            u = float((self._K @ (x0 - x))[0])
        else:
            M_inverse = _inverse_2x2(acrobot.MassMatrix(inner))
            bias = acrobot.DynamicsBiasTerm(inner)
            E = acrobot.EvalPotentialEnergy(inner) + acrobot.EvalKineticEnergy(inner)
            E_desired = (p.m1() * p.lc1() + p.m2() * (p.l1() + p.lc2())) * p.gravity()
            u_e = -gains.k_e() * (E - E_desired) * state.theta2dot()
            y = -gains.k_p() * state.theta2() - gains.k_d() * state.theta2dot()
            a3, a2 = M_inverse[1, 1], M_inverse[0, 1]
            u_p = (a2 * bias[0] + y) / a3 + bias[1]
            u = u_e + u_p
        output.SetAtIndex(0, min(max(u, -20.0), 20.0))
