"""MultibodyPlant kinematics and dynamics against pydrake, on the same models built in both engines."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from oracles import require_pydrake

RTOL = 1e-10


def close(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    err = float(np.abs(a - b).max(initial=0.0))
    assert a.shape == b.shape, f"{what}: shape {a.shape} vs {b.shape}"
    assert err <= RTOL * scale, f"{what}: max error {err:.3e} (scale {scale:.3e})"


@pytest.fixture(scope="module", params=sorted(tw.MODELS))
def twins(request):
    require_pydrake()
    spec = tw.MODELS[request.param]()
    M, D = tw.engine_mallard(), tw.engine_drake()
    pm, bm, jm = tw.build(M, spec)
    pd, bd, jd = tw.build(D, spec)
    return request.param, (M, pm, bm, jm), (D, pd, bd, jd)


def states(twins, n=3):
    name, (M, pm, bm, _), (D, pd, bd, _) = twins
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    cm, cd = pm.CreateDefaultContext(), pd.CreateDefaultContext()
    for _ in range(n):
        q, v = tw.random_state(pd, cd, rng)
        pm.SetPositions(cm, q)
        pm.SetVelocities(cm, v)
        pd.SetPositions(cd, q)
        pd.SetVelocities(cd, v)
        yield rng, cm, cd


def test_layout_and_names(twins):
    _, (M, pm, bm, jm), (D, pd, bd, jd) = twins
    assert pm.num_positions() == pd.num_positions()
    assert pm.num_velocities() == pd.num_velocities()
    assert pm.GetStateNames(False) == pd.GetStateNames(False)
    assert pm.GetStateNames(True) == pd.GetStateNames(True)
    for name in jm:
        assert jm[name].position_start() == jd[name].position_start()
        assert jm[name].velocity_start() == jd[name].velocity_start()
    np.testing.assert_array_equal(pm.GetPositionLowerLimits(), pd.GetPositionLowerLimits())
    np.testing.assert_array_equal(pm.GetVelocityUpperLimits(), pd.GetVelocityUpperLimits())
    close(pm.MakeActuationMatrix(), pd.MakeActuationMatrix(), "B")
    Bm, Bd = pm.MakeActuationMatrixPseudoinverse(), pd.MakeActuationMatrixPseudoinverse()
    assert type(Bm).__name__ == type(Bd).__name__ == "csc_matrix"  # pydrake returns scipy.sparse (todense works)
    close(Bm.todense(), Bd.todense(), "B+")
    close(pm.GetDefaultPositions(), pd.GetDefaultPositions(), "default q")


def test_mass_matrix_bias_gravity(twins):
    _, (M, pm, _, _), (D, pd, _, _) = twins
    for _, cm, cd in states(twins):
        close(pm.CalcMassMatrix(cm), pd.CalcMassMatrix(cd), "M")
        close(pm.CalcMassMatrixViaInverseDynamics(cm), pd.CalcMassMatrixViaInverseDynamics(cd), "M via ID")
        close(pm.CalcBiasTerm(cm), pd.CalcBiasTerm(cd), "C(q,v)v")
        close(pm.CalcGravityGeneralizedForces(cm), pd.CalcGravityGeneralizedForces(cd), "tau_g")
        close(pm.CalcKineticEnergy(cm), pd.CalcKineticEnergy(cd), "kinetic energy")
        close(pm.CalcPotentialEnergy(cm), pd.CalcPotentialEnergy(cd), "potential energy")
        close(pm.CalcConservativePower(cm), pd.CalcConservativePower(cd), "conservative power")


def test_inverse_dynamics_with_external_forces(twins):
    _, (M, pm, bm, _), (D, pd, bd, _) = twins
    for rng, cm, cd in states(twins):
        vdot = rng.standard_normal(pm.num_velocities())
        fm, fd = M.tree.MultibodyForces(pm), D.tree.MultibodyForces(pd)
        tau = rng.standard_normal(pm.num_velocities())
        fm.mutable_generalized_forces()[:] = tau
        fd.mutable_generalized_forces()[:] = tau
        for name in bm:
            if name == "world":
                continue
            F = rng.standard_normal(6)
            p = rng.standard_normal(3)
            bm[name].AddInForce(cm, p, M.math.SpatialForce(F[:3], F[3:]), pm.world_frame(), fm)
            bd[name].AddInForce(cd, p, D.math.SpatialForce(F[:3], F[3:]), pd.world_frame(), fd)
        close(pm.CalcInverseDynamics(cm, vdot, fm), pd.CalcInverseDynamics(cd, vdot, fd), "inverse dynamics")
        close(pm.CalcGeneralizedForces(cm, fm), pd.CalcGeneralizedForces(cd, fd), "generalized forces")
        gm, gd = M.tree.MultibodyForces(pm), D.tree.MultibodyForces(pd)
        pm.CalcForceElementsContribution(cm, gm)
        pd.CalcForceElementsContribution(cd, gd)
        close(gm.generalized_forces(), gd.generalized_forces(), "force elements tau")
        close(pm.CalcInverseDynamics(cm, vdot, gm), pd.CalcInverseDynamics(cd, vdot, gd), "ID with force elements")


def test_poses_velocities_accelerations(twins):
    _, (M, pm, bm, _), (D, pd, bd, _) = twins
    for rng, cm, cd in states(twins):
        vdot = rng.standard_normal(pm.num_velocities())
        Am = pm.CalcSpatialAccelerationsFromVdot(cm, vdot)
        Ad = pd.CalcSpatialAccelerationsFromVdot(cd, vdot)
        for name in bm:
            b_m, b_d = bm[name], bd[name]
            close(pm.EvalBodyPoseInWorld(cm, b_m).GetAsMatrix4(), pd.EvalBodyPoseInWorld(cd, b_d).GetAsMatrix4(),
                  f"X_W{name}")
            close(pm.EvalBodySpatialVelocityInWorld(cm, b_m).get_coeffs(),
                  pd.EvalBodySpatialVelocityInWorld(cd, b_d).get_coeffs(), f"V_W{name}")
            i = int(b_m.index())
            close(Am[i].get_coeffs(), Ad[i].get_coeffs(), f"A_W{name}")
        Nm, Nd = pm.MakeVelocityToQDotMap(cm), pd.MakeVelocityToQDotMap(cd)
        assert type(Nm).__name__ == type(Nd).__name__ == "csc_matrix"
        close(Nm.toarray(), Nd.toarray(), "N(q)")
        close(pm.MakeQDotToVelocityMap(cm).todense(), pd.MakeQDotToVelocityMap(cd).todense(), "N+(q)")
        qdot = rng.standard_normal(pm.num_positions())
        close(pm.MapQDotToVelocity(cm, qdot), pd.MapQDotToVelocity(cd, qdot), "MapQDotToVelocity")
        v = rng.standard_normal(pm.num_velocities())
        close(pm.MapVelocityToQDot(cm, v), pd.MapVelocityToQDot(cd, v), "MapVelocityToQDot")


def _frames(plant, bodies):
    return [plant.world_frame()] + [bodies[n].body_frame() for n in sorted(bodies) if n != "world"]


def test_jacobians_and_relative_kinematics(twins):
    _, (M, pm, bm, _), (D, pd, bd, _) = twins
    fm, fd = _frames(pm, bm), _frames(pd, bd)
    for rng, cm, cd in states(twins, n=2):
        for k in range(1, len(fm)):
            a = int(rng.integers(0, len(fm)))
            e = int(rng.integers(0, len(fm)))
            p = rng.standard_normal(3)
            P = rng.standard_normal((3, 4))
            for wrt_m, wrt_d in ((M.tree.JacobianWrtVariable.kV, D.tree.JacobianWrtVariable.kV),
                                 (M.tree.JacobianWrtVariable.kQDot, D.tree.JacobianWrtVariable.kQDot)):
                close(pm.CalcJacobianSpatialVelocity(cm, wrt_m, fm[k], p, fm[a], fm[e]),
                      pd.CalcJacobianSpatialVelocity(cd, wrt_d, fd[k], p, fd[a], fd[e]), "J_V_ABp_E")
                close(pm.CalcJacobianTranslationalVelocity(cm, wrt_m, fm[k], P, fm[a], fm[e]),
                      pd.CalcJacobianTranslationalVelocity(cd, wrt_d, fd[k], P, fd[a], fd[e]), "J_v_ABi_E")
                close(pm.CalcJacobianAngularVelocity(cm, wrt_m, fm[k], fm[a], fm[e]),
                      pd.CalcJacobianAngularVelocity(cd, wrt_d, fd[k], fd[a], fd[e]), "J_w_AB_E")
            kV_m, kV_d = M.tree.JacobianWrtVariable.kV, D.tree.JacobianWrtVariable.kV
            close(pm.CalcBiasSpatialAcceleration(cm, kV_m, fm[k], p, fm[0], fm[e]).get_coeffs(),
                  pd.CalcBiasSpatialAcceleration(cd, kV_d, fd[k], p, fd[0], fd[e]).get_coeffs(), "A bias")
            close(pm.CalcBiasTranslationalAcceleration(cm, kV_m, fm[k], P, fm[0], fm[e]),
                  pd.CalcBiasTranslationalAcceleration(cd, kV_d, fd[k], P, fd[0], fd[e]), "a bias")
            close(pm.CalcPointsPositions(cm, fm[k], P, fm[a]), pd.CalcPointsPositions(cd, fd[k], P, fd[a]), "p_AQi")
            close(pm.CalcRelativeTransform(cm, fm[a], fm[k]).GetAsMatrix4(),
                  pd.CalcRelativeTransform(cd, fd[a], fd[k]).GetAsMatrix4(), "X_AB")
            close(pm.CalcRelativeRotationMatrix(cm, fm[a], fm[k]).matrix(),
                  pd.CalcRelativeRotationMatrix(cd, fd[a], fd[k]).matrix(), "R_AB")


def test_center_of_mass_and_momentum(twins):
    _, (M, pm, bm, _), (D, pd, bd, _) = twins
    kV_m, kV_d = M.tree.JacobianWrtVariable.kV, D.tree.JacobianWrtVariable.kV
    for rng, cm, cd in states(twins, n=2):
        close(pm.CalcTotalMass(cm), pd.CalcTotalMass(cd), "total mass")
        close(pm.CalcCenterOfMassPositionInWorld(cm), pd.CalcCenterOfMassPositionInWorld(cd), "p_Wcm")
        close(pm.CalcCenterOfMassTranslationalVelocityInWorld(cm),
              pd.CalcCenterOfMassTranslationalVelocityInWorld(cd), "v_Wcm")
        close(pm.CalcJacobianCenterOfMassTranslationalVelocity(cm, kV_m, pm.world_frame(), pm.world_frame()),
              pd.CalcJacobianCenterOfMassTranslationalVelocity(cd, kV_d, pd.world_frame(), pd.world_frame()), "J_cm")
        close(pm.CalcBiasCenterOfMassTranslationalAcceleration(cm, kV_m, pm.world_frame(), pm.world_frame()),
              pd.CalcBiasCenterOfMassTranslationalAcceleration(cd, kV_d, pd.world_frame(), pd.world_frame()),
              "abias_cm")
        p = rng.standard_normal(3)
        close(pm.CalcSpatialMomentumInWorldAboutPoint(cm, p).get_coeffs(),
              pd.CalcSpatialMomentumInWorldAboutPoint(cd, p).get_coeffs(), "L_WSP_W")


def test_ball_quaternion_joint_matches_drake_ball_rpy():
    """BallQuaternionJoint and BallRpyJoint share v = w_FM_F, so at the same orientation M, C v, τ_g and poses agree."""
    require_pydrake()
    from mallard.multibody.math import quaternion_from_rpy
    spec = tw.branched_tree()
    quat_spec = dict(spec, joints=[(("BallQuaternionJoint",) + j[1:]) if j[0] == "BallRpyJoint" else j
                                   for j in spec["joints"]])
    pm, bm, jm = tw.build(tw.engine_mallard(), quat_spec)
    pd, bd, jd = tw.build(tw.engine_drake(), spec)
    cm, cd = pm.CreateDefaultContext(), pd.CreateDefaultContext()
    assert pm.num_positions() == pd.num_positions() + 1
    q, v = tw.random_state(pd, cd, np.random.default_rng(17))
    pd.SetPositions(cd, q)
    pd.SetVelocities(cd, v)
    qs = jd["ballA"].position_start()
    qm = np.concatenate([q[:qs], quaternion_from_rpy(q[qs:qs + 3]), q[qs + 3:]])
    pm.SetPositions(cm, qm)
    pm.SetVelocities(cm, v)
    assert jm["ballA"].position_start() == qs
    close(pm.CalcMassMatrix(cm), pd.CalcMassMatrix(cd), "M")
    close(pm.CalcBiasTerm(cm), pd.CalcBiasTerm(cd), "C(q,v)v")
    close(pm.CalcGravityGeneralizedForces(cm), pd.CalcGravityGeneralizedForces(cd), "tau_g")
    for name in bm:
        close(pm.EvalBodyPoseInWorld(cm, bm[name]).GetAsMatrix4(), pd.EvalBodyPoseInWorld(cd, bd[name]).GetAsMatrix4(),
              f"X_W{name}")
    # q̇ = N(q) v for the quaternion block is ½ [0, w_F] ⊗ q
    qdot = pm.MapVelocityToQDot(cm, v)[qs:qs + 4]
    w = v[jm["ballA"].velocity_start():jm["ballA"].velocity_start() + 3]
    quat = qm[qs:qs + 4]
    expected = 0.5 * np.concatenate([[-w @ quat[1:]], quat[0] * w + np.cross(w, quat[1:])])
    close(qdot, expected, "quaternion rate")


def test_cached_kinematics_are_rewritten_in_place(twins):
    """A context keeps one kinematics cache whose arrays a state or parameter change rewrites (no allocation per
    change): M and C(q,v)v stay pydrake's through state changes, a body-mass change and a clone stepped apart."""
    _, (M, pm, bm, _), (D, pd, bd, _) = twins
    rng = np.random.default_rng(7)
    cm, cd = pm.CreateDefaultContext(), pd.CreateDefaultContext()
    kin = pm._eval_kinematics(cm)
    buffers = [id(kin.S), id(kin.Iw), id(kin.V)]
    for _ in range(3):
        q, v = tw.random_state(pd, cd, rng)
        pm.SetPositions(cm, q)
        pm.SetVelocities(cm, v)
        pd.SetPositions(cd, q)
        pd.SetVelocities(cd, v)
        close(pm.CalcMassMatrix(cm), pd.CalcMassMatrix(cd), "M")
        close(pm.CalcBiasTerm(cm), pd.CalcBiasTerm(cd), "C(q,v)v")
        assert pm._eval_kinematics(cm) is kin and [id(kin.S), id(kin.Iw), id(kin.V)] == buffers
    name = next(n for n in sorted(bm) if n != "world")
    bm[name].SetMass(cm, 2.5 * bm[name].get_mass(cm))
    bd[name].SetMass(cd, 2.5 * bd[name].get_mass(cd))
    close(pm.CalcMassMatrix(cm), pd.CalcMassMatrix(cd), "M after SetMass")
    clone, M_before = cm.Clone(), pm.CalcMassMatrix(cm)
    q, v = tw.random_state(pd, pd.CreateDefaultContext(), rng)
    pm.SetPositions(clone, q)
    pm.CalcMassMatrix(clone)
    np.testing.assert_array_equal(pm.CalcMassMatrix(cm), M_before)  # the clone has its own kinematics
    assert pm._eval_kinematics(clone) is not kin
