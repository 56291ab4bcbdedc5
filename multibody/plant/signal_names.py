"""Names of the elements of MultibodyPlant ports, and of controllers built on a plant, for plots of logged
signals (registered with mallard.systems.drawing): pydrake's state names (`iiwa_joint_1_q`, `iiwa_joint_1_w`),
actuator names, effort names derived from the velocities (`iiwa_joint_1_tau`), MJCF actuator and sensor names.
The model-instance prefix is kept only where names would otherwise repeat."""
from __future__ import annotations

from typing import Optional

from mallard.systems.drawing.signal_names import RegisterSignalNamer, SignalGroup, SignalNames

from ..tree.indices import ModelInstanceIndex
from ..mjcf.plant_maps import GetMjcfPlantMaps
from .multibody_plant import MultibodyPlant

_EFFORT_OF_VELOCITY = {"w": "tau", "v": "f"}  # pydrake's velocity suffixes: w angular (rad/s), v linear (m/s)


def _units(velocity_names: list[str]) -> tuple[str, str, str]:
    """Units of (positions, velocities, efforts) from the velocity suffixes: rad / m, or both."""
    kinds = {name.rsplit("_", 1)[-1][:1] for name in velocity_names}
    if kinds <= {"w"}:
        return "rad", "rad/s", "N·m"
    if kinds <= {"v"}:
        return "m", "m/s", "N"
    return "rad, m", "rad/s, m/s", "N·m, N"


def _effort_names(velocity_names: list[str]) -> list[str]:
    """`joint_w` → `joint_tau`, `slider_v` → `slider_f`, `base_wx` → `base_tau_x` (generalized forces)."""
    out = []
    for name in velocity_names:
        stem, _, suffix = name.rpartition("_")
        effort = _EFFORT_OF_VELOCITY.get(suffix[:1])
        out.append(f"{stem}_{effort}{'_' + suffix[1:] if suffix[1:] else ''}" if stem and effort else f"{name}_tau")
    return out


def _instances(plant: MultibodyPlant) -> list:
    return [ModelInstanceIndex(i) for i in range(plant.num_model_instances())]


def _prefix(plant: MultibodyPlant, instance) -> bool:
    """Whether names need the model-instance prefix: only when, unprefixed, two elements would share a name."""
    if instance is not None:
        return False
    names = plant.GetStateNames(add_model_instance_prefix=False)
    actuators = plant.GetActuatorNames(add_model_instance_prefix=False)
    return len(set(names)) != len(names) or len(set(actuators)) != len(actuators)


def _label(plant, instance, label: str) -> str:
    """Panel titles of a model instance's own port start with the instance's name ("iiwa14 positions q")."""
    return label if instance is None else f"{plant.GetModelInstanceName(instance)} {label}"


def _state(plant, instance, prefix: bool) -> SignalNames:
    q = plant.GetPositionNames(instance, prefix) if instance is not None else plant.GetPositionNames(prefix)
    v = plant.GetVelocityNames(instance, prefix) if instance is not None else plant.GetVelocityNames(prefix)
    uq, uv, _ = _units(v)
    nq = len(q)
    return SignalNames(tuple(q + v), (SignalGroup(_label(plant, instance, "positions q"), uq, tuple(range(nq))),
                                      SignalGroup(_label(plant, instance, "velocities v"), uv,
                                                  tuple(range(nq, nq + len(v))))))


def _velocity_names(plant, instance, prefix: bool) -> list[str]:
    return plant.GetVelocityNames(instance, prefix) if instance is not None else plant.GetVelocityNames(prefix)


def _actuators(plant, instance, prefix: bool) -> SignalNames:
    names = plant.GetActuatorNames(instance, prefix) if instance is not None else plant.GetActuatorNames(prefix)
    v = plant.GetVelocityNames(add_model_instance_prefix=False)
    actuated = [v[plant.get_joint_actuator(a).joint().velocity_start()] for a in plant.GetJointActuatorIndices(instance)]
    return SignalNames.Ungrouped(names, _label(plant, instance, "efforts (actuation)"), _units(actuated)[2])


def _generalized_forces(plant, instance, prefix: bool, label: str) -> SignalNames:
    v = _velocity_names(plant, instance, prefix)
    return SignalNames.Ungrouped(_effort_names(v), label, _units(v)[2])


def _accelerations(plant, instance, prefix: bool) -> SignalNames:
    v = _velocity_names(plant, instance, prefix)
    unit = {"rad/s": "rad/s²", "m/s": "m/s²"}.get(_units(v)[1], "rad/s², m/s²")
    return SignalNames.Ungrouped([f"{n}dot" for n in v], _label(plant, instance, "accelerations v̇"), unit)


_SENSOR_AXES = {3: ("x", "y", "z"), 4: ("w", "x", "y", "z")}


def _mjcf_names(plant, port) -> Optional[SignalNames]:
    """`<model>_ctrl` (MuJoCo actuator names) and `<model>_sensordata` (sensor names, a panel per sensor type)."""
    for pm in GetMjcfPlantMaps(plant):
        instance_name = plant.GetModelInstanceName(pm.instance)
        model = pm.model
        if port.get_name() == f"{instance_name}_ctrl" and port.size() == len(model.actuators):
            names = [a.name or f"actuator{i}" for i, a in enumerate(model.actuators)]
            return SignalNames.Ungrouped(names, "controls (ctrl)", "")
        if port.get_name() == f"{instance_name}_sensordata":
            names, by_type = [], {}
            for i, sensor in enumerate(model.sensors):
                base = sensor.name or f"{sensor.type}{i}"
                axes = _SENSOR_AXES.get(sensor.dim) if sensor.dim > 1 else None
                start = len(names)
                names += [base] if sensor.dim == 1 else [f"{base}_{a}" for a in axes] if axes else \
                    [f"{base}[{k}]" for k in range(sensor.dim)]
                by_type.setdefault(sensor.type, []).extend(range(start, len(names)))
            if len(by_type) > 6:  # too many kinds for one panel each
                return SignalNames.Ungrouped(names, "sensors", "")
            return SignalNames(tuple(names), tuple(SignalGroup(f"sensors: {kind}", "", tuple(ix))
                                                   for kind, ix in by_type.items()))
    return None


def PlantPortSignalNames(port) -> Optional[SignalNames]:
    """Names of a MultibodyPlant port's elements (state, actuation, accelerations, contact forces, MJCF ctrl and
    sensordata), or of a controller's output built on a plant (`get_multibody_plant_for_control`); else None."""
    system = port.get_system()
    control_plant = getattr(system, "get_multibody_plant_for_control", None)
    if control_plant is not None:
        plant = control_plant()
        prefix = _prefix(plant, None)
        if port.size() == plant.num_actuators() and "force" not in port.get_name():
            return _actuators(plant, None, prefix)
        if port.size() == plant.num_velocities():
            return _generalized_forces(plant, None, prefix, "efforts (generalized forces)")
        return None
    if not isinstance(system, MultibodyPlant) or not system.is_finalized():
        return None
    plant = system
    for instance in [None] + _instances(plant):
        prefix = _prefix(plant, instance)
        if port is plant.get_state_output_port(instance):
            return _state(plant, instance, prefix)
        if port is plant.get_actuation_input_port(instance) or port is plant.get_net_actuation_output_port(instance):
            return _actuators(plant, instance, prefix)
        if port is plant.get_generalized_acceleration_output_port(instance):
            return _accelerations(plant, instance, prefix)
        if instance is not None and port is plant.get_generalized_contact_forces_output_port(instance):
            return _generalized_forces(plant, instance, prefix, _label(plant, instance, "generalized contact forces"))
    if port is plant.get_applied_generalized_force_input_port():
        return _generalized_forces(plant, None, _prefix(plant, None), "applied generalized forces")
    return _mjcf_names(plant, port)


RegisterSignalNamer(PlantPortSignalNames)
