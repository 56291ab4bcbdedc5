"""MJCF engine plugins: <extension>, explicit and implicit instances, shared instances, located errors."""
from __future__ import annotations

import urllib.parse

import numpy as np
import pytest

from mallard.multibody.plugins import Capability, Plugin, RegisterPlugin, UnregisterPlugin
from mallard.parsers.mjcf import MjcfError, load_mjcf
from oracles import require_mujoco

EXT = """<extension>
    <plugin plugin="mallard.actuator.dcmotor">
      <instance name="motor">
        <config key="resistance" value="2"/>
        <config key="inductance" value="0.01"/>
      </instance>
    </plugin>
  </extension>"""
ARM = """<worldbody>
    <body name="arm"><joint name="hinge"/><geom type="capsule" size="0.05 0.2"/></body>
    <body name="arm2" pos="1 0 0"><joint name="hinge2"/><geom type="capsule" size="0.05 0.2"/></body>
  </worldbody>"""


def _model(*sections: str) -> str:
    return "<mujoco>\n  " + "\n  ".join(sections) + "\n</mujoco>\n"


def _load_file(tmp_path, text: str):
    path = tmp_path / "model.xml"
    path.write_text(text)
    return load_mjcf(path), path


def _error(tmp_path, text: str, line_of: str, tag: str, message: str) -> None:
    """Loading `text` fails with an MjcfError located at the first line containing `line_of`."""
    path = tmp_path / "bad.xml"
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if line_of in t)
    with pytest.raises(MjcfError) as err:
        load_mjcf(path)
    assert str(err.value).startswith(f"{path}:{line}: <{tag}>: "), str(err.value)
    assert message in str(err.value), str(err.value)


def test_thermometer_in_a_motor_shares_one_instance(tmp_path):
    text = _model(EXT, ARM, """<actuator>
    <motor name="plain" joint="hinge2"/>
    <plugin name="motor" joint="hinge" instance="motor" dyntype="filter" dynprm="0.05" ctrlrange="-12 12"/>
  </actuator>""", """<sensor>
    <jointpos joint="hinge"/>
    <plugin name="temperature" instance="motor"/>
  </sensor>""")
    m, _ = _load_file(tmp_path, text)
    assert m.nplugin == 1 and m.npluginstate == 1
    inst = m.plugins[0]
    assert (inst.name, inst.plugin, inst.explicit) == ("motor", "mallard.actuator.dcmotor", True)
    assert inst.config["resistance"] == 2.0 and inst.config["inductance"] == 0.01
    assert inst.config["motorconst"] == 0.1  # declared default
    assert inst.actuators == [1] and inst.sensors == [1] and inst.bodies == [] and inst.geoms == []
    assert (inst.stateadr, inst.nstate) == (0, 1)
    act = m.actuators[1]
    # the plugin's current first, then the filter activation of dyntype (spec §12.4)
    assert (act.plugin, act.plugin_actdim, act.actdim, act.actadr, act.dyntype) == (0, 1, 2, 0, "filter")
    assert m.na == 2 and m.actuators[0].plugin == -1 and act.ctrllimited
    np.testing.assert_array_equal(act.ctrlrange, [-12, 12])
    sensor = m.sensors[1]
    assert (sensor.type, sensor.plugin, sensor.dim, sensor.name) == ("plugin", 0, 1, "temperature")


def test_implicit_instances_one_per_element(tmp_path):
    text = _model("""<extension><plugin plugin="mallard.actuator.dcmotor"/></extension>""", ARM, """<actuator>
    <plugin name="m1" joint="hinge" plugin="mallard.actuator.dcmotor">
      <config key="resistance" value="3"/>
    </plugin>
    <plugin name="m2" joint="hinge2" plugin="mallard.actuator.dcmotor"/>
  </actuator>""", """<sensor><plugin name="t" plugin="mallard.actuator.dcmotor"/></sensor>""")
    m, _ = _load_file(tmp_path, text)
    assert m.nplugin == 3
    assert [p.name for p in m.plugins] == ["", "", ""] and not any(p.explicit for p in m.plugins)
    assert [p.config["resistance"] for p in m.plugins] == [3.0, 1.0, 1.0]
    assert [p.actuators for p in m.plugins] == [[0], [1], []] and m.plugins[2].sensors == [0]
    assert [p.stateadr for p in m.plugins] == [0, 1, 2] and m.na == 0  # no inductance: quasi-static current


def _bowl(config: str = '<config key="height" value="0.4"/><config key="radius" value="1"/>') -> str:
    return _model(f"""<extension><plugin plugin="mujoco.sdf.bowl">
    <instance name="bowl">{config}</instance></plugin></extension>""",
                  """<asset><mesh name="bowl"><plugin instance="bowl"/></mesh></asset>""",
                  """<worldbody>
    <geom type="sdf" name="bowl" mesh="bowl"><plugin instance="bowl"/></geom>
    <body name="ball" pos="0 0 -0.8"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody>""")


def test_sdf_geom_and_mesh_against_mujoco(tmp_path):
    mujoco = require_mujoco()
    text = _bowl()
    m, path = _load_file(tmp_path, text)
    ref = mujoco.MjModel.from_xml_path(str(path))
    assert m.nplugin == ref.nplugin == 1
    assert len(m.geoms) == ref.ngeom and len(m.meshes) == ref.nmesh
    g = m.geoms[0]
    assert g.type == "sdf" and ref.geom_type[0] == mujoco.mjtGeom.mjGEOM_SDF
    assert g.plugin == 0 and ref.geom_plugin[0] == 0 and g.mesh == 0
    inst = m.plugins[0]
    assert inst.geoms == [0] and inst.meshes == [0] and m.meshes[0].plugin == 0
    assert inst.config == {"height": 0.4, "radius": 1.0, "thickness": 0.02}
    # the visualization mesh is not re-centred: the geom frame stays the SDF frame, as in MuJoCo
    np.testing.assert_array_equal(g.pos, ref.geom_pos[0])
    np.testing.assert_array_equal(ref.mesh_pos[0], [0, 0, 0])
    np.testing.assert_array_equal(m.meshes[0].pos, [0, 0, 0])
    # the extracted surface spans the same region as MuJoCo's marching-cubes mesh
    lo, hi = m.meshes[0].vertices.min(axis=0), m.meshes[0].vertices.max(axis=0)
    ref_v = ref.mesh_vert[ref.mesh_vertadr[0]:ref.mesh_vertadr[0] + ref.mesh_vertnum[0]]
    np.testing.assert_allclose(lo, ref_v.min(axis=0), atol=0.03)
    np.testing.assert_allclose(hi, ref_v.max(axis=0), atol=0.03)
    assert m.option.sdf_initpoints == ref.opt.sdf_initpoints and m.option.sdf_iterations == ref.opt.sdf_iterations


def test_sdf_geom_mass_from_its_marching_cubes_mesh_as_in_mujoco(tmp_path):
    """MuJoCo gives an sdf geom the mass and box inertia of its plugin mesh (marching cubes on its grid, no
    re-centring: the largest principal moment lands on the geom's x axis); MuJoCo's model/plugin/sdf/torus.xml
    had massless bodies here. MuJoCo's cube tables split a few cell polygons along other diagonals: ~1e-5."""
    mujoco = require_mujoco()
    text = _model("""<extension><plugin plugin="mujoco.sdf.torus"><instance name="t">
    <config key="radius1" value="0.35"/><config key="radius2" value="0.15"/></instance></plugin></extension>""",
                  """<asset><mesh name="torus"><plugin instance="t"/></mesh></asset>""",
                  """<worldbody><body pos="0 0 1"><freejoint/>
    <geom type="sdf" mesh="torus" density="700"><plugin instance="t"/></geom></body></worldbody>""")
    m, path = _load_file(tmp_path, text)
    ref = mujoco.MjModel.from_xml_path(str(path))
    assert (len(m.meshes[0].vertices), len(m.meshes[0].faces)) == (ref.mesh_vertnum[0], ref.mesh_facenum[0])
    assert m.bodies[1].mass == pytest.approx(ref.body_mass[1], rel=2e-5)
    np.testing.assert_allclose(m.bodies[1].inertia, ref.body_inertia[1], rtol=5e-5)
    np.testing.assert_array_equal(m.bodies[1].ipos, ref.body_ipos[1])


def test_model_with_plugins_from_a_data_uri():
    text = _bowl()
    m = load_mjcf("data:text/xml," + urllib.parse.quote(text))
    assert m.nplugin == 1 and m.geoms[0].plugin == 0


class Damper(Plugin):
    """A passive plugin for body/plugin elements."""

    name = "test.passive.damper"
    capabilities = Capability.PASSIVE

    def compute(self, capability, instance, data, frame):
        frame.qfrc_passive[:] = -frame.qvel


@pytest.fixture
def damper():
    RegisterPlugin(Damper)
    yield
    UnregisterPlugin(Damper.name)


def test_body_plugins_bind_to_their_bodies(tmp_path, damper):
    text = _model("""<extension><plugin plugin="test.passive.damper"><instance name="d"/></plugin></extension>""",
                  """<worldbody>
    <body name="a"><joint/><geom size="0.1"/><plugin instance="d"/></body>
    <body name="b"><joint/><geom size="0.1"/><plugin instance="d"/></body>
    <body name="c"><joint/><geom size="0.1"/><plugin plugin="test.passive.damper"/></body>
  </worldbody>""")
    m, _ = _load_file(tmp_path, text)
    assert [b.plugin for b in m.bodies] == [-1, 0, 0, 1]
    assert m.plugins[0].bodies == [1, 2] and m.plugins[1].bodies == [3]


SENSOR_PLUGIN = '<sensor><plugin name="t" instance="motor"/></sensor>'


@pytest.mark.parametrize("text,line_of,tag,message", [
    (_model('<extension><plugin plugin="nosuch.plugin"/></extension>'), "nosuch", "plugin",
     "plugin 'nosuch.plugin' is not registered (registered: mallard.actuator.dcmotor"),
    (_model(ARM, '<actuator><plugin joint="hinge" plugin="mallard.actuator.dcmotor"/></actuator>'),
     "<actuator><plugin", "plugin", "plugin 'mallard.actuator.dcmotor' is not declared; add <extension>"),
    (_model(EXT, ARM, '<actuator><plugin joint="hinge" instance="moter"/></actuator>'), "moter", "plugin",
     "undefined plugin instance 'moter' (declared instances: motor)"),
    (_model(EXT, ARM, '<actuator><plugin joint="hinge" instance="motor">\n<config key="resistance" value="1"/>'
                      '\n</plugin></actuator>'), 'key="resistance" value="1"', "config",
     "config is not allowed on an element that references the existing instance 'motor'"),
    (_model(EXT, ARM, '<actuator><plugin joint="hinge" instance="motor" plugin="mallard.sensor.other"/>'
                      '</actuator>'), "<actuator><plugin", "plugin", "does not match instance 'motor'"),
    (_model(EXT, '<sensor><plugin name="t"/></sensor>'), '<plugin name="t"/>', "plugin",
     "give 'plugin' (implicit instance) or 'instance'"),
    (_model(EXT.replace('key="resistance" value="2"', 'key="resistence" value="2"')), "resistence", "config",
     "plugin 'mallard.actuator.dcmotor': unknown config attribute 'resistence' (valid: resistance,"),
    (_model(EXT.replace('value="0.01"', 'value="-1"')), 'value="-1"', "config",
     "config attribute 'inductance': value -1 must be >= 0"),
    (_model(EXT.replace('key="inductance"', 'key="resistance"')), 'key="resistance" value="0.01"', "config",
     "repeated config key 'resistance'"),
    (_model(EXT.replace('</plugin>', '<instance name="motor"/></plugin>')), '<instance name="motor"/>',
     "instance", "repeated plugin instance name 'motor'"),
    (_model(_bowl().split("<mujoco>")[1].split("<asset>")[0], ARM,
            '<sensor><plugin name="t" instance="bowl"/></sensor>'), '<sensor><plugin', "plugin",
     "plugin 'mujoco.sdf.bowl' has no SENSOR capability, so it cannot back a sensor"),
    (_model(EXT, '<worldbody><geom type="sdf" size="1"/></worldbody>'), 'type="sdf"', "geom",
     "of type 'sdf' needs a <plugin> child"),
    (_model(_bowl().split("<mujoco>")[1].split("<asset>")[0],
            '<worldbody><geom type="box" size="1 1 1"><plugin instance="bowl"/></geom></worldbody>'),
     '<plugin instance="bowl"/></geom>', "plugin", "a plugin can only back a geom of type 'sdf'"),
    (_model(EXT, ARM, '<actuator><plugin joint="hinge" instance="motor"/>\n<plugin joint="hinge2" '
                      'instance="motor"/></actuator>'), '<instance name="motor">', "instance",
     "one instance models one motor but 2 actuators use it"),
    (_model(EXT, ARM, '<actuator><plugin joint="hinge" instance="motor" actdim="1" dyntype="integrator"/>'
                      '</actuator>'), 'actdim="1"', "plugin",
     "actdim 1 disagrees with the plugin's 1 activation(s) plus 1 for dyntype 'integrator'"),
    (_model(_bowl().split("<mujoco>")[1].split("<asset>")[0],
            '<worldbody><geom type="sdf"><plugin instance="bowl"/>\n<plugin instance="bowl"/></geom></worldbody>'),
     '\n<plugin instance="bowl"/></geom>'.strip(), "plugin", "may appear at most once inside <geom>"),
    (_model(_bowl().split("<mujoco>")[1].split("<asset>")[0],
            '<asset><mesh name="m" file="x.obj"><plugin instance="bowl"/></mesh></asset>'), '<mesh name="m"',
     "mesh", "'file' cannot be combined with a <plugin> child"),
])
def test_plugin_errors_are_located(tmp_path, text, line_of, tag, message):
    _error(tmp_path, text, line_of, tag, message)


def test_bad_sdf_config_is_located_at_the_instance(tmp_path):
    text = _bowl('<config key="height" value="2"/>')
    _error(tmp_path, text, '<instance name="bowl">', "instance",
           "config attribute 'height' (2) must be smaller in magnitude than 'radius'")
