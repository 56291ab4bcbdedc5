"""Model-building half of MultibodyPlant: elements, model instances, lookups and Finalize()."""
from __future__ import annotations

import warnings

import numpy as np

from mallard.common.blas_threads import single_threaded_blas

from ..mjcf.finalize import FinalizeMjcf
from ..pipeline.model_check import CheckModelIsFinite
from ..tree.element import adopt
from ..tree.force_element import ForceElement, UniformGravityFieldElement
from ..tree.frame import FixedOffsetFrame, Frame
from ..tree.indices import (BodyIndex, ForceElementIndex, FrameIndex, JointActuatorIndex, JointIndex,
                            ModelInstanceIndex)
from ..tree.joint import Joint
from ..tree.joint_actuator import JointActuator
from ..tree.joints import QuaternionFloatingJoint, WeldJoint
from ..tree.rigid_body import RigidBody
from ..tree.topology import check_topology, compile_model, floating_base_order
from .element_parameters import _ElementParametersMixin
from ..pipeline.pd_control import PdControllers
from ..math.functions import quaternion_from_rotation_matrix


class _TreeBuilderMixin(_ElementParametersMixin):
    """Bodies, frames, joints, actuators, force elements and model instances, plus Finalize()."""

    def _init_tree(self) -> None:
        self._instance_names: list[str] = ["WorldModelInstance", "DefaultModelInstance"]
        self._bodies: list[RigidBody] = []
        self._frames: list[Frame] = []
        self._joints: list[Joint] = []
        self._actuators: list[JointActuator] = []
        self._force_elements: list[ForceElement] = []
        self._constraints: list[dict] = []
        self._next_constraint_id = 0
        self._next_index = {JointIndex: 0, JointActuatorIndex: 0}  # the next joint / actuator index (never reused)
        self._finalized = False
        self._model = None
        self._default_free_body_poses: dict[int, tuple] = {}
        world = RigidBody("world", ModelInstanceIndex(0))
        self._register_body(world)
        gravity = UniformGravityFieldElement()
        gravity._model_instance = ModelInstanceIndex(0)
        gravity._attach(self, ForceElementIndex(0))
        self._force_elements.append(gravity)

    # ---- guards ---------------------------------------------------------------------------
    def _ThrowIfFinalized(self, what: str) -> None:
        if self._finalized:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}': {what}() cannot be called after Finalize(); "
                               "add every element before finalizing")

    def _ThrowIfNotFinalized(self, what: str) -> None:
        if not self._finalized:
            raise RuntimeError(f"MultibodyPlant '{self.get_name()}': {what}() requires a finalized plant; "
                               "call Finalize() first")

    def _CheckModelInstance(self, model_instance) -> ModelInstanceIndex:
        try:
            i = int(model_instance)
        except (TypeError, ValueError):
            raise ValueError(f"expected a ModelInstanceIndex, got {model_instance!r}") from None
        if not 0 <= i < len(self._instance_names):
            raise ValueError(f"MultibodyPlant '{self.get_name()}': model instance {i} does not exist; valid instances: "
                             + ", ".join(f"{k} ({n})" for k, n in enumerate(self._instance_names)))
        return ModelInstanceIndex(i)

    def _check_element(self, element, kind: str, items: list):
        idx = getattr(element, "_pos", element._index)  # joints and actuators: list position (removal shifts it)
        if element._plant is not self or idx is None or idx >= len(items) or items[idx] != element:
            raise ValueError(f"{kind} '{element.name()}' does not belong to MultibodyPlant '{self.get_name()}'")

    # ---- model instances -------------------------------------------------------------------
    def AddModelInstance(self, name: str) -> ModelInstanceIndex:
        """Create a new model instance named `name`; returns its index (≥ 2)."""
        self._ThrowIfFinalized("AddModelInstance")
        if name in self._instance_names:
            raise ValueError(f"model instance '{name}' already exists")
        self._instance_names.append(name)
        return ModelInstanceIndex(len(self._instance_names) - 1)

    def num_model_instances(self) -> int:
        return len(self._instance_names)

    def GetModelInstanceName(self, model_instance) -> str:
        return self._instance_names[self._CheckModelInstance(model_instance)]

    def HasModelInstanceNamed(self, name: str) -> bool:
        return name in self._instance_names

    def GetModelInstanceByName(self, name: str) -> ModelInstanceIndex:
        if name not in self._instance_names:
            raise ValueError(f"no model instance named '{name}'; valid names: {self._instance_names}")
        return ModelInstanceIndex(self._instance_names.index(name))

    def RenameModelInstance(self, model_instance, name: str) -> None:
        """Rename a model instance (pre-Finalize)."""
        self._ThrowIfFinalized("RenameModelInstance")
        i = self._CheckModelInstance(model_instance)
        if name in self._instance_names and self._instance_names.index(name) != i:
            raise ValueError(f"model instance '{name}' already exists")
        self._instance_names[i] = name

    # ---- bodies ---------------------------------------------------------------------------
    def _register_body(self, body: RigidBody) -> RigidBody:
        body._attach(self, BodyIndex(len(self._bodies)))
        self._bodies.append(body)
        frame = body.body_frame()
        frame._attach(self, FrameIndex(len(self._frames)))
        self._frames.append(frame)
        if self._scene_graph is not None:
            self._RegisterBodyFrameWithSceneGraph(body)
        return body

    def AddRigidBody(self, name: str, *args, **kwargs) -> RigidBody:
        """AddRigidBody(name, model_instance, M_BBo_B) or AddRigidBody(name, M_BBo_B) (default instance)."""
        self._ThrowIfFinalized("AddRigidBody")
        model_instance = kwargs.pop("model_instance", None)
        M = kwargs.pop("M_BBo_B", None)
        if kwargs:
            raise ValueError(f"AddRigidBody: unknown arguments {sorted(kwargs)}")
        rest = list(args)
        if rest and isinstance(rest[0], (int, np.integer)) and not isinstance(rest[0], bool):
            model_instance = rest.pop(0)
        if rest:
            M = rest.pop(0)
        if model_instance is None:
            model_instance = ModelInstanceIndex(1)
        mi = self._CheckModelInstance(model_instance)
        if self.HasBodyNamed(name, mi):
            raise ValueError(f"a body named '{name}' already exists in model instance "
                             f"'{self._instance_names[mi]}'")
        unset = M is not None and hasattr(M, "IsNaN") and M.IsNaN()  # SpatialInertia.NaN(): accepted, as pydrake
        if M is not None and not unset and hasattr(M, "IsPhysicallyValid") and not M.IsPhysicallyValid():
            raise ValueError(f"body '{name}': the spatial inertia is not physically valid (negative mass, "
                             "non-positive-semidefinite inertia or principal moments violating the triangle "
                             "inequality)")
        body = RigidBody(name, mi, M)
        if not unset and (body._mass < 0 or not np.all(np.isfinite(body._I_BBo_B)) or not np.isfinite(body._mass)):
            raise ValueError(f"body '{name}': non-physical spatial inertia (mass {body._mass})")
        return self._register_body(body)

    def num_bodies(self) -> int:
        return len(self._bodies)

    def world_body(self) -> RigidBody:
        return self._bodies[0]

    def world_frame(self) -> Frame:
        return self._frames[0]

    def get_body(self, body_index) -> RigidBody:
        return self._get(self._bodies, body_index, "body")

    def _get(self, items, index, kind):
        i = int(index)
        if 0 <= i < len(items) and int(items[i]._index) == i:
            return items[i]
        for e in items:  # joints and actuators keep their index when an earlier one is removed
            if int(e._index) == i:
                return e
        raise IndexError(f"{kind} index {i} is out of range or was removed; the plant has {kind} indices "
                         f"{[int(e._index) for e in items]}")

    def _find(self, items, name, model_instance, kind, pred=None):
        if model_instance is not None:
            model_instance = self._CheckModelInstance(model_instance)
        hits = [e for e in items if e.name() == name and (model_instance is None or e.model_instance() == model_instance)
                and (pred is None or pred(e))]
        return hits

    def _lookup(self, items, name, model_instance, kind):
        hits = self._find(items, name, model_instance, kind)
        if not hits:
            scope = "" if model_instance is None else f" in model instance '{self._instance_names[int(model_instance)]}'"
            valid = sorted({e.name() for e in items if model_instance is None or e.model_instance() == model_instance})
            raise KeyError(f"no {kind} named '{name}'{scope}; valid names: {valid}")
        if len(hits) > 1:
            where = [self._instance_names[int(e.model_instance())] for e in hits]
            raise RuntimeError(f"{kind} name '{name}' appears in several model instances {where}; "
                               "pass the model instance")
        return hits[0]

    def _has(self, items, name, model_instance, kind) -> bool:
        hits = self._find(items, name, model_instance, kind)
        if len(hits) > 1 and model_instance is None:
            raise RuntimeError(f"{kind} name '{name}' appears in several model instances; pass the model instance")
        return bool(hits)

    def HasBodyNamed(self, name: str, model_instance=None) -> bool:
        return self._has(self._bodies, name, model_instance, "body")

    def NumBodiesWithName(self, name: str) -> int:
        return sum(b.name() == name for b in self._bodies)

    def GetBodyByName(self, name: str, model_instance=None) -> RigidBody:
        return self._lookup(self._bodies, name, model_instance, "body")

    GetRigidBodyByName = GetBodyByName

    def GetBodyIndices(self, model_instance) -> list:
        mi = self._CheckModelInstance(model_instance)
        return [b.index() for b in self._bodies if b.model_instance() == mi]

    # ---- frames ---------------------------------------------------------------------------
    def AddFrame(self, frame: Frame) -> Frame:
        """Add a FixedOffsetFrame (or other Frame) whose parent is already in this plant."""
        self._ThrowIfFinalized("AddFrame")
        if not isinstance(frame, FixedOffsetFrame):
            raise ValueError(f"AddFrame expects a FixedOffsetFrame, got {type(frame).__name__}")
        self._check_element(frame.body(), "body", self._bodies)
        if self._has(self._frames, frame.name(), frame.model_instance(), "frame"):
            raise ValueError(f"a frame named '{frame.name()}' already exists in model instance "
                             f"'{self._instance_names[int(frame.model_instance())]}'")
        frame._attach(self, FrameIndex(len(self._frames)))
        self._frames.append(adopt(frame, self))  # the caller's object becomes the user's handle (element.py)
        return frame

    def _SetFramePoseInContext(self, context, frame, R_PF, p_PF) -> None:
        self._ThrowIfNotFinalized("SetPoseInParentFrame")
        self._check_element(frame, "frame", self._frames)
        users = [j.name() for j in self._joints if any(self._frame_depends_on(f, frame)
                                                         for f in (j.frame_on_parent(), j.frame_on_child()))]
        if users:
            raise RuntimeError(f"SetPoseInParentFrame: frame '{frame.name()}' places joint(s) {users}, whose frames "
                               "are compiled into the model at Finalize; mallard cannot change them per Context. "
                               "Give the frame its pose before Finalize instead.")
        self._set_frame_pose_parameter(context, frame, R_PF, p_PF)

    @staticmethod
    def _frame_depends_on(frame, other) -> bool:
        while frame is not None:
            if frame == other:
                return True
            frame = getattr(frame, "_parent_frame", None)
        return False

    def num_frames(self) -> int:
        return len(self._frames)

    def get_frame(self, frame_index) -> Frame:
        return self._get(self._frames, frame_index, "frame")

    def HasFrameNamed(self, name: str, model_instance=None) -> bool:
        return self._has(self._frames, name, model_instance, "frame")

    def GetFrameByName(self, name: str, model_instance=None) -> Frame:
        return self._lookup(self._frames, name, model_instance, "frame")

    def GetFrameIndices(self, model_instance) -> list:
        mi = self._CheckModelInstance(model_instance)
        return [f.index() for f in self._frames if f.model_instance() == mi]

    # ---- joints ---------------------------------------------------------------------------
    def AddJoint(self, joint, *args):
        """AddJoint(joint) adds a constructed joint; AddJoint(JointType, name, parent, X_PF, child, X_BM, *extra)
        builds one, adding '{name}_parent' / '{name}_child' offset frames for non-None poses."""
        self._ThrowIfFinalized("AddJoint")
        if isinstance(joint, type):
            name, parent, X_PF, child, X_BM, *extra = args
            F = parent.body_frame() if X_PF is None else self.AddFrame(
                FixedOffsetFrame(f"{name}_parent", parent.body_frame(), X_PF))
            M = child.body_frame() if X_BM is None else self.AddFrame(
                FixedOffsetFrame(f"{name}_child", child.body_frame(), X_BM))
            joint = joint(name, F, M, *extra)
        if not isinstance(joint, Joint):
            raise ValueError(f"AddJoint expects a Joint, got {type(joint).__name__}")
        for f in (joint.frame_on_parent(), joint.frame_on_child()):
            self._check_element(f, "frame", self._frames)
        if self._has(self._joints, joint.name(), joint.model_instance(), "joint"):
            raise ValueError(f"a joint named '{joint.name()}' already exists in model instance "
                             f"'{self._instance_names[int(joint.model_instance())]}'")
        self._append_indexed(joint, self._joints, JointIndex)
        return joint

    def _append_indexed(self, element, items: list, index_type) -> None:
        """Add a joint or actuator: its index counts every one ever added (removed indices are not reused)."""
        index = self._next_index[index_type]
        element._attach(self, index_type(index))
        element._pos = len(items)
        items.append(adopt(element, self))  # the caller's object becomes the user's handle (element.py)
        self._next_index[index_type] = index + 1

    def _remove_indexed(self, element, items: list) -> None:
        items.remove(element)
        for k, e in enumerate(items):
            e._pos = k
        element._plant, element._pos = None, None

    def has_joint(self, joint_index) -> bool:
        """True if a joint with this index exists (it was added and not removed)."""
        return any(int(j._index) == int(joint_index) for j in self._joints)

    def RemoveJoint(self, joint) -> None:
        """Remove a joint before Finalize (its index is not reused); its child body becomes free unless another
        joint is added for it. A joint used by an actuator or force element cannot be removed."""
        self._ThrowIfFinalized("RemoveJoint")
        self._check_element(joint, "joint", self._joints)
        users = [a.name() for a in self._actuators if a._joint == joint] + \
            [type(f).__name__ for f in self._force_elements if getattr(f, "_joint", None) == joint]
        if users:
            raise RuntimeError(f"RemoveJoint: joint '{joint.name()}' is used by {users}; remove those first")
        self._remove_indexed(joint, self._joints)

    def WeldFrames(self, frame_on_parent_F: Frame, frame_on_child_M: Frame, X_FM=None) -> WeldJoint:
        """Weld frame M to frame F with fixed pose X_FM; the joint is named '<F>_welds_to_<M>'."""
        self._ThrowIfFinalized("WeldFrames")
        name = f"{frame_on_parent_F.name()}_welds_to_{frame_on_child_M.name()}"
        return self.AddJoint(WeldJoint(name, frame_on_parent_F, frame_on_child_M, X_FM))

    def num_joints(self) -> int:
        return len(self._joints)

    def get_joint(self, joint_index) -> Joint:
        return self._get(self._joints, joint_index, "joint")

    get_mutable_joint = get_joint

    def HasJointNamed(self, name: str, model_instance=None) -> bool:
        return self._has(self._joints, name, model_instance, "joint")

    def GetJointByName(self, name: str, model_instance=None, joint_type=None) -> Joint:
        j = self._lookup(self._joints, name, model_instance, "joint")
        if joint_type is not None and not isinstance(j, joint_type):
            raise TypeError(f"joint '{name}' is a {type(j).__name__}, not a {joint_type.__name__}")
        return j

    GetMutableJointByName = GetJointByName

    def GetJointIndices(self, model_instance=None) -> list:
        if model_instance is None:
            return [j.index() for j in self._joints]
        mi = self._CheckModelInstance(model_instance)
        return [j.index() for j in self._joints if j.model_instance() == mi]

    def GetActuatedJointIndices(self, model_instance) -> list:
        mi = self._CheckModelInstance(model_instance)
        return [a.joint().index() for a in self._actuators if a.model_instance() == mi]

    def _inboard_joint_of_body(self, body_index):
        if self._model is None:
            for j in self._joints:
                if int(j.child_body().index()) == int(body_index):
                    return j
            return None
        k = self._model.joint_of_body[int(body_index)]
        return None if k < 0 else self._joints[k]  # k: position in self._joints

    # ---- actuators --------------------------------------------------------------------------
    def AddJointActuator(self, name: str, joint: Joint, effort_limit: float = np.inf) -> JointActuator:
        """Add an actuator on a single-dof joint; u[actuator.index()] is its generalized force."""
        self._ThrowIfFinalized("AddJointActuator")
        self._check_element(joint, "joint", self._joints)
        act = JointActuator(name, joint, effort_limit)
        if self._has(self._actuators, name, act.model_instance(), "actuator"):
            raise ValueError(f"an actuator named '{name}' already exists in model instance "
                             f"'{self._instance_names[int(act.model_instance())]}'")
        self._append_indexed(act, self._actuators, JointActuatorIndex)
        return act

    def has_joint_actuator(self, actuator_index) -> bool:
        """True if an actuator with this index exists (it was added and not removed)."""
        return any(int(a._index) == int(actuator_index) for a in self._actuators)

    def RemoveJointActuator(self, actuator) -> None:
        """Remove an actuator before Finalize (its index is not reused)."""
        self._ThrowIfFinalized("RemoveJointActuator")
        self._check_element(actuator, "actuator", self._actuators)
        self._remove_indexed(actuator, self._actuators)

    def RemoveAllJointActuatorEffortLimits(self) -> None:
        """Set every actuator's effort limit to +∞ (before or after Finalize, as Drake)."""
        for a in self._actuators:
            a.set_effort_limit(np.inf)

    def _EffortLimitsChanged(self) -> None:
        """A JointActuator's effort limit changed: after Finalize the actuation clamps follow it (Drake reads the
        limits live)."""
        if self._finalized:
            self._pd.SetEffortLimits([a.effort_limit() for a in self._actuators])

    def num_actuators(self, model_instance=None) -> int:
        if model_instance is None:
            return len(self._actuators)
        mi = self._CheckModelInstance(model_instance)
        return sum(a.model_instance() == mi for a in self._actuators)

    def num_actuated_dofs(self, model_instance=None) -> int:
        if model_instance is not None:
            self._ThrowIfNotFinalized("num_actuated_dofs")
        return self.num_actuators(model_instance)

    def get_joint_actuator(self, actuator_index) -> JointActuator:
        return self._get(self._actuators, actuator_index, "actuator")

    get_mutable_joint_actuator = get_joint_actuator

    def HasJointActuatorNamed(self, name: str, model_instance=None) -> bool:
        return self._has(self._actuators, name, model_instance, "actuator")

    def GetJointActuatorByName(self, name: str, model_instance=None) -> JointActuator:
        return self._lookup(self._actuators, name, model_instance, "actuator")

    def GetJointActuatorIndices(self, model_instance=None) -> list:
        if model_instance is None:
            return [a.index() for a in self._actuators]
        mi = self._CheckModelInstance(model_instance)
        return [a.index() for a in self._actuators if a.model_instance() == mi]

    # ---- force elements -------------------------------------------------------------------------
    def AddForceElement(self, force_element: ForceElement) -> ForceElement:
        """Add a force element (a second UniformGravityFieldElement is refused: use gravity_field())."""
        self._ThrowIfFinalized("AddForceElement")
        if not isinstance(force_element, ForceElement):
            raise ValueError(f"AddForceElement expects a ForceElement, got {type(force_element).__name__}")
        if isinstance(force_element, UniformGravityFieldElement):
            raise RuntimeError("this plant already has a UniformGravityFieldElement; change it via "
                             "mutable_gravity_field().set_gravity_vector()")
        if force_element.model_instance() is None:
            force_element._model_instance = ModelInstanceIndex(1)
        force_element._attach(self, ForceElementIndex(len(self._force_elements)))
        self._force_elements.append(adopt(force_element, self))  # the caller's object: the user's handle
        return force_element

    def num_force_elements(self) -> int:
        return len(self._force_elements)

    def get_force_element(self, force_element_index) -> ForceElement:
        return self._get(self._force_elements, force_element_index, "force element")

    def GetForceElement(self, force_element_index, force_element_type=None) -> ForceElement:
        fe = self.get_force_element(force_element_index)
        if force_element_type is not None and not isinstance(fe, force_element_type):
            raise TypeError(f"force element {int(force_element_index)} is a {type(fe).__name__}, "
                            f"not a {force_element_type.__name__}")
        return fe

    # ---- Finalize -------------------------------------------------------------------------------
    def is_finalized(self) -> bool:
        return self._finalized

    def Finalize(self) -> None:
        """Check the topology, add floating joints for free bodies, compile the arrays and declare state/ports."""
        self._ThrowIfFinalized("Finalize")
        check_topology(self._bodies, self._joints)
        for b in floating_base_order(len(self._bodies), self._joints):  # Drake's base-body order
            body = self._bodies[b]
            name = body.name()
            while self._find(self._joints, name, body.model_instance(), "joint"):
                name = "_" + name
            j = QuaternionFloatingJoint(name, self.world_frame(), body.body_frame())
            j._model_instance = body.model_instance()
            j._ephemeral = True
            self._append_indexed(j, self._joints, JointIndex)
            body._floating_joint = j
            if int(body.index()) in self._default_free_body_poses:
                j._default_positions = self._free_pose_to_q(*self._default_free_body_poses[int(body.index())])
        self._model = compile_model(self._bodies, self._joints, self._actuators)
        if self._time_step == 0 and np.any(np.isfinite(self._model.q_lower) | np.isfinite(self._model.q_upper)):
            limited = [j.name() for j in self._joints
                       if np.any(np.isfinite(j._pos_lower)) or np.any(np.isfinite(j._pos_upper))]
            warnings.warn(f"MultibodyPlant '{self.get_name()}': joint limits on {limited} are ignored by a continuous "
                          "plant (time_step = 0); use a discrete plant to enforce them", stacklevel=2)
        self._gravity_mask = self._gravity_enabled_mask().astype(np.bool_)
        self._FilterAdjacentAndWeldedCollisions()
        self._finalized = True
        with single_threaded_blas():  # small dense factorizations (see mallard.common.blas_threads)
            self._DeclareSystemResources()
            self._pd = PdControllers(self)  # PD-controlled actuators and effort limits (pipeline/pd_control.py)
            self._nan_mass_bodies = CheckModelIsFinite(self)
            self._FinalizeContact()
            # MJCF actuators, sensors, plugins and tendon armature (zero rows, no ports, without MJCF models)
            FinalizeMjcf(self)

    @staticmethod
    def _free_pose_to_q(R: np.ndarray, p: np.ndarray) -> np.ndarray:
        return np.concatenate([quaternion_from_rotation_matrix(R), p])

    def compiled_model(self):
        """The CompiledModel arrays (after Finalize)."""
        self._ThrowIfNotFinalized("compiled_model")
        return self._model

    def GetTopologyGraphvizString(self) -> str:
        """Graphviz dot text: one cluster per model instance, one edge child -> parent per joint."""
        lines = ["digraph MultibodyPlant {", f'label="{self.get_name()}";', "rankdir=BT;", "labelloc=t;"]
        for i, name in enumerate(self._instance_names):
            lines.append(f"subgraph cluster{i} {{")
            lines.append(f'label="{name}";')
            for b in self._bodies:
                if int(b.model_instance()) == i:
                    lines.append(f'body{int(b.index())} [label="{b.name()}"];')
            lines.append("}")
        for j in self._joints:
            lines.append(f'body{int(j.child_body().index())} -> body{int(j.parent_body().index())} '
                         f'[label="{j.name()} [{j.type_name()}]"];')
        lines.append("}")
        return "\n".join(lines) + "\n"
