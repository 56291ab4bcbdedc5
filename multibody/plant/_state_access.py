"""State access half of MultibodyPlant: positions/velocities get/set, array helpers, defaults, free bodies, and the
random state (per-joint and free-body distributions sampled by SetRandomState)."""
from __future__ import annotations

import warnings

import numpy as np

from ...common.overloads import bind
from ..tree._convert import make_rigid_transform, pose_to_arrays, spatial_to_array
from ..kernels.joint_kernels import quaternion_to_rotation, rpy_to_rotation
from ..math.functions import rpy_from_rotation_matrix


_F64 = np.dtype(np.float64)
_ndarray = np.ndarray


def _vec(x, n: int, what: str) -> np.ndarray:
    a = np.asarray(x, dtype=float).reshape(-1)
    if a.size != n:
        raise ValueError(f"{what}: expected {n} entries, got {a.size}")
    return a


def _deprecated(old: str, new: str) -> None:
    """Drake deprecated `old`: say so once per call site (a FutureWarning, which Python shows by default)."""
    warnings.warn(f"MultibodyPlant.{old}() is deprecated by Drake. Use {new}() instead.", FutureWarning, stacklevel=3)


def _copy_out(x: np.ndarray, out, name: str) -> np.ndarray:
    """A writable copy of x, also written into `out` when given."""
    if out is None:
        return x.copy()
    if out.size != x.size:
        raise ValueError(f"{name} must have {x.size} entries, got {out.size}")
    out[:] = x
    return out


class _StateAccessMixin:
    """Get/Set of [q; v] (whole plant views, per-instance copies), array helpers and default state."""

    # ---- sizes ---------------------------------------------------------------------------
    def num_positions(self, model_instance=None) -> int:
        self._ThrowIfNotFinalized("num_positions")
        if model_instance is None:
            return self._model.nq
        return len(self._instance_q_indices(model_instance))

    def num_velocities(self, model_instance=None) -> int:
        self._ThrowIfNotFinalized("num_velocities")
        if model_instance is None:
            return self._model.nv
        return len(self._instance_v_indices(model_instance))

    def num_multibody_states(self, model_instance=None) -> int:
        return self.num_positions(model_instance) + self.num_velocities(model_instance)

    def _instance_q_indices(self, model_instance) -> np.ndarray:
        mi = self._CheckModelInstance(model_instance)
        cache = self.__dict__.setdefault("_qidx_cache", {})
        if ("q", mi) not in cache:
            idx = [np.arange(j.position_start(), j.position_start() + j.num_positions())
                   for j in self._joints_in_q_order() if j.model_instance() == mi]
            cache[("q", mi)] = np.concatenate(idx).astype(np.int64) if idx else np.zeros(0, np.int64)
        return cache[("q", mi)]

    def _instance_v_indices(self, model_instance) -> np.ndarray:
        mi = self._CheckModelInstance(model_instance)
        cache = self.__dict__.setdefault("_qidx_cache", {})
        if ("v", mi) not in cache:
            idx = [np.arange(j.velocity_start(), j.velocity_start() + j.num_velocities())
                   for j in self._joints_in_q_order() if j.model_instance() == mi]
            cache[("v", mi)] = np.concatenate(idx).astype(np.int64) if idx else np.zeros(0, np.int64)
        return cache[("v", mi)]

    def _instance_u_indices(self, model_instance) -> np.ndarray:
        mi = self._CheckModelInstance(model_instance)
        return np.array([k for k, a in enumerate(self._actuators) if a.model_instance() == mi], dtype=np.int64)

    def _joints_in_q_order(self):
        return sorted(self._joints, key=lambda j: (j.position_start(), j.velocity_start(), int(j.index())))

    # ---- whole-plant and per-instance state ----------------------------------------------------
    def GetPositionsAndVelocities(self, context, model_instance=None, qv_out=None) -> np.ndarray:
        """[q; v] of the whole plant or of one model instance: a writable copy, as pydrake returns."""
        x = self._qv_view(context)
        if model_instance is None:
            return _copy_out(x, qv_out, "qv_out")
        nq = self._model.nq
        out = np.concatenate([x[self._instance_q_indices(model_instance)],
                              x[nq + self._instance_v_indices(model_instance)]])
        if qv_out is not None:
            if qv_out.size != out.size:
                raise ValueError(f"qv_out must have {out.size} entries, got {qv_out.size}")
            qv_out[:] = out
        return out

    def GetPositions(self, context, model_instance=None, q_out=None) -> np.ndarray:
        """q of the whole plant or of one model instance: a writable copy, as pydrake returns."""
        q = self._qv_view(context)[:self._model.nq]
        if model_instance is None:
            return _copy_out(q, q_out, "q_out")
        out = q[self._instance_q_indices(model_instance)]
        if q_out is not None:
            if q_out.size != out.size:
                raise ValueError(f"q_out must have {out.size} entries, got {q_out.size}")
            q_out[:] = out
        return out

    def GetVelocities(self, context, model_instance=None, v_out=None) -> np.ndarray:
        """v of the whole plant or of one model instance: a writable copy, as pydrake returns."""
        v = self._qv_view(context)[self._model.nq:]
        if model_instance is None:
            return _copy_out(v, v_out, "v_out")
        out = v[self._instance_v_indices(model_instance)]
        if v_out is not None:
            if v_out.size != out.size:
                raise ValueError(f"v_out must have {out.size} entries, got {v_out.size}")
            v_out[:] = out
        return out

    def _state_args(self, what: str, value_name: str, args, kwargs) -> tuple:
        """(state, model_instance, value) of pydrake's (value) | (model_instance, value) | (state, model_instance,
        value) overloads, by position or keyword."""
        if len(args) == 2 and not kwargs and not isinstance(args[0], (int, np.integer)):
            return args[0], None, args[1]  # (state, value): mallard's whole-plant form with an explicit State
        b = bind(what, args, kwargs, (value_name,), ("model_instance", value_name),
                 ("state", "model_instance", value_name))
        return b.get("state"), b.get("model_instance"), b[value_name]

    def _write(self, context, state, idx, values):
        if state is None:
            x = self._mutable_qv(context)
        else:
            x = self._mutable_qv_in_state(context, state)
        x[idx] = values

    def SetPositionsAndVelocities(self, context, *args, **kwargs) -> None:
        """Set [q; v] of the whole plant (q_v) or of one model instance (model_instance, q_v)."""
        self.ValidateContext(context)
        state, mi, value = self._state_args("SetPositionsAndVelocities", "q_v", args, kwargs)
        nq = self._model.nq
        if mi is None:
            self._write(context, state, slice(None), _vec(value, nq + self._model.nv, "SetPositionsAndVelocities q_v"))
            return
        idx = np.concatenate([self._instance_q_indices(mi), nq + self._instance_v_indices(mi)])
        self._write(context, state, idx, _vec(value, idx.size, f"SetPositionsAndVelocities({self.GetModelInstanceName(mi)})"))

    def SetPositions(self, context, *args, **kwargs) -> None:
        """Set q of the whole plant (q) or of one model instance (model_instance, q)."""
        if len(args) == 1 and not kwargs:  # (q): the common call, without overload binding
            try:
                root = context._root if context._system_id == self._system_id and self._finalized else None
            except AttributeError:  # not a Context (ValidateContext below says so)
                root = None
            if root is not None:
                f = self._fast
                q = args[0]
                # x[:nq] = q, x the state vector holding [q; v] (_qv_vector, inlined); the compiled copy takes any
                # float64 vector and refuses another length
                x = (context._discrete._groups[0] if self._time_step > 0 else context._continuous._vector)._data
                if not (type(q) is _ndarray and q.dtype is _F64 and q.ndim == 1 and f.copy_head(q, x, f.nq)):
                    f.copy_head(np.ascontiguousarray(_vec(q, f.nq, "SetPositions q")), x, f.nq)
                root._versions[self._qv_kind] += 1  # one version bump invalidates what depends on it (Context._bump)
                root._vsum += 1
                return
        self.ValidateContext(context)
        state, mi, value = self._state_args("SetPositions", "q", args, kwargs)
        idx = slice(0, self._model.nq) if mi is None else self._instance_q_indices(mi)
        n = self._model.nq if mi is None else idx.size
        self._write(context, state, idx, _vec(value, n, "SetPositions q"))

    def SetVelocities(self, context, *args, **kwargs) -> None:
        """Set v of the whole plant (v) or of one model instance (model_instance, v)."""
        self.ValidateContext(context)
        state, mi, value = self._state_args("SetVelocities", "v", args, kwargs)
        nq = self._model.nq
        idx = slice(nq, nq + self._model.nv) if mi is None else nq + self._instance_v_indices(mi)
        n = self._model.nv if mi is None else idx.size
        self._write(context, state, idx, _vec(value, n, "SetVelocities v"))

    def GetMutablePositionsAndVelocities(self, context) -> np.ndarray:
        """Writable view of [q; v]; caches are invalidated when this is called (not on later writes)."""
        return self._mutable_qv(context)

    def GetMutablePositions(self, context, state=None) -> np.ndarray:
        x = self._mutable_qv(context) if state is None else self._mutable_qv_in_state(context, state)
        return x[:self._model.nq]

    def GetMutableVelocities(self, context, state=None) -> np.ndarray:
        x = self._mutable_qv(context) if state is None else self._mutable_qv_in_state(context, state)
        return x[self._model.nq:]

    # ---- array helpers --------------------------------------------------------------------------
    def GetPositionsFromArray(self, model_instance, q, q_out=None) -> np.ndarray:
        out = _vec(q, self.num_positions(), "GetPositionsFromArray q")[self._instance_q_indices(model_instance)]
        if q_out is not None:
            q_out[:] = out
        return out

    def SetPositionsInArray(self, model_instance, q_instance, q: np.ndarray) -> None:
        if q.size != self.num_positions():
            raise ValueError(f"SetPositionsInArray: q must have {self.num_positions()} entries, got {q.size}")
        idx = self._instance_q_indices(model_instance)
        q[idx] = _vec(q_instance, idx.size, "SetPositionsInArray q_instance")

    def GetVelocitiesFromArray(self, model_instance, v, v_out=None) -> np.ndarray:
        out = _vec(v, self.num_velocities(), "GetVelocitiesFromArray v")[self._instance_v_indices(model_instance)]
        if v_out is not None:
            v_out[:] = out
        return out

    def SetVelocitiesInArray(self, model_instance, v_instance, v: np.ndarray) -> None:
        if v.size != self.num_velocities():
            raise ValueError(f"SetVelocitiesInArray: v must have {self.num_velocities()} entries, got {v.size}")
        idx = self._instance_v_indices(model_instance)
        v[idx] = _vec(v_instance, idx.size, "SetVelocitiesInArray v_instance")

    def GetActuationFromArray(self, model_instance, u) -> np.ndarray:
        return _vec(u, self.num_actuated_dofs(), "GetActuationFromArray u")[self._instance_u_indices(model_instance)]

    def SetActuationInArray(self, model_instance, u_instance, u: np.ndarray) -> None:
        if u.size != self.num_actuated_dofs():
            raise ValueError(f"SetActuationInArray: u must have {self.num_actuated_dofs()} entries, got {u.size}")
        idx = self._instance_u_indices(model_instance)
        u[idx] = _vec(u_instance, idx.size, "SetActuationInArray u_instance")

    # ---- names ----------------------------------------------------------------------------------
    def _names(self, kind: str, model_instance, add_model_instance_prefix: bool, always_add_suffix: bool = True):
        self._ThrowIfNotFinalized(f"Get{kind}Names")
        mi = None if model_instance is None else self._CheckModelInstance(model_instance)
        names = []
        for j in self._joints_in_q_order():
            if mi is not None and j.model_instance() != mi:
                continue
            suffixes = j._position_suffixes if kind == "Position" else j._velocity_suffixes
            base = j.name()  # pydrake: the joint name, also for the floating joints Finalize adds
            prefix = f"{self.GetModelInstanceName(j.model_instance())}_" if add_model_instance_prefix else ""
            if len(suffixes) == 1 and not always_add_suffix:
                names.append(f"{prefix}{base}")
            else:
                names += [f"{prefix}{base}_{s}" for s in suffixes]
        return names

    @staticmethod
    def _name_args(model_instance, add_model_instance_prefix) -> tuple:
        """pydrake's overloads: (add_model_instance_prefix: bool) or (model_instance, add_model_instance_prefix)."""
        if isinstance(model_instance, (bool, np.bool_)):
            return None, bool(model_instance)
        return model_instance, add_model_instance_prefix

    def GetPositionNames(self, model_instance=None, add_model_instance_prefix: bool = True,
                         always_add_suffix: bool = True) -> list[str]:
        return self._names("Position", *self._name_args(model_instance, add_model_instance_prefix), always_add_suffix)

    def GetVelocityNames(self, model_instance=None, add_model_instance_prefix: bool = True,
                         always_add_suffix: bool = True) -> list[str]:
        return self._names("Velocity", *self._name_args(model_instance, add_model_instance_prefix), always_add_suffix)

    def GetStateNames(self, model_instance=None, add_model_instance_prefix: bool = True) -> list[str]:
        """Position names then velocity names; GetStateNames(add_model_instance_prefix) or (model_instance, ...)."""
        mi, prefix = self._name_args(model_instance, add_model_instance_prefix)
        return self.GetPositionNames(mi, prefix) + self.GetVelocityNames(mi, prefix)

    def GetActuatorNames(self, model_instance=None, add_model_instance_prefix: bool = True) -> list[str]:
        model_instance, add_model_instance_prefix = self._name_args(model_instance, add_model_instance_prefix)
        mi = None if model_instance is None else self._CheckModelInstance(model_instance)
        return [(f"{self.GetModelInstanceName(a.model_instance())}_" if add_model_instance_prefix else "") + a.name()
                for a in self._actuators if mi is None or a.model_instance() == mi]

    # ---- limits ---------------------------------------------------------------------------------
    def GetPositionLowerLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetPositionLowerLimits")
        return self._model.q_lower.copy()

    def GetPositionUpperLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetPositionUpperLimits")
        return self._model.q_upper.copy()

    def GetVelocityLowerLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetVelocityLowerLimits")
        return self._model.v_lower.copy()

    def GetVelocityUpperLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetVelocityUpperLimits")
        return self._model.v_upper.copy()

    def GetAccelerationLowerLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetAccelerationLowerLimits")
        return self._model.a_lower.copy()

    def GetAccelerationUpperLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetAccelerationUpperLimits")
        return self._model.a_upper.copy()

    def GetEffortLowerLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetEffortLowerLimits")
        return -np.array([a.effort_limit() for a in self._actuators])

    def GetEffortUpperLimits(self) -> np.ndarray:
        self._ThrowIfNotFinalized("GetEffortUpperLimits")
        return np.array([a.effort_limit() for a in self._actuators])

    # ---- defaults ---------------------------------------------------------------------------------
    def GetDefaultPositions(self, model_instance=None) -> np.ndarray:
        self._ThrowIfNotFinalized("GetDefaultPositions")
        q = np.zeros(self._model.nq)
        for j in self._joints:
            q[j.position_start():j.position_start() + j.num_positions()] = j._default_positions
        return q if model_instance is None else q[self._instance_q_indices(model_instance)]

    def SetDefaultPositions(self, *args, **kwargs) -> None:
        """SetDefaultPositions(q) or SetDefaultPositions(model_instance, q_instance)."""
        self._ThrowIfNotFinalized("SetDefaultPositions")
        b = bind("SetDefaultPositions", args, kwargs, ("q",), ("model_instance", "q_instance"))
        q = self.GetDefaultPositions()
        if "q" in b:
            q = _vec(b["q"], self._model.nq, "SetDefaultPositions q")
        else:
            idx = self._instance_q_indices(b["model_instance"])
            q[idx] = _vec(b["q_instance"], idx.size, "SetDefaultPositions q_instance")
        for j in self._joints:
            j._default_positions = q[j.position_start():j.position_start() + j.num_positions()].copy()
        self._default_positions_changed()

    def _default_positions_changed(self) -> None:
        return None

    def _default_state_vector(self) -> np.ndarray:
        return np.concatenate([self.GetDefaultPositions(), np.zeros(self._model.nv)])

    # ---- free bodies ------------------------------------------------------------------------------
    def GetFloatingBaseBodies(self) -> set:
        self._ThrowIfNotFinalized("GetFloatingBaseBodies")
        return {b.index() for b in self._bodies[1:] if b.is_floating_base_body()}

    def _free_joint(self, body, what):
        self._ThrowIfNotFinalized(what)
        self._check_element(body, "body", self._bodies)
        if not body.is_floating_base_body():
            raise RuntimeError(f"{what}: body '{body.name()}' is not a free (floating) body")
        return self._inboard_joint_of_body(body.index())

    def SetDefaultFloatingBaseBodyPose(self, body, X_WB) -> None:
        """Default pose X_WB of a floating base body, used by SetDefaultState."""
        R, p = pose_to_arrays(X_WB, "X_WB")
        self._default_free_body_poses[int(body.index())] = (R, p)
        if self._finalized and body._floating_joint is not None:
            body._floating_joint._default_positions = self._free_pose_to_q(R, p)
            self._default_positions_changed()

    def GetDefaultFloatingBaseBodyPose(self, body):
        """The default pose X_WB of a floating base body (identity unless set)."""
        R, p = self._default_free_body_poses.get(int(body.index()), (np.eye(3), np.zeros(3)))
        return make_rigid_transform(R, p)

    def SetDefaultFreeBodyPose(self, body, X_PB) -> None:
        """Deprecated by Drake: use SetDefaultFloatingBaseBodyPose."""
        _deprecated("SetDefaultFreeBodyPose", "SetDefaultFloatingBaseBodyPose")
        self.SetDefaultFloatingBaseBodyPose(body, X_PB)

    def GetDefaultFreeBodyPose(self, body):
        """Deprecated by Drake: use GetDefaultFloatingBaseBodyPose."""
        _deprecated("GetDefaultFreeBodyPose", "GetDefaultFloatingBaseBodyPose")
        return self.GetDefaultFloatingBaseBodyPose(body)

    def GetFreeBodyPose(self, context, body):
        """X_WB of a free body."""
        j = self._free_joint(body, "GetFreeBodyPose")
        q = self.GetPositions(context)[j.position_start():j.position_start() + j.num_positions()]
        R = quaternion_to_rotation(*q[:4]) if j.num_positions() == 7 else rpy_to_rotation(*q[:3])
        return make_rigid_transform(R, q[-3:])

    def SetFreeBodyPose(self, context, *args, **kwargs) -> None:
        """SetFreeBodyPose(context, body, X_JpJc) or (context, state, body, X_JpJc): the pose of a free body's
        joint child frame in its parent frame (X_WB for a floating base body). X_PB is Drake's deprecated name."""
        if "X_PB" in kwargs:
            warnings.warn("MultibodyPlant.SetFreeBodyPose(X_PB=...) is deprecated by Drake. Use X_JpJc instead.",
                          FutureWarning, stacklevel=2)
        kwargs = {("X_JpJc" if k in ("X_WB", "X_PB") else k): v for k, v in kwargs.items()}
        b = bind("SetFreeBodyPose", args, kwargs, ("body", "X_JpJc"), ("state", "body", "X_JpJc"))
        state, body, X = b.get("state"), b["body"], b["X_JpJc"]
        j = self._free_joint(body, "SetFreeBodyPose")
        R, p = pose_to_arrays(X, "X_WB")
        rot = self._free_pose_to_q(R, p)[:4] if j.num_positions() == 7 else rpy_from_rotation_matrix(R)
        qs = j.position_start()
        self._write(context, state, np.arange(qs, qs + j.num_positions()), np.concatenate([rot, p]))

    SetFreeBodyPoseInWorldFrame = SetFreeBodyPose

    def SetFloatingBaseBodyPoseInWorldFrame(self, context, body, X_WB) -> None:
        """Set X_WB of a floating base body."""
        self.SetFreeBodyPose(context, body, X_WB)

    def SetFloatingBaseBodyPoseInAnchoredFrame(self, context, frame_F, body, X_FB) -> None:
        """Set a floating base body's pose given in an anchored frame F (welded to the world)."""
        self.SetFreeBodyPoseInAnchoredFrame(context, frame_F, body, X_FB)

    def SetFreeBodyPoseInAnchoredFrame(self, context, frame_F, body, X_FB) -> None:
        """Set a free body's pose given in an anchored frame F (welded to the world)."""
        if not self.IsAnchored(frame_F._body):
            raise RuntimeError(f"SetFreeBodyPoseInAnchoredFrame: frame '{frame_F.name()}' is not anchored to the world")
        R_WF, p_WF = self._frame_pose_arrays(context, frame_F)
        R_FB, p_FB = pose_to_arrays(X_FB, "X_FB")
        self.SetFreeBodyPose(context, body, _pose_matrix(R_WF @ R_FB, p_WF + R_WF @ p_FB))

    def SetFreeBodySpatialVelocity(self, *args, **kwargs) -> None:
        """SetFreeBodySpatialVelocity(context, body, V_JpJc) or (context, state, body, V_JpJc): the spatial velocity
        of a free body's joint child frame in its parent frame. (body, V_PB, context) is Drake's deprecated form."""
        if args and hasattr(args[0], "body_frame") and len(args) + len(kwargs) == 3:
            warnings.warn("MultibodyPlant.SetFreeBodySpatialVelocity(body, V_PB, context) is deprecated by Drake. "
                          "Use context, body, V_JpJc instead.", FutureWarning, stacklevel=2)
            b = bind("SetFreeBodySpatialVelocity", args, kwargs, ("body", "V_PB", "context"))
            b["V_JpJc"] = b.pop("V_PB")
        else:
            kwargs = {("V_JpJc" if k == "V_WB" else k): v for k, v in kwargs.items()}
            b = bind("SetFreeBodySpatialVelocity", args, kwargs, ("context", "body", "V_JpJc"),
                     ("context", "state", "body", "V_JpJc"))
        context, state, body, V = b["context"], b.get("state"), b["body"], b["V_JpJc"]
        j = self._free_joint(body, "SetFreeBodySpatialVelocity")
        vs, nq = j.velocity_start(), self._model.nq
        self._write(context, state, np.arange(nq + vs, nq + vs + 6), spatial_to_array(V, "V_WB"))

    def HasUniqueFloatingBaseBody(self, model_instance) -> bool:
        """True when `model_instance` has exactly one floating base body."""
        self._ThrowIfNotFinalized("HasUniqueFloatingBaseBody")
        mi = self._CheckModelInstance(model_instance)
        bases = [j for j in self._joints if j.model_instance() == mi and j.parent_body().index() == 0]
        return len(bases) == 1 and bases[0].child_body().is_floating_base_body()

    def GetUniqueFloatingBaseBodyOrThrow(self, model_instance):
        """The unique floating base body of `model_instance` (raises when there is none or several)."""
        if not self.HasUniqueFloatingBaseBody(model_instance):
            raise RuntimeError(f"model instance '{self.GetModelInstanceName(model_instance)}' "
                               "does not have a unique floating base body")
        mi = self._CheckModelInstance(model_instance)
        return next(j.child_body() for j in self._joints if j.model_instance() == mi and j.parent_body().index() == 0)

    def HasUniqueFreeBaseBody(self, model_instance) -> bool:
        """Deprecated by Drake: use HasUniqueFloatingBaseBody."""
        _deprecated("HasUniqueFreeBaseBody", "HasUniqueFloatingBaseBody")
        return self.HasUniqueFloatingBaseBody(model_instance)

    def GetUniqueFreeBaseBodyOrThrow(self, model_instance):
        """Deprecated by Drake: use GetUniqueFloatingBaseBodyOrThrow."""
        _deprecated("GetUniqueFreeBaseBodyOrThrow", "GetUniqueFloatingBaseBodyOrThrow")
        return self.GetUniqueFloatingBaseBodyOrThrow(model_instance)


def _pose_matrix(R, p):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def _uniform_quaternion(generator) -> np.ndarray:
    """A rotation drawn uniformly from SO(3): a normalized 4-vector of standard normals (w ≥ 0)."""
    q = generator.standard_normal(4)
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def _wxyz(value) -> np.ndarray:
    q = np.asarray(value.wxyz() if hasattr(value, "wxyz") else value, dtype=float).reshape(-1)
    if q.size != 4:
        raise ValueError(f"a random rotation must be a quaternion [w, x, y, z], got {q.size} entries")
    return q / np.linalg.norm(q)


class _RandomStateMixin:
    """SetRandomState and the free-body random distributions.

    Distributions are callables `f(generator) -> value` taking a numpy Generator (the Python form of
    Drake's symbolic random-variable expressions).  Joints or bodies without one get their default.
    """

    def _free_body_distribution(self, body, what):
        j = self._free_joint(body, what)
        if j.num_positions() != 7:
            raise RuntimeError(f"{what}: body '{body.name()}' is not a quaternion floating body")
        return j

    def SetFreeBodyRandomPositionDistribution(self, body, position) -> None:
        """position: callable(generator) -> p_WB (3-vector)."""
        j = self._free_body_distribution(body, "SetFreeBodyRandomPositionDistribution")
        self._free_random.setdefault(int(j.index()), {})["p"] = position

    def SetFreeBodyRandomRotationDistribution(self, body, rotation) -> None:
        """rotation: callable(generator) -> quaternion [w, x, y, z] (or a Quaternion)."""
        j = self._free_body_distribution(body, "SetFreeBodyRandomRotationDistribution")
        self._free_random.setdefault(int(j.index()), {})["R"] = rotation

    def SetFreeBodyRandomRotationDistributionToUniform(self, body) -> None:
        """Draw the free body's orientation uniformly from SO(3)."""
        self.SetFreeBodyRandomRotationDistribution(body, _uniform_quaternion)

    def SetRandomState(self, context, state, generator) -> None:
        """Sample every joint's distribution (default positions where none is set); velocities are zero."""
        self._ThrowIfNotFinalized("SetRandomState")
        if generator is None or not hasattr(generator, "standard_normal"):
            raise ValueError("SetRandomState: generator must be a numpy random Generator (np.random.default_rng())")
        super().SetRandomState(context, state, generator)
        x = self._default_state_vector()
        for j in self._joints:
            qs, nq = j.position_start(), j.num_positions()
            q = j._sample_positions(generator)
            spec = self._free_random.get(int(j.index()))
            if spec:
                if "R" in spec:
                    q[:4] = _wxyz(spec["R"](generator))
                if "p" in spec:
                    q[4:] = np.asarray(spec["p"](generator), dtype=float).reshape(3)
            x[qs:qs + nq] = q
        self._mutable_qv_in_state(context, state)[:] = x
