"""pydrake.visualization's API on mallard, against pydrake: the default layers (ApplyVisualizationConfig), the
inertia ellipsoids, frame triads, joint and pose sliders, ModelVisualizer and the plotting helpers."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import mallard.visualization as mv
from mallard.geometry import Meshcat, Role
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder
from oracles import require_pydrake

URDF_WITH_FRAME = """<?xml version="1.0"?>
<robot name="test_model">
  <link name="box">
    <inertial><mass value="2"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
    <visual><geometry><box size=".1 .2 .3"/></geometry></visual>
    <collision><geometry><box size=".1 .2 .3"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><origin xyz="0 0 0.2"/><mass value="0.5"/>
      <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0005"/></inertial>
    <visual><geometry><cylinder radius="0.02" length="0.4"/></geometry></visual>
  </link>
  <joint name="shoulder" type="revolute"><parent link="box"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="2.0" effort="1" velocity="1"/></joint>
  <joint name="elbow_free" type="fixed"><parent link="world"/><child link="box"/></joint>
</robot>
"""


def _pyd():
    require_pydrake()
    import pydrake.geometry
    import pydrake.multibody.meshcat
    import pydrake.multibody.parsing
    import pydrake.multibody.plant
    import pydrake.systems.framework
    import pydrake.visualization

    return pydrake


def _plants(pd, text=URDF_WITH_FRAME, kind="urdf"):
    """(mallard builder, plant, scene_graph), (pydrake builder, plant, scene_graph) with the same model."""
    out = []
    for B, Add, P in ((DiagramBuilder, AddMultibodyPlantSceneGraph, Parser),
                      (pd.systems.framework.DiagramBuilder, pd.multibody.plant.AddMultibodyPlantSceneGraph,
                       pd.multibody.parsing.Parser)):
        builder = B()
        plant, scene_graph = Add(builder, 0.001)
        P(plant).AddModelsFromString(text, kind)
        out.append((builder, plant, scene_graph))
    return out


@pytest.fixture
def meshcats():
    pd = _pyd()
    ours, ref = Meshcat(port=0), pd.geometry.Meshcat()
    yield ours, ref
    ours.Close()


def test_visualization_config_and_default_layers_match_pydrake(meshcats):
    pd = _pyd()
    assert repr(mv.VisualizationConfig()) == repr(pd.visualization.VisualizationConfig())
    (b, plant, sg), (b_ref, plant_ref, sg_ref) = _plants(pd)
    for p in (plant, plant_ref):
        p.Finalize()
    mv.AddDefaultVisualization(builder=b, meshcat=meshcats[0])
    pd.visualization.AddDefaultVisualization(builder=b_ref, meshcat=meshcats[1])
    names = {s.get_name() for s in b.GetSystems()}
    lcm = ("contact_results_publisher", "contact_to_lcm", "drake_visualizer(", "drake/systems/SharedPointerSystem")
    names_ref = {s.get_name() for s in b_ref.GetSystems() if not s.get_name().startswith(lcm)}  # mallard has no LCM
    assert names == names_ref
    assert {"meshcat_visualizer(illustration)", "meshcat_visualizer(proximity)", "inertia_visualizer"} <= names
    diagram, diagram_ref = b.Build(), b_ref.Build()
    ins, ins_ref = sg.model_inspector(), sg_ref.model_inspector()
    # the inertia ellipsoids: one per body not welded to the world, of pydrake's size
    ours = sorted((ins.GetName(g), tuple(np.round([ins.GetShape(g).a(), ins.GetShape(g).b(), ins.GetShape(g).c()], 12)))
                  for g in ins.GetAllGeometryIds() if ins.GetName(g).startswith("$inertia"))
    ref = sorted((ins_ref.GetName(g), tuple(np.round([ins_ref.GetShape(g).a(), ins_ref.GetShape(g).b(),
                                                      ins_ref.GetShape(g).c()], 12)))
                 for g in ins_ref.GetAllGeometryIds() if ins_ref.GetName(g).startswith("$inertia"))
    assert ours == ref and len(ours) == 1
    context = diagram.CreateDefaultContext()
    plant_context = plant.GetMyMutableContextFromRoot(context)
    plant.get_actuation_input_port().FixValue(plant_context, np.zeros(plant.num_actuators()))
    diagram.ForcedPublish(context)
    meshcat = meshcats[0]
    assert meshcat.HasPath("illustration/test_model/box") and meshcat.HasPath("proximity/test_model/box")
    assert meshcat.HasPath("inertia")


def test_frame_triads_match_pydrake():
    pd = _pyd()
    (b, plant, sg), (b_ref, plant_ref, sg_ref) = _plants(pd)
    for mod, p, s in ((mv, plant, sg), (pd.visualization, plant_ref, sg_ref)):
        mod.AddFrameTriadIllustration(scene_graph=s, body=p.GetBodyByName("arm"), length=0.2, radius=0.01,
                                      opacity=0.5, X_FT=None)
    ins, ins_ref = sg.model_inspector(), sg_ref.model_inspector()

    def triads(inspector, module):
        out = {}
        for g in inspector.GetAllGeometryIds():
            name = inspector.GetName(g)
            if name.startswith("_frames::"):
                color = inspector.GetIllustrationProperties(g).GetProperty("phong", "diffuse")
                out[name] = (inspector.GetPoseInFrame(g).GetAsMatrix4(), tuple(color.rgba))
        return out

    ours, ref = triads(ins, mv), triads(ins_ref, pd.visualization)
    assert set(ours) == set(ref) == {f"_frames::arm(2)::{a}-axis" for a in "xyz"}
    for name in ours:
        np.testing.assert_allclose(ours[name][0], ref[name][0], atol=1e-15)
        np.testing.assert_allclose(ours[name][1], ref[name][1], atol=0)
    with pytest.raises(ValueError, match="exactly one of body="):
        mv.AddFrameTriadIllustration(scene_graph=sg)


def test_joint_sliders_match_pydrake(meshcats):
    pd = _pyd()
    (b, plant, sg), (b_ref, plant_ref, sg_ref) = _plants(pd)
    plant.Finalize()
    plant_ref.Finalize()
    ours = mv.JointSliders(meshcat=meshcats[0], plant=plant, step=0.05)
    ref = pd.multibody.meshcat.JointSliders(meshcat=meshcats[1], plant=plant_ref, step=0.05)
    assert meshcats[0].GetSliderNames() == meshcats[1].GetSliderNames() == ["shoulder"]
    assert meshcats[0].GetSliderValue("shoulder") == meshcats[1].GetSliderValue("shoulder")
    for m in meshcats:
        assert m.SetSliderValue("shoulder", 3.0) == 2.0 and m.SetSliderValue("shoulder", 0.123) == pytest.approx(0.1)
    ours.SetPositions([0.7])
    ref.SetPositions([0.7])
    assert meshcats[0].GetSliderValue("shoulder") == meshcats[1].GetSliderValue("shoulder")
    q = ours.get_output_port().Eval(ours.CreateDefaultContext())
    np.testing.assert_array_equal(q, ref.get_output_port().Eval(ref.CreateDefaultContext()))
    ours.Delete()
    assert meshcats[0].GetSliderNames() == []


def test_pose_sliders_round_trip(meshcats):
    pd = _pyd()
    ours = mv.MeshcatPoseSliders(meshcats[0], prefix="pre", visible=[True, False, True, True, True, True])
    ref = pd.visualization.MeshcatPoseSliders(meshcats[1], prefix="pre",
                                              visible=[True, False, True, True, True, True])
    assert meshcats[0].GetSliderNames() == meshcats[1].GetSliderNames()
    X = RigidTransform([0.1, 0.2, 0.3])
    ours.SetPose(pose=X)
    ref.SetPose(pose=pd.math.RigidTransform([0.1, 0.2, 0.3]))
    out = ours.get_output_port().Eval(ours.CreateDefaultContext())
    out_ref = ref.get_output_port().Eval(ref.CreateDefaultContext())
    np.testing.assert_array_equal(out.GetAsMatrix4(), out_ref.GetAsMatrix4())
    assert out.IsExactlyEqualTo(X)
    context = ours.CreateDefaultContext()
    assert ours.Run(system=ours, context=context, timeout=0.05).IsExactlyEqualTo(X)


def test_model_visualizer_api(meshcats):
    pd = _pyd()
    from pydrake.visualization import ModelVisualizer as Ref

    assert mv.ModelVisualizer._get_constructor_defaults() == Ref._get_constructor_defaults()
    assert {k: v.default for k, v in inspect.signature(mv.AddFrameTriadIllustration).parameters.items()} == \
        {k: v.default for k, v in inspect.signature(pd.visualization.AddFrameTriadIllustration).parameters.items()}
    meshcat = meshcats[0]
    dut = mv.ModelVisualizer(meshcat=meshcat, visualize_frames=True)
    dut.parser().AddModels(file_contents=URDF_WITH_FRAME, file_type="urdf")
    dut.Run(loop_once=True)
    assert meshcat.HasPath("/drake/illustration/test_model/box/_frames/box(2)/x-axis")
    assert meshcat.HasPath("/drake/illustration/test_model/arm/_frames/arm(2)/z-axis")
    assert meshcat.GetSliderNames() == ["illustration α", "inertia α", "proximity α", "shoulder"]
    dut.Run(position=[0.5], loop_once=True)
    assert meshcat.GetSliderValue("shoulder") == pytest.approx(0.5)
    for call in (dut.parser, dut.package_map, lambda: dut.AddModels("ignored.urdf")):
        with pytest.raises(ValueError, match="already been"):
            call()
    with pytest.raises(ValueError, match="either filename= or url="):
        mv.ModelVisualizer(meshcat=meshcat).AddModels("a.urdf", url="package://x/a.urdf")
    cone = mv.ModelVisualizer(meshcat=meshcat)
    for _ in range(2):
        cone._add_traffic_cone()
    assert meshcat.HasPath("/PARSE_ERROR/cone")
    cone._remove_traffic_cone()
    assert not meshcat.HasPath("/PARSE_ERROR")


def test_webbrowser_is_opened_once(monkeypatch, meshcats):
    from mallard.visualization import _model_visualizer

    opened = []
    monkeypatch.setattr(_model_visualizer, "_webbrowser_open", lambda *args, **kwargs: opened.append((args, kwargs)))
    dut = mv.ModelVisualizer(meshcat=meshcats[0], browser_new=True)
    dut.parser().AddModels(file_contents=URDF_WITH_FRAME, file_type="urdf")
    dut.Run(loop_once=True)
    dut.Run(loop_once=True)
    assert opened == [((), {"url": meshcats[0].web_url(), "new": True})] and "localhost" in opened[0][1]["url"]


def test_plot_sublevelset_quadratic_matches_pydrake():
    pd = _pyd()
    import matplotlib.figure

    A, b, c = np.array([[1.0, 0.3], [0.1, 2.0]]), [3.0, 4.0], -5.0
    ax = matplotlib.figure.Figure().add_subplot()
    ours = mv.plot_sublevelset_quadratic(ax=ax, A=A, b=b, c=c, vertices=11, facecolor=(0, 0, 1, 1))[0].get_xy()
    ref = pd.visualization.plot_sublevelset_quadratic(ax=ax, A=A, b=b, c=c, vertices=11)[0].get_xy()
    np.testing.assert_allclose(ours, ref, atol=1e-12)
    with pytest.raises(ValueError, match="contain the origin"):
        mv.plot_sublevelset_expression(ax, lambda x: 2.0 + x @ x)
    g = lambda x: (x @ np.diag([1.0, 4.0]) @ x) ** 2  # noqa: E731
    xy = mv.plot_sublevelset_expression(ax, g, 21)[0].get_xy()
    np.testing.assert_allclose([g(p) for p in xy], 1.0, atol=1e-9)
