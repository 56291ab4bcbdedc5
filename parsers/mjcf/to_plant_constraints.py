"""MJCF `<equality>` and solver `<option>`s → the plant's constraint API (discrete plants; MuJoCo parameters).

* connect (body form): AddBallConstraint(body1, anchor in body1, body2, the same point in body2 at qpos0);
  site form: the two sites' origins coincide;
* weld (body form): frame P = relpose·anchor on body1 coincides with Q = anchor on body2, i.e. the pose of
  body2 in body1 is relpose (MuJoCo's eq_data, completed at qpos0), with the error measured at the anchor;
  site form: the two site frames coincide; torquescale is passed on (torquescale 0, which leaves the rotation
  free in MuJoCo, becomes a ball constraint at the anchor);
* joint with a linear polycoef and two joints: q1 − q1₀ = c0 + c1·(q2 − q2₀) → AddCouplerConstraint
  (q1 = c1·q2 + q1₀ + c0 − c1·q2₀); a single joint (q1 − q1₀ = c0) or a quartic polycoef → a plant
  constraint of kind "MjcfJoint" whose row is MuJoCo's (AddMjcfJointEquality);
* tendon: L1 − L1₀ = c0 (one tendon) or c0 + c1·x + … + c4·x⁴, x = L2 − L2₀ (two tendons), L₀ the tendon
  lengths at qpos0 → a plant constraint of kind "MjcfTendon" (AddMjcfTendonEquality), fixed and spatial
  tendons (sites, pulleys, wrapping geoms);
* solref / solimp of every constraint through mujoco_parameters.SetConstraintMujocoParameters;
* option cone, impratio, solver, iterations, tolerance, ls_iterations, ls_tolerance → the plant's
  ConstraintSolverOptions.

Not mapped (one located warning each): inactive equalities (`active="false"`: no rows, as in MuJoCo; the
plant has no runtime activation flag to switch them on later), and any equality on a continuous plant.
"""
from __future__ import annotations

import warnings

import numpy as np

from .errors import MjcfUnsupportedWarning
from .model import MjcfEquality, MjcfModel
from .rotations import quat_to_mat


def _X(R, p):
    from mallard.multibody.math import RigidTransform, RotationMatrix
    return RigidTransform(RotationMatrix(np.asarray(R, float)), np.asarray(p, float))


def _warn(eq: MjcfEquality, i: int, why: str) -> None:
    where = f"{eq.where}: " if eq.where is not None else "MJCF: "
    warnings.warn(f"{where}equality '{eq.name or i}' ({eq.type}): {why}; the constraint is ignored",
                  MjcfUnsupportedWarning, stacklevel=5)


def _site_pose(model: MjcfModel, pm, s: int):
    site = model.sites[s]
    return pm.bodies[site.body], quat_to_mat(np.asarray(site.quat, float)), np.asarray(site.pos, float)


def _AddEquality(plant, model: MjcfModel, pm, eq: MjcfEquality, i: int):
    """The ConstraintIndex of `eq` in the plant, or None (with a warning) when it is not mapped."""
    d = np.asarray(eq.data, float)
    if eq.type == "connect":
        if eq.objtype == "site":
            (bA, _, pA), (bB, _, pB) = _site_pose(model, pm, eq.obj1), _site_pose(model, pm, eq.obj2)
            return plant.AddBallConstraint(bA, pA, bB, pB)
        return plant.AddBallConstraint(pm.bodies[eq.obj1], d[0:3], pm.bodies[max(eq.obj2, 0)], d[3:6])
    if eq.type == "weld":
        if eq.objtype == "site":
            (bA, RA, pA), (bB, RB, pB) = _site_pose(model, pm, eq.obj1), _site_pose(model, pm, eq.obj2)
            return plant.AddWeldConstraint(bA, _X(RA, pA), bB, _X(RB, pB))
        anchor, p12, R12 = d[0:3], d[3:6], quat_to_mat(d[6:10])
        if float(eq.torquescale) == 0.0:  # rotation rows scaled by 0: only the anchor point is held
            return plant.AddBallConstraint(pm.bodies[eq.obj1], p12 + R12 @ anchor, pm.bodies[max(eq.obj2, 0)],
                                           anchor)
        return plant.AddWeldConstraint(pm.bodies[eq.obj1], _X(R12, p12 + R12 @ anchor),
                                       pm.bodies[max(eq.obj2, 0)], _X(np.eye(3), anchor))
    if eq.type == "joint":
        poly = np.asarray(eq.polycoef, float)
        if eq.obj2 < 0 or np.any(poly[2:] != 0):  # fixed joint or polynomial coupling: MuJoCo's own row
            return AddMjcfJointEquality(plant, model, pm, eq)
        j1, j2 = model.joints[eq.obj1], model.joints[eq.obj2]
        q10, q20 = float(j1.qpos0[0]), float(j2.qpos0[0])
        c0, c1 = float(poly[0]), float(poly[1])
        return plant.AddCouplerConstraint(pm.joints[eq.obj1], pm.joints[eq.obj2], c1, q10 + c0 - c1 * q20)
    if eq.type == "tendon":
        return AddMjcfTendonEquality(plant, model, pm, eq)
    _warn(eq, i, f"{eq.type} equalities are not supported by MultibodyPlant")
    return None


def AddMjcfJointEquality(plant, model: MjcfModel, pm, eq: MjcfEquality):
    """A MuJoCo joint equality as a plant constraint of kind "MjcfJoint": q1 − q1₀ = c0 + c1·x + … + c4·x⁴,
    x = q2 − q2₀ (q1 − q1₀ = c0 without joint2); its row is built by the discrete step (contact/constraint_rows.py)."""
    joint0 = pm.joints[eq.obj1]
    joint1 = pm.joints[eq.obj2] if eq.obj2 >= 0 else None
    for j in (joint0, joint1):
        if j is not None and (j.num_positions() != 1 or j.num_velocities() != 1):
            raise ValueError(f"joint '{j.name()}' of a joint equality is not a hinge or slide joint")
    q0_ref = float(model.joints[eq.obj1].qpos0[0])
    q1_ref = float(model.joints[eq.obj2].qpos0[0]) if joint1 is not None else 0.0
    return plant._add_constraint("MjcfJoint", joint0=joint0, joint1=joint1,
                                 polycoef=np.asarray(eq.polycoef, float)[:5].copy(), q0_ref=q0_ref, q1_ref=q1_ref)


def AddMjcfTendonEquality(plant, model: MjcfModel, pm, eq: MjcfEquality):
    """A MuJoCo tendon equality as a plant constraint of kind "MjcfTendon": L1 − L1₀ = c0 + c1·x + … + c4·x⁴,
    x = L2 − L2₀ (L1 − L1₀ = c0 without tendon2), lengths in m (spatial) or the joints' units (fixed), L₀ at
    qpos0; its row (Jacobian: the moment arms, regularized by tendon_invweight0) is built by contact/constraint_rows.py."""
    from mallard.multibody.mjcf.tendons import TendonSupported
    tendons = [eq.obj1] + ([eq.obj2] if eq.obj2 >= 0 else [])
    for t in tendons:
        ten = model.tendons[t]
        if not TendonSupported(ten):
            raise ValueError(f"tendon '{ten.name or t}' of a tendon equality has a path the plant cannot compute "
                             "(only sites, pulleys and sphere / cylinder geoms are supported)")
    return plant._add_constraint("MjcfTendon", mjcf_map=pm, tendon0=int(eq.obj1),
                                 tendon1=int(eq.obj2) if eq.obj2 >= 0 else None,
                                 polycoef=np.asarray(eq.polycoef, float)[:5].copy())


def AddMjcfEqualities(plant, model: MjcfModel, pm) -> None:
    """Map every equality of `model` onto plant constraints with their MuJoCo solref / solimp."""
    from mallard.multibody.contact.mujoco_parameters import SetConstraintMujocoParameters
    pm.constraints = []
    for i, eq in enumerate(model.equalities):
        if plant.time_step() == 0:
            _warn(eq, i, "constraints need a discrete MultibodyPlant (time_step > 0)")
            pm.constraints.append(None)
            continue
        if not eq.active:
            _warn(eq, i, "inactive equalities cannot be switched on in MultibodyPlant")
            pm.constraints.append(None)
            continue
        try:
            k = _AddEquality(plant, model, pm, eq, i)
            if k is not None:
                params = {"solref": eq.solref, "solimp": eq.solimp}
                if eq.type == "weld" and plant.constraint_specs()[int(k)]["kind"] == "Weld":
                    params["torquescale"] = float(eq.torquescale)
                SetConstraintMujocoParameters(plant, k, **params)
        except (ValueError, RuntimeError) as exc:
            where = f"{eq.where}: " if eq.where is not None else "MJCF: "
            raise ValueError(f"{where}equality '{eq.name or i}': {exc}") from None
        pm.constraints.append(k)


def ApplyMjcfSolverOptions(plant, model: MjcfModel) -> None:
    """MJCF <option> solver settings → plant.set_constraint_solver_options (cone, impratio, solver, ...)."""
    opt = model.option
    solver = opt.solver.lower()
    changes = {"cone": opt.cone.lower(), "impratio": float(opt.impratio), "iterations": max(int(opt.iterations), 1),
               "tolerance": float(opt.tolerance), "ls_iterations": int(opt.ls_iterations),
               "ls_tolerance": float(opt.ls_tolerance), "noslip_iterations": int(opt.noslip_iterations),
               "noslip_tolerance": float(opt.noslip_tolerance)}
    if solver in ("newton", "cg", "pgs"):
        changes["solver"] = solver
    try:
        plant.set_constraint_solver_options(**changes)
    except ValueError as exc:
        raise ValueError(f"MJCF model '{model.name}': <option>: {exc}") from None
