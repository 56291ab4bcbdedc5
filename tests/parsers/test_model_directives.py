"""Model directives (add_model, add_model_instance, add_frame, add_weld, add_collision_filter_group and nested
add_directives with a model_namespace) against pydrake: the same model instances, frames, welds and poses."""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.multibody.parsing import (FlattenModelDirectives, LoadModelDirectives, LoadModelDirectivesFromString,
                                       ModelDirective, ModelDirectives, Parser, ProcessModelDirectives)
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.systems.framework import DiagramBuilder

MODEL = """<?xml version='1.0'?>
<sdf version='1.7'>
  <model name='simple'>
    <link name='base'>
      <inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
      <collision name='c'><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision>
    </link>
    <link name='arm'>
      <pose>0 0 0.5 0 0 0</pose>
      <inertial><mass>0.5</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
      <collision name='c'><geometry><sphere><radius>0.05</radius></sphere></geometry></collision>
    </link>
    <joint name='hinge' type='revolute'>
      <parent>base</parent><child>arm</child><axis><xyz>0 1 0</xyz></axis>
    </joint>
    <frame name='tip' attached_to='arm'><pose>0 0 0.3 0 0 0</pose></frame>
  </model>
</sdf>
"""

SUB = """
directives:
- add_model:
    name: simple
    file: package://dmd_test/simple.sdf
    default_joint_positions:
      hinge: [0.3]
- add_frame:
    name: offset
    X_PF:
      base_frame: simple::tip
      translation: [0.1, 0.2, 0.3]
      rotation: !Rpy { deg: [10, 20, 30] }
- add_model:
    name: extra
    file: package://dmd_test/simple.sdf
- add_weld:
    parent: simple::offset
    child: extra::base
    X_PC:
      translation: [0, 0, 0.1]
      rotation: !AngleAxis { angle_deg: 90, axis: [0, 0, 1] }
- add_collision_filter_group:
    name: group
    members: [simple::base, extra::base]
    ignored_collision_filter_groups: [group]
"""

TOP = """
directives:
- add_directives:
    file: package://dmd_test/sub.dmd.yaml
- add_weld:
    parent: world
    child: simple::base
- add_model_instance:
    name: left
- add_directives:
    file: package://dmd_test/sub.dmd.yaml
    model_namespace: left
- add_weld:
    parent: world
    child: left::simple::base
    X_PC:
      translation: [1, 0, 0]
"""


@pytest.fixture()
def package(tmp_path):
    (tmp_path / "package.xml").write_text("<package format='2'><name>dmd_test</name></package>")
    (tmp_path / "simple.sdf").write_text(MODEL)
    (tmp_path / "sub.dmd.yaml").write_text(SUB)
    (tmp_path / "top.dmd.yaml").write_text(TOP)
    return tmp_path


def _process(package, drake: bool):
    if drake:
        require_pydrake()
        from pydrake.multibody.parsing import LoadModelDirectives as Load, Parser as P, ProcessModelDirectives as Pr
        from pydrake.multibody.plant import AddMultibodyPlantSceneGraph as Add
        from pydrake.systems.framework import DiagramBuilder as B
    else:
        Load, P, Pr, Add, B = LoadModelDirectives, Parser, ProcessModelDirectives, AddMultibodyPlantSceneGraph, \
            DiagramBuilder
    builder = B()
    plant, scene_graph = Add(builder, 0.0)
    parser = P(plant)
    parser.package_map().AddPackageXml(str(package / "package.xml"))
    infos = Pr(Load(str(package / "top.dmd.yaml")), parser)
    plant.Finalize()
    return plant, scene_graph, infos


def test_process_model_directives_matches_pydrake(package):
    plant, scene_graph, infos = _process(package, drake=False)
    d_plant, d_scene_graph, d_infos = _process(package, drake=True)
    assert [i.model_name for i in infos] == [i.model_name for i in d_infos]
    assert [(i.parent_frame_name, i.child_frame_name) for i in infos] == \
        [(i.parent_frame_name, i.child_frame_name) for i in d_infos]
    for ours, theirs in zip(infos, d_infos):
        np.testing.assert_allclose(ours.X_PC.GetAsMatrix4(), theirs.X_PC.GetAsMatrix4(), atol=1e-14)
        assert plant.GetModelInstanceName(ours.model_instance) == d_plant.GetModelInstanceName(theirs.model_instance)
    names = sorted(plant.GetModelInstanceName(plant.GetModelInstanceByName(n)) for n in
                   ("simple", "extra", "left", "left::simple", "left::extra"))
    assert names == sorted(d_plant.GetModelInstanceName(d_plant.GetModelInstanceByName(n)) for n in names)
    assert plant.num_positions() == d_plant.num_positions()
    context, d_context = plant.CreateDefaultContext(), d_plant.CreateDefaultContext()
    np.testing.assert_allclose(plant.GetPositions(context), d_plant.GetPositions(d_context), atol=1e-15)
    for instance in ("simple", "extra", "left::simple", "left::extra"):
        for frame in ("base", "arm", "tip", "offset") if instance.endswith("simple") else ("base", "arm"):
            X = plant.GetFrameByName(frame, plant.GetModelInstanceByName(instance)).CalcPoseInWorld(context)
            d_X = d_plant.GetFrameByName(frame, d_plant.GetModelInstanceByName(instance)).CalcPoseInWorld(d_context)
            np.testing.assert_allclose(X.GetAsMatrix4(), d_X.GetAsMatrix4(), atol=1e-12, err_msg=f"{instance}::{frame}")
    # The collision filter group excluded the pairs Drake excludes.
    assert len(scene_graph.model_inspector().GetCollisionCandidates()) == \
        len(d_scene_graph.model_inspector().GetCollisionCandidates())


def test_flatten_model_directives_matches_pydrake(package):
    require_pydrake()
    from pydrake.multibody.parsing import (FlattenModelDirectives as DrakeFlatten,
                                           LoadModelDirectives as DrakeLoad, PackageMap as DrakePackageMap)
    from mallard.multibody.parsing import PackageMap
    pm, d_pm = PackageMap.MakeEmpty(), DrakePackageMap.MakeEmpty()
    pm.AddPackageXml(str(package / "package.xml"))
    d_pm.AddPackageXml(str(package / "package.xml"))
    flat = FlattenModelDirectives(LoadModelDirectives(package / "top.dmd.yaml"), pm)
    d_flat = DrakeFlatten(DrakeLoad(package / "top.dmd.yaml"), d_pm)
    kinds = ("add_model", "add_model_instance", "add_frame", "add_weld", "add_collision_filter_group")

    def summary(d):
        kind = next(k for k in kinds if getattr(d, k) is not None)
        item = getattr(d, kind)
        return kind, getattr(item, "name", None), getattr(item, "parent", None), getattr(item, "child", None)

    assert [summary(d) for d in flat.directives] == [summary(d) for d in d_flat.directives]


def test_invalid_directives_are_errors():
    with pytest.raises(RuntimeError, match="unknown key"):
        LoadModelDirectivesFromString("directives:\n- add_model:\n    name: a\n    fiel: x.sdf\n")
    with pytest.raises(RuntimeError, match="invalid"):
        LoadModelDirectivesFromString("directives:\n- add_model:\n    name: a\n")
    assert "add_model" in repr(ModelDirectives(directives=[ModelDirective()]))


def test_parser_add_models_takes_dmd_yaml_as_pydrake(tmp_path):
    """Parser.AddModels(file.dmd.yaml) and AddModelsFromString(text, "dmd.yaml") process the directives and return
    the instances of their add_model directives, as pydrake's Parser does."""
    require_pydrake()
    import pydrake.multibody.parsing as drake_parsing
    import pydrake.multibody.plant as drake_plant
    from mallard.multibody.parsing import Parser as OurParser
    from mallard.multibody.plant import MultibodyPlant as OurPlant
    text = ("directives:\n- add_model:\n    name: pend\n    file: package://drake/examples/pendulum/Pendulum.urdf\n"
            "- add_model:\n    name: pend2\n    file: package://drake/examples/pendulum/Pendulum.urdf\n")
    (tmp_path / "two.dmd.yaml").write_text(text.replace("name: pend", "name: other"))
    results = []
    for Plant, ParserClass in ((OurPlant, OurParser), (drake_plant.MultibodyPlant, drake_parsing.Parser)):
        plant = Plant(0.0)
        first = ParserClass(plant).AddModelsFromString(text, "dmd.yaml")
        second = ParserClass(plant).AddModels(str(tmp_path / "two.dmd.yaml"))
        results.append([(int(i), plant.GetModelInstanceName(i)) for i in first + second])
    assert results[0] == results[1]
