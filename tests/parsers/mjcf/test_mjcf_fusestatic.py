"""compiler fusestatic: static bodies fused into their parents exactly as MuJoCo's compiler does (oracle)."""
from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfUnsupportedWarning, load_mjcf

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_mjcf_oracle_helpers", _HERE / "test_mjcf_oracle.py")
_oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_oracle)
MODELS = _oracle.MODELS


def _fused_text(text: str) -> str:
    return re.sub(r"(<mujoco\b[^>]*>)", r'\1<compiler fusestatic="true"/>', text, count=1)


def _static_body_files():
    out = []
    for f in sorted(MODELS.rglob("*.xml")) if MODELS.is_dir() else []:
        text = f.read_text()
        if "file=" in text or "<include" in text or "fusestatic" in text:
            continue
        bodies = re.findall(r"<body\b", text)
        if bodies:
            out.append(f)
    return out


FILES = _static_body_files()

TREE = """<mujoco model="fuse">
<compiler fusestatic="true"/>
<worldbody>
  <body name="ground_deco" pos="0 0 -0.1" euler="0 0 30"><geom type="box" size="1 1 .05" mass="3"/>
    <site name="deco_site" pos="0.2 0 0"/><camera name="cam" pos="0 -1 1" xyaxes="1 0 0 0 .7 .7"/>
    <light name="lamp" pos="0 0 2" dir="0 0.3 -1"/></body>
  <body name="base" pos="0 0 1"><freejoint/><geom type="sphere" size=".1" mass="1"/>
    <body name="plate" pos="0.1 0.2 0" euler="20 10 0"><geom type="box" size=".2 .1 .02" mass="0.5"/>
      <site name="plate_site" pos="0 0.05 0.03" euler="0 30 0"/>
      <body name="knob" pos="0.15 0 0.04" euler="0 0 45">
        <inertial pos="0.01 0 0" mass="0.2" diaginertia="1e-3 2e-3 3e-3"/>
        <body pos="0 0 0.1"><geom type="capsule" size=".02 .05" mass="0.1"/></body></body>
      <body name="arm" pos="0.2 0 0"><joint name="hinge" axis="0 1 0"/><geom type="capsule" size=".03 .2"
        fromto="0 0 0 .4 0 0"/>
        <body name="tip" pos="0.4 0 0"><geom type="sphere" size=".05"/></body></body></body>
    <body name="kept_by_sensor" pos="0 0 -0.2"><geom type="box" size=".1 .1 .1"/></body>
    <body name="kept_by_exclude" pos="0 0 0.2"><geom type="box" size=".05 .05 .05"/></body>
    <body name="kept_by_force" pos="0.3 0 0"><geom type="sphere" size=".04"/><site name="ft"/></body>
  </body>
</worldbody>
<contact><exclude body1="kept_by_exclude" body2="base"/></contact>
<sensor><subtreecom body="kept_by_sensor"/><force site="ft"/><framepos objtype="site" objname="plate_site"/></sensor>
</mujoco>"""


def _load_text(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MjcfUnsupportedWarning)
        return load_mjcf(text)


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(MODELS)) for f in FILES])
def test_shared_models_with_fusestatic_match_mujoco(path):
    mujoco = require_mujoco()
    text = _fused_text(path.read_text())
    ref = mujoco.MjModel.from_xml_string(text)
    m = _load_text(text)
    _oracle.compare_with_mujoco(m, ref, mujoco)


def test_humanoid_fuses_three_static_bodies(models_dir):
    mujoco = require_mujoco()
    text = _fused_text((models_dir / "mujoco" / "model" / "humanoid.xml").read_text())
    m = _load_text(text)
    ref = mujoco.MjModel.from_xml_string(text)
    assert m.nbody == ref.nbody == 14
    np.testing.assert_allclose([b.mass for b in m.bodies], ref.body_mass, rtol=0, atol=1e-12)
    assert sum(b.mass for b in m.bodies) == pytest.approx(sum(b.mass for b in _load_text(
        (models_dir / "mujoco" / "model" / "humanoid.xml").read_text()).bodies), rel=1e-14)


def test_fusestatic_rules_match_mujoco():
    """Nested static bodies, a static body under the world (its mass is dropped), explicit inertials, moved
    sites / cameras / lights, and bodies kept because a sensor, an exclude or a force sensor's site names them."""
    mujoco = require_mujoco()
    ref = mujoco.MjModel.from_xml_string(TREE)
    m = _load_text(TREE)
    _oracle.compare_with_mujoco(m, ref, mujoco)
    names = [b.name for b in m.bodies]
    assert names == [ref.body(i).name for i in range(ref.nbody)]
    assert names == ["world", "base", "arm", "kept_by_sensor", "kept_by_exclude", "kept_by_force"]
    # plate + knob + its unnamed child go into base, tip into arm, ground_deco (and its mass) into the world
    assert m.bodies[1].mass == pytest.approx(1 + 0.5 + 0.2 + 0.1, rel=1e-14)
    for i, cam in enumerate(m.cameras):
        assert cam.body == ref.cam_bodyid[i]
        np.testing.assert_allclose(cam.pos, ref.cam_pos[i], atol=1e-9)
        q = np.asarray(cam.quat)
        assert np.allclose(q, ref.cam_quat[i], atol=1e-9) or np.allclose(q, -ref.cam_quat[i], atol=1e-9)
    for i, light in enumerate(m.lights):
        assert light.body == ref.light_bodyid[i]
        np.testing.assert_allclose(light.pos, ref.light_pos[i], atol=1e-9)
        np.testing.assert_allclose(light.dir, ref.light_dir[i], atol=1e-9)


def test_without_fusestatic_nothing_is_fused():
    m = _load_text(TREE.replace('<compiler fusestatic="true"/>', ""))
    assert len(m.bodies) == 11
    assert [g.body for g in m.geoms][:2] == [1, 2]
