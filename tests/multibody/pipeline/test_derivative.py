"""The velocity derivative of the actuator forces in MuJoCo's implicit integrators (derivative.py actuator_vel and
the Python path's mjcf/implicit.py): an actuator whose transmission joint's actuator torque is clamped by the
joint's actuatorfrcrange contributes no derivative while it is clamped (MuJoCo 4.0's qDeriv), an actuator on a
tendon through that joint still does. Compared with mj_step's qDeriv and trajectory."""
from __future__ import annotations

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.multibody.mjcf.actuation import GetMujocoCtrlInputPort
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.multibody.plant._pipeline_step import UncompiledFeatures

# a damped double pendulum: a position servo (kp, kv) and a velocity servo on the shoulder, whose actuator torque
# is limited to ±5 N m, and a velocity servo on a tendon coupling both joints
ARM = """<mujoco><option timestep="0.002" integrator="{integrator}"/>
<worldbody><body><joint name="a" axis="0 1 0" damping="0.1" actuatorfrcrange="-5 5"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
  <body pos=".3 0 0"><joint name="b" axis="0 1 0" damping="0.2"/>
    <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/></body></body></worldbody>
<tendon><fixed name="t"><joint joint="a" coef="1"/><joint joint="b" coef="0.5"/></fixed></tendon>
<actuator><position joint="a" kp="100" kv="10"/><velocity joint="a" kv="7"/><velocity tendon="t" kv="3"/></actuator>
</mujoco>"""


@pytest.mark.parametrize("integrator", ["implicitfast", "implicit"])
def test_clamped_joint_actuators_have_no_velocity_derivative(integrator):
    mujoco = require_mujoco()
    text = ARM.format(integrator=integrator)
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    md.qvel[:] = [6.0, -2.0]
    ctrl = np.array([0.4, 0.0, 0.0])
    md.ctrl[:] = ctrl
    runs = []
    for python in (False, True):
        plant, _, _, context = build_mjcf_scene(text)
        if python:
            plant._pipeline.features = ["the Python path, for comparison"]
        else:
            assert UncompiledFeatures(plant) == []
        plant.SetVelocities(context, md.qvel.copy())
        GetMujocoCtrlInputPort(plant).FixValue(context, ctrl)
        runs.append((plant, context))
    clamped = []
    for k in range(300):
        mujoco.mj_step(mm, md)
        qd = np.zeros((mm.nv, mm.nv))
        mujoco.mju_sparse2dense(qd, md.qDeriv, mm.D_rownnz, mm.D_rowadr, mm.D_colind)
        clamped.append(abs(md.qfrc_actuator[0]) >= 5.0)
        if integrator == "implicitfast":  # MuJoCo's own qDeriv: damping and the three servos' kv, or, clamped,
            # damping and the tendon servo's (the joint servos' 10 + 7 gone)
            assert qd[0, 0] == pytest.approx(-0.1 - 3.0 if clamped[-1] else -0.1 - 20.0, abs=1e-12)
        for plant, context in runs:
            plant._DiscreteStepUpdate(context, context.get_mutable_state())
            qpos, qvel = GetMujocoState(plant, context)
            np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-11, err_msg=f"step {k}")
            np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-9, err_msg=f"step {k}")
    assert clamped[0] and not clamped[-1]  # clamped at first, free later
