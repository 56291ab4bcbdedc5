"""Drake-style contact scenes written once against a pydrake-like module `lib` (`mallard.all` or `pydrake.all`), so
the oracle tests and benchmarks/drake_contact.py run the very same script on both engines.

Each `*_scene(lib, ...)` builds a diagram around a discrete (or continuous) MultibodyPlant with a SceneGraph and returns
`(diagram, plant, init, body)`: `init(root)` sets the scene's initial state in a root context of `diagram`, and `body`
is the scene's moving body (the one whose pose the callers compare). The quick start's scene (iiwa, table, box,
trajectory, gains) takes its numbers from examples/quickstart.py, which stays the readable, mallard-only version.
"""
from __future__ import annotations

from gallery import models_dir
import quickstart as qs


def box_scene(lib, approx: str | None = "kLagged", time_step: float = 0.001, yaw: float = 0.0):
    """A 2 kg, 0.2 m box dropped from 0.3 m (yaw `yaw` rad) onto a half space with pydrake's default contact
    parameters (friction 0.5) under the discrete approximation `approx` (ignored when `time_step` is 0)."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, time_step)
    if time_step > 0:
        plant.set_discrete_contact_approximation(getattr(lib.DiscreteContactApproximation, approx))
    box = plant.AddRigidBody("box", lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.2, 0.2))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(0.2, 0.2, 0.2), "box",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground",
                                    lib.CoulombFriction(0.5, 0.5))
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, box, lib.RigidTransform(lib.RollPitchYaw(0.0, 0.0, yaw), [0.0, 0.0, 0.3]))
    return diagram, plant, init, box


def ball_scene(lib, dissipation: float = 0.5, time_step: float = 0.001, z0: float = 0.5):
    """A 1 kg ball (r 5 cm, stiffness 1e5 N/m, Hunt–Crossley dissipation `dissipation` s/m, friction 0.3) thrown at
    0.5 m/s from height `z0` m onto a half space: it bounces, slides and rolls."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, time_step)
    ball = plant.AddRigidBody("ball", lib.SpatialInertia.SolidSphereWithMass(1.0, 0.05))
    for body, shape, name in ((ball, lib.Sphere(0.05), "ball"), (plant.world_body(), lib.HalfSpace(), "ground")):
        props = lib.ProximityProperties()
        lib.AddContactMaterial(dissipation, 1e5, lib.CoulombFriction(0.3, 0.3), props)
        plant.RegisterCollisionGeometry(body, lib.RigidTransform(), shape, name, props)
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, ball, lib.RigidTransform([0.0, 0.0, z0]))
        plant.SetFreeBodySpatialVelocity(ctx, ball, lib.SpatialVelocity([0.0, 0.0, 0.0], [0.5, 0.0, 0.0]))
    return diagram, plant, init, ball


def hydro_props(lib, compliant: bool, modulus: float = 1e5, mu: float = 0.5, resolution: float = 0.01):
    """Hydroelastic proximity properties: resolution hint `resolution` m, Hunt–Crossley dissipation 1 s/m, friction
    `mu`, and for a compliant geometry the hydroelastic modulus `modulus` Pa."""
    props = lib.ProximityProperties()
    lib.AddContactMaterial(dissipation=1.0, friction=lib.CoulombFriction(mu, mu), properties=props)
    if compliant:
        lib.AddCompliantHydroelasticProperties(resolution, modulus, props)
    else:
        lib.AddRigidHydroelasticProperties(resolution, props)
    return props


def hydro_scene(lib, shape: str = "box", time_step: float = 0.001, approx: str = "kLagged"):
    """Hydroelastic contact: a compliant 2 kg box (0.2 x 0.3 x 0.1 m, resolution 2 cm, 1 MPa) dropped on a rigid half
    space, or (shape "ball") a compliant 0.5 kg ball (r 5 cm, resolution 1 cm) dropped on a rigid box; discrete
    approximation `approx` (ignored when `time_step` is 0)."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, time_step)
    if time_step > 0:
        plant.set_discrete_contact_approximation(getattr(lib.DiscreteContactApproximation, approx))
    box = shape == "box"
    mass = lib.SpatialInertia.SolidBoxWithMass(2.0, 0.2, 0.3, 0.1) if box else \
        lib.SpatialInertia.SolidSphereWithMass(0.5, 0.05)
    body = plant.AddRigidBody("body", mass)
    soft = hydro_props(lib, True, 1e6, resolution=0.02 if box else 0.01)
    rigid = lib.ProximityProperties()
    lib.AddContactMaterial(dissipation=1.0, friction=lib.CoulombFriction(0.5, 0.5), properties=rigid)
    lib.AddRigidHydroelasticProperties(rigid)
    plant.RegisterCollisionGeometry(body, lib.RigidTransform(), lib.Box(0.2, 0.3, 0.1) if box else lib.Sphere(0.05),
                                    "body", soft)
    if box:
        plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.HalfSpace(), "ground", rigid)
    else:
        plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0.0, 0.0, -0.1]),
                                        lib.Box(0.5, 0.5, 0.2), "table", rigid)
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, body, lib.RigidTransform(lib.RollPitchYaw(0.02, 0.01, 0.3), [0.0, 0.0, 0.06]))
    return diagram, plant, init, body


def spheres_scene(lib):
    """A compliant ball (0.5 kg, r 4 cm) dropped onto a fixed compliant sphere (r 5 cm, 2e5 Pa)."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.001)
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform(), lib.Sphere(0.05), "fixed",
                                    hydro_props(lib, True, 2e5))
    ball = plant.AddRigidBody("ball", lib.SpatialInertia.SolidSphereWithMass(0.5, 0.04))
    plant.RegisterCollisionGeometry(ball, lib.RigidTransform(), lib.Sphere(0.04), "ball", hydro_props(lib, True))
    plant.Finalize()
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetFreeBodyPose(ctx, ball, lib.RigidTransform([0.0, 0.0, 0.091]))
    return diagram, plant, init, ball


def fingers_scene(lib):
    """Two rigid fingers on prismatic joints squeeze a compliant 5 cm box (0.1 kg) with 10 N each: it is held."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, 0.001)
    joints = []
    for k in range(2):
        finger = plant.AddRigidBody(f"finger{k}", lib.SpatialInertia.SolidBoxWithMass(0.2, 0.02, 0.06, 0.1))
        plant.RegisterCollisionGeometry(finger, lib.RigidTransform(), lib.Box(0.02, 0.06, 0.1), f"finger{k}",
                                        hydro_props(lib, False, mu=1.0))
        joints.append(plant.AddJoint(lib.PrismaticJoint(f"slide{k}", plant.world_frame(), finger.body_frame(),
                                                        [1.0, 0.0, 0.0])))
        plant.AddJointActuator(f"act{k}", joints[-1])
    obj = plant.AddRigidBody("object", lib.SpatialInertia.SolidBoxWithMass(0.1, 0.05, 0.05, 0.05))
    plant.RegisterCollisionGeometry(obj, lib.RigidTransform(), lib.Box(0.05, 0.05, 0.05), "object",
                                    hydro_props(lib, True, mu=1.0))
    plant.Finalize()
    builder.ExportInput(plant.get_actuation_input_port(), "u")
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        diagram.get_input_port(0).FixValue(root, [10.0, -10.0])
        for j, side in zip(joints, (-1.0, 1.0)):
            j.set_translation(ctx, side * 0.0345)
    return diagram, plant, init, obj


def gravity_compensated_pd(lib):
    """The quick start's GravityCompensatedPD (τ = −τ_g(q) + Kp (q_d − q) + Kd (v_d − v), N·m) as a Python LeafSystem
    class of `lib`: what a pydrake user writes."""

    class GravityCompensatedPD(lib.LeafSystem):
        def __init__(self, plant, kp: float, kd: float):
            super().__init__()
            self._plant, self._context = plant, plant.CreateDefaultContext()
            self._kp, self._kd, n = kp, kd, plant.num_positions()
            self.DeclareVectorInputPort("state", 2 * n)
            self.DeclareVectorInputPort("desired_state", 2 * n)
            self.DeclareVectorOutputPort("torque", n, self.CalcTorque)

        def CalcTorque(self, context, output):
            n = self._plant.num_positions()
            x, x_d = self.get_input_port(0).Eval(context), self.get_input_port(1).Eval(context)
            self._plant.SetPositions(self._context, x[:n])
            tau_g = self._plant.CalcGravityGeneralizedForces(self._context)
            output.SetFromVector(-tau_g + self._kp * (x_d[:n] - x[:n]) + self._kd * (x_d[n:] - x[n:]))

    return GravityCompensatedPD


def add_iiwa(lib, plant):
    """The quick start's iiwa14 (sphere collision) from the shared models' drake_models, welded to the world; returns
    its model instance. pydrake pre-registers drake_models as a download: the local copy replaces it."""
    parser = lib.Parser(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):
        package_map.Remove("drake_models")
    package_map.AddPackageXml(str(models_dir() / "drake_models" / "package.xml"))
    iiwa = parser.AddModels(str(models_dir() / qs.IIWA))[0]
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base", iiwa))
    return iiwa


def iiwa_push_scene(lib, dx: float = 0.0):
    """Issue #16's iiwa pushing a box: the quick start's scene (kLagged at 2 ms, a 0.5 kg box on four corner spheres on
    a table, the box `dx` m further along x than the quick start's) under a gravity-compensated PD LeafSystem tracking
    the quick start's joint trajectory. The arm is the model instance named "iiwa14"."""
    builder = lib.DiagramBuilder()
    plant, _ = lib.AddMultibodyPlantSceneGraph(builder, qs.TIME_STEP)
    iiwa = add_iiwa(lib, plant)
    friction = lib.ProximityProperties()
    friction.AddProperty("material", "coulomb_friction", lib.CoulombFriction(0.5, 0.5))
    plant.RegisterCollisionGeometry(plant.world_body(), lib.RigidTransform([0.6, 0.0, qs.TABLE_TOP / 2]),
                                    lib.Box(0.5, 1.2, qs.TABLE_TOP), "table", friction)
    size, h = qs.BOX_SIZE, qs.BOX_SIZE / 2
    box = plant.AddRigidBody("box", plant.AddModelInstance("box"),
                             lib.SpatialInertia.SolidBoxWithMass(qs.BOX_MASS, size, size, size))
    plant.RegisterCollisionGeometry(box, lib.RigidTransform(), lib.Box(size, size, size), "box", friction)
    for i, (x, y) in enumerate([(h, h), (h, -h), (-h, h), (-h, -h)]):
        plant.RegisterCollisionGeometry(box, lib.RigidTransform([x, y, -h]), lib.Sphere(1e-5), f"corner{i}", friction)
    plant.Finalize()
    arm = lib.MultibodyPlant(qs.TIME_STEP)
    add_iiwa(lib, arm)
    arm.Finalize()
    q_d = lib.PiecewisePolynomial.CubicShapePreserving(qs.TIMES, qs.WAYPOINTS, zero_end_point_derivatives=True)
    reference = builder.AddSystem(lib.TrajectorySource(q_d, output_derivative_order=1))
    controller = builder.AddSystem(gravity_compensated_pd(lib)(arm, qs.KP, qs.KD))
    builder.Connect(plant.get_state_output_port(iiwa), controller.get_input_port(0))
    builder.Connect(reference.get_output_port(0), controller.get_input_port(1))
    builder.Connect(controller.get_output_port(0), plant.get_actuation_input_port(iiwa))
    diagram = builder.Build()

    def init(root):
        ctx = plant.GetMyMutableContextFromRoot(root)
        plant.SetPositions(ctx, iiwa, qs.WAYPOINTS[:, 0])
        plant.SetFreeBodyPose(ctx, box, lib.RigidTransform([qs.BOX_START[0] + dx, qs.BOX_START[1], qs.TABLE_TOP + h]))
    return diagram, plant, init, box
