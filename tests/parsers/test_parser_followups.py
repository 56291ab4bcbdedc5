"""Parser follow-ups of the SDFormat audit, each against pydrake loading the same string: model frames
(`__model__`) and the frames attached to them stay in their own model instance, `drake:mimic` on
continuous plants, prismatic springs, `drake:linear_bushing_rpy` (forces) and
`drake:ball_constraint` (SDFormat and URDF), and located errors for bad input."""
from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import MultibodyForces
from mallard.parsers import ParseError, Parser


def _load_sibling(name: str):
    """The SDFormat oracle harness (`check_same_plant`) of the test module next to this one."""
    spec = importlib.util.spec_from_file_location(f"_{name}", Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_oracle = _load_sibling("test_sdformat_oracle")
HEAD, _inertial, check_same_plant = _oracle.HEAD, _oracle._inertial, _oracle.check_same_plant
load_drake, load_mallard = _oracle.load_drake, _oracle.load_mallard


def _link(name: str, pose: str = "0 0 0 0 0 0") -> str:
    return f'<link name="{name}"><pose>{pose}</pose>{_inertial(1.0, "0.01 0.02 0.03")}</link>'


# ---- 2. __model__ frames ------------------------------------------------------------------------
MODEL_FRAMES = {
    "canonical_link_in_nested_model": HEAD + '<model name="top" canonical_link="inner::x">'
    '<pose>1 0 0 0 0 0.3</pose><model name="inner"><pose>0 1 0 0.1 0 0</pose>' + _link("x", "0 0 0.5 0 0 0")
    + '</model>' + _link("a", "0.2 0 0 0 0 0") + '<frame name="f1"><pose>0 0 1 0 0 0</pose></frame>'
    '<frame name="f2" attached_to="f1"><pose>0.1 0 0 0 0.2 0</pose></frame><frame name="f3" attached_to="a"/>'
    '<frame name="f4" attached_to="inner"/></model></sdf>',
    "only_nested_models": HEAD + '<model name="top"><pose>1 2 0 0 0 0.3</pose>'
    '<model name="inner"><pose>0 1 0 0.1 0 0</pose>' + _link("x", "0 0 0.5 0 0 0") + '</model>'
    '<model name="other">' + _link("y", "0.3 0 0 0 0 0") + '</model>'
    '<frame name="g"><pose>0 0 0.2 0 0 0</pose></frame></model></sdf>',
    "frames_attached_to_nested_frames": HEAD + '<model name="top"><model name="inner">'
    '<pose>0 1 0 0.1 0 0</pose>' + _link("x", "0 0 0.5 0 0 0") + _link("x2") + '<joint name="jj" type="revolute">'
    '<parent>x</parent><child>x2</child><axis><xyz>0 0 1</xyz></axis></joint><frame name="fi"/></model>'
    + _link("a", "0.2 0 0 0 0 0") + '<frame name="g" attached_to="inner::x"><pose>0 0 1 0 0 0</pose></frame>'
    '<frame name="g2" attached_to="g"><pose>0 0.1 0 0 0 0.3</pose></frame><frame name="g3" attached_to="inner::fi"/>'
    '<frame name="g4" attached_to="inner::jj"/><frame name="g5" attached_to="g3"><pose>0.1 0 0 0 0 0</pose></frame>'
    '<frame name="g6" attached_to="g5"/></model></sdf>',
    "world_frames": HEAD + '<world name="w"><model name="top" canonical_link="n::b">'
    '<model name="n">' + _link("b", "0 0 1 0 0 0") + '</model>' + _link("a") + '</model>'
    '<frame name="wf" attached_to="top"><pose>0 0 0.5 0 0 0</pose></frame><frame name="wg"/>'
    '<frame name="wh" attached_to="wf"><pose>0 0.2 0 0 0 0</pose></frame>'
    '<frame name="wk" attached_to="wg"><pose>0 0.3 0 0 0 0</pose></frame></world></sdf>',
}


@pytest.mark.parametrize("name", sorted(MODEL_FRAMES))
def test_model_frames_match_pydrake(name: str) -> None:
    plant, _ = check_same_plant(MODEL_FRAMES[name])
    top = plant.GetModelInstanceByName("top")
    frame = plant.GetFrameByName("__model__", top)
    assert frame.model_instance() == top


def test_canonical_link_in_nested_model_poses_the_model_frame() -> None:
    plant = load_mallard(MODEL_FRAMES["canonical_link_in_nested_model"])[0]
    frame = plant.GetFrameByName("__model__", plant.GetModelInstanceByName("top"))
    assert frame.body().name() == "x"
    np.testing.assert_allclose(frame.CalcPoseInWorld(plant.CreateDefaultContext()).GetAsMatrix4(),
                               np.array([[np.cos(0.3), -np.sin(0.3), 0, 1], [np.sin(0.3), np.cos(0.3), 0, 0],
                                         [0, 0, 1, 0], [0, 0, 0, 1]]), atol=1e-15)


# ---- 3. drake:mimic and prismatic springs ------------------------------------------------------
MIMIC_SPRING = HEAD + '<model name="m">' + _link("a") + _link("b", "0 0 0.1 0 0 0") + _link("c", "0.2 0 0 0 0 0") + \
    '<joint name="base" type="fixed"><parent>world</parent><child>a</child></joint>' \
    '<joint name="j1" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>' \
    '<joint name="j2" type="prismatic"><parent>b</parent><child>c</child><axis><xyz>1 0 0</xyz><dynamics>' \
    '<spring_stiffness>3</spring_stiffness><spring_reference>0.2</spring_reference></dynamics></axis>' \
    '<drake:mimic joint="j1" multiplier="2" offset="0.5"/></joint></model></sdf>'


def test_mimic_and_prismatic_spring_match_pydrake_on_a_discrete_plant() -> None:
    check_same_plant(MIMIC_SPRING, time_step=0.01)
    plant, dplant = _load_both(MIMIC_SPRING, "sdf", 0.01)
    assert plant.num_constraints() == dplant.num_constraints() == 1
    (spec,) = plant.constraint_specs()
    assert (spec["kind"], spec["joint0"].name(), spec["joint1"].name(), spec["gear_ratio"], spec["offset"]) == \
        ("Coupler", "j2", "j1", 2.0, 0.5)
    _check_springs(plant, dplant)


def test_prismatic_spring_matches_pydrake_on_a_continuous_plant() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plant, dplant = _load_both(MIMIC_SPRING, "sdf", 0.0)
    _check_springs(plant, dplant)


def _check_springs(plant, dplant) -> None:
    from pydrake.multibody.tree import ForceElementIndex, PrismaticSpring as DrakeSpring
    from mallard.multibody.tree import PrismaticSpring
    springs = [plant.get_force_element(i) for i in range(plant.num_force_elements())]
    dsprings = [dplant.get_force_element(ForceElementIndex(i)) for i in range(dplant.num_force_elements())]
    (s,) = [e for e in springs if isinstance(e, PrismaticSpring)]
    (d,) = [e for e in dsprings if isinstance(e, DrakeSpring)]
    assert (s.joint().name(), s.nominal_position(), s.stiffness()) == \
        (d.joint().name(), d.nominal_position(), d.stiffness()) == ("j2", 0.2, 3.0)
    _check_force_elements(plant, dplant, seed=5)


def test_mimic_on_a_continuous_plant_is_kept_as_pydrake_keeps_it() -> None:
    require_pydrake()
    drake = load_drake(MIMIC_SPRING, 0.0)
    dplant = drake[0]
    assert dplant.num_constraints() == 1  # pydrake keeps it (and refuses to simulate)
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(MIMIC_SPRING, "sdf")
    assert plant.num_constraints() == 1
    plant.Finalize()
    with pytest.raises(RuntimeError, match="continuous time.*Coupler.*time_step > 0"):
        plant.EvalTimeDerivatives(plant.CreateDefaultContext())


# ---- 4. drake:linear_bushing_rpy and drake:ball_constraint --------------------------------------
BUSHING_SDF = HEAD + '<model name="m">' + _link("a") + _link("a2", "0 0.5 0 0 0 0") + '<model name="n">' + \
    _link("b", "0.1 0.2 0.3 0.1 0.2 0.3") + '<frame name="fc" attached_to="b"><pose>0 0 0.1 0 0.1 0</pose></frame>' \
    '</model><frame name="fa" attached_to="a"><pose>0.1 0 0 0.2 0 0</pose></frame>' \
    '<drake:linear_bushing_rpy><drake:bushing_frameA>fa</drake:bushing_frameA>' \
    '<drake:bushing_frameC>n::fc</drake:bushing_frameC>' \
    '<drake:bushing_torque_stiffness>10 20 30</drake:bushing_torque_stiffness>' \
    '<drake:bushing_torque_damping>1 2 3</drake:bushing_torque_damping>' \
    '<drake:bushing_force_stiffness>100 200 300</drake:bushing_force_stiffness>' \
    '<drake:bushing_force_damping>4 5 6</drake:bushing_force_damping></drake:linear_bushing_rpy>' \
    '<drake:ball_constraint><drake:ball_constraint_body_A>a</drake:ball_constraint_body_A>' \
    '<drake:ball_constraint_body_B>a2</drake:ball_constraint_body_B>' \
    '<drake:ball_constraint_p_AP>1 2 3</drake:ball_constraint_p_AP>' \
    '<drake:ball_constraint_p_BQ>4 5 6</drake:ball_constraint_p_BQ></drake:ball_constraint></model></sdf>'

_URDF_INERTIAL = ('<inertial><origin xyz="0.01 0.02 0.03"/><mass value="1"/><inertia ixx="0.01" iyy="0.02" izz="0.03" '
                  'ixy="0" ixz="0" iyz="0"/></inertial>')
BUSHING_URDF = '<?xml version="1.0"?><robot name="r" xmlns:drake="http://drake.mit.edu">' + \
    ''.join(f'<link name="{n}">{_URDF_INERTIAL}</link>' for n in ("a", "b", "c")) + \
    '<joint name="jb" type="floating"><parent link="a"/><child link="b"/></joint>' \
    '<frame name="fa" link="a" xyz="0.1 0 0" rpy="0.2 0 0"/><frame name="fb" link="b" xyz="0 0 0.1" rpy="0 0.1 0"/>' \
    '<drake:linear_bushing_rpy><drake:bushing_frameA name="fa"/><drake:bushing_frameC name="fb"/>' \
    '<drake:bushing_torque_stiffness value="10 20 30"/><drake:bushing_torque_damping value="1 2 3"/>' \
    '<drake:bushing_force_stiffness value="100 200 300"/><drake:bushing_force_damping value="4 5 6"/>' \
    '</drake:linear_bushing_rpy><drake:ball_constraint><drake:ball_constraint_body_A name="a"/>' \
    '<drake:ball_constraint_body_B name="c"/><drake:ball_constraint_p_AP value="1 2 3"/>' \
    '<drake:ball_constraint_p_BQ value="4 5 6"/></drake:ball_constraint></robot>'


_KEEP_ALIVE: list = []


def _load_both(text: str, kind: str, time_step: float):
    if kind == "sdf":
        mallard, drake = load_mallard(text, time_step), load_drake(text, time_step)
        _KEEP_ALIVE.append(drake)  # (the pydrake plant lives as long as its parser and scene graph)
        return mallard[0], drake[0]
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    plant, dplant = MultibodyPlant(time_step), DrakePlant(time_step)
    Parser(plant).AddModelsFromString(text, kind)
    DrakeParser(dplant).AddModelsFromString(text, kind)
    plant.Finalize()
    dplant.Finalize()
    return plant, dplant


def _random_state(plant, rng) -> tuple:
    q = rng.uniform(-0.6, 0.6, plant.num_positions())
    for j in plant.GetJointIndices():
        joint = plant.get_joint(j)
        if joint.type_name() == "quaternion_floating":
            s = joint.position_start()
            q[s:s + 4] /= np.linalg.norm(q[s:s + 4])
    return q, rng.uniform(-1, 1, plant.num_velocities())


def _check_force_elements(plant, dplant, seed: int) -> None:
    """Generalized forces of every force element (gravity, springs, bushings) at random states."""
    from pydrake.multibody.tree import MultibodyForces as DrakeForces
    rng = np.random.default_rng(seed)
    context, dcontext = plant.CreateDefaultContext(), dplant.CreateDefaultContext()
    for _ in range(4):
        q, v = _random_state(plant, rng)
        plant.SetPositions(context, q)
        plant.SetVelocities(context, v)
        dplant.SetPositions(dcontext, q)
        dplant.SetVelocities(dcontext, v)
        forces, dforces = MultibodyForces(plant), DrakeForces(dplant)
        plant.CalcForceElementsContribution(context, forces)
        dplant.CalcForceElementsContribution(dcontext, dforces)
        tau, dtau = plant.CalcGeneralizedForces(context, forces), dplant.CalcGeneralizedForces(dcontext, dforces)
        np.testing.assert_allclose(tau, dtau, rtol=0, atol=1e-11 * max(1.0, np.abs(dtau).max()))


@pytest.mark.parametrize("kind", ["sdf", "urdf"])
def test_bushing_forces_match_pydrake(kind: str) -> None:
    from pydrake.multibody.tree import ForceElementIndex
    from pydrake.multibody.tree import LinearBushingRollPitchYaw as DrakeBushing
    from mallard.multibody.tree import LinearBushingRollPitchYaw
    plant, dplant = _load_both(BUSHING_SDF if kind == "sdf" else BUSHING_URDF, kind, 0.01)
    (b,) = [e for e in map(plant.get_force_element, range(plant.num_force_elements()))
            if isinstance(e, LinearBushingRollPitchYaw)]
    (d,) = [e for e in map(dplant.get_force_element, map(ForceElementIndex, range(dplant.num_force_elements())))
            if isinstance(e, DrakeBushing)]
    assert (b.frameA().name(), b.frameC().name()) == (d.frameA().name(), d.frameC().name())
    assert b.frameC().model_instance() != plant.world_body().model_instance()
    for name in ("torque_stiffness_constants", "torque_damping_constants", "force_stiffness_constants",
                 "force_damping_constants"):
        np.testing.assert_array_equal(getattr(b, name)(), getattr(d, name)())
    _check_force_elements(plant, dplant, seed=2)


@pytest.mark.parametrize("kind", ["sdf", "urdf"])
def test_ball_constraint_matches_pydrake(kind: str) -> None:
    plant, dplant = _load_both(BUSHING_SDF if kind == "sdf" else BUSHING_URDF, kind, 0.01)
    assert plant.num_constraints() == dplant.num_constraints() == 1
    (spec,) = plant.constraint_specs()  # (pydrake does not bind the ball constraint's specs)
    assert (spec["kind"], spec["body_A"].name(), spec["body_B"].name()) == \
        ("Ball", "a", "a2" if kind == "sdf" else "c")
    np.testing.assert_array_equal(spec["p_AP"], [1, 2, 3])
    np.testing.assert_array_equal(spec["p_BQ"], [4, 5, 6])
    if kind == "sdf":
        check_same_plant(BUSHING_SDF, time_step=0.01)


def _line_of(text: str, marker: str) -> int:
    return text[:text.index(marker)].count("\n") + 1


def _multiline(text: str) -> str:
    return text.replace("><", ">\n<")


@pytest.mark.parametrize("kind,old,new,marker,element,match", [
    ("sdf", "<drake:bushing_frameC>n::fc</drake:bushing_frameC>", "<drake:bushing_frameC>n::nope</drake:bushing_frameC>",
     "<drake:linear_bushing_rpy>", "drake:linear_bushing_rpy", r"frame 'n::nope' does not exist in model 'm::n'"),
    ("sdf", "<drake:bushing_frameC>n::fc</drake:bushing_frameC>", "<drake:bushing_frameC>q::fc</drake:bushing_frameC>",
     "<drake:linear_bushing_rpy>", "drake:linear_bushing_rpy", r"model 'm::q' does not exist"),
    ("sdf", "<drake:bushing_torque_damping>1 2 3</drake:bushing_torque_damping>", "",
     "<drake:linear_bushing_rpy>", "drake:linear_bushing_rpy", r"missing its required <drake:bushing_torque_damping>"),
    ("sdf", "<drake:bushing_force_damping>4 5 6</drake:bushing_force_damping>",
     "<drake:bushing_force_damping>4 -5 6</drake:bushing_force_damping>",
     "<drake:bushing_force_damping>", "drake:bushing_force_damping", "non-negative"),
    ("sdf", "<drake:bushing_force_damping>4 5 6</drake:bushing_force_damping>",
     "<drake:bushing_force_damping>4 5</drake:bushing_force_damping>",
     "<drake:bushing_force_damping>", "drake:bushing_force_damping", "expected 3 numbers"),
    ("sdf", "<drake:ball_constraint_body_B>a2</drake:ball_constraint_body_B>",
     "<drake:ball_constraint_body_B>n::b</drake:ball_constraint_body_B>",
     "<drake:ball_constraint>", "drake:ball_constraint", r"body 'n::b' does not exist in model 'm'"),
    ("sdf", "<drake:ball_constraint_p_BQ>4 5 6</drake:ball_constraint_p_BQ>", "<drake:foo/>",
     "<drake:foo/>", "drake:foo", "not a child of <drake:ball_constraint>"),
    ("urdf", '<drake:bushing_frameC name="fb"/>', '<drake:bushing_frameC/>',
     "<drake:bushing_frameC/>", "drake:bushing_frameC", "needs a name attribute"),
    ("urdf", '<drake:ball_constraint_body_A name="a"/>', '<drake:ball_constraint_body_A name="zz"/>',
     "<drake:ball_constraint>", "drake:ball_constraint", r"body 'zz' does not exist in model 'r'; bodies: \['a', 'b', 'c'\]"),
    ("urdf", '<drake:ball_constraint_p_AP value="1 2 3"/>', '<drake:ball_constraint_p_AP value="1 x 3"/>',
     "<drake:ball_constraint_p_AP", "drake:ball_constraint_p_AP", "drake:ball_constraint_p_AP"),
])
def test_bad_extension_elements_raise_located_parse_errors(kind, old, new, marker, element, match) -> None:
    base = BUSHING_SDF if kind == "sdf" else BUSHING_URDF
    assert old in base
    text = _multiline(base.replace(old, new))
    with pytest.raises(ParseError, match=match) as info:
        Parser(MultibodyPlant(0.01)).AddModelsFromString(text, kind)
    assert (info.value.line, info.value.element) == (_line_of(text, marker), element)
    if "does not exist" in match or "required" in match:  # pydrake refuses these files too
        require_pydrake()
        from pydrake.multibody.parsing import Parser as DrakeParser
        from pydrake.multibody.plant import MultibodyPlant as DrakePlant
        dplant = DrakePlant(0.01)
        with pytest.raises(RuntimeError):
            DrakeParser(dplant).AddModelsFromString(text, kind)


def test_ball_constraint_on_a_continuous_plant_is_kept_as_pydrake_keeps_it() -> None:
    drake = load_drake(BUSHING_SDF, 0.0)
    dplant = drake[0]
    assert dplant.num_constraints() == 1
    plant = MultibodyPlant(0.0)
    Parser(plant).AddModelsFromString(BUSHING_SDF, "sdf")
    assert plant.num_constraints() == 1 and plant.num_force_elements() == dplant.num_force_elements()


def test_negative_prismatic_spring_stiffness_raises_a_located_parse_error() -> None:
    text = _multiline(MIMIC_SPRING.replace("<spring_stiffness>3</spring_stiffness>",
                                           "<spring_stiffness>-3</spring_stiffness>"))
    with pytest.raises(ParseError, match="joint 'j2': PrismaticSpring: stiffness must be non-negative") as info:
        Parser(MultibodyPlant(0.01)).AddModelsFromString(text, "sdf")
    assert (info.value.line, info.value.element) == (_line_of(text, '<joint name="j2"'), "joint")
