"""SDF geoms of MJCF engine plugins in MultibodyPlant: a sphere in MuJoCo's SDF bowl / on the SDF torus
(geometry/sdf_shape.py, the SDF pairs of collision/engine.py, multibody/mjcf/plugins.py)."""
import numpy as np
import pytest
from oracles import require_mujoco

from mallard.geometry.sdf_shape import SignedDistanceField
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

H = 0.002


def _bowl_xml(ball_pos: str, plugin: str = "mujoco.sdf.bowl",
              config: str = '<config key="height" value="0.4"/><config key="radius" value="1.0"/>'
                            '<config key="thickness" value="0.02"/>') -> str:
    return f"""
<mujoco model="sdf_scene">
  <extension><plugin plugin="{plugin}"><instance name="shape">{config}</instance></plugin></extension>
  <option timestep="{H}" sdf_initpoints="40" sdf_iterations="10"/>
  <asset><mesh name="shape"><plugin instance="shape"/></mesh></asset>
  <worldbody>
    <geom type="sdf" name="shape" mesh="shape"><plugin instance="shape"/></geom>
    <body name="ball" pos="{ball_pos}"><freejoint/><geom type="sphere" size="0.1" mass="1.5"/></body>
  </worldbody>
</mujoco>"""


def _build(xml: str):
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, H)
    Parser(plant).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    return plant, scene_graph, diagram, context, plant.GetMyContextFromRoot(context)


def _total_contact_force(plant, pc) -> np.ndarray:
    results = plant.get_contact_results_output_port().Eval(pc)
    return sum((results.point_pair_contact_info(i).contact_force()
                for i in range(results.num_point_pair_contacts())), np.zeros(3))


def test_sphere_resting_in_sdf_bowl_carries_its_weight():
    # the ball touches the inner wall at the bottom: centre at -(radius - thickness - ball radius)
    plant, _, diagram, context, pc = _build(_bowl_xml("0 0 -0.88"))
    Simulator(diagram, context).AdvanceTo(0.2)
    q, v = GetMujocoState(plant, pc)
    # stays at the bottom (the Halton contact points are not symmetric: it rocks by well under a millimetre)
    assert np.abs(q[:2]).max() < 2e-3 and abs(q[2] + 0.88) < 1e-3
    assert np.abs(v).max() < 0.05
    F = _total_contact_force(plant, pc)  # on the bowl (body B of every pair)
    assert F[2] == pytest.approx(-1.5 * 9.81, rel=3e-3)
    assert np.abs(F[:2]).max() < 0.1


def test_sphere_on_sdf_torus_carries_its_weight():
    xml = _bowl_xml("0.35 0 0.25", "mujoco.sdf.torus",
                    '<config key="radius1" value="0.35"/><config key="radius2" value="0.15"/>')
    plant, _, diagram, context, pc = _build(xml)
    Simulator(diagram, context).AdvanceTo(0.2)
    q, _ = GetMujocoState(plant, pc)
    assert abs(q[2] - 0.25) < 1e-3 and abs(q[0] - 0.35) < 2e-3  # on top of the tube
    assert _total_contact_force(plant, pc)[2] == pytest.approx(-1.5 * 9.81, rel=3e-3)


def test_sdf_geometry_registered_with_plugin_surface():
    plant, scene_graph, _, _, _ = _build(_bowl_xml("0 0 -0.88"))
    inspector = scene_graph.model_inspector()
    shapes = [inspector.GetShape(g) for g in inspector.GetAllGeometryIds()]
    fields = [s for s in shapes if isinstance(s, SignedDistanceField)]
    assert len(fields) == 2  # collision and visual
    f = fields[0]
    assert f.initpoints() == 40 and f.iterations() == 10
    assert f.num_triangles() > 100
    d = np.array([f.sdf().Distance(p) for p in f.vertices()])
    # the plugin mesh lies on the zero level set (up to interpolation over its ~0.05 m grid at the thin rim)
    assert np.median(np.abs(d)) < 1e-3 and np.abs(d).max() < 0.03


def test_sphere_in_bowl_trajectory_matches_mujoco():
    mujoco = require_mujoco()
    xml = _bowl_xml("0.3 0 -0.5")
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    plant, _, diagram, context, pc = _build(xml)
    sim = Simulator(diagram, context)
    touched = False
    for n in range(1, 251):
        mujoco.mj_step(m, d)
        touched |= d.ncon > 0
        if n % 50 == 0:
            sim.AdvanceTo(n * H)
            q, v = GetMujocoState(plant, pc)
            np.testing.assert_allclose(q, d.qpos, atol=1e-7)
            np.testing.assert_allclose(v, d.qvel, atol=1e-6)
    assert touched  # the ball fell onto the wall and rolled in the bowl


def test_sdf_geometry_in_distance_queries():
    plant, scene_graph, diagram, context, pc = _build(_bowl_xml("0 0 -0.5"))
    query = scene_graph.get_query_output_port().Eval(scene_graph.GetMyContextFromRoot(context))
    field_id = next(g for g in scene_graph.model_inspector().GetAllGeometryIds()
                    if isinstance(scene_graph.model_inspector().GetShape(g), SignedDistanceField)
                    and scene_graph.model_inspector().GetProximityProperties(g) is not None)
    rows = {r.id_G: r for r in query.ComputeSignedDistanceToPoint([0.0, 0.0, -0.5])}
    assert rows[field_id].distance == pytest.approx(0.5 - 0.02, abs=1e-9)  # to the inner wall, |p| = 0.5
    np.testing.assert_allclose(rows[field_id].grad_W, [0.0, 0.0, 1.0], atol=1e-6)
    with pytest.raises(RuntimeError, match="SignedDistanceField"):
        query.ComputeSignedDistancePairwiseClosestPoints()


def _user_sphere_sdf():
    """A user SDF plugin evaluated through Python callbacks: a ball of radius `r` [m]."""
    from mallard.multibody.plugins import Capability, ConfigAttribute, Plugin

    class BallSdf(Plugin):
        name = "test.sdf.ball"
        capabilities = Capability.SDF
        attributes = (ConfigAttribute("r", "real", default=0.5, low=0.0, open_low=True),)

        def init(self, instance, state):
            return float(instance.config["r"])

        def sdf_distance(self, p, data):
            return float(np.linalg.norm(p)) - data

        def sdf_gradient(self, p, data):
            return np.asarray(p, float) / max(float(np.linalg.norm(p)), 1e-15)

        def sdf_staticdistance(self, p, config):
            return float(np.linalg.norm(p)) - float(self.ValidateConfig(config)["r"])

        def sdf_aabb(self, config):
            r = float(self.ValidateConfig(config)["r"])
            return np.array([0.0, 0.0, 0.0, r, r, r])

    return BallSdf


def test_user_sdf_plugin_supports_a_resting_ball():
    from mallard.multibody.plugins import RegisterPlugin, UnregisterPlugin
    RegisterPlugin(_user_sphere_sdf())
    try:
        xml = _bowl_xml("0 0 0.6", "test.sdf.ball", '<config key="r" value="0.5"/>').replace(
            'sdf_initpoints="40"', 'sdf_initpoints="8"')
        plant, _, diagram, context, pc = _build(xml)
        Simulator(diagram, context).AdvanceTo(0.1)
        q, _ = GetMujocoState(plant, pc)
        assert abs(q[2] - 0.6) < 1e-3 and np.abs(q[:2]).max() < 2e-3  # on top of the SDF ball (unstable: drifts slowly)
        assert _total_contact_force(plant, pc)[2] == pytest.approx(-1.5 * 9.81, rel=3e-3)
    finally:
        UnregisterPlugin("test.sdf.ball")


_TORUS_ON_PLANE = f"""
<mujoco model="torus_on_plane">
  <extension><plugin plugin="mujoco.sdf.torus"><instance name="torus">
    <config key="radius1" value="0.35"/><config key="radius2" value="0.15"/></instance></plugin></extension>
  <option timestep="{H}"/>
  <asset><mesh name="torus"><plugin instance="torus"/></mesh></asset>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="torus" pos="0.1 -0.2 0.1495"><freejoint/>
      <inertial pos="0 0 0" mass="2" diaginertia="0.15 0.15 0.27"/>
      <geom type="sdf" mesh="torus"><plugin instance="torus"/></geom></body>
  </worldbody>
</mujoco>"""


def test_sdf_torus_resting_on_plane_carries_its_weight():
    """The plane meets the hull of the torus' surface mesh (MuJoCo's plane-convex routine): four contacts
    on the bottom ring hold it level, at MuJoCo's resting height."""
    mujoco = require_mujoco()
    plant, _, diagram, context, pc = _build(_TORUS_ON_PLANE)
    Simulator(diagram, context).AdvanceTo(0.2)
    q, v = GetMujocoState(plant, pc)
    results = plant.get_contact_results_output_port().Eval(pc)
    assert results.num_point_pair_contacts() == 4
    F = _total_contact_force(plant, pc)  # on the torus (body B of every pair)
    assert F[2] == pytest.approx(2 * 9.81, rel=2e-3)
    assert np.abs(F[:2]).max() < 0.4  # friction of a slight rocking between near-level hull vertices
    np.testing.assert_allclose(q[:2], [0.1, -0.2], atol=1e-4)
    assert np.abs(q[4:7]).max() < 1e-4 and np.abs(v).max() < 0.01  # level and at rest
    m = mujoco.MjModel.from_xml_string(_TORUS_ON_PLANE)
    d = mujoco.MjData(m)
    while d.time < 0.2 - 1e-9:
        mujoco.mj_step(m, d)
    assert d.ncon == 4
    assert q[2] == pytest.approx(d.qpos[2], abs=3e-4)  # the two surface meshes differ by ~grid^2


def test_mesh_box_resting_in_sdf_bowl_carries_its_weight():
    """A mesh box against the bowl (MuJoCo's mesh-SDF triangle search): it settles with its four bottom
    corners on the inner wall of the bowl (sphere radius 0.98 about the bowl origin)."""
    vert = " ".join(f"{c:g}" for c in np.array([[x, y, z] for z in (-0.1, 0.1) for y in (-0.1, 0.1)
                                                 for x in (-0.1, 0.1)]).ravel())
    xml = _bowl_xml("0 0 0").replace('<asset>', f'<asset><mesh name="box" vertex="{vert}"/>').replace(
        '<geom type="sphere" size="0.1" mass="1.5"/>', '<geom type="mesh" mesh="box" mass="1.5"/>').replace(
        'pos="0 0 0"', 'pos="0.03 0 -0.865"')
    plant, _, diagram, context, pc = _build(xml)
    Simulator(diagram, context).AdvanceTo(0.3)
    q, v = GetMujocoState(plant, pc)
    assert np.abs(v).max() < 0.01
    F = _total_contact_force(plant, pc)  # on the bowl (body B of every pair)
    assert F[2] == pytest.approx(-1.5 * 9.81, rel=2e-3) and np.abs(F[:2]).max() < 0.05
    w, x, y, z = q[3:7]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    corners = np.array([[sx, sy, -0.1] for sx in (-0.1, 0.1) for sy in (-0.1, 0.1)]) @ R.T + q[:3]
    np.testing.assert_allclose(np.linalg.norm(corners, axis=1), 0.98, atol=3e-4)


def test_sdf_torus_resting_on_height_field_carries_its_weight():
    """The height-field triangles under the torus are searched like mesh triangles (MuJoCo 4.0 has no
    height-field/SDF routine and lets the torus fall through; mallard holds it on the surface)."""
    elevation = " ".join(["0.5"] * 15 * 15)
    xml = _TORUS_ON_PLANE.replace(
        '<geom type="plane" size="5 5 0.1"/>', '<geom type="hfield" hfield="ground"/>').replace(
        '<asset>', f'<asset><hfield name="ground" nrow="15" ncol="15" size="1 1 0.2 0.1" elevation="{elevation}"/>'
    ).replace('pos="0.1 -0.2 0.1495"', 'pos="0.1 -0.2 0.1485"')
    plant, _, diagram, context, pc = _build(xml)
    Simulator(diagram, context).AdvanceTo(0.2)
    q, v = GetMujocoState(plant, pc)
    F = _total_contact_force(plant, pc)
    assert F[2] == pytest.approx(2 * 9.81, rel=2e-3) and np.abs(F[:2]).max() < 0.01
    assert plant.get_contact_results_output_port().Eval(pc).num_point_pair_contacts() >= 4
    np.testing.assert_allclose(q[:2], [0.1, -0.2], atol=1e-4)
    # the tube rests on the surface z = 0 (all elevations equal normalize to zero), level and still
    assert q[2] == pytest.approx(0.15, abs=2e-4) and np.abs(q[4:7]).max() < 1e-4 and np.abs(v).max() < 1e-3
