"""Hydroelastic contact on the compiled step against pydrake 1.51 (issue 16's acceptance): a compliant box resting on
a rigid half space under each discrete approximation (one contact surface, force m·g within 1 %; force, area and
pose as pydrake's to round-off), two compliant spheres, two fingers holding a compliant box for 2 s without slipping."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma
from oracles import require_pydrake


def _props(M, kind, E=1e6, res=0.02, mu=0.5, d=1.0):
    p = M.ProximityProperties()
    M.AddContactMaterial(dissipation=d, friction=M.CoulombFriction(mu, mu), properties=p)
    if kind == "soft":
        M.AddCompliantHydroelasticProperties(res, E, p)
    else:
        M.AddRigidHydroelasticProperties(res, p)
    return p


def _box_drop(M, approx: str, t_final: float):
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    plant.set_discrete_contact_approximation(getattr(M.DiscreteContactApproximation, approx))
    box = plant.AddRigidBody("box", M.SpatialInertia.SolidBoxWithMass(2.0, .2, .3, .1))
    plant.RegisterCollisionGeometry(box, M.RigidTransform(), M.Box(.2, .3, .1), "box", _props(M, "soft"))
    plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.HalfSpace(), "ground",
                                    _props(M, "rigid"))
    plant.Finalize()
    sim = M.Simulator(builder.Build())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    plant.SetFreeBodyPose(pc, box, M.RigidTransform(M.RollPitchYaw(0.02, 0.01, 0.3), [0, 0, 0.06]))
    sim.AdvanceTo(t_final)
    results = plant.get_contact_results_output_port().Eval(pc)
    X = plant.EvalBodyPoseInWorld(pc, box)
    infos = [results.hydroelastic_contact_info(i) for i in range(results.num_hydroelastic_contacts())]
    return X.translation(), results.num_point_pair_contacts(), [
        (i.F_Ac_W().translational(), i.contact_surface().total_area()) for i in infos]


@pytest.mark.parametrize("approx", ["kLagged", "kSap", "kTamsi", "kSimilar"])
def test_box_on_rigid_half_space(approx):
    require_pydrake()
    import pydrake.all as pd
    p, npts, surf = _box_drop(ma, approx, 1.0)
    p_d, npts_d, surf_d = _box_drop(pd, approx, 1.0)
    assert npts == npts_d == 0 and len(surf) == len(surf_d) == 1
    (F, area), (F_d, area_d) = surf[0], surf_d[0]
    mg = 2.0 * 9.81
    assert F[2] == pytest.approx(mg, rel=1e-2)
    # Drake's box mesh and pressure field, Drake's solvers: the same trajectory to round-off (1e-13 m measured)
    assert F[2] == pytest.approx(F_d[2], rel=1e-8)
    assert area == pytest.approx(area_d, rel=1e-9)
    np.testing.assert_allclose(p, p_d, atol=1e-9)


def _two_spheres(M, t_final: float):
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    plant.RegisterCollisionGeometry(plant.world_body(), M.RigidTransform(), M.Sphere(0.05), "fixed",
                                    _props(M, "soft", E=2e5, res=0.01))
    ball = plant.AddRigidBody("ball", M.SpatialInertia.SolidSphereWithMass(0.5, 0.04))
    plant.RegisterCollisionGeometry(ball, M.RigidTransform(), M.Sphere(0.04), "ball", _props(M, "soft", E=1e5,
                                                                                          res=0.01))
    plant.Finalize()
    sim = M.Simulator(builder.Build())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    plant.SetFreeBodyPose(pc, ball, M.RigidTransform([0.0, 0.0, 0.091]))
    zs = []
    for t in np.arange(0.05, t_final + 1e-9, 0.05):
        sim.AdvanceTo(t)
        zs.append(plant.EvalBodyPoseInWorld(pc, ball).translation()[2])
    results = plant.get_contact_results_output_port().Eval(pc)
    info = results.hydroelastic_contact_info(0)
    return np.array(zs), info.F_Ac_W().translational(), info.contact_surface().total_area()


def test_two_compliant_spheres():
    require_pydrake()
    import pydrake.all as pd
    z, F, area = _two_spheres(ma, 0.3)
    z_d, F_d, area_d = _two_spheres(pd, 0.3)
    np.testing.assert_allclose(z, z_d, atol=2e-5)
    np.testing.assert_allclose(F, F_d, atol=1e-2 * np.linalg.norm(F_d))
    assert area == pytest.approx(area_d, rel=5e-2)


def _fingers(M, t_final: float):
    """Two rigid fingers on prismatic joints squeeze a compliant box (0.1 kg) with 10 N each; returns the box's
    height over time."""
    builder = M.DiagramBuilder()
    plant, sg = M.AddMultibodyPlantSceneGraph(builder, 0.001)
    fingers = []
    for k, side in enumerate((-1.0, 1.0)):
        f = plant.AddRigidBody(f"finger{k}", M.SpatialInertia.SolidBoxWithMass(0.2, 0.02, 0.06, 0.1))
        plant.RegisterCollisionGeometry(f, M.RigidTransform(), M.Box(0.02, 0.06, 0.1), f"finger{k}",
                                        _props(M, "rigid", mu=1.0))
        j = plant.AddJoint(M.PrismaticJoint(f"slide{k}", plant.world_frame(), f.body_frame(), [1.0, 0.0, 0.0]))
        plant.AddJointActuator(f"act{k}", j)
        fingers.append((j, side))
    obj = plant.AddRigidBody("object", M.SpatialInertia.SolidBoxWithMass(0.1, 0.05, 0.05, 0.05))
    plant.RegisterCollisionGeometry(obj, M.RigidTransform(), M.Box(0.05, 0.05, 0.05), "object",
                                    _props(M, "soft", E=1e5, mu=1.0))
    plant.Finalize()
    builder.ExportInput(plant.get_actuation_input_port(), "u")
    diagram = builder.Build()
    sim = M.Simulator(diagram)
    ctx = sim.get_mutable_context()
    pc = plant.GetMyContextFromRoot(ctx)
    diagram.get_input_port(0).FixValue(ctx, [10.0, -10.0])  # squeeze
    for j, side in fingers:
        j.set_translation(pc, side * 0.0345)
    plant.SetFreeBodyPose(pc, obj, M.RigidTransform([0.0, 0.0, 0.0]))
    zs = []
    for t in np.arange(0.25, t_final + 1e-9, 0.25):
        sim.AdvanceTo(t)
        zs.append(plant.EvalBodyPoseInWorld(pc, obj).translation()[2])
    return np.array(zs)


def test_fingers_hold_a_compliant_box():
    require_pydrake()
    import pydrake.all as pd
    z = _fingers(ma, 2.0)
    z_d = _fingers(pd, 2.0)
    assert abs(z[-1] - z[0]) < 1e-4 and abs(z[-1]) < 1e-3  # held: no slip over 2 s
    np.testing.assert_allclose(z, z_d, atol=1e-4)
