"""MuJoCo muscles (FLV gain, passive bias, activation dynamics) on the plant against the MuJoCo oracle."""
from __future__ import annotations

import warnings

import numpy as np

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import SetMujocoActivations, SetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfUnsupportedWarning

XML = """
<mujoco model="mus">
  <compiler angle="radian"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h" type="hinge" axis="0 1 0" range="-1 1.2" limited="true"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.5 0 0"/>
      <body pos="0.5 0 0">
        <joint name="h2" type="hinge" axis="0 1 0" range="-0.5 2" limited="true"/>
        <geom type="capsule" size="0.04" fromto="0 0 0 0.4 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t"><joint joint="h" coef="0.5"/><joint joint="h2" coef="-0.3"/></fixed>
  </tendon>
  <actuator>
    <muscle name="m1" joint="h" lengthrange="-0.9 1.2"/>
    <muscle name="m2" tendon="t" force="50" tausmooth="0.2" lengthrange="-0.3 0.75"/>
    <muscle name="m3" joint="h2" timeconst="0.02 0.05" lengthrange="-0.6 2.1" range="0.6 1.2" lmin="0.4"
            lmax="1.7" vmax="2" fpmax="1.1" fvmax="1.4"/>
  </actuator>
</mujoco>
"""


def test_muscle_forces_and_activation_dynamics_match_mujoco():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(XML)
    md = mujoco.MjData(mm)
    plant = MultibodyPlant(float(mm.opt.timestep))
    Parser(plant).AddModelsFromString(XML, "xml")
    plant.Finalize()
    context = plant.CreateDefaultContext()
    actuation = plant._mjcf_actuation
    rng = np.random.default_rng(1)
    for _ in range(25):  # lengths sweep every branch of FL / FP, velocities of FV, ctrl outside [0, 1]
        qpos, qvel = rng.uniform(-1.0, 1.5, 2), 2.0 * rng.normal(size=2)
        act, ctrl = rng.uniform(0.0, 1.0, 3), rng.uniform(-0.2, 1.2, 3)
        md.qpos[:], md.qvel[:], md.act[:], md.ctrl[:] = qpos, qvel, act, ctrl
        mujoco.mj_forward(mm, md)
        SetMujocoState(plant, context, qpos, qvel)
        SetMujocoActivations(plant, context, act)
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        q, v = plant.GetPositions(context), plant.GetVelocities(context)
        np.testing.assert_allclose(actuation.CalcActuatorForces(plant, context, q, v), md.actuator_force,
                                   rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(actuation.CalcActuatorGeneralizedForces(plant, context, q, v), md.qfrc_actuator,
                                   rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(actuation.CalcActivationRates(actuation.EvalCtrl(plant, context), act),
                                   md.act_dot, rtol=1e-12, atol=1e-12)
        mujoco.mj_step(mm, md)
        np.testing.assert_allclose(actuation.CalcNextActivations(actuation.EvalCtrl(plant, context), act), md.act,
                                   rtol=1e-12, atol=1e-12)


def test_muscle_without_lengthrange_gets_mujocos_computed_range():
    """compiler/lengthrange by simulation (parsers/mjcf/lengthrange.py) fills the range the muscle needs."""
    mujoco = require_mujoco()
    xml = XML.replace(' lengthrange="-0.9 1.2"', "")
    with warnings.catch_warnings():
        warnings.simplefilter("error", MjcfUnsupportedWarning)
        Parser(MultibodyPlant(0.002)).AddModelsFromString(xml, "xml")
    ref = mujoco.MjModel.from_xml_string(xml)
    from mallard.parsers.mjcf import load_mjcf
    np.testing.assert_allclose(load_mjcf(xml).actuators[0].lengthrange, ref.actuator_lengthrange[0], rtol=0,
                               atol=1e-6)
