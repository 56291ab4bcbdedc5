"""The first-party DC-motor plugin: electrical, mechanical and thermal math, shared actuator/sensor instance."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mallard.multibody.plugins import Capability, GetPlugin, PluginFrame, PluginInstance
from mallard.multibody.plugins.dcmotor import dcmotor_derivatives, dcmotor_temperature_step

MOTOR = GetPlugin("mallard.actuator.dcmotor")


def _instance(**config):
    cfg = MOTOR.ValidateConfig({k: str(v) for k, v in config.items()})
    return PluginInstance("motor", MOTOR.name, cfg, nstate=MOTOR.nstate(cfg), actuators=[0], sensors=[0])


def _frame(inst, voltage, omega, temperature, current=None, dt=0.0):
    act = np.array([current]) if current is not None else np.zeros(0)
    return PluginFrame(timestep=dt, state=np.array([temperature]), ctrl=np.array([voltage]), act=act,
                       actuator_velocity=np.array([omega]), actuator_force=np.zeros(1), act_dot=np.zeros(len(act)),
                       sensordata=np.zeros(1))


def test_sizes_and_reset():
    quasi = _instance(resistance=2.0)
    assert MOTOR.nstate(quasi.config) == 1 and MOTOR.actdim(quasi.config) == 0
    assert MOTOR.nsensordata(quasi.config, 0) == 1
    induct = _instance(inductance=0.01)
    assert MOTOR.actdim(induct.config) == 1
    state = np.zeros(1)
    MOTOR.reset(quasi, state, MOTOR.init(quasi, state))
    assert state[0] == 25.0


def test_quasi_static_torque_and_back_emf():
    inst = _instance(resistance=2.0, motorconst=0.05)
    f = _frame(inst, voltage=12.0, omega=100.0, temperature=25.0)
    MOTOR.compute(Capability.ACTUATOR, inst, None, f)
    # i = (V - K w) / R = (12 - 5) / 2 = 3.5 A; torque = K i
    assert f.actuator_force[0] == pytest.approx(0.05 * 3.5)
    f = _frame(inst, voltage=5.0, omega=100.0, temperature=25.0)  # at the no-load speed: no torque
    MOTOR.compute(Capability.ACTUATOR, inst, None, f)
    assert f.actuator_force[0] == pytest.approx(0.0, abs=1e-15)


def test_inductance_gives_current_dynamics_and_hot_winding_resists_more():
    inst = _instance(resistance=1.0, inductance=0.002, motorconst=0.1, tempcoef=0.004)
    f = _frame(inst, voltage=10.0, omega=20.0, temperature=75.0, current=3.0)
    MOTOR.compute(Capability.ACTUATOR, inst, None, f)
    r_hot = 1.0 * (1 + 0.004 * 50.0)
    assert f.actuator_force[0] == pytest.approx(0.3)
    assert f.act_dot[0] == pytest.approx((10.0 - r_hot * 3.0 - 0.1 * 20.0) / 0.002)
    with pytest.raises(ValueError, match="resistance became non-positive"):
        dcmotor_derivatives(_instance(tempcoef=-0.1).config, 1.0, 0.0, 40.0, 1.0)


def test_shared_instance_sensor_reads_the_temperature_the_actuator_heats():
    inst = _instance(resistance=2.0, thermalresistance=3.0, thermalcapacitance=5.0)
    f = _frame(inst, voltage=6.0, omega=0.0, temperature=25.0, dt=0.5)
    for _ in range(40):  # 20 s of a stalled motor: i = 3 A, P = 18 W
        MOTOR.compute(Capability.ACTUATOR | Capability.SENSOR, inst, None, f)
        MOTOR.advance(inst, None, f)
    MOTOR.compute(Capability.SENSOR, inst, None, f)
    # exact first-order response T(t) = T_amb + P R_th (1 - exp(-t / (R_th C)))
    expect = 25.0 + 18.0 * 3.0 * (1 - math.exp(-20.0 / 15.0))
    assert f.state[0] == pytest.approx(expect, rel=1e-12)
    assert f.sensordata[0] == f.state[0]


def test_thermal_step_against_ode_with_temperature_dependent_resistance():
    cfg = _instance(resistance=1.5, tempcoef=0.004, thermalresistance=2.0, thermalcapacitance=4.0).config
    current = 4.0

    def rhs(t, y):
        return [dcmotor_derivatives(cfg, 0.0, 0.0, y[0], current)[1]]

    ref = solve_ivp(rhs, (0, 10.0), [25.0], rtol=1e-11, atol=1e-11).y[0, -1]
    temp, dt = 25.0, 1e-3
    for _ in range(10000):
        temp = dcmotor_temperature_step(cfg, temp, current, dt)
    assert temp == pytest.approx(ref, rel=1e-5)


def test_one_instance_is_one_motor():
    inst = _instance()
    inst.actuators = [0, 1]
    with pytest.raises(ValueError, match="one instance models one motor but 2 actuators use it"):
        MOTOR.CheckInstance(inst)
