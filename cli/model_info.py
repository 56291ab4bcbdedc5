"""`mallard info MODEL`: what a model file puts in a MultibodyPlant, as text: the plant's time step, model
instances, bodies, joints, actuators (plant actuators, or an MJCF model's actuators on its `_ctrl` port),
sensors (an MJCF model's, on its `_sensordata` port) and the state names in state order."""
from __future__ import annotations

import textwrap

import numpy as np

from mallard.multibody.mjcf.plant_maps import GetMjcfPlantMaps
from mallard.multibody.tree.indices import BodyIndex, JointIndex, ModelInstanceIndex

from .model_scene import ModelScene

__all__ = ["ModelInfoText"]


def _limits(lower: np.ndarray, upper: np.ndarray) -> str:
    if not len(lower) or (np.all(np.isinf(lower)) and np.all(np.isinf(upper))):
        return ""
    return "  [" + ", ".join(f"{lo:.3g}..{hi:.3g}" for lo, hi in zip(lower, upper)) + "]"


def _section(title: str, rows: list[str]) -> list[str]:
    return [f"{title} ({len(rows)}):"] + [f"  {row}" for row in rows] if rows else [f"{title}: none"]


def _mjcf_rows(plant) -> tuple[list[str], list[str]]:
    """(actuator rows, sensor rows) of the plant's MJCF models."""
    actuators, sensors = [], []
    for pm in GetMjcfPlantMaps(plant):
        model, instance = pm.model, plant.GetModelInstanceName(pm.instance)
        for i, a in enumerate(model.actuators):
            target = ""
            if a.trntype in ("joint", "jointinparent") and 0 <= a.trnid[0] < len(model.joints):
                target = f" -> joint {model.joints[a.trnid[0]].name}"
            elif a.trntype == "tendon" and 0 <= a.trnid[0] < len(model.tendons):
                target = f" -> tendon {model.tendons[a.trnid[0]].name}"
            else:
                target = f" ({a.trntype} transmission)"
            actuators.append(f"{a.name or f'actuator{i}'}{target}  [{instance}_ctrl[{i}]]")
        row = 0
        for i, s in enumerate(model.sensors):
            where = f"{instance}_sensordata[{row}]" if s.dim == 1 else f"{instance}_sensordata[{row}:{row + s.dim}]"
            sensors.append(f"{s.name or f'{s.type}{i}'}: {s.type}, {s.dim} value{'s' if s.dim > 1 else ''}  [{where}]")
            row += s.dim
    return actuators, sensors


def ModelInfoText(scene: ModelScene) -> str:
    """A plain-text listing of the plant `scene` built from its model file."""
    plant = scene.plant
    lines = [f"model: {scene.path}", f"plant: {scene.step.describe()}"]
    instances = [plant.GetModelInstanceName(ModelInstanceIndex(i)) for i in range(2, plant.num_model_instances())]
    lines.append(f"model instances: {', '.join(instances) if instances else 'none'}")
    bodies = []
    for i in range(1, plant.num_bodies()):
        body = plant.get_body(BodyIndex(i))
        floating = ", floating" if body.is_floating() else ""
        bodies.append(f"{body.name()}  ({body.default_mass():.4g} kg{floating})")
    lines += _section("bodies", bodies)
    joints = []
    for i in range(plant.num_joints()):
        joint = plant.get_joint(JointIndex(i))
        joints.append(f"{joint.name()}: {joint.type_name()}, {joint.num_positions()} q / {joint.num_velocities()} v, "
                      f"{joint.parent_body().name()} -> {joint.child_body().name()}"
                      f"{_limits(joint.position_lower_limits(), joint.position_upper_limits())}")
    lines += _section("joints", joints)
    actuators = []
    for index in plant.GetJointActuatorIndices():
        actuator = plant.get_joint_actuator(index)
        limit = "" if np.isinf(actuator.effort_limit()) else f", effort limit {actuator.effort_limit():g}"
        actuators.append(f"{actuator.name()} -> joint {actuator.joint().name()}{limit}  [actuation[{actuator.input_start()}]]")
    mjcf_actuators, sensors = _mjcf_rows(plant)
    lines += _section("actuators", actuators + mjcf_actuators)
    lines += _section("sensors", sensors)
    names = plant.GetStateNames(add_model_instance_prefix=False)
    if len(set(names)) != len(names):
        names = plant.GetStateNames(add_model_instance_prefix=True)
    nq, nv = plant.num_positions(), plant.num_velocities()
    lines.append(f"state names ({nq} positions + {nv} velocities):")
    for part, empty in ((names[:nq], "(no positions)"), (names[nq:], "(no velocities)")):
        lines.append(textwrap.fill(", ".join(part), width=110, initial_indent="  ", subsequent_indent="  ",
                                   break_on_hyphens=False) if part else f"  {empty}")
    return "\n".join(lines)
