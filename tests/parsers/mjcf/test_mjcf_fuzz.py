"""Fuzz test: mutated model files always fail with an MjcfError naming file, line and element."""
from __future__ import annotations

import re
import tempfile
import warnings
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lxml import etree  # noqa: E402

from mallard.parsers.mjcf import MjcfError, MjcfUnsupportedWarning, load_mjcf  # noqa: E402

MODELS = Path(__file__).resolve().parents[3].parent / "shared" / "models" / "mujoco"
LOCATED = re.compile(r"^(?P<file>.+):(?P<line>\d+): <(?P<tag>[A-Za-z_]+)>: ")

BASE = """<mujoco model="fuzz">
  <default><default class="c"><geom density="500"/></default></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="a" pos="0 0 1">
      <joint name="ja" type="hinge" axis="0 1 0" range="-1 1"/>
      <geom name="ga" type="capsule" size=".05" fromto="0 0 0 0 0 -.5" class="c"/>
      <site name="sa" pos="0 0 -.5"/>
      <body name="b" pos="0 0 -.5">
        <joint name="jb" type="slide" axis="1 0 0"/>
        <geom name="gb" type="box" size=".1 .1 .1"/>
        <site name="sb"/>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="ja" coef="1"/></fixed></tendon>
  <contact><exclude body1="a" body2="b"/><pair geom1="ga" geom2="floor"/></contact>
  <equality><joint joint1="ja" joint2="jb"/></equality>
  <actuator><motor name="m" joint="ja"/><position name="p" tendon="t" kp="10"/></actuator>
  <sensor><jointpos joint="jb"/><framepos objtype="site" objname="sa"/></sensor>
  <keyframe><key qpos="0.1 0.2"/></keyframe>
</mujoco>
"""
SOURCES = [BASE] + [p.read_text() for p in (MODELS / "model" / "humanoid.xml",
                                            MODELS / "testdata" / "actuation" / "tendon_force_clamp.xml")
                    if p.is_file()]
REFS = {"joint", "joint1", "joint2", "body1", "body2", "geom1", "geom2", "site", "tendon", "objname", "mesh",
        "site1", "site2", "tendon1", "body", "actuator", "material"}
FLOAT3 = {"pos", "axis", "anchor", "diaginertia"}
MUTATIONS = ("truncate", "element", "attribute", "length", "class", "reference", "mass", "required",
             "number", "include_missing")


def _elements(root):
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _mutate(text: str, kind: str, pick: int, cut: float) -> str | None:
    if kind == "truncate":
        end = text.rindex("</mujoco>")
        return text[:max(1, int(cut * end))]
    root = etree.fromstring(text.encode())
    els = _elements(root)
    if kind == "element":
        els[pick % len(els)].append(etree.Element("zz_unknown"))
    elif kind == "attribute":
        els[pick % len(els)].set("zz_unknown", "1")
    elif kind == "length":
        cands = [e for e in els if any(a in e.attrib for a in FLOAT3)]
        e = cands[pick % len(cands)]
        e.set(next(a for a in FLOAT3 if a in e.attrib), "1 2")
    elif kind == "number":
        cands = [e for e in els if any(a in e.attrib for a in FLOAT3)]
        e = cands[pick % len(cands)]
        e.set(next(a for a in FLOAT3 if a in e.attrib), "1 2 abc")
    elif kind == "class":
        cands = [e for e in els if e.tag in ("geom", "joint", "site") and e.getparent().tag != "default"
                 and e.getparent().tag not in ("fixed", "spatial")]
        cands[pick % len(cands)].set("class", "zz_undefined_class")
    elif kind == "reference":
        cands = [(e, a) for e in els for a in e.attrib if a in REFS and e.tag != "default"]
        if not cands:
            return None
        e, a = cands[pick % len(cands)]
        e.set(a, "zz_missing_name")
    elif kind == "mass":
        bodies = [e for e in els if e.tag == "body"]
        b = bodies[pick % len(bodies)]
        for old in b.findall("inertial"):
            b.remove(old)
        b.insert(0, etree.fromstring('<inertial pos="0 0 0" mass="-1" diaginertia="1 1 1"/>'))
    elif kind == "required":
        cands = [(e, a) for e in els for a in ("joint", "geom1", "body1", "site", "objname") if a in e.attrib
                 and e.getparent().tag in ("actuator", "contact", "sensor", "fixed")]
        e, a = cands[pick % len(cands)]
        del e.attrib[a]
        if e.tag in ("motor", "position", "general") and a == "joint":
            e.set("joint", "")  # an empty name is a dangling reference
    elif kind == "include_missing":
        parents = [e for e in els if e.tag in ("worldbody", "body", "mujoco", "default")]
        parents[pick % len(parents)].append(etree.fromstring('<include file="zz_missing_file.xml"/>'))
    return etree.tostring(root).decode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=st.sampled_from(range(len(SOURCES))), kind=st.sampled_from(MUTATIONS),
       pick=st.integers(0, 10_000), cut=st.floats(0.0, 1.0))
def test_mutated_models_raise_located_mjcf_error(source, kind, pick, cut):
    text = _mutate(SOURCES[source], kind, pick, cut)
    if text is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.xml"
        path.write_text(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MjcfUnsupportedWarning)
            with pytest.raises(MjcfError) as info:
                load_mjcf(path)
    msg = str(info.value)
    m = LOCATED.match(msg)
    assert m, f"{kind}: message without file:line: <element>: {msg}"
    assert m["file"].endswith("model.xml") or "zz" in msg, msg


def test_include_cycle_is_detected_without_hanging(tmp_path):
    (tmp_path / "a.xml").write_text('<mujoco><include file="b.xml"/></mujoco>')
    (tmp_path / "b.xml").write_text('<mujoco><include file="c.xml"/></mujoco>')
    (tmp_path / "c.xml").write_text('<mujoco><include file="a.xml"/></mujoco>')
    with pytest.raises(MjcfError, match="cycle"):
        load_mjcf(tmp_path / "a.xml")
