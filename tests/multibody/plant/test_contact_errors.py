"""Bad contact/constraint input gives clear errors naming the geometry, joint or constraint; a solver that
does not converge reports it (iterations, residual) instead of silently returning its iterate."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry import AddMujocoContactParameters, Box, CoulombFriction, HalfSpace, ProximityProperties
from mallard.multibody.math import RigidTransform
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.contact.mujoco_parameters import (ConstraintSolverOptions, SetConstraintMujocoParameters,
                                                       SetJointMujocoParameters)
from mallard.multibody.tree import RevoluteJoint, SpatialInertia
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder


def _plant(props_body, h=0.002):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, h)
    body = plant.AddRigidBody("body", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    plant.RegisterCollisionGeometry(body, RigidTransform(), Box(0.1, 0.1, 0.1), "body_geom", props_body)
    floor = ProximityProperties()
    floor.AddProperty("material", "coulomb_friction", CoulombFriction(1.0, 1.0))
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), HalfSpace(), "floor", floor)
    return builder, plant, body


def _props(**mujoco):
    p = ProximityProperties()
    p.AddProperty("material", "coulomb_friction", CoulombFriction(1.0, 1.0))
    for k, v in mujoco.items():
        p.AddProperty("mujoco", k, v)  # unchecked here: the plant must catch bad values
    return p


@pytest.mark.parametrize("params, message", [
    (dict(solref=(0.0, 1.0)), "time constant is zero"),
    (dict(solref=(-0.02, 1.0)), "mixes formats"),
    (dict(solref=(0.02, 0.0)), "dampratio"),
    (dict(solimp=(0.9, float("nan"), 0.001, 0.5, 2.0)), r"solimp.*5 finite"),
    (dict(solimp=(0.9, 0.95, 0.001)), r"solimp.*5 finite"),
    (dict(friction=(-0.5, 0.005, 0.0001)), "friction"),
])
def test_bad_geometry_parameters_name_the_geometry(params, message):
    builder, plant, _ = _plant(_props(**params))
    with pytest.raises(ValueError, match=message) as err:
        plant.Finalize()
    assert "body_geom" in str(err.value)


def test_bad_drake_material_names_the_geometry():
    p = ProximityProperties()
    p.AddProperty("material", "coulomb_friction", CoulombFriction(1.0, 1.0))
    p.AddProperty("material", "point_contact_stiffness", -5.0)
    builder, plant, _ = _plant(p)
    with pytest.raises(ValueError, match="body_geom.*point_contact_stiffness"):
        plant.Finalize()


def test_bad_joint_and_constraint_parameters_name_them():
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    a = plant.AddRigidBody("a", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    b = plant.AddRigidBody("b", SpatialInertia.SolidBoxWithMass(1.0, 0.1, 0.1, 0.1))
    ja = plant.AddJoint(RevoluteJoint("hinge_a", plant.world_frame(), a.body_frame(), [0, 1, 0]))
    jb = plant.AddJoint(RevoluteJoint("hinge_b", plant.world_frame(), b.body_frame(), [0, 1, 0]))
    with pytest.raises(ValueError, match="joint 'hinge_a'.*time constant is zero"):
        SetJointMujocoParameters(plant, ja, solreflimit=(0.0, 1.0))
    with pytest.raises(ValueError, match="joint 'hinge_a'.*frictionloss"):
        SetJointMujocoParameters(plant, ja, frictionloss=-1.0)
    with pytest.raises(ValueError, match="unknown MuJoCo joint parameter"):
        SetJointMujocoParameters(plant, ja, stiffness=3.0)
    k = plant.AddCouplerConstraint(ja, jb, 2.0)
    with pytest.raises(ValueError, match="Coupler constraint 0.*solimp.*5 finite"):
        SetConstraintMujocoParameters(plant, k, solimp=(0.9, 0.95, float("inf"), 0.5, 2.0))
    with pytest.raises(ValueError, match="no constraint with id 5"):
        SetConstraintMujocoParameters(plant, 5, solref=(0.02, 1.0))
    with pytest.raises(ValueError, match="cone 'round'"):
        plant.set_constraint_solver_options(cone="round")
    with pytest.raises(ValueError, match="unknown options"):
        plant.set_constraint_solver_options(noslip=3)
    with pytest.raises(ValueError, match="impratio"):
        ConstraintSolverOptions(impratio=0.0).Validate()


def _stack_plant(**options):
    p = ProximityProperties()
    p.AddProperty("material", "coulomb_friction", CoulombFriction(1.0, 1.0))
    AddMujocoContactParameters(p, condim=3)
    builder, plant, body = _plant(p)
    plant.set_constraint_solver_options(**options)
    plant.Finalize()
    diagram = builder.Build()
    ctx = plant.GetMyContextFromRoot(diagram.CreateDefaultContext())
    plant.SetFreeBodyPose(ctx, body, RigidTransform([0.0, 0.0, 0.045]))
    return plant, ctx


def test_non_converged_solve_is_reported():
    plant, ctx = _stack_plant(iterations=1, tolerance=0.0)
    plant._CalcDiscreteStep(ctx)
    stats = plant.get_constraint_solver_statistics()
    assert not stats["converged"] and stats["iterations"] == 1 and stats["failures"] == 1
    assert stats["residual"] > 0 and np.isfinite(stats["residual"])
    plant, ctx = _stack_plant(iterations=1, tolerance=0.0, throw_on_failure=True)
    with pytest.raises(RuntimeError, match=r"did not converge: 1 iterations, residual"):
        plant._CalcDiscreteStep(ctx)


def test_converged_solve_statistics():
    plant, ctx = _stack_plant()
    plant._CalcDiscreteStep(ctx)
    stats = plant.get_constraint_solver_statistics()
    assert stats["converged"] and stats["failures"] == 0 and 1 <= stats["iterations"] < 100


_CONNECTED = """<mujoco><option gravity="1e300 2e300 3e300"/>
  <default><geom density="1000" size="0.05 0.05 0.05" type="box"/></default>
  <worldbody><body name="body1"><geom/><site name="sensor"/></body>
    <body name="body2" pos="1 2 3"><joint type="free"/><geom/></body></worldbody>
  <equality><connect body1="body1" body2="body2" anchor="0 0 0"/></equality>{sensor}
</mujoco>"""


@pytest.mark.parametrize("sensor", ["", "<sensor><force site='sensor'/></sensor>"])  # compiled step; Python path
def test_overflowing_constraint_solve_names_the_velocities(sensor):
    """Gravity of 1e300 m/s² under an equality constraint (a fuzzed MuJoCo test file) overflows the solver: the error
    names the plant, the time and the velocities whose accelerations overflow, on both step paths."""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.001)
    Parser(plant).AddModelsFromString(_CONNECTED.format(sensor=sensor), "xml")
    plant.Finalize()
    diagram = builder.Build()
    context = diagram.CreateDefaultContext()
    with pytest.raises(RuntimeError, match=r"MultibodyPlant 'plant' at t = 0.0: .*NaN/inf.* for the velocities "
                                           r"'world-body2_vx', 'world-body2_vy', 'world-body2_vz'; .*gravity"):
        Simulator(diagram, context).AdvanceTo(0.001)
