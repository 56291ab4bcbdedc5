"""Parser(plant) against pydrake's Parser: every shared Drake model (and the synthetic test models)
loaded into both plants must give the same instances, bodies, joints, actuators, state layout,
default state and — at random states — the same mass matrix, gravity forces and body poses."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS
from oracles import require_pydrake

from mallard.multibody.plant import MultibodyPlant
from mallard.parsers import Parser

DATA = Path(__file__).resolve().parent / "data"
TEST_PACKAGE = DATA / "test_pkg"
MODEL_FILES = sorted(
    str(p.relative_to(MODELS)) for folder in ("drake_examples", "drake_models")
    for p in (MODELS / folder).rglob("*") if p.suffix in (".urdf", ".sdf"))
SYNTHETIC = ["joints.sdf", "nested_world.sdf", "test_pkg/models/arm/arm.sdf", "test_pkg/urdf/finger.urdf"]

# Custom joint types and URDF features not in the shared files: planar (normal off-axis), ball,
# universal, joint limits, velocity/effort limits, transmissions with rotor inertia, a free link.
CUSTOM_URDF = """<?xml version="1.0"?>
<robot name="custom" xmlns:drake="http://drake.mit.edu">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0.01" ixz="0" iyz="0"/></inertial></link>
  <link name="a"><inertial><origin xyz="0.1 0 0.2" rpy="0.3 0 0"/><mass value="1"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.025" ixy="0" ixz="0.001" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0.1 0"/><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><origin xyz="0 0 0.1"/><mass value="0.3"/>
    <inertia ixx="0.002" iyy="0.003" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="free"><inertial><mass value="0.7"/><inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="weld" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1" rpy="0 0 0.4"/></joint>
  <joint name="slide" type="planar"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.5" rpy="0.1 0.2 0.3"/><axis xyz="0.3 0.5 0.8"/><dynamics damping="0.5 0.6 0.7"/></joint>
  <drake:joint name="swivel" type="ball"><parent link="a"/><child link="b"/><origin xyz="0 0.3 0"/></drake:joint>
  <drake:joint name="cross" type="universal"><parent link="b"/><child link="c"/><origin xyz="0.2 0 0" rpy="0 0.5 0"/></drake:joint>
</robot>
"""


def _make_package_setup(package_map) -> None:
    if package_map.Contains("drake_models"):  # a default map knows it as a remote package: use the local copy
        package_map.Remove("drake_models")
    package_map.AddPackageXml(str(MODELS / "drake_models" / "package.xml"))
    package_map.PopulateFromFolder(str(TEST_PACKAGE))


def _load_mallard(path: str | None, contents: str | None = None):
    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    _make_package_setup(parser.package_map())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instances = parser.AddModels(path) if contents is None else parser.AddModelsFromString(contents, "urdf")
        plant.Finalize()  # (a continuous plant warns that it ignores joint limits)
    return plant, instances


def _load_drake(path: str | None, contents: str | None = None):
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    plant = DrakePlant(0.0)
    parser = DrakeParser(plant)
    parser.package_map().Remove("drake_models")
    _make_package_setup(parser.package_map())
    instances = parser.AddModels(path) if contents is None else parser.AddModelsFromString(contents, "urdf")
    plant.Finalize()
    return plant, instances


def _structure(plant, instances) -> dict:
    """Names and sizes that must agree between the two plants (per instance, in plant order)."""
    out = {"instances": [plant.GetModelInstanceName(i) for i in instances]}
    for i in instances:
        name = plant.GetModelInstanceName(i)
        out[f"{name}/bodies"] = [plant.get_body(b).name() for b in plant.GetBodyIndices(i)]
        out[f"{name}/joints"] = [(plant.get_joint(j).name(), plant.get_joint(j).type_name(),
                                  tuple(plant.get_joint(j).default_damping_vector()))
                                 for j in plant.GetJointIndices(i)]
        out[f"{name}/actuators"] = [(a.name(), a.effort_limit(), a.default_gear_ratio(), a.default_rotor_inertia())
                                    for a in map(plant.get_joint_actuator, plant.GetJointActuatorIndices(i))]
    out["state_names"] = list(plant.GetStateNames())
    out["actuator_names"] = list(plant.GetActuatorNames())
    out["sizes"] = (plant.num_positions(), plant.num_velocities(), plant.num_actuators(), plant.num_bodies())
    return out


def _named_frames(plant, indices) -> dict:
    """(name, instance, body) → X_BF of the frames a file declares (`__model__` and user frames;
    not the offset frames joints create, whose names pydrake derives differently)."""
    out = {}
    for i in indices:
        f = plant.get_frame(i)
        if f.name().endswith(("_parent", "_child", "_F", "_M")):
            continue
        key = (f.name(), plant.GetModelInstanceName(f.model_instance()), f.body().name())
        out[key] = np.asarray(f.GetFixedPoseInBodyFrame().GetAsMatrix4())
    return out


def _random_states(plant, count: int, seed: int) -> list:
    """Random q (unit quaternions for floating joints) and v."""
    rng = np.random.default_rng(seed)
    states = []
    quaternion_starts = [plant.get_joint(j).position_start() for j in plant.GetJointIndices()
                         if plant.get_joint(j).type_name() == "quaternion_floating"]
    for _ in range(count):
        q = rng.uniform(-1.0, 1.0, plant.num_positions())
        for s in quaternion_starts:
            q[s:s + 4] /= np.linalg.norm(q[s:s + 4])
        states.append((q, rng.uniform(-1.0, 1.0, plant.num_velocities())))
    return states


def _check_against_drake(mine, theirs) -> None:
    plant, instances = mine
    drake_plant, drake_instances = theirs
    from pydrake.multibody.tree import BodyIndex, FrameIndex
    assert _structure(plant, instances) == _structure(drake_plant, drake_instances)
    np.testing.assert_allclose(plant.GetDefaultPositions(), drake_plant.GetDefaultPositions(), rtol=0, atol=1e-12)
    frames = _named_frames(plant, range(plant.num_frames()))
    drake_frames = _named_frames(drake_plant, [FrameIndex(i) for i in range(drake_plant.num_frames())])
    assert frames.keys() == drake_frames.keys()
    for key, X_BF in frames.items():
        np.testing.assert_allclose(X_BF, drake_frames[key], rtol=0, atol=1e-12, err_msg=str(key))
    np.testing.assert_array_equal(plant.GetPositionLowerLimits(), drake_plant.GetPositionLowerLimits())
    np.testing.assert_array_equal(plant.GetPositionUpperLimits(), drake_plant.GetPositionUpperLimits())
    np.testing.assert_array_equal(plant.GetVelocityLowerLimits(), drake_plant.GetVelocityLowerLimits())
    np.testing.assert_array_equal(plant.GetVelocityUpperLimits(), drake_plant.GetVelocityUpperLimits())
    np.testing.assert_array_equal(plant.GetAccelerationUpperLimits(), drake_plant.GetAccelerationUpperLimits())
    np.testing.assert_array_equal(plant.GetEffortUpperLimits(), drake_plant.GetEffortUpperLimits())
    context, drake_context = plant.CreateDefaultContext(), drake_plant.CreateDefaultContext()
    for q, v in [(plant.GetDefaultPositions(), np.zeros(plant.num_velocities()))] + _random_states(plant, 3, 7):
        plant.SetPositions(context, q)
        plant.SetVelocities(context, v)
        drake_plant.SetPositions(drake_context, q)
        drake_plant.SetVelocities(drake_context, v)
        M, M_drake = plant.CalcMassMatrix(context), drake_plant.CalcMassMatrix(drake_context)
        assert np.abs(M - M_drake).max() <= 1e-10 * max(1.0, np.abs(M_drake).max())
        g = plant.CalcGravityGeneralizedForces(context)
        g_drake = drake_plant.CalcGravityGeneralizedForces(drake_context)
        assert np.abs(g - g_drake).max() <= 1e-10 * max(1.0, np.abs(g_drake).max())
        for b in range(plant.num_bodies()):
            X = plant.EvalBodyPoseInWorld(context, plant.get_body(b)).GetAsMatrix4()
            X_drake = drake_plant.EvalBodyPoseInWorld(drake_context, drake_plant.get_body(BodyIndex(b))).GetAsMatrix4()
            np.testing.assert_allclose(X, X_drake, rtol=0, atol=1e-10, err_msg=plant.get_body(b).name())


@pytest.mark.parametrize("relative_path", MODEL_FILES)
def test_shared_models_match_pydrake(relative_path: str, models_dir: Path) -> None:
    path = str(models_dir / relative_path)
    _check_against_drake(_load_mallard(path), _load_drake(path))


@pytest.mark.parametrize("relative_path", SYNTHETIC)
def test_synthetic_models_match_pydrake(relative_path: str, models_dir: Path) -> None:
    path = str(DATA / relative_path)
    _check_against_drake(_load_mallard(path), _load_drake(path))


def test_custom_joint_types_match_pydrake(models_dir: Path) -> None:
    require_pydrake()
    mine = _load_mallard(None, CUSTOM_URDF)
    _check_against_drake(mine, _load_drake(None, CUSTOM_URDF))
    plant = mine[0]
    assert plant.GetJointByName("slide").type_name() == "planar"
    np.testing.assert_array_equal(plant.GetJointByName("slide").default_damping_vector(), [0.5, 0.6, 0.7])


def test_every_shared_file_is_covered(models_dir: Path) -> None:
    """The acceptance set: the Drake examples and the iiwa / wsg / ycb models are all exercised."""
    names = " ".join(MODEL_FILES)
    for required in ("Pendulum.urdf", "Acrobot.urdf", "Acrobot.sdf", "cart_pole.sdf", "iiwa14_no_collision.sdf",
                     "iiwa14_primitive_collision.urdf", "schunk_wsg_50.sdf", "004_sugar_box.sdf"):
        assert required in names
