"""SDFormat strings loaded by mallard's Parser and by pydrake's must build the same plant: instances,
bodies, joints (types, limits, damping), actuators, constraints, declared frames (bodies and poses),
geometries (shapes, poses, proximity properties, collision filtering), collision filter groups,
body poses at the default state, and M(q) and gravity forces at random states."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.tree import ModelInstanceIndex as MallardInstance
from mallard.parsers import Parser
from mallard.systems.framework import DiagramBuilder

TEST_PACKAGE = Path(__file__).resolve().parent / "data" / "test_pkg"
ARM = "package://mallard_test_models/models/arm/arm.sdf"
HEAD = '<?xml version="1.0"?>\n<sdf version="1.9" xmlns:drake="http://drake.mit.edu">\n'


def _inertial(mass: float, com: str = "0 0 0") -> str:
    return (f"<inertial><pose>{com} 0 0 0</pose><mass>{mass}</mass><inertia><ixx>0.01</ixx>"
            f"<iyy>0.02</iyy><izz>0.03</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>"
            f"</inertial>")


def load_mallard(text: str, time_step: float = 0.0):
    plant, scene_graph = AddMultibodyPlantSceneGraph(DiagramBuilder(), time_step)
    parser = Parser(plant)
    parser.package_map().PopulateFromFolder(str(TEST_PACKAGE))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instances = parser.AddModelsFromString(text, "sdf")
        plant.Finalize()
    return plant, instances, parser, scene_graph


def load_drake(text: str, time_step: float = 0.0):
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph as DrakeAddPlant
    from pydrake.systems.framework import DiagramBuilder as DrakeBuilder
    plant, scene_graph = DrakeAddPlant(DrakeBuilder(), time_step)
    parser = DrakeParser(plant)
    parser.package_map().PopulateFromFolder(str(TEST_PACKAGE))
    instances = parser.AddModelsFromString(text, "sdf")
    plant.Finalize()
    return plant, instances, parser, scene_graph


def _value(v):
    """A property value in comparable form (CoulombFriction → (static, dynamic))."""
    if hasattr(v, "get_value"):
        try:
            v = v.get_value()
        except RuntimeError:  # (pydrake does not bind every value type, e.g. HydroelasticType)
            return "<unbound>"
    if hasattr(v, "static_friction"):
        return (v.static_friction(), v.dynamic_friction())
    if isinstance(v, (int, float, str, bool)):
        return v
    return str(v).rpartition(".")[2]


def _shape(shape) -> tuple:
    name = type(shape).__name__
    sizes = {"Box": lambda: tuple(shape.size()), "Sphere": lambda: (shape.radius(),),
             "Cylinder": lambda: (shape.radius(), shape.length()),
             "Capsule": lambda: (shape.radius(), shape.length()),
             "Ellipsoid": lambda: (shape.a(), shape.b(), shape.c()), "HalfSpace": lambda: (),
             "Mesh": lambda: tuple(shape.scale3()), "Convex": lambda: tuple(shape.scale3())}
    return (name, *np.round(sizes[name](), 12))


def _geometries(plant, scene_graph, body_index) -> dict:
    """Per body (in order): sorted (role, shape, X_BG, proximity properties) of its geometries,
    and the collision-filtered pairs between them as (body, k) keys."""
    inspector = scene_graph.model_inspector()
    out, ids = [], []
    for b in range(plant.num_bodies()):
        body = plant.get_body(body_index(b))
        items = []
        for role, gids in (("collision", plant.GetCollisionGeometriesForBody(body)),
                           ("visual", plant.GetVisualGeometriesForBody(body))):
            for g in gids:
                props = {}
                if role == "collision":
                    p = inspector.GetProximityProperties(g)
                    props = {(grp, k): _value(v) for grp in p.GetGroupNames()
                             for k, v in p.GetPropertiesInGroup(grp).items()}
                    if ("hydroelastic", "compliance_type") in props:
                        props[("hydroelastic", "compliance_type")] = "<unbound>"
                X = np.round(np.asarray(inspector.GetPoseInFrame(g).GetAsMatrix4()), 12) + 0.0
                items.append(((role, _shape(inspector.GetShape(g)), X.tobytes(),
                               tuple(sorted(props.items()))), g))
        items.sort(key=lambda t: t[0])
        out.append([t[0] for t in items])
        ids += [((b, k), t[1]) for k, t in enumerate(items) if t[0][0] == "collision"]
    filtered = {(a, b) for i, (a, ga) in enumerate(ids) for b, gb in ids[i + 1:]
                if inspector.CollisionFiltered(ga, gb)}
    return {"geometries": out, "filtered": filtered}


def _joints(plant, joint_index, actuator_index) -> dict:
    """Joints (type, bodies, damping, limits), actuators (limits, reflected inertia), force
    elements and constraints, in plant order."""
    joints = []
    for j in map(plant.get_joint, map(joint_index, range(plant.num_joints()))):
        joints.append((plant.GetModelInstanceName(j.model_instance()), j.name(), j.type_name(),
                       j.parent_body().name(), j.child_body().name(),
                       *(tuple(np.round(a, 12)) for a in (
                           j.default_damping_vector(), j.position_lower_limits(),
                           j.position_upper_limits(), j.velocity_upper_limits(),
                           j.acceleration_upper_limits()))))
    actuators = [(a.name(), a.joint().name(), a.effort_limit(), a.default_gear_ratio(),
                  a.default_rotor_inertia())
                 for a in map(plant.get_joint_actuator, map(actuator_index,
                                                            range(plant.num_actuators())))]
    return {"joints": joints, "actuators": actuators,
            "force_elements": plant.num_force_elements(),
            "constraints": plant.num_constraints()}


def _frames(plant, count: int, index) -> dict:
    """(instance, frame name) → (body name, X_WF at the default state), for the frames a file
    declares (not the offset frames joints add, whose names pydrake derives differently)."""
    context = plant.CreateDefaultContext()
    out = {}
    for i in range(count):
        f = plant.get_frame(index(i))
        if f.name().endswith(("_parent", "_child", "_F", "_M")) or f.name() == "":
            continue
        key = (plant.GetModelInstanceName(f.model_instance()), f.name())
        out[key] = (f.body().name(), np.asarray(f.CalcPoseInWorld(context).GetAsMatrix4()))
    return out


def check_same_plant(text: str, time_step: float = 0.0) -> tuple:
    """Load `text` in both parsers and assert the plants agree; returns both plants."""
    require_pydrake()
    from pydrake.multibody.tree import (BodyIndex, FrameIndex, JointActuatorIndex, JointIndex,
                                        ModelInstanceIndex)
    (plant, instances, parser, sg), (dplant, dinstances, dparser, dsg) = (
        load_mallard(text, time_step), load_drake(text, time_step))
    assert _geometries(plant, sg, int) == _geometries(dplant, dsg, BodyIndex)
    groups, dgroups = parser.GetCollisionFilterGroups(), dparser.GetCollisionFilterGroups()
    assert ({k: set(v) for k, v in groups.groups().items()}
            == {k: set(v) for k, v in dgroups.groups().items()})
    assert ({frozenset(p) for p in groups.exclusion_pairs()}
            == {frozenset(p) for p in dgroups.exclusion_pairs()})
    assert ([plant.GetModelInstanceName(i) for i in instances]
            == [dplant.GetModelInstanceName(i) for i in dinstances])
    assert plant.num_model_instances() == dplant.num_model_instances()
    names = [plant.GetModelInstanceName(MallardInstance(i))
             for i in range(plant.num_model_instances())]
    dnames = [dplant.GetModelInstanceName(ModelInstanceIndex(i))
              for i in range(dplant.num_model_instances())]
    assert names == dnames
    bodies = [(plant.GetModelInstanceName(plant.get_body(b).model_instance()),
               plant.get_body(b).name()) for b in range(plant.num_bodies())]
    dbodies = [(dplant.GetModelInstanceName(dplant.get_body(BodyIndex(b)).model_instance()),
                dplant.get_body(BodyIndex(b)).name()) for b in range(dplant.num_bodies())]
    assert bodies == dbodies
    assert list(plant.GetStateNames()) == list(dplant.GetStateNames())
    assert _joints(plant, int, int) == _joints(dplant, JointIndex, JointActuatorIndex)
    frames = _frames(plant, plant.num_frames(), int)
    dframes = _frames(dplant, dplant.num_frames(), FrameIndex)
    assert sorted(frames) == sorted(dframes)
    for key, (body, X_WF) in frames.items():
        assert body == dframes[key][0], key
        np.testing.assert_allclose(X_WF, dframes[key][1], rtol=0, atol=1e-12, err_msg=str(key))
    np.testing.assert_allclose(plant.GetDefaultPositions(), dplant.GetDefaultPositions(),
                               rtol=0, atol=1e-12)
    context, dcontext = plant.CreateDefaultContext(), dplant.CreateDefaultContext()
    rng = np.random.default_rng(3)
    for k in range(3):
        if k:
            q = rng.uniform(-1, 1, plant.num_positions())
            for j in plant.GetJointIndices():
                joint = plant.get_joint(j)
                if joint.type_name() == "quaternion_floating":
                    s = joint.position_start()
                    q[s:s + 4] /= np.linalg.norm(q[s:s + 4])
            plant.SetPositions(context, q)
            dplant.SetPositions(dcontext, q)
        M, dM = plant.CalcMassMatrix(context), dplant.CalcMassMatrix(dcontext)
        assert np.abs(M - dM).max(initial=0) <= 1e-10 * max(1.0, np.abs(dM).max(initial=0))
        g = plant.CalcGravityGeneralizedForces(context)
        dg = dplant.CalcGravityGeneralizedForces(dcontext)
        assert np.abs(g - dg).max(initial=0) <= 1e-10 * max(1.0, np.abs(dg).max(initial=0))
        for b in range(plant.num_bodies()):
            X = plant.EvalBodyPoseInWorld(context, plant.get_body(b)).GetAsMatrix4()
            dX = dplant.EvalBodyPoseInWorld(dcontext, dplant.get_body(BodyIndex(b))).GetAsMatrix4()
            np.testing.assert_allclose(X, dX, rtol=0, atol=1e-12 if k == 0 else 1e-10,
                                       err_msg=f"{bodies[b]} state {k}")
    return plant, dplant


def test_existing_nested_world_file_matches() -> None:
    text = (TEST_PACKAGE.parent / "nested_world.sdf").read_text()
    text = text.replace("meshes/box.obj", "file://" + str(TEST_PACKAGE.parent / "meshes" / "box.obj"))
    check_same_plant(text)


def _links(*names_poses: tuple) -> str:
    return "".join(f'<link name="{n}"><pose{r}>{p}</pose>{_inertial(1.0 + k, "0.01 0.02 0.03")}'
                   f'</link>' for k, (n, p, r) in enumerate(names_poses))


NESTED = (HEAD + '<model name="outer"><pose>1 0 0 0 0 0.5</pose>'
          + _links(("base", "0 0 1 0 0 0", ""))
          + '<model name="inner"><pose>0 1 0 0.2 0 0</pose>'
          + _links(("l1", "0 0 0.5 0 0.1 0", ""), ("l2", "0.3 0 0 0 0 0", ' relative_to="l1"'))
          + '<joint name="j" type="revolute"><parent>l1</parent><child>l2</child>'
          '<axis><xyz>0 1 0</xyz></axis></joint></model>'
          '<joint name="mount" type="fixed"><parent>base</parent><child>inner::l1</child></joint>'
          '</model></sdf>')

ARM_INCLUDE = '<include{}><uri>' + ARM + '</uri>{}</include>'

CASES = {
    "nested_model_pose_is_relative_to_parent_model": NESTED,
    "model_placement_frame": HEAD + '<model name="m" placement_frame="f">'
    '<pose>1 0 0 0 0 0.7</pose>' + _links(("a", "0 0 2 0.1 0 0", ""), ("b", "0 1 0 0 0 0", ""))
    + '<frame name="f" attached_to="a"><pose>0 3 0 0 0.2 0</pose></frame>'
    '<joint name="j" type="prismatic"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz>'
    '</axis></joint></model></sdf>',
    "model_placement_frame_without_pose_and_on_link": HEAD + '<world name="w">'
    '<model name="m" placement_frame="b">' + _links(("a", "0 0 2 0.1 0 0", ""),
                                                    ("b", "0 1 0 0 0.3 0", "")) + '</model>'
    '<model name="n" placement_frame="__model__"><pose>0 0 1 0 0 0</pose>'
    + _links(("c", "1 0 0 0 0 0", "")) + '</model></world></sdf>',
    "world_model_placement_relative_to_world_frame": HEAD + '<world name="w">'
    '<frame name="table"><pose>0.5 0 0.8 0 0 0.5</pose></frame>'
    '<model name="m" placement_frame="f"><pose relative_to="table">0 0 0.1 0 0 0</pose>'
    + _links(("a", "0 0 2 0.1 0 0", "")) + '<frame name="f"><pose relative_to="a">'
    '0.2 0 0 0 0 1</pose></frame></model></world></sdf>',
    "nested_model_placement_frame_in_grandchild": HEAD + '<model name="outer" '
    'placement_frame="inner::tip"><pose>0 0 1 0 0 0</pose>' + _links(("base", "0 0 0.5 0 0 0", ""))
    + '<model name="inner" placement_frame="l2"><pose relative_to="base">0 0.2 0 0 0 0.3</pose>'
    + _links(("l1", "0 0 0.5 0 0.1 0", ""), ("l2", "0.3 0 0 0 0 0", ' relative_to="l1"'))
    + '<frame name="tip" attached_to="l2"><pose>0 0 0.4 0 0 0</pose></frame></model></model>'
    '</sdf>',
    "include_placement_frame": HEAD + '<model name="top">' + _links(("base", "0 0 1 0 0 0", ""))
    + ARM_INCLUDE.format("", '<name>arm1</name><placement_frame>tool</placement_frame>'
                             '<pose relative_to="base">0 0 0.5 0 0 0.4</pose>')
    + ARM_INCLUDE.format("", '<name>arm2</name><placement_frame>forearm</placement_frame>'
                             '<pose relative_to="arm1::tool">0.1 0 0 0 0 0</pose>')
    + '<joint name="mount" type="revolute"><parent>base</parent><child>arm1::shoulder</child>'
    '<axis><xyz>0 0 1</xyz></axis></joint></model></sdf>',
    "include_urdf_placement_frame": HEAD + '<model name="top"><pose>0 0 1 0 0 0</pose>'
    + _links(("base", "0 0 1 0 0 0", "")) + '<include><uri>package://mallard_test_models/urdf/'
    'finger.urdf</uri><placement_frame>tip</placement_frame><pose>0.2 0 0 0 0 0</pose>'
    '</include></model></sdf>',
    "include_merge": HEAD + '<model name="top"><pose>0 0 5 0 0 0</pose>'
    + _links(("base", "0 0 1 0 0 0", ""))
    + ARM_INCLUDE.format(' merge="true"', '<pose relative_to="base">0 0 0.5 0 0 0.4</pose>')
    + '<joint name="mount" type="revolute"><parent>base</parent><child>shoulder</child>'
    '<axis><xyz expressed_in="_merged__arm__model__">0 1 0</xyz></axis></joint></model></sdf>',
    "include_merge_first_is_canonical_with_placement": HEAD + '<model name="top">'
    '<frame name="ff"><pose>0 1 0 0 0 0</pose></frame>'
    + ARM_INCLUDE.format(' merge="true"', '<name>foo</name><placement_frame>tool</placement_frame>'
                                          '<pose>1 0 0 0 0 0</pose>')
    + _links(("base", "0 0 1 0 0 0", "")) + '<model name="n"><pose relative_to="tool">0 0 1 0 0 0'
    '</pose>' + _links(("x", "0 0 0 0 0 0", "")) + '</model>'
    '<joint name="j" type="fixed"><parent>elbow_frame</parent><child>n::x</child></joint>'
    '</model></sdf>',
    "canonical_link_attribute_and_model_frame_joints": HEAD + '<model name="m" '
    'canonical_link="b"><pose>0 0 1 0 0 0.3</pose>'
    + _links(("a", "0.5 0 0 0 0 0", ""), ("b", "0 0.5 0 0.2 0 0", ""))
    + '<frame name="f" attached_to="__model__"><pose>0 0 0.3 0 0 0</pose></frame>'
    '<joint name="j" type="revolute"><parent>f</parent><child>a</child>'
    '<axis><xyz expressed_in="__model__">1 0 0</xyz></axis></joint></model></sdf>',
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sdformat_matches_pydrake(name: str) -> None:
    check_same_plant(CASES[name])


def test_merged_file_with_nested_models_and_model_frame_references(tmp_path: Path) -> None:
    inner = tmp_path / "gadget.sdf"
    inner.write_text(
        HEAD + '<model name="gadget"><pose>0 0 0.2 0 0.3 0</pose>'
        + _links(("g1", "0.1 0 0 0 0 0", ""), ("g2", "0 0.1 0 0 0 0", ' relative_to="__model__"'))
        + '<frame name="mf" attached_to="__model__"><pose relative_to="__model__">0 0 0.1 0.2 0 0'
        '</pose></frame><joint name="gj" type="revolute"><pose relative_to="mf"/><parent>g1</parent>'
        '<child>g2</child><axis><xyz expressed_in="__model__">0 1 1</xyz><limit><lower>-1</lower>'
        '<upper>1</upper><effort>3</effort></limit></axis></joint>'
        '<model name="sub"><pose relative_to="mf">0.3 0 0 0 0 0</pose>'
        + _links(("s", "0 0 0 0 0 0", "")) + '</model>'
        '<joint name="sub_weld" type="fixed"><parent>g2</parent><child>sub::s</child></joint>'
        + ARM_INCLUDE.format("", '<name>arm</name><pose relative_to="g2">0 0 0.1 0 0 0</pose>')
        + '<joint name="arm_mount" type="fixed"><parent>__model__</parent>'
        '<child>arm::shoulder</child></joint></model></sdf>')
    text = (HEAD + '<model name="top"><pose>0 1 0 0 0 0.2</pose>' + _links(("base", "0 0 1 0 0 0", ""))
            + f'<include merge="true"><uri>file://{inner}</uri><pose relative_to="base">'
            '0 0 0.5 0 0 0.4</pose></include>'
            '<joint name="mount" type="revolute"><parent>base</parent><child>g1</child>'
            '<axis><xyz expressed_in="mf">1 0 0</xyz></axis></joint>'
            '<frame name="on_sub" attached_to="sub"><pose relative_to="_merged__gadget__model__">'
            '0 0 0 0 0 0</pose></frame></model></sdf>')
    plant, _ = check_same_plant(text)
    assert [plant.GetModelInstanceName(MallardInstance(i)) for i in range(2, 5)] == [
        "top", "top::sub", "top::arm"]


def _joint(name: str, jtype: str, parent: str, child: str, extra: str = "") -> str:
    return (f'<joint name="{name}" type="{jtype}"><parent>{parent}</parent><child>{child}</child>'
            f'{extra}</joint>')


JOINTS = (HEAD + '<model name="robot"><pose>0 0 0.5 0 0 0.3</pose>'
          + _links(("base", "0 0 0 0 0 0", ""), ("l1", "0 0 0.3 0 0 0", ""),
                   ("l2", "0.2 0 0.3 0 0.2 0", ""), ("l3", "0.2 0.1 0.5 0 0 0", ""),
                   ("l4", "0.2 0.1 0.8 0.1 0 0", ""), ("l5", "0.3 0.1 0.8 0 0 0", ""),
                   ("l6", "0.3 0.2 1.0 0 0 0", ""), ("l7", "0.4 0.2 1.0 0 0 0", ""),
                   ("l8", "0.4 0.2 1.2 0 0 0", ""))
          + '<frame name="mount" attached_to="base"><pose>0 0 0.3 0 0 0</pose></frame>'
          '<frame name="l2_tip" attached_to="l2"><pose>0 0 0.1 0 0 0</pose></frame>'
          + _joint("anchor", "fixed", "world", "__model__")
          + _joint("j1", "revolute", "mount", "l1",
                   '<axis><xyz>0 0 1</xyz><limit><lower>-2</lower><upper>2.5</upper>'
                   '<effort>40</effort><velocity>3</velocity><drake:acceleration>7'
                   '</drake:acceleration></limit><dynamics><damping>0.3</damping>'
                   '<spring_reference>0.1</spring_reference><spring_stiffness>5'
                   '</spring_stiffness></dynamics></axis><drake:rotor_inertia>0.01'
                   '</drake:rotor_inertia><drake:gear_ratio>20</drake:gear_ratio>')
          + _joint("j2", "prismatic", "l1", "l2",
                   '<pose relative_to="l1">0 0 0.05 0 0 0</pose><axis><xyz expressed_in='
                   '"__model__">1 1 0</xyz><limit><lower>-0.1</lower><upper>0.2</upper>'
                   '<effort>-1</effort></limit></axis>')
          + _joint("j3", "continuous", "l2_tip", "l3",
                   '<axis><xyz expressed_in="l2">0 1 0</xyz><limit><effort>0</effort></limit>'
                   '<dynamics><damping>0.05</damping></dynamics></axis>')
          + _joint("j4", "screw", "l3", "l4",
                   '<axis><xyz>0 0 1</xyz><dynamics><damping>0.02</damping></dynamics></axis>'
                   '<screw_thread_pitch>0.05</screw_thread_pitch>')
          + _joint("j5", "universal", "l4", "l5",
                   '<axis><xyz>1 0 0</xyz><dynamics><damping>0.4</damping></dynamics></axis>'
                   '<axis2><xyz>0 0 1</xyz></axis2>')
          + _joint("j6", "ball", "l5", "l6", '<pose>0 0 -0.1 0 0 0</pose><axis><dynamics>'
                   '<damping>0.2</damping></dynamics></axis>')
          + _joint("j7", "revolute", "l6", "l7",
                   '<axis><xyz>0 1 0</xyz><limit><effort>5</effort></limit></axis>'
                   '<drake:mimic joint="j1" multiplier="2" offset="0.1"/>')
          + _joint("j8", "revolute", "l7", "l8",
                   '<axis><xyz>1 0 0</xyz><limit><lower>-1e30</lower><upper>inf</upper>'
                   '</limit></axis>')
          + '</model></sdf>')

GEOMETRY = (HEAD + '<world name="w"><model name="ground"><static>true</static>'
            '<pose>0 0 -0.1 0 0 0</pose><link name="floor"><collision name="plane"><geometry>'
            '<plane><normal>0 0.1 1</normal><size>10 10</size></plane></geometry><surface>'
            '<friction><ode><mu>0.9</mu><mu2>0.8</mu2></ode></friction></surface></collision>'
            '</link><link name="wall"><pose>2 0 0 0 0 0</pose><collision name="box"><geometry>'
            '<box><size>0.1 2 1</size></box></geometry><drake:proximity_properties>'
            '<drake:rigid_hydroelastic/><drake:mesh_resolution_hint>0.1'
            '</drake:mesh_resolution_hint></drake:proximity_properties></collision></link>'
            '</model><model name="thing"><pose>0 0 1 0 0 0</pose><link name="body">'
            + _inertial(2.0, "0 0 0.05")
            + '<collision name="s"><pose>0 0 0.1 0 0 0</pose><geometry><sphere><radius>0.1'
            '</radius></sphere></geometry><drake:proximity_properties><drake:compliant_hydroelastic/>'
            '<drake:hydroelastic_modulus>1e7</drake:hydroelastic_modulus>'
            '<drake:hunt_crossley_dissipation>2</drake:hunt_crossley_dissipation>'
            '<drake:mu_dynamic>0.5</drake:mu_dynamic><drake:mu_static>0.6</drake:mu_static>'
            '<drake:mesh_resolution_hint>0.05</drake:mesh_resolution_hint>'
            '</drake:proximity_properties></collision>'
            '<collision name="c"><pose>0 0 -0.1 1.5707963267948966 0 0</pose><geometry><cylinder>'
            '<radius>0.05</radius><length>0.3</length></cylinder></geometry>'
            '<drake:proximity_properties><drake:point_contact_stiffness>1e4'
            '</drake:point_contact_stiffness><drake:relaxation_time>0.1</drake:relaxation_time>'
            '<drake:hydroelastic_margin>0.001</drake:hydroelastic_margin>'
            '</drake:proximity_properties></collision>'
            '<collision name="cap"><geometry><capsule><radius>0.02</radius><length>0.1</length>'
            '</capsule></geometry><surface><friction><ode><mu2>0.3</mu2></ode></friction></surface>'
            '</collision>'
            '<collision name="e"><geometry><ellipsoid><radii>0.1 0.05 0.02</radii></ellipsoid>'
            '</geometry><surface><friction><ode><mu>0.9</mu><mu2>0.7</mu2></ode></friction>'
            '</surface><drake:proximity_properties><drake:mu_dynamic>0.4</drake:mu_dynamic>'
            '</drake:proximity_properties></collision>'
            '<collision name="m"><geometry><mesh><uri>file://{mesh}</uri><scale>2 1 0.5</scale>'
            '<drake:declare_convex/></mesh></geometry></collision>'
            '<visual name="vm"><geometry><mesh><uri>file://{mesh}</uri></mesh></geometry>'
            '<material><diffuse>1 0 0 1</diffuse></material></visual>'
            '<visual name="vb"><pose>0.1 0 0 0 0 0</pose><geometry><box><size>0.1 0.1 0.1</size>'
            '</box></geometry></visual></link>'
            '<link name="arm"><pose>0.3 0 0 0 0 0</pose><collision name="b"><geometry><box><size>'
            '0.2 0.02 0.02</size></box></geometry></collision></link>'
            '<link name="hand"><pose>0.5 0 0 0 0 0</pose><collision name="b"><geometry><box><size>'
            '0.05 0.05 0.05</size></box></geometry></collision></link>'
            + _joint("shoulder", "revolute", "body", "arm", '<axis><xyz>0 0 1</xyz></axis>')
            + _joint("wrist", "revolute", "arm", "hand", '<axis><xyz>0 0 1</xyz></axis>')
            + '<drake:collision_filter_group name="limb"><drake:member>arm</drake:member>'
            '<drake:member>hand</drake:member><drake:ignored_collision_filter_group>limb'
            '</drake:ignored_collision_filter_group></drake:collision_filter_group>'
            '<drake:collision_filter_group name="core"><drake:member>body</drake:member>'
            '<drake:member_group>limb</drake:member_group>'
            '</drake:collision_filter_group>'
            '<drake:collision_filter_group name="solo"><drake:member>body</drake:member>'
            '<drake:ignored_collision_filter_group>limb</drake:ignored_collision_filter_group>'
            '</drake:collision_filter_group></model></world></sdf>')


def test_plane_frames_match() -> None:
    planes = "".join(f'<collision name="p{k}"><pose>0 0 0 0.1 0.2 0</pose><geometry><plane><normal>'
                     f'{n}</normal></plane></geometry></collision>'
                     for k, n in enumerate(["0 0 1", "0 0 -2", "1 0 0", "1 1 1", "0.3 -0.5 0.2"]))
    check_same_plant(HEAD + f'<model name="m"><static>true</static><link name="a">{planes}</link>'
                     f'</model></sdf>')


@pytest.mark.parametrize("time_step", [0.0, 1e-3])
def test_joints_limits_dynamics_and_drake_extensions_match(time_step: float) -> None:
    # (mallard's Parser ignores drake:mimic in a continuous plant, where pydrake adds the
    # coupler constraint; the mimic is compared in the discrete plant only.)
    text = JOINTS if time_step else JOINTS.replace(
        '<drake:mimic joint="j1" multiplier="2" offset="0.1"/>', "")
    check_same_plant(text, time_step)


def test_geometries_surfaces_and_filter_groups_match() -> None:
    mesh = TEST_PACKAGE.parent / "meshes" / "box.obj"
    check_same_plant(GEOMETRY.replace("{mesh}", str(mesh)))


I = _inertial(1.0)

AUDIT = {
    "world_joints_weld_models": '<world name="w"><frame name="wf"><pose>0 0 2 0 0 0.3</pose>'
    '</frame><joint name="j0" type="fixed"><pose relative_to="wf"/><parent>world</parent>'
    '<child>m::a</child></joint><model name="m">' + _links(("a", "1 0 0 0 0 0", "")) + '</model>'
    '<model name="n"><pose>0 1 0 0 0 0</pose>' + _links(("b", "0 0 1 0.2 0 0", "")) + '</model>'
    '<joint name="j1" type="fixed"><parent>m::a</parent><child>n::b</child></joint></world>',
    "drake_planar_joint_on_frames": '<model name="m"><pose>0 0 1 0 0 0</pose>'
    + _links(("a", "0 0 0 0 0 0", ""), ("b", "0.2 0 0.5 0 0 0", ""))
    + '<frame name="f" attached_to="a"><pose>0 0 0.5 0.3 0 0</pose></frame>'
    '<drake:joint name="p" type="planar"><drake:parent>f</drake:parent><drake:child>b'
    '</drake:child><drake:damping>0.1 0.2 0.3</drake:damping></drake:joint>'
    '<joint name="w" type="fixed"><parent>world</parent><child>a</child></joint></model>',
    "drake_capsule_and_ellipsoid": '<model name="m"><link name="a">' + I + '<collision name="c">'
    '<geometry><drake:capsule><radius>0.1</radius><length>0.2</length></drake:capsule>'
    '</geometry></collision><visual name="v"><geometry><drake:ellipsoid><a>0.1</a><b>0.2</b>'
    '<c>0.3</c></drake:ellipsoid></geometry></visual></link></model>',
    "invalid_inertias_become_water_spheres": '<model name="m">'
    '<link name="zero_mass"><inertial><pose>0 0 0.3 0 0 0</pose><mass>0</mass></inertial></link>'
    '<link name="negative"><inertial><mass>2</mass><inertia><ixx>-1</ixx></inertia></inertial>'
    '</link><link name="triangle"><inertial><pose>0 0 1 0 0.2 0</pose><mass>3</mass><inertia>'
    '<ixx>1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>'
    '<link name="massless"><inertial><mass>0</mass><inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz>'
    '</inertia></inertial></link><link name="negative_mass"><inertial><mass>-2</mass><inertia>'
    '<ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia></inertial></link>'
    '<joint name="m" type="prismatic"><parent>massless</parent><child>negative_mass</child>'
    '<axis><xyz>0 0 1</xyz></axis></joint>'
    '<joint name="j" type="revolute"><parent>zero_mass</parent><child>negative</child><axis>'
    '<xyz>1 0 0</xyz></axis></joint><joint name="k" type="revolute"><parent>negative</parent>'
    '<child>triangle</child><axis><xyz>0 1 0</xyz></axis></joint>'
    '<joint name="l" type="fixed"><parent>triangle</parent><child>massless</child></joint>'
    '</model>',
    "quaternion_and_degree_poses": '<model name="m"><link name="a"><pose rotation_format='
    '"quat_xyzw">1 2 3 0 0 0.3826834323650898 0.9238795325112867</pose>' + I + '</link>'
    '<link name="b"><pose degrees="true" relative_to="a">0 0 1 30 0 45</pose>' + I + '</link>'
    '<joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz>'
    '</axis></joint></model>',
    "frames_attached_to_models_and_world_frame_chains": '<world name="w"><frame name="f1"><pose>'
    '1 0 0 0 0 0.5</pose></frame><frame name="f2" attached_to="f1"><pose>0 1 0 0 0 0</pose>'
    '</frame><model name="m"><pose relative_to="f2">0 0 1 0 0 0</pose>'
    + _links(("a", "0 0 0 0 0 0", "")) + '<model name="n"><pose>0 1 0 0 0 0</pose>'
    + _links(("x", "0 0 1 0 0 0", "")) + '</model><frame name="f" attached_to="n"><pose '
    'relative_to="n::x">0.1 0 0 0 0 0</pose></frame>'
    '<joint name="j" type="ball"><parent>a</parent><child>n::x</child></joint></model>'
    '<frame name="on_x" attached_to="m::n::x"><pose relative_to="f1">0 0 0 0 0 1</pose></frame>'
    '</world>',
    "include_merge_urdf": '<model name="top"><pose>0 0 1 0 0 0</pose>'
    + _links(("l0", "0 0 0 0 0 0", "")) + '<include merge="true"><uri>package://'
    'mallard_test_models/urdf/finger.urdf</uri><pose>0.5 0 0 0 0 0.3</pose></include>'
    + _links(("l1", "0 1 0 0 0 0", "")) + '<joint name="jj" type="revolute"><parent>l1</parent>'
    '<child>palm</child><axis><xyz>1 0 0</xyz></axis></joint><joint name="w" type="fixed">'
    '<parent>world</parent><child>l0</child></joint><frame name="ff" attached_to="tip"><pose>'
    '0 0 1 0 0 0</pose></frame></model>',
    "include_merge_urdf_first_with_name": '<model name="top"><include merge="true"><uri>'
    'package://mallard_test_models/urdf/finger.urdf</uri><name>f2</name><pose>0.5 0 0 0 0 0.3'
    '</pose></include>' + _links(("l1", "0 1 0 0 0 0", "")) + '</model>',
    "static_is_per_model_and_welds_only_free_links": '<model name="m"><static>true</static>'
    '<pose>0 0 1 0 0 0.2</pose>' + _links(("a", "1 0 0 0 0 0", ""), ("b", "0 0 1 0 0 0", ""),
                                          ("c", "0 1 0 0.3 0 0", ""))
    + '<joint name="j" type="fixed"><parent>world</parent><child>a</child></joint>'
    '<joint name="k" type="fixed"><parent>a</parent><child>b</child></joint>'
    '<model name="n"><pose>0 1 0 0 0 0</pose>' + _links(("x", "0 0 1 0 0 0", "")) + '</model>'
    '</model>',
    "include_static_false_in_static_model": '<model name="m"><static>true</static>'
    + _links(("a", "1 0 0 0 0 0", "")) + '<include><uri>' + ARM + '</uri><static>false</static>'
    '</include></model>',
    "frames_attached_to_joints": '<model name="m">' + _links(
        ("a", "0 0 0 0 0 0", ""), ("b", "0 0 1 0 0 0.4", ""), ("c", "0 0 2 0 0 0", ""))
    + '<frame name="bf" attached_to="b"><pose>0 0.2 0 0.3 0 0</pose></frame>'
    '<joint name="j" type="revolute"><pose>0 0 0.3 0 0 0</pose><parent>a</parent><child>bf'
    '</child><axis><xyz>1 0 0</xyz></axis></joint>'
    '<joint name="k" type="revolute"><pose relative_to="b">0 0.1 0 0 0 0</pose><parent>b'
    '</parent><child>c</child><axis><xyz>0 1 0</xyz></axis></joint>'
    '<frame name="on_j" attached_to="j"><pose>0 0 0.1 0 0.2 0</pose></frame>'
    '<frame name="on_j_rel" attached_to="j"><pose relative_to="j">0 0 0.1 0 0 0</pose></frame>'
    '<frame name="rel_k" attached_to="b"><pose relative_to="k">0.1 0 0 0 0 0</pose></frame>'
    '<frame name="on_k" attached_to="k"/>'
    '<frame name="on_on_k" attached_to="on_k"><pose>0 0 0.5 0 0 0</pose></frame>'
    '<frame name="on_k_rel_c" attached_to="k"><pose relative_to="c">0 0 0.3 0 0 0</pose></frame>'
    '<link name="d"><pose relative_to="on_k_rel_c">0 0 0.2 0 0 0</pose>' + I + '</link>'
    '<joint name="w" type="fixed"><parent>world</parent><child>a</child></joint></model>',
    "ignored_link_flags_and_joint_friction": '<model name="m"><link name="a"><kinematic>true'
    '</kinematic><gravity>false</gravity><self_collide>true</self_collide>' + I + '</link>'
    '<link name="b">' + I + '</link><joint name="j" type="revolute"><parent>a</parent><child>b'
    '</child><axis><xyz>1 0 0</xyz><dynamics><friction>3</friction></dynamics></axis></joint>'
    '</model>',
}


@pytest.mark.parametrize("name", sorted(AUDIT))
def test_audited_features_match_pydrake(name: str) -> None:
    check_same_plant(HEAD + AUDIT[name] + "</sdf>")


def test_sdformat_1_6_nested_models_match_pydrake() -> None:
    check_same_plant(NESTED.replace('version="1.9"', 'version="1.6"'))


@pytest.mark.parametrize("include", [
    "", "<pose>0 1 0 0 0 0.5</pose>",
    "<pose>0 1 0 0 0 0.5</pose><placement_frame>b</placement_frame>",
    "<pose>0 1 0 0 0 0.5</pose><placement_frame>__model__</placement_frame>"])
def test_included_model_placement_frame_attribute(include: str, tmp_path: Path) -> None:
    part = tmp_path / "part.sdf"
    part.write_text(HEAD + '<model name="part" placement_frame="f"><pose>0 0 1 0.3 0 0</pose>'
                    + _links(("a", "0.1 0 0 0 0 0", ""), ("b", "0 0.2 0 0 0.4 0", ""))
                    + '<frame name="f" attached_to="b"><pose>0 0 0.3 0 0 0</pose></frame>'
                    '<joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>'
                    '0 0 1</xyz></axis></joint></model></sdf>')
    for merge in ("", ' merge="true"'):
        check_same_plant(HEAD + '<model name="top">' + _links(("base", "0 0 0.5 0 0 0", ""))
                         + f'<include{merge}><uri>file://{part}</uri>{include}</include>'
                         '<joint name="w" type="fixed"><parent>base</parent><child>'
                         + ('a' if merge else 'part::a') + '</child></joint></model></sdf>')
