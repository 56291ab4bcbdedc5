"""MJCF engine plugins on a continuous MultibodyPlant (time_step = 0): plugin activation slots are continuous
state with the plugin's act_dot as derivative, the plugin state is discrete state advanced every
<option timestep> (multibody/mjcf/plugins.py). Checked against the analytic DC-motor model, a fine
scipy integration of the motor ODE, and the discrete plant with small steps."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, GetMujocoCtrlInputPort
from mallard.multibody.mjcf.plugins import GetMujocoPluginState, SetMujocoPluginState
from mallard.multibody.mjcf.sensors import GetMujocoSensorOutputPort
from mallard.multibody.mjcf.state import GetMujocoActivations
from mallard.multibody.plugins.dcmotor import dcmotor_derivatives
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 1e-3  # <option timestep>: the plugin advance period of the continuous plant
V = 6.0
GEAR, K, R, DAMP = 2.0, 0.5, 2.0, 0.05
CONFIG = dict(resistance=R, motorconst=K, ambient=25.0, thermalresistance=2.0, thermalcapacitance=10.0,
              tempcoef=0.0)


def _xml(inductance: float = 0.0, tempcoef: float = 0.0) -> str:
    cfg = dict(CONFIG, inductance=inductance, tempcoef=tempcoef)
    conf = "".join(f'<config key="{k}" value="{v}"/>' for k, v in cfg.items())
    return f"""
<mujoco model="motor">
  <extension><plugin plugin="mallard.actuator.dcmotor"><instance name="m1">{conf}</instance></plugin></extension>
  <option timestep="{H}" gravity="0 0 0"/>
  <worldbody>
    <body name="arm"><joint name="hinge" type="hinge" axis="0 0 1" damping="{DAMP}"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/></body>
  </worldbody>
  <actuator><plugin name="motor" joint="hinge" instance="m1" gear="{GEAR}"/></actuator>
  <sensor><plugin name="temperature" instance="m1"/><actuatorfrc actuator="motor"/></sensor>
</mujoco>"""


def _build(xml: str, time_step: float):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    pc = plant.GetMyContextFromRoot(context)
    GetMujocoCtrlInputPort(plant).FixValue(pc, [V])
    return plant, diagram, context, pc


def _motor_ode(inertia: float, inductance: float, tempcoef: float = 0.0):
    """x = [w, T] (quasi-static current) or [w, i, T]: the DC motor driving the arm (gear on the joint)."""
    cfg = dict(CONFIG, inductance=inductance, tempcoef=tempcoef)

    def f(t, x):
        w, T = x[0], x[-1]
        r = R * (1 + tempcoef * (T - 25.0))
        i = x[1] if inductance > 0 else (V - K * GEAR * w) / r
        didt, dTdt = dcmotor_derivatives(cfg, V, GEAR * w, T, i)
        wdot = (GEAR * K * i - DAMP * w) / inertia
        return [wdot, didt, dTdt] if inductance > 0 else [wdot, dTdt]
    return f


def test_continuous_plant_state_layout_and_outputs():
    plant, _, _, pc = _build(_xml(inductance=0.01), 0.0)
    # x = [q; v; act]: the plugin's current slot is continuous state; the temperature is discrete state
    assert pc.get_continuous_state_vector().size() == 3
    np.testing.assert_array_equal(GetMujocoPluginState(plant, pc), [25.0])
    SetMujocoPluginState(plant, pc, [30.0])
    plant.get_state_output_port()  # the plant's usual ports still exist
    pc.get_mutable_continuous_state_vector().SetFromVector([0.0, 1.0, 2.0])  # q, v, current
    data = GetMujocoSensorOutputPort(plant).Eval(pc)
    assert data[0] == 30.0 and data[1] == pytest.approx(K * 2.0, rel=1e-14)  # thermometer, K i
    xdot = plant.AllocateTimeDerivatives()
    plant.CalcTimeDerivatives(pc, xdot)
    didt, _ = dcmotor_derivatives(dict(CONFIG, inductance=0.01), V, GEAR * 1.0, 30.0, 2.0)
    inertia = plant.CalcMassMatrix(pc)[0, 0]
    np.testing.assert_allclose(xdot.CopyToVector(), [1.0, (GEAR * K * 2.0 - DAMP * 1.0) / inertia, didt],
                               rtol=1e-12)
    # the implicit residual agrees: zero at the true derivatives
    np.testing.assert_allclose(plant.CalcImplicitTimeDerivativesResidual(pc, xdot.CopyToVector()), 0.0, atol=1e-10)


def test_continuous_quasi_static_motor_matches_analytic_and_discrete():
    T_END = 0.2
    plant, diagram, context, pc = _build(_xml(), 0.0)
    inertia = plant.CalcMassMatrix(pc)[0, 0]
    sim = Simulator(diagram, context)
    sim.get_mutable_integrator().set_target_accuracy(1e-8)
    sim.AdvanceTo(T_END)
    w = plant.GetVelocities(pc)[0]
    # analytic: J w' = g K (V - K g w) / R - d w  ->  w = w_inf (1 - exp(-t / tau))
    b = (GEAR * K) ** 2 / R + DAMP
    w_exact = GEAR * K * V / R / b * (1 - math.exp(-b * T_END / inertia))
    assert w == pytest.approx(w_exact, rel=1e-7)
    # temperature: advanced every H from the sampled current (zero-order hold) -> O(H) from the exact ODE
    ref = solve_ivp(_motor_ode(inertia, 0.0), (0, T_END), [0.0, 25.0], rtol=1e-11, atol=1e-12)
    T = GetMujocoPluginState(plant, pc)[0]
    assert T - 25.0 == pytest.approx(ref.y[1, -1] - 25.0, rel=2e-2)
    # the discrete plant with the same small step agrees to O(h)
    dplant, ddiagram, dcontext, dpc = _build(_xml(), H)
    Simulator(ddiagram, dcontext).AdvanceTo(T_END)
    assert dplant.GetVelocities(dpc)[0] == pytest.approx(w, rel=2e-3)
    assert GetMujocoPluginState(dplant, dpc)[0] - 25.0 == pytest.approx(T - 25.0, rel=1e-2)


def test_continuous_inductive_motor_current_is_integrated():
    """With inductance the current is a continuous activation integrated from the plugin's di/dt; a
    temperature-dependent resistance couples it to the (sampled) plugin state."""
    T_END = 0.1
    L, alpha = 0.005, 0.004
    plant, diagram, context, pc = _build(_xml(inductance=L, tempcoef=alpha), 0.0)
    inertia = plant.CalcMassMatrix(pc)[0, 0]
    sim = Simulator(diagram, context)
    sim.get_mutable_integrator().set_target_accuracy(1e-8)
    sim.AdvanceTo(T_END)
    ref = solve_ivp(_motor_ode(inertia, L, alpha), (0, T_END), [0.0, 0.0, 25.0], rtol=1e-11, atol=1e-12)
    w_ref, i_ref, T_ref = ref.y[:, -1]
    assert plant.GetVelocities(pc)[0] == pytest.approx(w_ref, rel=1e-6)
    assert GetMujocoActivations(plant, pc)[0] == pytest.approx(i_ref, rel=1e-6)
    assert GetMujocoPluginState(plant, pc)[0] - 25.0 == pytest.approx(T_ref - 25.0, rel=5e-3)
    assert i_ref > 0.5 and T_ref > 25.0  # current flows and heats the winding


def test_passive_plugin_force_reaches_continuous_dynamics():
    """A user passive plugin (generalized drag -b qvel) on a falling free body: v_z(t) = -(m g / b)(1 - e^(-b t / m))."""
    from mallard.multibody.plugins import Capability, ConfigAttribute, Plugin, RegisterPlugin, UnregisterPlugin

    class Drag(Plugin):
        name = "test.passive.continuous_drag"
        capabilities = Capability.PASSIVE
        attributes = (ConfigAttribute("b", "real", default=1.0, low=0.0),)

        def compute(self, capability, instance, data, frame):
            frame.qfrc_passive[:] = -instance.config["b"] * frame.qvel

    RegisterPlugin(Drag)
    try:
        xml = """<mujoco><extension><plugin plugin="test.passive.continuous_drag"/></extension>
          <option timestep="0.002" gravity="0 0 -9.81"/>
          <worldbody><body name="ball" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1" mass="2"/>
            <plugin plugin="test.passive.continuous_drag"><config key="b" value="3"/></plugin></body></worldbody>
        </mujoco>"""
        builder = DiagramBuilder()
        plant, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
        Parser(plant).AddModelsFromString(xml, "xml")
        plant.Finalize()
        diagram = builder.Build()
        context = diagram.CreateDefaultContext()
        sim = Simulator(diagram, context)
        sim.get_mutable_integrator().set_target_accuracy(1e-9)
        sim.AdvanceTo(0.3)
        vz = plant.GetVelocities(plant.GetMyContextFromRoot(context))[5]
        assert vz == pytest.approx(-(2.0 * 9.81 / 3.0) * (1 - math.exp(-3.0 * 0.3 / 2.0)), rel=1e-7)
    finally:
        UnregisterPlugin("test.passive.continuous_drag")
