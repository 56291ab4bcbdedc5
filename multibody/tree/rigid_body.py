"""RigidBody: a body with a spatial inertia about its origin Bo, and its BodyFrame."""
from __future__ import annotations

import warnings

import numpy as np

from .element import MultibodyElement, hands_out


class RigidBody(MultibodyElement):
    """A rigid body B.  Its default mass properties are M_BBo_B (about Bo, expressed in B).

    The per-context mass properties are Context parameters: SetMass / SetSpatialInertiaInBodyFrame
    change them for one Context without touching the defaults.
    """

    _kind = "body"

    def __init__(self, name: str | None = None, model_instance=None, M_BBo_B=None, *, body_name: str | None = None):
        """RigidBody(body_name, [model_instance], [M_BBo_B]) as pydrake; `name` is the same as `body_name`."""
        if body_name is not None:
            if name is not None:
                raise TypeError("RigidBody(): pass the name once (body_name=...)")
            name = body_name
        if name is None:
            raise TypeError("RigidBody(): missing the body's name (body_name=...)")
        from .indices import ModelInstanceIndex
        if model_instance is not None and not isinstance(model_instance, (int, ModelInstanceIndex)) \
                and M_BBo_B is None:
            model_instance, M_BBo_B = None, model_instance  # RigidBody(name, M_BBo_B)
        super().__init__(name, model_instance)
        from ._convert import spatial_inertia_to_arrays
        from .frame import RigidBodyFrame
        if M_BBo_B is None:
            self._mass, self._com, self._I_BBo_B = 0.0, np.zeros(3), np.zeros((3, 3))
        else:
            self._mass, self._com, self._I_BBo_B = spatial_inertia_to_arrays(M_BBo_B, f"body '{name}' spatial inertia")
        # G_BBo_B as given (a SpatialInertia keeps the unit inertia): the body's Context parameter, bit for bit
        G = getattr(M_BBo_B, "_G", None)
        self._G_BBo_B = None if G is None else np.array(G, dtype=float).reshape(3, 3)
        self._body_frame = RigidBodyFrame(self)
        self._floating_joint = None

    # ---- topology -----------------------------------------------------------------------
    def body_frame(self):
        """The frame B fixed to this body at Bo."""
        return self._body_frame

    def is_world_body(self) -> bool:
        """True for the world body."""
        return self._index == 0

    def is_floating_base_body(self) -> bool:
        """True if, after Finalize, this body's inboard joint has 6 dofs and connects to the world."""
        plant = self.GetParentPlant()
        plant._ThrowIfNotFinalized("is_floating_base_body")
        j = plant._inboard_joint_of_body(self.index())
        return j is not None and j.num_velocities() == 6 and j._frame_on_parent._body.index() == 0

    def is_floating(self) -> bool:
        """Deprecated by Drake: use is_floating_base_body."""
        warnings.warn("RigidBody.is_floating() is deprecated by Drake. Use is_floating_base_body() instead.",
                      FutureWarning, stacklevel=2)
        return self.is_floating_base_body()

    def has_quaternion_dofs(self) -> bool:
        """True if the body is floating with a quaternion orientation."""
        plant = self.GetParentPlant()
        j = plant._inboard_joint_of_body(self.index())
        return self.is_floating_base_body() and j.num_positions() == 7

    def floating_positions_start(self) -> int:
        """Start of this floating body's positions in q."""
        if not self.is_floating_base_body():
            raise RuntimeError(f"body '{self._name}' is not a floating body")
        return self.GetParentPlant()._inboard_joint_of_body(self.index()).position_start()

    def floating_velocities_start_in_v(self) -> int:
        """Start of this floating body's velocities in v."""
        if not self.is_floating_base_body():
            raise RuntimeError(f"body '{self._name}' is not a floating body")
        return self.GetParentPlant()._inboard_joint_of_body(self.index()).velocity_start()

    # ---- default mass properties --------------------------------------------------------
    def default_mass(self) -> float:
        """Default mass [kg]."""
        return self._mass

    def default_com(self) -> np.ndarray:
        """Default p_BoBcm_B [m]."""
        return self._com.copy()

    def default_rotational_inertia(self):
        """Default rotational inertia about Bo, expressed in B (I_BBo_B) as a RotationalInertia."""
        from .rotational_inertia import RotationalInertia
        I = self._I_BBo_B
        return RotationalInertia(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2])

    def default_unit_inertia(self):
        """Default unit inertia about Bo (G_BBo_B = I_BBo_B / m)."""
        return self.default_spatial_inertia().get_unit_inertia()

    def default_spatial_inertia(self):
        """Default M_BBo_B as a SpatialInertia."""
        from ._convert import make_spatial_inertia
        return make_spatial_inertia(self._mass, self._com, self._I_BBo_B)

    def SetMass(self, context, mass: float) -> None:
        """Set this body's mass in `context` (a Context parameter); the unit inertia is kept."""
        self.GetParentPlant()._SetBodyMass(context, self, mass)

    def get_mass(self, context) -> float:
        """This body's mass in `context`."""
        return float(self.GetParentPlant()._body_params(context)[self.index(), 0])

    def CalcCenterOfMassInBodyFrame(self, context) -> np.ndarray:
        """p_BoBcm_B in `context`."""
        return self.GetParentPlant()._body_params(context)[self.index(), 1:4].copy()

    def SetCenterOfMassInBodyFrame(self, context, com: np.ndarray) -> None:
        """Set p_BoBcm_B in `context`, keeping the unit inertia G_BBo_B about the body origin (as Drake)."""
        self.GetParentPlant()._SetBodyCom(context, self, np.asarray(com, dtype=float))

    def SetCenterOfMassInBodyFrameAndPreserveCentralInertia(self, context, center_of_mass_position) -> None:
        """Set p_BoBcm_B in `context`, changing G_BBo_B so that the inertia about the center of mass is kept."""
        self.GetParentPlant()._SetBodyCom(context, self, np.asarray(center_of_mass_position, dtype=float),
                                          preserve_central_inertia=True)

    def CalcSpatialInertiaInBodyFrame(self, context):
        """M_BBo_B in `context` as a SpatialInertia."""
        from ._convert import make_spatial_inertia
        bp = self.GetParentPlant()._body_params(context)[self.index()]
        return make_spatial_inertia(bp[0], bp[1:4], bp[4:13].reshape(3, 3))

    def SetSpatialInertiaInBodyFrame(self, context, M_Bo_B) -> None:
        """Set M_BBo_B in `context`."""
        self.GetParentPlant()._SetBodySpatialInertia(context, self, M_Bo_B)

    def CalcCenterOfMassTranslationalVelocityInWorld(self, context) -> np.ndarray:
        """v_WBcm_W (m/s): the velocity of the center of mass in the world."""
        V = self.EvalSpatialVelocityInWorld(context)
        R_WB = self.EvalPoseInWorld(context).rotation().matrix()
        return V.translational() + np.cross(V.rotational(), R_WB @ self.CalcCenterOfMassInBodyFrame(context))

    def CalcCenterOfMassTranslationalAccelerationInWorld(self, context) -> np.ndarray:
        """a_WBcm_W (m/s²): the acceleration of the center of mass in the world."""
        w = self.EvalSpatialVelocityInWorld(context).rotational()
        R_WB = self.EvalPoseInWorld(context).rotation().matrix()
        A = self.EvalSpatialAccelerationInWorld(context).Shift(R_WB @ self.CalcCenterOfMassInBodyFrame(context), w)
        return A.translational().copy()

    # ---- floating bodies ----------------------------------------------------------------------
    def floating_position_suffix(self, position_index_in_body: int) -> str:
        """The state-name suffix of this floating body's position i (e.g. "qw", "x")."""
        return self._floating_joint_or_throw("floating_position_suffix").position_suffix(position_index_in_body)

    def floating_velocity_suffix(self, velocity_index_in_body: int) -> str:
        """The state-name suffix of this floating body's velocity i (e.g. "wx", "vz")."""
        return self._floating_joint_or_throw("floating_velocity_suffix").velocity_suffix(velocity_index_in_body)

    def _floating_joint_or_throw(self, what: str):
        plant = self.GetParentPlant()
        plant._ThrowIfNotFinalized(what)
        if not self.is_floating_base_body():
            raise RuntimeError(f"{what}: body '{self.name()}' is not a floating base body")
        return plant._inboard_joint_of_body(self.index())

    def Lock(self, context) -> None:
        """Lock this floating body in `context` (its joint's velocities become and stay zero; discrete plants)."""
        self._floating_joint_or_throw("Lock").Lock(context)

    def Unlock(self, context) -> None:
        """Unlock this floating body in `context`."""
        self._floating_joint_or_throw("Unlock").Unlock(context)

    def is_locked(self, context) -> bool:
        """Whether this floating body is locked in `context` (a non-floating body never is)."""
        plant = self.GetParentPlant()
        if not self.is_floating_base_body():
            return False
        return plant._inboard_joint_of_body(self.index()).is_locked(context)

    # ---- kinematics -----------------------------------------------------------------------
    def EvalPoseInWorld(self, context):
        """X_WB (cached)."""
        return self.GetParentPlant().EvalBodyPoseInWorld(context, self)

    def EvalSpatialVelocityInWorld(self, context):
        """V_WB at Bo, expressed in W (cached)."""
        return self.GetParentPlant().EvalBodySpatialVelocityInWorld(context, self)

    def EvalSpatialAccelerationInWorld(self, context):
        """A_WB at Bo, expressed in W (cached)."""
        return self.GetParentPlant().EvalBodySpatialAccelerationInWorld(context, self)

    def AddInForceInWorld(self, context, F_Bo_W, forces) -> None:
        """Add the spatial force F_Bo_W (at Bo, in W) to `forces` (MultibodyForces)."""
        from ._convert import spatial_to_array
        forces.mutable_body_forces_array()[self.index()] += spatial_to_array(F_Bo_W, "F_Bo_W")

    def AddInForce(self, context, p_BP_E, F_Bp_E, frame_E, forces) -> None:
        """Add F_Bp_E (applied at point Bp, with p_BP_E from Bo expressed in frame E) to `forces`, at Bo in W."""
        from ._convert import spatial_to_array
        plant = self.GetParentPlant()
        F = spatial_to_array(F_Bp_E, "F_Bp_E")
        R_WE = plant._frame_pose_arrays(context, frame_E)[0]
        tau, f = R_WE @ F[:3], R_WE @ F[3:]
        p_BoBp_W = R_WE @ np.asarray(p_BP_E, dtype=float).reshape(3)
        forces.mutable_body_forces_array()[self.index()] += np.concatenate([tau + np.cross(p_BoBp_W, f), f])

    def GetForceInWorld(self, context, forces):
        """F_Bo_W stored in `forces` for this body, as a SpatialForce."""
        from ._convert import make_spatial
        return make_spatial("SpatialForce", forces.body_forces_array()[self.index()])


Body = RigidBody


# Element accessors give users handles that keep the plant alive (see MultibodyElement).
hands_out(RigidBody, ("body_frame",))
