"""Finalize's check that the compiled model is finite.

A body placed at 1e308 m, a geometry of infinite size (hence infinite mass) or an infinite armature all
load without complaint and then give NaN mass matrices and NaN simulations. Finalize rejects them with a
ValueError naming the body or joint whose data is not finite, or whose default pose makes the mass matrix
overflow.
"""
from __future__ import annotations

import numpy as np

from ..kernels import pipeline as pl
from ..kernels.dynamics import gravity_forces_at_body_origins
from ..kernels.joint_kernels import BALL_QUATERNION, QUATERNION_FLOATING
from .kinematics_cache import Kinematics

__all__ = ["CheckModelIsFinite", "ThrowIfNaNMassProperties", "ThrowZeroQuaternion"]


def _body_label(plant, b: int) -> str:
    body = plant._bodies[b]
    return f"body '{body.name()}' (model instance '{plant.GetModelInstanceName(body.model_instance())}')"


def _joint_of_dof(plant, dof: int):
    for j in plant._joints:
        if j.velocity_start() <= dof < j.velocity_start() + j.num_velocities():
            return j
    return None


def _joint_of_body(plant, b: int):
    for j in plant._joints:
        if j._mobilized_body == b:  # the joint that moves body b in the tree (its child, unless reversed)
            return j
    return None


def CheckModelIsFinite(plant) -> np.ndarray:
    """Raises ValueError naming the element when the compiled model of `plant` (after compile and state
    declaration, before contact setup) is not finite, or its mass matrix at the default state is not.

    Bodies with NaN mass properties (SpatialInertia.NaN(), AddRigidBody's default) are accepted, as Drake
    accepts them at Finalize; their indices are returned so that simulating with them still NaN is refused
    (ThrowIfNaNMassProperties), while kinematics and per-context mass properties stay usable."""
    m = plant._model
    who = f"MultibodyPlant '{plant.get_name()}' Finalize"
    nan_bodies = np.flatnonzero(np.any(np.isnan(m.body_params), axis=1))
    params = m.body_params
    if nan_bodies.size:  # the checks below run with those bodies massless
        params = params.copy()
        params[nan_bodies] = 0.0
    bad = np.flatnonzero(~np.all(np.isfinite(params), axis=1))
    if bad.size:
        b = int(bad[0])
        raise ValueError(f"{who}: {_body_label(plant, b)} has non-finite mass properties (mass, center of mass "
                         f"or rotational inertia {m.body_params[b].tolist()}); give it a finite mass and inertia "
                         "(e.g. from finite geometry sizes and densities)")
    g = float(np.abs(plant.gravity_field().gravity_vector()).max())
    with np.errstate(over="ignore", invalid="ignore"):
        bad = np.flatnonzero(~np.isfinite(params[1:, 0] * g)) + 1
    if bad.size:
        b = int(bad[0])
        raise ValueError(f"{who}: the weight of {_body_label(plant, b)} (mass {m.body_params[b, 0]:g} kg, gravity "
                         f"{g:g} m/s²) overflows; give the body's mass and the gravity physically meaningful values")
    bad = np.flatnonzero(~np.all(np.isfinite(m.jf), axis=1))
    if bad.size:
        b = int(bad[0])
        j = _joint_of_body(plant, b)
        what = f"joint '{j.name()}'" if j is not None else "its joint"
        raise ValueError(f"{who}: the pose or axis of {what}, which moves {_body_label(plant, b)}, is not finite; "
                         "give the joint's and the body's poses finite values")
    for name, values in (("reflected (rotor) inertia or armature", m.reflected_inertia), ("damping", m.damping)):
        bad = np.flatnonzero(~np.isfinite(np.asarray(values, dtype=float)))
        if bad.size:
            j = _joint_of_dof(plant, int(bad[0]))
            label = f"joint '{j.name()}'" if j is not None else f"velocity {int(bad[0])}"
            raise ValueError(f"{who}: the {name} of {label} is not finite ({values[bad[0]]})")
    q0 = plant.GetDefaultPositions()
    bad = np.flatnonzero(~np.isfinite(q0))
    if bad.size:
        j = next((j for j in plant._joints
                  if j.position_start() <= bad[0] < j.position_start() + j.num_positions()), None)
        label = f"joint '{j.name()}'" if j is not None else f"position {int(bad[0])}"
        raise ValueError(f"{who}: the default position of {label} is not finite ({q0[bad[0]]})")
    with np.errstate(all="ignore"):
        try:
            kin = Kinematics(m, q0, np.zeros(m.nv), params)
        except ZeroDivisionError:
            ThrowZeroQuaternion(plant, q0)
        f = plant._fast
        M = np.empty(f.M_shape)
        f.mass_matrix(f.order, f.ji, f.refl, kin.S, kin.Iw, M)
        F = gravity_forces_at_body_origins(kin.bp, kin.R_WB, plant.gravity_field()._g, plant._gravity_mask)
        zeros6 = np.zeros((m.nb, 6))
        tau_g = pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB, zeros6,
                                                  zeros6, np.zeros(m.nv), F, np.zeros(m.nv))
    if not np.all(np.isfinite(tau_g)) and np.all(np.isfinite(M)):
        b = int(np.argmax(np.abs(F).max(axis=1)))
        raise ValueError(f"{who}: the generalized gravity forces at the default state are not finite; the largest "
                         f"weight is that of {_body_label(plant, b)} ({np.abs(F[b]).max():.3g} N, gravity "
                         f"{plant.gravity_field().gravity_vector().tolist()} m/s²); give masses, gravity and poses "
                         "physically meaningful values")
    if np.all(np.isfinite(M)):
        return nan_bodies
    # Name the body whose default pose or world inertia is not finite, else the one farthest out.
    for b in (int(b) for b in m.order):
        if b == 0:
            continue
        if not (np.all(np.isfinite(kin.p_WB[b])) and np.all(np.isfinite(kin.R_WB[b]))
                and np.all(np.isfinite(kin.Iw[b]))):
            break
    else:
        b = int(np.argmax(np.abs(kin.p_WB[1:]).max(axis=1))) + 1 if m.nb > 1 else 0
    raise ValueError(f"{who}: the mass matrix at the default state is not finite because of {_body_label(plant, b)}, "
                     f"whose default position in the world is {kin.p_WB[b].tolist()} m; its pose (or one of its "
                     "ancestors') is too far out or not finite: give it a pose within a physically meaningful range")


def ThrowIfNaNMassProperties(plant, context, what: str) -> None:
    """Raises RuntimeError naming the first body whose mass properties in `context` are still NaN (Drake throws
    when such a body's dynamics are computed); `plant._nan_mass_bodies` lists the candidates from Finalize."""
    params = plant._body_params(context)
    for b in plant._nan_mass_bodies:
        if np.any(np.isnan(params[b])):
            raise RuntimeError(f"{what}: {_body_label(plant, int(b))} has NaN mass properties (SpatialInertia.NaN(), "
                               "the default of AddRigidBody without M_BBo_B); give it a mass and inertia before "
                               "Finalize, or in this context with SetSpatialInertiaInBodyFrame / SetMass")


def ThrowZeroQuaternion(plant, q: np.ndarray) -> None:
    """Raises RuntimeError (Drake's message) naming the joint whose quaternion in `q` is all zeros; called when
    the compiled kinematics divided by a zero quaternion norm."""
    m = plant._model
    for b in range(1, m.nb):
        if m.ji[b, 1] in (QUATERNION_FLOATING, BALL_QUATERNION):
            qs = int(m.ji[b, 2])
            if not np.any(q[qs:qs + 4]):
                j = _joint_of_body(plant, b)
                raise RuntimeError(
                    f"MultibodyPlant '{plant.get_name()}': QuaternionToRotationMatrix(): All the elements in a "
                    f"quaternion are zero: joint '{j.name() if j is not None else b}', which moves "
                    f"{_body_label(plant, b)}, has positions q[{qs}:{qs + 4}] = [0, 0, 0, 0]; set a unit quaternion "
                    "(e.g. with SetFreeBodyPose, or qw = 1 in SetPositions)")
    raise RuntimeError(f"MultibodyPlant '{plant.get_name()}': a division by zero in the kinematics at q = {q.tolist()}")
