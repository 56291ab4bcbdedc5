"""compiler/lengthrange by simulation (lengthrange.py) against MuJoCo's actuator_lengthrange.

The procedure runs the same Euler steps as MuJoCo (no gravity, springs, dampers, friction or contacts), so the
ranges agree to the accuracy of the constraint solves at the soft limits: ~1e-8 on the muscle arm, asserted at
1e-6, far inside the procedure's own tolrange (5% of the range by default). Where the solver's termination test
(option tolerance, scaled by the mean inertia) leaves the limit solves loose — a light hinge on a heavy slider
below — the two solvers stop at slightly different iterates and the ranges differ by up to ~1e-5 of the range
at the default tolerance 1e-8; that model is therefore run at tolerance 1e-12 (difference ~6e-8).
"""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfError, load_mjcf

ARM = """<mujoco model="arm">
<worldbody>
  <site name="s0" pos="0 0 0.15"/>
  <body name="upper"><joint name="shoulder" axis="0 1 0" range="-60 90" armature="0.01" damping="0.3"
    stiffness="2"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/><site name="s1" pos="0.15 0 0.04"/>
    <body name="fore" pos="0.3 0 0"><joint name="elbow" axis="0 1 0" range="0 120" frictionloss="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025"/><site name="s2" pos="0.1 0 0.03"/></body></body>
</worldbody>
<tendon><spatial name="biceps"><site site="s0"/><site site="s1"/><site site="s2"/></spatial>
  <fixed name="flex"><joint joint="shoulder" coef="0.02"/><joint joint="elbow" coef="-0.03"/></fixed></tendon>
<actuator><muscle name="m_sh" joint="shoulder"/><muscle name="biceps" tendon="biceps"/>
  <muscle name="flex" tendon="flex" force="30"/><muscle name="given" joint="elbow" lengthrange="0.1 1"/></actuator>
</mujoco>"""

OPTIONS = """<mujoco model="opts"><option tolerance="1e-12"/>
<compiler><lengthrange mode="all" timestep="0.02" inttotal="4" interval="1" accel="40" maxforce="3"
  timeconst="0.5"/></compiler>
<worldbody><body><joint name="slide" type="slide" axis="1 0 0" range="-0.2 0.3"/>
  <geom type="box" size=".1 .1 .1"/>
  <body pos="0 0 0.3"><joint name="hinge" axis="0 0 1" range="-30 45"/><geom type="sphere" size=".05"/></body>
</body></worldbody>
<actuator><motor name="push" joint="slide" gear="2"/><position name="turn" joint="hinge" kp="10"/></actuator>
</mujoco>"""


def _ranges(model) -> np.ndarray:
    return np.array([a.lengthrange for a in model.actuators])


@pytest.mark.parametrize("text", [ARM, OPTIONS], ids=["muscles", "options"])
def test_lengthrange_matches_mujoco(text):
    mujoco = require_mujoco()
    ref = mujoco.MjModel.from_xml_string(text)
    m = load_mjcf(text)
    np.testing.assert_allclose(_ranges(m), ref.actuator_lengthrange, rtol=0, atol=1e-6)
    assert np.all(_ranges(m)[:, 1] > _ranges(m)[:, 0])


def test_explicit_and_uselimit_ranges_are_kept():
    m = load_mjcf(ARM.replace("<worldbody>", '<compiler><lengthrange uselimit="true"/></compiler><worldbody>'))
    np.testing.assert_allclose(m.actuators[0].lengthrange, np.deg2rad([-60, 90]), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.actuators[3].lengthrange, [0.1, 1.0])
    m = load_mjcf(ARM.replace("<worldbody>", '<compiler><lengthrange mode="none"/></compiler><worldbody>'))
    np.testing.assert_array_equal(_ranges(m)[:3], 0.0)


def test_unbounded_actuator_is_rejected_like_mujoco():
    mujoco = require_mujoco()
    text = ARM.replace(' range="-60 90"', "")  # the shoulder muscle now spins the arm without bound
    with pytest.raises(ValueError, match="(?i)lengthrange computation did not converge in actuator 0"):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(MjcfError, match=r"did not converge in actuator 0 'm_sh'.*limit"):
        load_mjcf(text)
