"""The compiler's qpos0 constants computed once and shared (body poses, dof axes, composite inertias, the
qpos0 kinematics; qpos_spring kinematics only when a spatial tendon needs them) equal MuJoCo's: tendon
length0 / lengthspring for fixed and spatial tendons, dof_M0, invweights and the dampratio damping."""
from __future__ import annotations

import numpy as np

from oracles import require_mujoco

from mallard.parsers.mjcf.compiler import load_mjcf

XML = """
<mujoco>
  <worldbody>
    <site name="anchor" pos="0 0 1"/>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" springref="0.4" stiffness="2" ref="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <site name="elbow_site" pos="0.2 0 0.05"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" springref="-0.3" stiffness="1"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
        <site name="hand" pos="0.25 0 0"/>
        <body name="wrist" pos="0.25 0 0">
          <joint name="wrist" type="ball" stiffness="0.5"/>
          <geom type="sphere" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="coupling"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="-0.5"/></fixed>
    <spatial name="cable"><site site="anchor"/><site site="elbow_site"/><site site="hand"/></spatial>
  </tendon>
  <actuator>
    <position joint="shoulder" kp="20" dampratio="1"/>
    <position tendon="cable" kp="5" dampratio="0.7"/>
  </actuator>
</mujoco>
"""


def test_tendon_lengths_and_constants_match_mujoco():
    mujoco = require_mujoco()
    ref = mujoco.MjModel.from_xml_string(XML)
    model = load_mjcf(XML)
    np.testing.assert_allclose([t.length0 for t in model.tendons], ref.tendon_length0, rtol=0, atol=1e-12)
    np.testing.assert_allclose([t.lengthspring for t in model.tendons], ref.tendon_lengthspring, rtol=0, atol=1e-12)
    assert model.tendons[1].lengthspring[0] != model.tendons[1].length0  # the qpos_spring kinematics were used
    np.testing.assert_allclose(model.dof_M0, ref.dof_M0, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.dof_invweight0, ref.dof_invweight0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.body_invweight0, ref.body_invweight0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose([a.biasprm[2] for a in model.actuators], ref.actuator_biasprm[:, 2], rtol=1e-10)
