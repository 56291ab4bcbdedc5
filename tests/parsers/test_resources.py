"""Resource providers: registration rules, data: URIs, routing, errors, and MJCF models living in one string."""
from __future__ import annotations

import base64
import urllib.parse
from pathlib import Path

import numpy as np
import pytest

from mallard.parsers.mjcf import MjcfError, load_mjcf
from mallard.parsers.resources import (JoinResourceName, OpenResource, ParseDataUri, ReadResource,
                                       RegisterResourceProvider, ResourceDirectory, UnregisterResourceProvider)
from oracles import require_mujoco

MESH = "drake_models/iiwa_description/meshes/iiwa14/collision/link_7_polytope.obj"


class MemoryStore:
    """A provider serving files from a dict, recording its callback calls."""

    def __init__(self, prefix: str, files: dict[str, bytes]):
        self.prefix = prefix
        self.files = files
        self.calls: list[str] = []

    def open(self, res):
        self.calls.append("open")
        key = res.name.split(":", 1)[1]
        if key not in self.files:
            return False
        res.data = self.files[key]
        return True

    def read(self, res):
        self.calls.append("read")
        return res.data

    def close(self, res):
        self.calls.append("close")
        res.data = None

    def getdir(self, res):
        return res.name[: res.name.rfind("/") + 1]


@pytest.fixture
def mem():
    stores = []

    def make(prefix, files):
        s = MemoryStore(prefix, files)
        RegisterResourceProvider(prefix, s.open, s.read, s.close, getdir=s.getdir, data={"owner": prefix})
        stores.append(s)
        return s

    yield make
    for s in stores:
        UnregisterResourceProvider(s.prefix)


def test_data_uri_base64_and_percent_encoded():
    assert ParseDataUri("data:,A%20brief%20note") == ("text/plain;charset=US-ASCII", b"A brief note")
    payload = b"v 1 0 0\nv 0 1 0\n"
    uri = "data:model/obj;base64," + base64.b64encode(payload).decode()
    assert ParseDataUri(uri) == ("model/obj", payload)
    assert ParseDataUri("data:text/plain;charset=utf-8,h%C3%A9") == ("text/plain;charset=utf-8", "hé".encode())
    # base64 split over lines (as in a pretty-printed XML attribute) still decodes
    enc = base64.b64encode(payload).decode()
    assert ParseDataUri("data:model/obj;base64," + enc[:8] + "\n  " + enc[8:])[1] == payload
    with OpenResource(uri) as res:
        assert res.read() == payload
        assert res.content_type == "model/obj"


def test_data_uri_errors():
    with pytest.raises(ValueError, match="no ','"):
        ParseDataUri("data:model/obj;base64")
    with pytest.raises(ValueError, match="invalid base64"):
        ParseDataUri("data:model/obj;base64,I215IG9iamVjd!==")
    with pytest.raises(ValueError, match="invalid media type"):
        ParseDataUri("data:modelobj;base64,AAAA")
    with pytest.raises(ValueError, match="invalid parameter"):
        ParseDataUri("data:model/obj;base65,I215")  # the seed's typo is not a valid encoding
    with pytest.raises(ValueError, match="provider 'data' cannot open"):
        OpenResource("data:model/obj;base64,@@@")


def test_scheme_is_case_insensitive_and_routes_to_provider(mem):
    store = mem("mem", {"robots/a.txt": b"hello"})
    assert ReadResource("MEM:robots/a.txt") == b"hello"
    assert ReadResource("mem:robots/a.txt") == b"hello"
    assert store.calls == ["open", "read", "close"] * 2
    with OpenResource("Mem:robots/a.txt") as res:
        assert res.provider.prefix == "mem"
        assert res.provider_data == {"owner": "mem"}
        assert res.getdir() == "Mem:robots/"
    assert ReadResource("DaTa:,x") == b"x"


def test_registration_rules(mem):
    mem("mem", {})
    s = MemoryStore("mem", {})
    with pytest.raises(ValueError, match="already registered"):
        RegisterResourceProvider("MEM", s.open, s.read, s.close)
    with pytest.raises(ValueError, match="conflicts"):
        RegisterResourceProvider("memx", s.open, s.read, s.close)
    with pytest.raises(ValueError, match="conflicts"):
        RegisterResourceProvider("me", s.open, s.read, s.close)
    with pytest.raises(ValueError, match="conflicts with the registered prefix 'data'"):
        RegisterResourceProvider("dat", s.open, s.read, s.close)
    for bad in ("", "1abc", "a b", "a:b", "ht/tp", None):
        with pytest.raises(ValueError, match="not a valid URI scheme"):
            RegisterResourceProvider(bad, s.open, s.read, s.close)
    with pytest.raises(TypeError, match="'read' must be callable"):
        RegisterResourceProvider("other", s.open, 3, s.close)
    with pytest.raises(ValueError, match="cannot be unregistered"):
        UnregisterResourceProvider("data")
    with pytest.raises(KeyError, match="no resource provider registered for scheme 'nope'"):
        UnregisterResourceProvider("nope")
    # the identical provider registered again keeps its slot
    t = MemoryStore("twice", {})
    slot = RegisterResourceProvider("twice", t.open, t.read, t.close)
    try:
        assert RegisterResourceProvider("TWICE", t.open, t.read, t.close) == slot >= 1
    finally:
        UnregisterResourceProvider("twice")


def test_unknown_scheme_and_failed_reads(mem, tmp_path):
    with pytest.raises(ValueError, match="unknown resource scheme 'nosuch'.*RegisterResourceProvider"):
        ReadResource("nosuch:thing.obj")
    with pytest.raises(FileNotFoundError, match="not found"):
        ReadResource(str(tmp_path / "missing.obj"))
    mem("mem", {"ok": b"1"})
    with pytest.raises(OSError, match="provider 'mem' cannot open 'mem:absent'"):
        ReadResource("mem:absent")

    def bad_read(res):
        return None

    RegisterResourceProvider("broken", lambda r: True, bad_read, lambda r: None)
    try:
        with pytest.raises(OSError, match="failed to read 'broken:x'"):
            ReadResource("broken:x")
    finally:
        UnregisterResourceProvider("broken")


def test_file_fallback_and_name_joining(tmp_path, mem):
    f = tmp_path / "a.txt"
    f.write_bytes(b"abc")
    assert ReadResource(str(f)) == b"abc"
    assert ReadResource("a.txt", base=tmp_path) == b"abc"
    assert ResourceDirectory(str(f)) == tmp_path.resolve()
    mem("mem", {})
    assert JoinResourceName("mem:dir/", "x.obj") == "mem:dir/x.obj"
    assert JoinResourceName(tmp_path, "data:,x") == "data:,x"
    assert JoinResourceName(tmp_path, "x.obj") == str(tmp_path / "x.obj")


def _obj_uri(path: Path) -> str:
    return "data:model/obj;base64," + base64.b64encode(path.read_bytes()).decode()


def _model(mesh_file: str, extra: str = "") -> str:
    return f"""<mujoco model="m">
  <asset><mesh name="link" file="{mesh_file}" {extra}/></asset>
  <worldbody><body name="b"><freejoint/><geom type="mesh" mesh="link" density="800"/></body></worldbody>
</mujoco>"""


def test_mjcf_with_data_uri_mesh_matches_mujoco_from_files(models_dir, tmp_path):
    mujoco = require_mujoco()
    mesh_path = models_dir / MESH
    (tmp_path / "link.obj").write_bytes(mesh_path.read_bytes())
    (tmp_path / "m.xml").write_text(_model("link.obj"))
    ref = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    # the whole model, mesh included, as one data: URI string
    xml = _model(_obj_uri(mesh_path))
    model_uri = "data:text/xml," + urllib.parse.quote(xml)
    file_model = load_mjcf(tmp_path / "m.xml")
    from_file = file_model.bodies[1]
    for source in (xml, model_uri):
        m = load_mjcf(source)
        b = m.bodies[1]
        # identical to our own file-based load, and to MuJoCo's up to its float32 vertex storage
        assert b.mass == from_file.mass
        np.testing.assert_array_equal(b.inertia, from_file.inertia)
        assert b.mass == pytest.approx(ref.body_mass[1], rel=1e-6)
        np.testing.assert_allclose(b.inertia, ref.body_inertia[1], rtol=1e-6)
        np.testing.assert_allclose(b.ipos, ref.body_ipos[1], atol=1e-7)
        np.testing.assert_array_equal(m.meshes[0].vertices, file_model.meshes[0].vertices)


def test_mjcf_include_and_mesh_through_provider(models_dir, mem):
    mesh = (models_dir / MESH).read_bytes()
    body = b"""<mujoco><body name="b"><freejoint/><geom type="mesh" mesh="link"/></body></mujoco>"""
    main = b"""<mujoco model="p"><compiler meshdir="meshes"/>
      <asset><mesh name="link" file="link.obj"/></asset>
      <worldbody><include file="parts/body.xml"/></worldbody></mujoco>"""
    store = mem("mem", {"robot/main.xml": main, "robot/parts/body.xml": body, "robot/meshes/link.obj": mesh})
    m = load_mjcf("MEM:robot/main.xml")
    assert [b.name for b in m.bodies] == ["world", "b"]
    assert m.bodies[1].mass > 0
    assert store.calls.count("open") == 3 and store.calls.count("close") == 3


def test_mjcf_resource_errors_are_located(models_dir):
    bad_include = '<mujoco>\n<worldbody>\n<include file="nosuch:part.xml"/>\n</worldbody></mujoco>'
    with pytest.raises(MjcfError, match=r"<string>:3: <include>.*unknown resource scheme 'nosuch'"):
        load_mjcf(bad_include)
    bad_b64 = _model("data:model/obj;base64,@@@@")
    with pytest.raises(MjcfError, match=r"<string>:2: <mesh>: cannot read mesh file 'data:model/obj;base64,@@@@'"):
        load_mjcf(bad_b64)
    no_type = _model("data:application/octet-stream;base64," + base64.b64encode(b"v 0 0 0").decode())
    with pytest.raises(MjcfError, match=r"<mesh>: mesh file .* only .obj and .stl"):
        load_mjcf(no_type)
    # content_type on the mesh element overrides the media type of the URI
    mesh = (models_dir / MESH).read_bytes()
    ok = _model("data:application/octet-stream;base64," + base64.b64encode(mesh).decode(), 'content_type="model/obj"')
    assert load_mjcf(ok).bodies[1].mass > 0
    with pytest.raises(MjcfError, match="unknown resource scheme 'nosuch'"):
        load_mjcf("nosuch:model.xml")
    with pytest.raises(MjcfError, match=r"data:text/xml,%3Cmujoco:1: <xml>: malformed XML"):
        load_mjcf("data:text/xml,%3Cmujoco")
    with pytest.raises(MjcfError, match=r"cannot read MJCF model 'data:text/xml;base64,!!'.*invalid base64"):
        load_mjcf("data:text/xml;base64,!!")
