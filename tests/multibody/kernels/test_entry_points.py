"""The dedicated compiled kernels (mass matrix, inverse dynamics, bias term) against the reference recursive
Newton–Euler kernel (`calc_inverse_dynamics`), and the plant paths that call them."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from mallard.multibody.kernels.dynamics import (bias_term_into, body_forces_at_origin, calc_inverse_dynamics,
                                                inverse_dynamics_into, mass_matrix_into)
from mallard.multibody.kernels.entry_points import compiled_entry, plant_entries
from mallard.multibody.kernels.kinematics import calc_accelerations


def _random_state(plant, rng):
    """q with unit quaternions (from the plant's default positions perturbed), random v."""
    q = np.array(plant.GetDefaultPositions(), dtype=float) + 0.4 * rng.standard_normal(plant.num_positions())
    for s in plant._model.quaternion_starts if plant._model.quaternion_starts is not None else []:
        q[s:s + 4] /= np.linalg.norm(q[s:s + 4])
    return q, rng.standard_normal(plant.num_velocities())


def _reference_rnea(m, kin, vdot, F_Bo_W, tau_app):
    A = calc_accelerations(m.order, m.ji, kin.S, kin.c, vdot)
    tau, _ = calc_inverse_dynamics(m.order, m.ji, kin.S, kin.Iw, kin.V, A, body_forces_at_origin(kin.p_WB, F_Bo_W),
                                   tau_app, m.reflected_inertia, vdot)
    return tau


@pytest.mark.parametrize("model", sorted(tw.MODELS))
def test_kernels_match_reference_pipeline(model):
    plant = tw.build(tw.engine_mallard(), tw.MODELS[model]())[0]
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(7)
    m, f = plant._model, plant._fast
    for _ in range(3):
        q, v = _random_state(plant, rng)
        plant.SetPositions(context, q)
        plant.SetVelocities(context, v)
        kin = plant._eval_kinematics(context)
        M = np.empty((m.nv, m.nv))
        mass_matrix_into(f.order, f.ji, f.refl, kin.S, kin.Iw, M)
        z6 = np.zeros((m.nb, 6))
        M_ref = np.column_stack([calc_inverse_dynamics(m.order, m.ji, kin.S, kin.Iw, z6, calc_accelerations(
            m.order, m.ji, kin.S, z6, e), z6, np.zeros(m.nv), m.reflected_inertia, e)[0] for e in np.eye(m.nv)])
        np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-12 * max(1.0, np.abs(M_ref).max()))
        np.testing.assert_array_equal(plant.CalcMassMatrix(context), M)

        vdot, tau_app = rng.standard_normal(m.nv), rng.standard_normal(m.nv)
        F = rng.standard_normal((m.nb, 6))
        tau = np.empty(m.nv)
        inverse_dynamics_into(f.order, f.ji, f.refl, kin.S, kin.Iw, kin.p_WB, kin.V, kin.c, vdot, F, tau_app, tau)
        tau_ref = _reference_rnea(m, kin, vdot, F, tau_app)
        np.testing.assert_allclose(tau, tau_ref, rtol=0, atol=1e-11 * max(1.0, np.abs(tau_ref).max()))

        Cv = np.empty(m.nv)
        bias_term_into(f.order, f.ji, kin.S, kin.Iw, kin.V, kin.c, Cv)
        z = np.zeros(m.nv)
        Cv_ref = _reference_rnea(m, kin, z, np.zeros((m.nb, 6)), z)
        np.testing.assert_allclose(Cv, Cv_ref, rtol=0, atol=1e-11 * max(1.0, np.abs(Cv_ref).max()))
        np.testing.assert_array_equal(plant.CalcBiasTerm(context), Cv)


def test_compiled_entry_equals_dispatcher():
    plant = tw.build(tw.engine_mallard(), tw.serial_arm())[0]
    context = plant.CreateDefaultContext()
    plant.SetVelocities(context, np.linspace(-1, 1, plant.num_velocities()))
    kin, f = plant._eval_kinematics(context), plant._fast
    M1, M2 = np.empty(f.M_shape), np.empty(f.M_shape)
    mass_matrix_into(f.order, f.ji, f.refl, kin.S, kin.Iw, M1)
    entry = compiled_entry(mass_matrix_into, f.order, f.ji, f.refl, kin.S, kin.Iw, M2)
    entry(f.order, f.ji, f.refl, kin.S, kin.Iw, M2)
    np.testing.assert_array_equal(M1, M2)
    assert plant_entries() is plant_entries()  # one set of entries per process


def test_inverse_dynamics_input_handling():
    plant = tw.build(tw.engine_mallard(), tw.serial_arm())[0]
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(1)
    plant.SetVelocities(context, rng.standard_normal(plant.num_velocities()))
    from mallard.multibody.tree import MultibodyForces
    forces = MultibodyForces(plant)
    forces.mutable_generalized_forces()[:] = rng.standard_normal(plant.num_velocities())
    big = rng.standard_normal(2 * plant.num_velocities())
    vdot = np.ascontiguousarray(big[::2])
    expected = plant.CalcInverseDynamics(context, vdot, forces)
    # Strided, list and int inputs are converted, never read with the wrong layout.
    np.testing.assert_array_equal(plant.CalcInverseDynamics(context, big[::2], forces), expected)
    np.testing.assert_array_equal(plant.CalcInverseDynamics(context, vdot.tolist(), forces), expected)
    readonly = vdot.copy()
    readonly.flags.writeable = False
    np.testing.assert_array_equal(plant.CalcInverseDynamics(context, readonly, forces), expected)
    with pytest.raises(ValueError, match="known_vdot must have 7 entries"):
        plant.CalcInverseDynamics(context, np.zeros(3), forces)
    other = tw.build(tw.engine_mallard(), tw.double_pendulum())[0]
    with pytest.raises(ValueError, match="MultibodyForces sized for this plant"):
        plant.CalcInverseDynamics(context, vdot, MultibodyForces(other))
    with pytest.raises(ValueError, match="MultibodyForces sized for this plant"):
        plant.CalcInverseDynamics(context, vdot, np.zeros(7))
