"""Joint, frame and actuator objects: layouts, names, limits, defaults and context accessors."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.math import RigidTransform, RollPitchYaw
from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import (BallQuaternionJoint, BallRpyJoint, FixedOffsetFrame, PlanarJoint, PrismaticJoint,
                                    QuaternionFloatingJoint, RevoluteJoint, RpyFloatingJoint, ScrewJoint,
                                    SpatialInertia, UniversalJoint, WeldJoint)

CASES = [
    (lambda F, M: RevoluteJoint("j", F, M, [0, 0, 2.0]), 1, 1, ["j_q"], ["j_w"]),
    (lambda F, M: PrismaticJoint("j", F, M, [1.0, 0, 0], -1.0, 2.0), 1, 1, ["j_x"], ["j_v"]),
    (lambda F, M: ScrewJoint("j", F, M, [0, 0, 1.0], 0.1, 0.0), 1, 1, ["j_q"], ["j_w"]),
    (lambda F, M: UniversalJoint("j", F, M), 2, 2, ["j_qx", "j_qy"], ["j_wx", "j_wy"]),
    (lambda F, M: BallRpyJoint("j", F, M), 3, 3, ["j_qx", "j_qy", "j_qz"], ["j_wx", "j_wy", "j_wz"]),
    (lambda F, M: BallQuaternionJoint("j", F, M), 4, 3, ["j_qw", "j_qx", "j_qy", "j_qz"], ["j_wx", "j_wy", "j_wz"]),
    (lambda F, M: PlanarJoint("j", F, M, [0.0, 0.0, 0.0]), 3, 3, ["j_x", "j_y", "j_qz"], ["j_vx", "j_vy", "j_wz"]),
    (lambda F, M: RpyFloatingJoint("j", F, M), 6, 6, None, None),
    (lambda F, M: QuaternionFloatingJoint("j", F, M), 7, 6, None, None),
    (lambda F, M: WeldJoint("j", F, M, RigidTransform([0, 0, 1.0])), 0, 0, [], []),
]


@pytest.mark.parametrize("make,nq,nv,qnames,vnames", CASES)
def test_joint_layout_and_names(make, nq, nv, qnames, vnames):
    plant = MultibodyPlant(1e-3)
    body = plant.AddRigidBody("b", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    joint = plant.AddJoint(make(plant.world_frame(), body.body_frame()))
    plant.Finalize()
    assert (joint.num_positions(), joint.num_velocities()) == (nq, nv)
    assert (plant.num_positions(), plant.num_velocities()) == (nq, nv)
    if qnames is not None:
        assert plant.GetPositionNames(add_model_instance_prefix=False) == qnames
        assert plant.GetVelocityNames(add_model_instance_prefix=False) == vnames
    context = plant.CreateDefaultContext()
    q = plant.GetDefaultPositions()
    if nq in (4, 7):
        assert q[0] == 1.0
    plant.SetVelocities(context, np.arange(nv, dtype=float))
    np.testing.assert_allclose(joint.GetVelocities(context), np.arange(nv, dtype=float))


def test_revolute_and_prismatic_accessors():
    plant = MultibodyPlant(1e-3)
    a = plant.AddRigidBody("a", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    b = plant.AddRigidBody("b", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    r = plant.AddJoint(RevoluteJoint("r", plant.world_frame(), a.body_frame(), [0, 0, 2.0], -1.0, 1.0, 0.3))
    p = plant.AddJoint(PrismaticJoint("p", a.body_frame(), b.body_frame(), [0, 3.0, 0], damping=0.2))
    np.testing.assert_allclose(r.revolute_axis(), [0, 0, 1])
    assert r.damping() == 0.3 and p.damping() == 0.2
    assert (r.position_lower_limit(), r.position_upper_limit()) == (-1.0, 1.0)
    r.set_default_angle(0.5)
    p.set_default_translation(-0.25)
    act = plant.AddJointActuator("m", r, effort_limit=10.0)
    act.set_default_rotor_inertia(0.01)
    act.set_default_gear_ratio(5.0)
    assert act.default_reflected_inertia() == pytest.approx(0.25)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    assert r.get_angle(context) == 0.5 and p.get_translation(context) == -0.25
    r.set_angular_rate(context, 2.0)
    p.set_translation_rate(context, -1.0)
    np.testing.assert_allclose(plant.GetVelocities(context), [2.0, -1.0])
    np.testing.assert_allclose(plant.GetPositionLowerLimits(), [-1.0, -np.inf])
    np.testing.assert_allclose(plant.GetEffortUpperLimits(), [10.0])
    assert plant.CalcMassMatrix(context)[0, 0] > 0.25
    u = np.zeros(1)
    act.set_actuation_vector([4.0], u)
    assert act.get_actuation_vector(u).tolist() == [4.0]
    with pytest.raises(RuntimeError, match="before Finalize"):
        act.set_default_gear_ratio(2.0)


def test_fixed_offset_frames_compose():
    plant = MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    X_BF = RigidTransform(RollPitchYaw(0.1, 0.2, 0.3), [1.0, 0.0, 0.0])
    X_FG = RigidTransform(RollPitchYaw(-0.3, 0.0, 0.5), [0.0, 2.0, 0.0])
    F = plant.AddFrame(FixedOffsetFrame("F", body, X_BF))
    G = plant.AddFrame(FixedOffsetFrame("G", F, X_FG))
    np.testing.assert_allclose(G.GetFixedPoseInBodyFrame().GetAsMatrix4(), (X_BF @ X_FG).GetAsMatrix4(), atol=1e-15)
    assert G.body() is body and plant.GetFrameByName("G") is G
    plant.Finalize()
    context = plant.CreateDefaultContext()
    X_WB = RigidTransform(RollPitchYaw(0.4, -0.1, 0.2), [0.3, 0.2, 0.1])
    plant.SetFreeBodyPose(context, body, X_WB)
    np.testing.assert_allclose(G.CalcPoseInWorld(context).GetAsMatrix4(), (X_WB @ X_BF @ X_FG).GetAsMatrix4(),
                               atol=1e-14)
    np.testing.assert_allclose(plant.CalcRelativeTransform(context, F, G).GetAsMatrix4(), X_FG.GetAsMatrix4(),
                               atol=1e-14)


def test_add_joint_by_type_creates_offset_frames():
    plant = MultibodyPlant(0.0)
    body = plant.AddRigidBody("b", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    joint = plant.AddJoint(RevoluteJoint, "elbow", plant.world_body(), RigidTransform([0, 0, 1.0]), body, None,
                           [0, 1.0, 0])
    assert joint.frame_on_parent().name() == "elbow_parent"
    assert joint.frame_on_child() is body.body_frame()
    tool = plant.AddRigidBody("tool", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.2, 0.3))
    weld = plant.WeldFrames(body.body_frame(), tool.body_frame(), RigidTransform([0, 0, 0.1]))
    assert weld.name() == "b_welds_to_tool" and weld.type_name() == "weld"
    plant.Finalize()
    assert plant.num_positions() == 1 and {b.name() for b in plant.GetBodiesWeldedTo(tool)} == {"b", "tool"}
