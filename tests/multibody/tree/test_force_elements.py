"""Force elements against pydrake: gravity, LinearSpringDamper, RevoluteSpring and joint damping."""
from __future__ import annotations

import numpy as np
import pytest

import mb_twin_models as tw
from oracles import require_pydrake


def _add_elements(E, plant, bodies, joints):
    plant.AddForceElement(E.tree.LinearSpringDamper(bodies["link1"], np.array([0.1, 0.0, 0.2]), bodies["link5"],
                                                    np.array([0.0, -0.1, 0.05]), 0.4, 120.0, 3.0))
    plant.AddForceElement(E.tree.RevoluteSpring(joints["j3"], 0.3, 25.0))
    plant.AddForceElement(E.tree.PrismaticSpring(joints["j2"], -0.1, 40.0))
    plant.mutable_gravity_field().set_gravity_vector(np.array([0.5, -1.0, -9.0]))


def test_force_elements_match_drake():
    require_pydrake()
    spec = tw.serial_arm()
    out = []
    for E in (tw.engine_mallard(), tw.engine_drake()):
        plant, bodies, joints = tw.build(E, spec, finalize=False)
        _add_elements(E, plant, bodies, joints)
        plant.Finalize()
        context = plant.CreateDefaultContext()
        x = np.random.default_rng(11).uniform(-1.0, 1.0, 14)
        plant.SetPositionsAndVelocities(context, x)
        forces = E.tree.MultibodyForces(plant)
        plant.CalcForceElementsContribution(context, forces)
        vdot = np.linspace(-1, 1, 7)
        out.append([np.array(forces.generalized_forces()), plant.CalcInverseDynamics(context, vdot, forces),
                    plant.CalcPotentialEnergy(context), plant.CalcConservativePower(context),
                    plant.CalcNonConservativePower(context), plant.CalcGravityGeneralizedForces(context)])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_gravity_can_be_disabled_per_model_instance():
    E = tw.engine_mallard()
    plant = E.MultibodyPlant(0.0)
    mi = plant.AddModelInstance("floaty")
    plant.AddRigidBody("ball", mi, E.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.AddRigidBody("rock", E.SpatialInertia.SolidSphereWithMass(1.0, 0.1))
    plant.set_gravity_enabled(mi, False)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    tau_g = plant.CalcGravityGeneralizedForces(context)
    assert np.allclose(tau_g[:6], 0.0) and np.allclose(tau_g[6:], [0, 0, 0, 0, 0, -9.81])
    assert not plant.is_gravity_enabled(mi)


def test_linear_bushing_roll_pitch_yaw_matches_drake():
    require_pydrake()
    spec = tw.branched_tree()
    out = []
    for E in (tw.engine_mallard(), tw.engine_drake()):
        plant, bodies, joints = tw.build(E, spec, finalize=False)
        F = plant.AddFrame(E.tree.FixedOffsetFrame("bushA", bodies["armA2"].body_frame(),
                                                   E.RigidTransform(E.RollPitchYaw(0.2, -0.1, 0.3), [0.1, 0, 0])))
        G = plant.AddFrame(E.tree.FixedOffsetFrame("bushC", bodies["armB2"].body_frame(),
                                                   E.RigidTransform(E.RollPitchYaw(-0.3, 0.2, 0.1), [0, 0.1, 0.2])))
        plant.AddForceElement(E.tree.LinearBushingRollPitchYaw(F, G, [10.0, 20.0, 30.0], [1.0, 2.0, 3.0],
                                                               [100.0, 200.0, 300.0], [4.0, 5.0, 6.0]))
        plant.Finalize()
        context = plant.CreateDefaultContext()
        q = np.random.default_rng(8).uniform(-0.6, 0.6, plant.num_positions())
        v = np.random.default_rng(9).uniform(-1.0, 1.0, plant.num_velocities())
        plant.SetPositions(context, q)
        plant.SetVelocities(context, v)
        forces = E.tree.MultibodyForces(plant)
        plant.CalcForceElementsContribution(context, forces)
        out.append(plant.CalcInverseDynamics(context, np.zeros(plant.num_velocities()), forces))
        with pytest.raises(RuntimeError, match="LinearBushingRollPitchYaw"):
            plant.CalcPotentialEnergy(context)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-10, atol=1e-10)


def test_armature_adds_to_the_mass_matrix_diagonal():
    E = tw.engine_mallard()
    base = tw.build(E, tw.double_pendulum())[0]
    plant, bodies, joints = tw.build(E, tw.double_pendulum(), finalize=False)
    joints["elbow"].set_default_armature(0.25)
    plant.Finalize()
    c0, c1 = base.CreateDefaultContext(), plant.CreateDefaultContext()
    for p, c in ((base, c0), (plant, c1)):
        p.SetPositions(c, [0.3, -0.8])
    np.testing.assert_allclose(plant.CalcMassMatrix(c1) - base.CalcMassMatrix(c0), np.diag([0.0, 0.25]), atol=1e-14)
    with pytest.raises(RuntimeError, match="before Finalize"):
        joints["elbow"].set_default_armature(0.5)
    fresh = tw.build(E, tw.double_pendulum(), finalize=False)[2]["elbow"]
    with pytest.raises(ValueError, match="armature must be finite and non-negative"):
        fresh.set_default_armature(-1.0)
