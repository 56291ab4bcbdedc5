"""Kernel-level checks: joint maps, finite-difference consistency of the pipeline, compiled arrays."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from mallard.multibody.kernels import joint_kernels as jk
from mallard.multibody.kernels import pipeline as pl
from mallard.multibody.kernels.compiled_model import CompiledModel


@pytest.fixture(scope="module")
def tree_model():
    plant = tw.build(tw.engine_mallard(), tw.branched_tree())[0]
    return plant._model


def _state(model, rng):
    q = rng.uniform(-1, 1, model.nq)
    v = rng.uniform(-1, 1, model.nv)
    return q, v


def test_compiled_model_layout(tree_model):
    m = tree_model
    assert isinstance(m, CompiledModel)
    assert m.ji.shape == (m.nb, 6) and m.jf.shape == (m.nb, 28) and m.body_params.shape == (m.nb, 13)
    assert m.ji[:, 3].sum() == m.nq and m.ji[:, 5].sum() == m.nv
    # parents come before children in the traversal order
    seen = {0}
    for b in m.order:
        assert m.ji[b, 0] in seen
        seen.add(int(b))


@pytest.mark.parametrize("jtype", [jk.BALL_RPY, jk.RPY_FLOATING, jk.QUATERNION_FLOATING, jk.BALL_QUATERNION,
                                   jk.PLANAR, jk.UNIVERSAL])
def test_nplus_is_left_inverse_of_n(jtype):
    nq, nv = jk.JOINT_SIZES[jtype]
    rng = np.random.default_rng(jtype)
    q = rng.uniform(-1, 1, nq)
    if jtype in (jk.QUATERNION_FLOATING, jk.BALL_QUATERNION):
        q[:4] /= np.linalg.norm(q[:4])
    N, Np = np.zeros((nq, nv)), np.zeros((nv, nq))
    jk.joint_n_matrix(jtype, q, N)
    jk.joint_nplus_matrix(jtype, q, Np)
    np.testing.assert_allclose(Np @ N, np.eye(nv), atol=1e-13)


def _kin(m, q, v):
    return pl.kinematics_stage(m.order, m.ji, m.jf, m.body_params, q, v, m.nv)


def test_velocities_are_time_derivatives_of_poses(tree_model):
    """V_WB from the pipeline equals the finite difference of X_WB along q̇ = N(q)v."""
    m = tree_model
    q, v = _state(m, np.random.default_rng(1))
    h = 1e-6
    qdot = pl.map_velocity_to_qdot(m.order, m.ji, q, v)
    Rp, pp = _kin(m, q + h * qdot, v)[:2]
    Rm, pm_ = _kin(m, q - h * qdot, v)[:2]
    R, p, _, _, _, _, V, _, _ = _kin(m, q, v)
    for b in range(1, m.nb):
        Rdot = (Rp[b] - Rm[b]) / (2 * h)
        W = Rdot @ R[b].T
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        v_Bo = V[b, 3:] + np.cross(V[b, :3], p[b])
        np.testing.assert_allclose(w, V[b, :3], atol=1e-7)
        np.testing.assert_allclose((pp[b] - pm_[b]) / (2 * h), v_Bo, atol=1e-7)


def test_accelerations_are_time_derivatives_of_velocities(tree_model):
    """A = S v̇ + Ṡ v from the pipeline equals the finite difference of V along (q̇, v̇)."""
    m = tree_model
    rng = np.random.default_rng(2)
    q, v = _state(m, rng)
    vdot = rng.uniform(-1, 1, m.nv)
    h = 1e-6
    qdot = pl.map_velocity_to_qdot(m.order, m.ji, q, v)
    Vp = _kin(m, q + h * qdot, v + h * vdot)[6]
    Vm = _kin(m, q - h * qdot, v - h * vdot)[6]
    _, _, _, _, _, S, V, c, _ = _kin(m, q, v)
    A = pl.spatial_accelerations_stage(m.order, m.ji, S, c, vdot)
    np.testing.assert_allclose(A, (Vp - Vm) / (2 * h), atol=1e-6)


def test_mass_matrix_is_symmetric_positive_definite_and_matches_rnea(tree_model):
    m = tree_model
    q, v = _state(m, np.random.default_rng(3))
    _, p, _, _, _, S, V, c, Iw = _kin(m, q, v)
    M = pl.mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, S, Iw)
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    assert np.linalg.eigvalsh(M).min() > 0
    zeros6 = np.zeros((m.nb, 6))
    for i in range(m.nv):
        e = np.zeros(m.nv)
        e[i] = 1.0
        col = pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, S, Iw, p, zeros6, zeros6, e,
                                                zeros6, np.zeros(m.nv))
        np.testing.assert_allclose(col, M[:, i], atol=1e-12)
    # forward dynamics inverts inverse dynamics
    tau = np.random.default_rng(4).uniform(-1, 1, m.nv)
    vdot = pl.forward_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, S, Iw, p, V, c, zeros6, tau,
                                             np.zeros(m.nv))
    back = pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, S, Iw, p, V, c, vdot, zeros6,
                                             np.zeros(m.nv))
    np.testing.assert_allclose(back, tau, atol=1e-10)


def test_discrete_step_damping_is_implicit():
    """A damped free prismatic mass: v⁺ = v/(1 + h·d/m), stable even when h·d/m ≫ 2."""
    from mallard.multibody.plant import MultibodyPlant
    from mallard.multibody.tree import PrismaticJoint, SpatialInertia
    plant = MultibodyPlant(0.1)
    body = plant.AddRigidBody("slider", SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.AddJoint(PrismaticJoint("x", plant.world_frame(), body.body_frame(), [1, 0, 0], damping=100.0))
    plant.mutable_gravity_field().set_gravity_vector([0, 0, 0])
    plant.Finalize()
    context = plant.CreateDefaultContext()
    plant.SetVelocities(context, [1.0])
    x_next = plant._CalcDiscreteStep(context)[0]
    np.testing.assert_allclose(x_next, [0.1 / 11.0, 1.0 / 11.0], atol=1e-15)
