"""Kinematics half of MultibodyPlant: poses, velocities, accelerations, Jacobians, mass properties, and the tree's
topology queries (welded and outboard bodies, anchoring)."""
from __future__ import annotations

import numpy as np

from ..kernels import pipeline as pl
from ..kernels.kinematics import acceleration_to_point, spatial_to_point
from ..tree._convert import make_rigid_transform, make_rotation_matrix, make_spatial
from ..tree.indices import BodyIndex, JacobianWrtVariable
from ..tree.joints import WeldJoint
from ...common.overloads import bind
from ..tree.spatial_inertia import SpatialInertia
from ...common.lazy_import import LazyModule

scipy_sparse = LazyModule("scipy.sparse")  # loaded on first use (pydrake.all imports no scipy)


def _points(p, what: str) -> np.ndarray:
    a = np.asarray(p, dtype=float)
    if a.ndim == 1:
        if a.size != 3:
            raise ValueError(f"{what}: a point needs 3 coordinates, got {a.size}")
        return a.reshape(3, 1)
    if a.ndim != 2 or a.shape[0] != 3:
        raise ValueError(f"{what}: points must be a 3 × n array, got shape {a.shape}")
    return a


class _KinematicsMixin:
    """Eval*/Calc* kinematics over the cached Kinematics of a context."""

    # ---- helpers ----------------------------------------------------------------------------------
    def _body_index(self, body) -> int:
        self._check_element(body, "body", self._bodies)
        return int(body.index())

    def _body_pose_arrays(self, context, b: int):
        kin = self._eval_kinematics(context)
        return kin.R_WB[b], kin.p_WB[b]

    def _frame_pose_arrays(self, context, frame):
        self._check_element(frame, "frame", self._frames)
        kin = self._eval_kinematics(context)
        b = int(frame._body.index())
        R_BF, p_BF = frame._pose_in_body(context)
        return kin.R_WB[b] @ R_BF, kin.p_WB[b] + kin.R_WB[b] @ p_BF

    def _check_wrt(self, with_respect_to):
        if not isinstance(with_respect_to, JacobianWrtVariable):
            raise ValueError(f"with_respect_to must be JacobianWrtVariable.kV or kQDot, got {with_respect_to!r}")

    def _to_qdot(self, context, J):
        """Convert a Jacobian with respect to v into one with respect to q̇ (J·N⁺(q))."""
        m = self._model
        return J @ pl.nplus_matrix(m.order, m.ji, np.asarray(self.GetPositions(context), dtype=float), m.nq, m.nv)

    # ---- poses and velocities ----------------------------------------------------------------------
    def EvalBodyPoseInWorld(self, context, body):
        """X_WB (from the cached kinematics)."""
        self._ThrowIfNotFinalized("EvalBodyPoseInWorld")
        b = self._body_index(body)
        kin = self._eval_kinematics(context)
        return make_rigid_transform(kin.R_WB[b], kin.p_WB[b])

    def EvalBodySpatialVelocityInWorld(self, context, body):
        """V_WB at Bo, expressed in W."""
        self._ThrowIfNotFinalized("EvalBodySpatialVelocityInWorld")
        b = self._body_index(body)
        kin = self._eval_kinematics(context)
        return make_spatial("SpatialVelocity", spatial_to_point(kin.V[b], kin.p_WB[b]))

    def EvalBodySpatialAccelerationInWorld(self, context, body):
        """A_WB at Bo, expressed in W: the instantaneous accelerations (a discrete plant's: of the step that starts at
        this state), also when the output ports are sampled, as Drake's."""
        self._ThrowIfNotFinalized("EvalBodySpatialAccelerationInWorld")
        b = self._body_index(body)
        return make_spatial("SpatialAcceleration", self._live_body_accelerations(context)[b])

    def _live_body_accelerations(self, context) -> np.ndarray:
        """A_WB of every body from the instantaneous v̇ (Drake's EvalForwardDynamics): the cached ones, or those of
        the step that starts at this state when the output ports are sampled (the cache holds the last step's)."""
        if not self.has_sampled_output_ports():
            return self._eval_body_accelerations(context)
        dry = self._PipelineDryStep(context)
        vdot = self._CalcDiscreteStep(context)[1] if dry is None else dry[1][:self._model.nv]
        return self._classical_accelerations(context, vdot)

    def _classical_accelerations(self, context, vdot, kin=None) -> np.ndarray:
        """A_WB (nb × 6, at Bo in W) for v̇ at the context's kinematics (or at `kin`'s)."""
        kin = self._eval_kinematics(context) if kin is None else kin
        m = self._model
        A = pl.spatial_accelerations_stage(m.order, m.ji, kin.S, kin.c, np.asarray(vdot, dtype=float))
        w, p = kin.V[:, :3], kin.p_WB
        v_Bo = kin.V[:, 3:] + np.cross(w, p)
        return np.hstack([A[:, :3], A[:, 3:] + np.cross(A[:, :3], p) + np.cross(w, v_Bo)])

    def CalcSpatialAccelerationsFromVdot(self, context, known_vdot) -> list:
        """A_WB for every body (BodyIndex order) for the given v̇."""
        self._ThrowIfNotFinalized("CalcSpatialAccelerationsFromVdot")
        vdot = self._check_size(known_vdot, self._model.nv, "known_vdot")
        return [make_spatial("SpatialAcceleration", a) for a in self._classical_accelerations(context, vdot)]

    def CalcRelativeTransform(self, context, frame_A, frame_B):
        """X_AB(q): the pose of frame B in frame A."""
        R_WA, p_WA = self._frame_pose_arrays(context, frame_A)
        R_WB, p_WB = self._frame_pose_arrays(context, frame_B)
        return make_rigid_transform(R_WA.T @ R_WB, R_WA.T @ (p_WB - p_WA))

    def CalcRelativeRotationMatrix(self, context, frame_A, frame_B):
        """R_AB(q): the orientation of frame B in frame A."""
        R_WA, _ = self._frame_pose_arrays(context, frame_A)
        R_WB, _ = self._frame_pose_arrays(context, frame_B)
        return make_rotation_matrix(R_WA.T @ R_WB)

    def CalcPointsPositions(self, context, frame_B, p_BQi, frame_A) -> np.ndarray:
        """p_AQi (3 × n) of points Qi given in frame B."""
        P = _points(p_BQi, "CalcPointsPositions p_BQi")
        R_WB, p_WB = self._frame_pose_arrays(context, frame_B)
        R_WA, p_WA = self._frame_pose_arrays(context, frame_A)
        return R_WA.T @ ((R_WB @ P) + (p_WB - p_WA)[:, None])

    def _frame_velocity_W(self, context, frame, p_WP=None):
        """[w_WB; v_WP] for the point P of frame's body (default: the frame origin)."""
        kin = self._eval_kinematics(context)
        b = int(frame._body.index())
        if p_WP is None:
            p_WP = self._frame_pose_arrays(context, frame)[1]
        return spatial_to_point(kin.V[b], p_WP)

    def CalcSpatialVelocity(self, context, frame_B, frame_A, frame_E):
        """V_ABo_E: spatial velocity of frame B measured in frame A at Bo, expressed in E."""
        R_WB, p_WBo = self._frame_pose_arrays(context, frame_B)
        R_WA, _ = self._frame_pose_arrays(context, frame_A)
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        VB = self._frame_velocity_W(context, frame_B, p_WBo)
        VA = self._frame_velocity_W(context, frame_A, p_WBo)  # Ap: point of A coincident with Bo
        V = VB - VA
        return make_spatial("SpatialVelocity", np.concatenate([R_WE.T @ V[:3], R_WE.T @ V[3:]]))

    def CalcPointsVelocities(self, context, frame_B, p_BQi, frame_A, frame_E) -> np.ndarray:
        """v_AQi_E (3 × n, m/s): the velocities in frame A of points Qi fixed in frame B, expressed in E."""
        P = _points(p_BQi, "CalcPointsVelocities p_BQi")
        R_WB, p_WB = self._frame_pose_arrays(context, frame_B)
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        p_WQ = p_WB[:, None] + R_WB @ P
        out = np.empty_like(P)
        for i in range(P.shape[1]):
            v = self._frame_velocity_W(context, frame_B, p_WQ[:, i])[3:] \
                - self._frame_velocity_W(context, frame_A, p_WQ[:, i])[3:]
            out[:, i] = R_WE.T @ v
        return out

    def CalcSpatialVelocityInWorld(self, context, frame_B):
        return self.CalcSpatialVelocity(context, frame_B, self.world_frame(), self.world_frame())

    # ---- Jacobians -------------------------------------------------------------------------------
    def _jacobian_W(self, context, frame_B, p_WP, frame_A):
        kin = self._eval_kinematics(context)
        J = pl.point_jacobian(self._model.ji, kin.S, int(frame_B._body.index()), p_WP)
        a = int(frame_A._body.index())
        if a != 0:
            J = J - pl.point_jacobian(self._model.ji, kin.S, a, p_WP)
        return J

    def CalcJacobianSpatialVelocity(self, context, with_respect_to, frame_B, p_BoBp_B, frame_A, frame_E) -> np.ndarray:
        """J𝑠_V_ABp_E (6 × n): rows [w_AB; v_ABp], expressed in E."""
        self._check_wrt(with_respect_to)
        p = _points(p_BoBp_B, "CalcJacobianSpatialVelocity p_BoBp_B")[:, 0]
        R_WB, p_WB = self._frame_pose_arrays(context, frame_B)
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        self._frame_pose_arrays(context, frame_A)
        J = self._jacobian_W(context, frame_B, p_WB + R_WB @ p, frame_A)
        J = np.vstack([R_WE.T @ J[:3], R_WE.T @ J[3:]])
        return self._to_qdot(context, J) if with_respect_to == JacobianWrtVariable.kQDot else J

    def CalcJacobianAngularVelocity(self, context, with_respect_to, frame_B, frame_A, frame_E) -> np.ndarray:
        """J𝑠_w_AB_E (3 × n)."""
        return self.CalcJacobianSpatialVelocity(context, with_respect_to, frame_B, np.zeros(3), frame_A, frame_E)[:3]

    def CalcJacobianTranslationalVelocity(self, context, with_respect_to, frame_B, p_BoBi_B, frame_A,
                                          frame_E) -> np.ndarray:
        """J𝑠_v_ABi_E (3·p × n) for points Bi of frame B (p_BoBi_B is 3 × p)."""
        self._check_wrt(with_respect_to)
        P = _points(p_BoBi_B, "CalcJacobianTranslationalVelocity p_BoBi_B")
        R_WB, p_WB = self._frame_pose_arrays(context, frame_B)
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        self._frame_pose_arrays(context, frame_A)
        kin = self._eval_kinematics(context)
        p_W = (p_WB[:, None] + R_WB @ P).T.copy()
        J = pl.points_jacobian(self._model.ji, kin.S, int(frame_B._body.index()), p_W)
        a = int(frame_A._body.index())
        if a != 0:
            J = J - pl.points_jacobian(self._model.ji, kin.S, a, p_W)
        n = P.shape[1]
        J = (R_WE.T @ J.reshape(n, 3, -1)).reshape(3 * n, -1)
        return self._to_qdot(context, J) if with_respect_to == JacobianWrtVariable.kQDot else J

    def CalcJacobianPositionVector(self, context, frame_B, p_BoBi_B, frame_A, frame_E) -> np.ndarray:
        """∂p_AoBi_E/∂q (3·p × nq)."""
        return self.CalcJacobianTranslationalVelocity(context, JacobianWrtVariable.kQDot, frame_B, p_BoBi_B,
                                                      frame_A, frame_E)

    def _bias_W(self, context, frame_B, p, frame_A, with_respect_to, what):
        self._check_wrt(with_respect_to)
        if with_respect_to != JacobianWrtVariable.kV:
            raise RuntimeError(f"{what}: only JacobianWrtVariable.kV is supported")
        if not frame_A.is_world_frame():
            raise RuntimeError(f"{what}: frame_A must be the world frame")
        kin = self._eval_kinematics(context)
        m = self._model
        A0 = pl.spatial_accelerations_stage(m.order, m.ji, kin.S, kin.c, np.zeros(m.nv))
        R_WB, p_WB = self._frame_pose_arrays(context, frame_B)
        b = int(frame_B._body.index())
        return [acceleration_to_point(kin.V[b], A0[b], p_WB + R_WB @ p[:, i]) for i in range(p.shape[1])]

    def CalcBiasSpatialAcceleration(self, context, with_respect_to, frame_B, p_BoBp_B, frame_A, frame_E):
        """A𝑠Bias_ABp_E = J̇𝑠_V_ABp·𝑠 (frame_A must be World, 𝑠 = v)."""
        p = _points(p_BoBp_B, "CalcBiasSpatialAcceleration p_BoBp_B")
        a = self._bias_W(context, frame_B, p, frame_A, with_respect_to, "CalcBiasSpatialAcceleration")[0]
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        return make_spatial("SpatialAcceleration", np.concatenate([R_WE.T @ a[:3], R_WE.T @ a[3:]]))

    def CalcBiasTranslationalAcceleration(self, context, with_respect_to, frame_B, p_BoBi_B, frame_A,
                                          frame_E) -> np.ndarray:
        """a𝑠Bias_ABi_E (3 × p) for points Bi of frame B (frame_A must be World, 𝑠 = v)."""
        p = _points(p_BoBi_B, "CalcBiasTranslationalAcceleration p_BoBi_B")
        acc = self._bias_W(context, frame_B, p, frame_A, with_respect_to, "CalcBiasTranslationalAcceleration")
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        return np.column_stack([R_WE.T @ a[3:] for a in acc])

    # ---- q̇ ↔ v -------------------------------------------------------------------------------------
    def MapVelocityToQDot(self, context, v) -> np.ndarray:
        """q̇ = N(q)·v."""
        m = self._model
        v = self._check_size(v, m.nv, "MapVelocityToQDot v")
        return pl.map_velocity_to_qdot(m.order, m.ji, np.asarray(self.GetPositions(context), dtype=float), v)

    def MapQDotToVelocity(self, context, qdot) -> np.ndarray:
        """v = N⁺(q)·q̇."""
        m = self._model
        qdot = self._check_size(qdot, m.nq, "MapQDotToVelocity qdot")
        return self._QDotToVelocityDense(context) @ qdot

    def MakeVelocityToQDotMap(self, context):
        """N(q) (nq × nv) as a scipy.sparse CSC matrix, as pydrake returns it (Eigen::SparseMatrix)."""
        self._ThrowIfNotFinalized("MakeVelocityToQDotMap")
        m = self._model
        return scipy_sparse.csc_matrix(pl.n_matrix(m.order, m.ji, np.asarray(self.GetPositions(context), dtype=float), m.nq, m.nv))

    def MakeQDotToVelocityMap(self, context):
        """N⁺(q) (nv × nq) as a scipy.sparse CSC matrix, as pydrake returns it (Eigen::SparseMatrix)."""
        self._ThrowIfNotFinalized("MakeQDotToVelocityMap")
        return scipy_sparse.csc_matrix(self._QDotToVelocityDense(context))

    def _QDotToVelocityDense(self, context) -> np.ndarray:
        """N⁺(q) (nv × nq), dense (the plant's own q̇ → v maps)."""
        m = self._model
        return pl.nplus_matrix(m.order, m.ji, np.asarray(self.GetPositions(context), dtype=float), m.nq, m.nv)

    def IsVelocityEqualToQDot(self) -> bool:
        """True if q̇ = v for every joint (no quaternion, rpy or floating joints)."""
        self._ThrowIfNotFinalized("IsVelocityEqualToQDot")
        return self._model.nq == self._model.nv and not any(
            j.type_name() in ("ball_rpy", "rpy_floating", "quaternion_floating", "ball_quaternion")
            for j in self._joints)

    # ---- mass properties ------------------------------------------------------------------------------
    def _selected_bodies(self, model_instances, what):
        if model_instances is None:
            return list(range(1, self._model.nb))
        mis = {int(self._CheckModelInstance(mi)) for mi in model_instances}
        return [int(b.index()) for b in self._bodies[1:] if int(b.model_instance()) in mis]

    def CalcTotalMass(self, context, model_instances=None) -> float:
        """Σ mᵢ over non-world bodies (optionally of the listed model instances)."""
        self._ThrowIfNotFinalized("CalcTotalMass")
        bp = self._body_params(context)
        return float(sum(bp[b, 0] for b in self._selected_bodies(model_instances, "CalcTotalMass")))

    def _com_data(self, context, model_instances, what):
        self._ThrowIfNotFinalized(what)
        sel = self._selected_bodies(model_instances, what)
        if not sel:
            raise RuntimeError(f"{what}: there are no non-world bodies in the selection")
        bp = self._body_params(context)
        m = bp[sel, 0]
        ms = m.sum()
        if not ms > 0:
            raise RuntimeError(f"{what}: the total mass of the selected bodies must be positive, got {ms}")
        kin = self._eval_kinematics(context)
        com = kin.p_WB[sel] + np.einsum("bij,bj->bi", kin.R_WB[sel], bp[sel, 1:4])
        return sel, m, ms, com, kin

    def CalcCenterOfMassPositionInWorld(self, context, model_instances=None) -> np.ndarray:
        """p_WoScm_W = Σ mᵢ·pᵢ / mₛ."""
        _, m, ms, com, _ = self._com_data(context, model_instances, "CalcCenterOfMassPositionInWorld")
        return (m[:, None] * com).sum(0) / ms

    def CalcCenterOfMassTranslationalVelocityInWorld(self, context, model_instances=None) -> np.ndarray:
        """v_WScm_W = Σ mᵢ·vᵢ / mₛ."""
        sel, m, ms, com, kin = self._com_data(context, model_instances, "CalcCenterOfMassTranslationalVelocityInWorld")
        V = kin.V[sel]
        vcom = V[:, 3:] + np.cross(V[:, :3], com)
        return (m[:, None] * vcom).sum(0) / ms

    def CalcCenterOfMassTranslationalAccelerationInWorld(self, context, model_instances=None) -> np.ndarray:
        """a_WScm_W = Σ mᵢ·a_WBcmᵢ / mₛ (m/s²), from the plant's generalized accelerations."""
        sel, m, ms, com, kin = self._com_data(context, model_instances,
                                              "CalcCenterOfMassTranslationalAccelerationInWorld")
        A = self._live_body_accelerations(context)
        a = np.zeros(3)
        for k, b in enumerate(sel):
            w, alpha = kin.V[b, :3], A[b, :3]
            r = com[k] - kin.p_WB[b]
            a += m[k] * (A[b, 3:] + np.cross(alpha, r) + np.cross(w, np.cross(w, r)))
        return a / ms

    def CalcSpatialInertia(self, context, frame_F, body_indexes) -> object:
        """M_SFo_F: the spatial inertia of the set S of bodies `body_indexes` about Fo, expressed in F."""
        self._ThrowIfNotFinalized("CalcSpatialInertia")
        kin = self._eval_kinematics(context)
        R_WF, p_WF = self._frame_pose_arrays(context, frame_F)
        total = SpatialInertia.Zero()
        seen = set()
        for index in body_indexes:
            b = int(index)
            body = self.get_body(index)
            if b in seen:
                raise ValueError(f"CalcSpatialInertia: body '{body.name()}' is listed twice in body_indexes")
            seen.add(b)
            M_BBo_B = body.CalcSpatialInertiaInBodyFrame(context)
            R_FB = R_WF.T @ kin.R_WB[b]
            p_FoBo_F = R_WF.T @ (kin.p_WB[b] - p_WF)
            M = M_BBo_B.ReExpress(make_rotation_matrix(R_FB)).Shift(-p_FoBo_F)
            total += M
        return total

    def CalcJacobianCenterOfMassTranslationalVelocity(self, context, *args, **kwargs) -> np.ndarray:
        """J𝑠_v_AScm_E (3 × n); args (with_respect_to, frame_A, frame_E) or (model_instances, wrt, A, E)."""
        b = bind("CalcJacobianCenterOfMassTranslationalVelocity", args, kwargs,
                 ("with_respect_to", "frame_A", "frame_E"), ("model_instances", "with_respect_to", "frame_A", "frame_E"))
        model_instances, with_respect_to, frame_A, frame_E = (b.get("model_instances"), b["with_respect_to"],
                                                              b["frame_A"], b["frame_E"])
        sel, m, ms, com, kin = self._com_data(context, model_instances,
                                              "CalcJacobianCenterOfMassTranslationalVelocity")
        J = np.zeros((3, self._model.nv))
        for k, b in enumerate(sel):
            J += m[k] * self._jacobian_W(context, self._bodies[b]._body_frame, com[k], frame_A)[3:]
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        J = R_WE.T @ (J / ms)
        self._check_wrt(with_respect_to)
        return self._to_qdot(context, J) if with_respect_to == JacobianWrtVariable.kQDot else J

    def CalcBiasCenterOfMassTranslationalAcceleration(self, context, *args, **kwargs) -> np.ndarray:
        """abias_AScm_E = Σ mᵢ·abiasᵢ / mₛ (frame_A must be World)."""
        b = bind("CalcBiasCenterOfMassTranslationalAcceleration", args, kwargs,
                 ("with_respect_to", "frame_A", "frame_E"), ("model_instances", "with_respect_to", "frame_A", "frame_E"))
        model_instances, with_respect_to, frame_A, frame_E = (b.get("model_instances"), b["with_respect_to"],
                                                              b["frame_A"], b["frame_E"])
        sel, m, ms, com, kin = self._com_data(context, model_instances,
                                              "CalcBiasCenterOfMassTranslationalAcceleration")
        a = np.zeros(3)
        for k, b in enumerate(sel):
            frame = self._bodies[b]._body_frame
            R_WB, p_WB = kin.R_WB[b], kin.p_WB[b]
            p_B = R_WB.T @ (com[k] - p_WB)
            a += m[k] * self._bias_W(context, frame, p_B[:, None], frame_A, with_respect_to,
                                     "CalcBiasCenterOfMassTranslationalAcceleration")[0][3:]
        R_WE, _ = self._frame_pose_arrays(context, frame_E)
        return R_WE.T @ (a / ms)

    def CalcSpatialMomentumInWorldAboutPoint(self, context, *args, **kwargs):
        """L_WSP_W: spatial momentum [angular; linear] of the bodies about point P, in W."""
        b = bind("CalcSpatialMomentumInWorldAboutPoint", args, kwargs, ("p_WoP_W",), ("model_instances", "p_WoP_W"))
        model_instances, p_WoP_W = b.get("model_instances"), b["p_WoP_W"]
        self._ThrowIfNotFinalized("CalcSpatialMomentumInWorldAboutPoint")
        p = np.asarray(p_WoP_W, dtype=float).reshape(3)
        sel = self._selected_bodies(model_instances, "CalcSpatialMomentumInWorldAboutPoint")
        kin = self._eval_kinematics(context)
        Iw = kin.Iw
        h = np.zeros(6)
        for b in sel:
            h += Iw[b] @ kin.V[b]
        # h is about Wo: shift the angular part to P.
        return make_spatial("SpatialMomentum", np.concatenate([h[:3] - np.cross(p, h[3:]), h[3:]]))

    # ---- topology queries ---------------------------------------------------------------------------------------
    def GetBodiesWeldedTo(self, body) -> list:
        """Every body welded (transitively, through WeldJoints) to `body`, itself included."""
        self._check_element(body, "body", self._bodies)
        adj: dict[int, list] = {}
        for j in self._joints:
            if isinstance(j, WeldJoint):
                a, b = int(j._frame_on_parent._body.index()), int(j._frame_on_child._body.index())
                adj.setdefault(a, []).append(b)
                adj.setdefault(b, []).append(a)
        seen, stack = {int(body.index())}, [int(body.index())]
        while stack:
            for n in adj.get(stack.pop(), []):
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        return [self._bodies[i] for i in sorted(seen)]

    def GetBodiesKinematicallyAffectedBy(self, joint_indexes) -> list:
        """The BodyIndex of every body outboard of the given joints (whose pose depends on their positions),
        sorted. A weld joint affects nothing and is an error, as in Drake."""
        self._ThrowIfNotFinalized("GetBodiesKinematicallyAffectedBy")
        children: dict[int, list[int]] = {}
        for b in self._model.order:  # the tree's edges (a re-rooted tree reverses some joints)
            children.setdefault(int(self._model.ji[b, 0]), []).append(int(b))
        out: set[int] = set()
        for index in joint_indexes:
            joint = self.get_joint(index)
            if joint.num_velocities() == 0:
                raise ValueError(f"GetBodiesKinematicallyAffectedBy: joint '{joint.name()}' is a weld joint; it has "
                                 "no positions to affect any body")
            stack = [joint._mobilized_body]
            while stack:
                b = stack.pop()
                if b not in out:
                    out.add(b)
                    stack.extend(children.get(b, []))
        return [BodyIndex(b) for b in sorted(out)]

    def IsAnchored(self, body) -> bool:
        """True if the path from `body` to the world contains only weld joints."""
        self._ThrowIfNotFinalized("IsAnchored")
        b = int(body.index())
        while b != 0:
            j = self._joints[self._model.joint_of_body[b]]
            if j.num_velocities() != 0:
                return False
            b = int(self._model.ji[b, 0])  # the inboard body (the joint's child when the tree reversed it)
        return True
