"""Drake's compliant point contact (continuous plant), its material laws, and Drake materials on the
discrete solver (SAP parameterization)."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_pydrake

from mallard.multibody.contact import (DEFAULT_PENETRATION_ALLOWANCE, CalcCompliantPointContactForces,
                                       CombineFrictionCoefficients, CombinePointContactParameters,
                                       CombineRelaxationTimes, DefaultPointContactParameters, DelassusDiagonal,
                                       GeneralizedContactForces, SapContactProblem, SolveConstraints,
                                       StribeckFrictionCoefficient)


def test_stribeck_curve():
    ms, md, vs = 0.8, 0.5, 1e-3
    assert StribeckFrictionCoefficient(0.0, ms, md, vs) == 0.0
    assert StribeckFrictionCoefficient(vs, ms, md, vs) == pytest.approx(ms)  # peak at the stiction speed
    assert StribeckFrictionCoefficient(3 * vs, ms, md, vs) == pytest.approx(md)
    assert StribeckFrictionCoefficient(10 * vs, ms, md, vs) == md
    x = 0.4
    assert StribeckFrictionCoefficient(x * vs, ms, md, vs) == pytest.approx(ms * (10 * x**3 - 15 * x**4 + 6 * x**5))
    s = np.linspace(0, 4 * vs, 401)
    mu = np.array([StribeckFrictionCoefficient(si, ms, md, vs) for si in s])
    assert np.max(np.abs(np.diff(mu))) < 0.02  # continuous


def test_hunt_crossley_forces():
    n = np.array([[0.0, 0.0, 1.0]] * 3)  # nhat_BA: from B (floor) into A (ball)
    depth = np.array([1e-3, 1e-3, 1e-3])
    v = np.array([[0.0, 0.0, 0.2], [0.5, 0.0, 0.0], [0.0, 0.0, -2.0]])  # v_AcBc: B relative to A
    k, d = np.full(3, 1e5), np.full(3, 0.8)
    f_B, p, fn, slip, sep = CalcCompliantPointContactForces(np.zeros((3, 3)), np.zeros((3, 3)), n, depth, v, k, d,
                                                             np.full(3, 0.6), np.full(3, 0.4), 1e-3)
    # approaching (vn = +0.2): fn = k x (1 + d vn); force on A along +n, on B the opposite
    assert fn[0] == pytest.approx(1e5 * 1e-3 * (1 + 0.8 * 0.2))
    np.testing.assert_allclose(f_B[0], [0, 0, -fn[0]])
    assert sep[0] == pytest.approx(-0.2) and slip[0] == 0.0
    # sliding: dynamic friction on A along v_t (A slides backwards relative to B), so on B along -v_t
    assert fn[1] == pytest.approx(100.0) and slip[1] == pytest.approx(0.5)
    np.testing.assert_allclose(f_B[1], [-0.4 * 100.0, 0, -100.0])
    # separating fast enough that (1 + d vn) < 0: no force
    assert fn[2] == 0.0 and np.all(f_B[2] == 0.0)
    Jrel = np.zeros((3, 3, 2))
    Jrel[:, 2, 0] = 1.0
    Jrel[:, 0, 1] = 1.0
    np.testing.assert_allclose(GeneralizedContactForces(Jrel, f_B), [f_B[:, 2].sum(), f_B[:, 0].sum()])


def test_material_combination_laws():
    k, d = CombinePointContactParameters(1e5, 1.0, 3e5, 2.0)
    assert k == pytest.approx(7.5e4) and d == pytest.approx(0.75 * 1.0 + 0.25 * 2.0)
    assert CombinePointContactParameters(np.inf, 1.0, 2e5, 3.0) == (2e5, 1.0)  # rigid side: the other's k
    assert CombineRelaxationTimes(0.1, 0.05) == pytest.approx(0.15)
    with pytest.raises(ValueError, match="stiffness must be >= 0"):
        CombinePointContactParameters(-1.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="friction coefficients must be >= 0"):
        CombineFrictionCoefficients(-0.1, 0.5)


def test_combination_and_defaults_match_pydrake():
    pydrake = require_pydrake()
    from pydrake.geometry import Sphere
    from pydrake.math import RigidTransform
    from pydrake.multibody.plant import (AddMultibodyPlantSceneGraph, CalcContactFrictionFromSurfaceProperties,
                                         CoulombFriction)
    from pydrake.multibody.tree import SpatialInertia, UnitInertia
    from pydrake.systems.framework import DiagramBuilder
    assert pydrake is not None
    c = CalcContactFrictionFromSurfaceProperties(CoulombFriction(0.9, 0.6), CoulombFriction(0.3, 0.2))
    assert CombineFrictionCoefficients(0.9, 0.3) == pytest.approx(c.static_friction())
    assert CombineFrictionCoefficients(0.6, 0.2) == pytest.approx(c.dynamic_friction())
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.0)
    body = plant.AddRigidBody("ball", SpatialInertia(2.5, np.zeros(3), UnitInertia.SolidSphere(0.1)))
    plant.RegisterCollisionGeometry(body, RigidTransform(), Sphere(0.1), "ball", CoulombFriction(0.5, 0.5))
    plant.Finalize()
    ours = DefaultPointContactParameters(DEFAULT_PENETRATION_ALLOWANCE, max_mass=2.5, gravity=9.81)
    assert ours["time_scale"] == pytest.approx(plant.get_contact_penalty_method_time_scale(), rel=1e-12)


def _sap_point_mass(phi0, v, k=1e4, tau=0.1, mu=0.5, h=1e-3, m=1.0):
    Jc = np.array([[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    M = m * np.eye(3)
    w = DelassusDiagonal(Jc, M)
    problem = SapContactProblem(Jc, [phi0], v, [k], [tau], [mu], w, h, names=["ball/floor"])
    return SolveConstraints(problem, M, np.array([0.0, 0.0, -9.81]), tolerance=1e-12), problem


def test_sap_static_equilibrium_penetration_is_mg_over_k():
    res, problem = _sap_point_mass(-9.81 / 1e4, np.zeros(3))
    assert res.converged
    np.testing.assert_allclose(res.qacc, 0.0, atol=1e-9)
    assert res.efc_force[0] == pytest.approx(9.81, rel=1e-9)
    # Drake's SAP regularization: R_n = 1/(h k (h + tau)); near-rigid floor w/(4 pi^2) not active here
    assert problem.efc_R[0] == pytest.approx(1 / (1e-3 * 1e4 * (1e-3 + 0.1)))
    assert problem.efc_R[1] == pytest.approx(1e-3 * np.sqrt(3) / 3)  # sigma * w, w = |I/m|_F / 3


def test_sap_sliding_sphere_matches_pydrake_step_by_step():
    """A 1 kg sphere (r = 5 cm) launched sideways at 1 m/s on a half-space, Drake point contact
    (stiffness 2e4 per geometry, relaxation_time 0.05 s each, mu 0.5), SAP, h = 1 ms. From every
    state of Drake's own trajectory, our kernels predict Drake's next velocity. The convex
    formulation's normal/friction coupling makes the sliding sphere glide (it leaves the ground for a
    while), in Drake and here alike."""
    require_pydrake()
    from pydrake.geometry import AddContactMaterial, HalfSpace, ProximityProperties, Sphere
    from pydrake.math import RigidTransform
    from pydrake.multibody.plant import AddMultibodyPlant, CoulombFriction, MultibodyPlantConfig
    from pydrake.multibody.tree import SpatialInertia, UnitInertia
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder

    m, rad, h, k_geom, tau_geom, mu = 1.0, 0.05, 1e-3, 2e4, 0.05, 0.5
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlant(MultibodyPlantConfig(time_step=h, discrete_contact_approximation="sap",
                                                      contact_model="point"), builder)
    body = plant.AddRigidBody("ball", SpatialInertia(m, np.zeros(3), UnitInertia.SolidSphere(rad)))
    for owner, shape, name in ((body, Sphere(rad), "ball"), (plant.world_body(), HalfSpace(), "ground")):
        props = ProximityProperties()
        AddContactMaterial(dissipation=None, point_stiffness=k_geom, friction=CoulombFriction(mu, mu), properties=props)
        props.AddProperty("material", "relaxation_time", tau_geom)
        plant.RegisterCollisionGeometry(owner, RigidTransform(), shape, name, props)
    plant.Finalize()
    diagram = builder.Build()
    sim = Simulator(diagram)
    ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    k_pair = k_geom / 2
    plant.SetPositions(ctx, [1, 0, 0, 0, 0, 0, rad - m * 9.81 / k_pair])
    plant.SetVelocities(ctx, [0, 0, 0, 1.0, 0, 0])
    states = [(plant.GetPositions(ctx).copy(), plant.GetVelocities(ctx).copy())]
    for n in range(150):
        sim.AdvanceTo((n + 1) * h)
        states.append((plant.GetPositions(ctx).copy(), plant.GetVelocities(ctx).copy()))

    inertia = 0.4 * m * rad**2
    M = np.diag([inertia] * 3 + [m] * 3)  # Drake's free body: v = [w_WB; v_WB]
    a0 = np.array([0, 0, 0, 0, 0, -9.81])
    R_CW = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]])  # rows: normal (+z), two tangents
    ncontact = 0
    for (q, v), (_, v_next) in zip(states[:-1], states[1:]):
        depth = rad - q[6]
        if depth <= 0:
            np.testing.assert_allclose(v_next, v + h * a0, atol=1e-12)
            continue
        ncontact += 1
        r = np.array([0.0, 0.0, -(rad - depth / 2)])  # contact point: midpoint of the witness points
        rx = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        Jc = (R_CW @ np.hstack([-rx, np.eye(3)]))[None]
        problem = SapContactProblem(Jc, [-depth], v, [k_pair], [2 * tau_geom], [mu], DelassusDiagonal(Jc, M), h)
        res = SolveConstraints(problem, M, a0, tolerance=1e-14)
        np.testing.assert_allclose(v + h * res.qacc, v_next, rtol=0, atol=1e-6)
    assert ncontact > 20
    assert max(q[6] for q, _ in states) > rad + 1e-3  # it glided off the ground


def test_sap_bad_material_names_the_contact():
    with pytest.raises(ValueError, match="contact 'ball/floor': stiffness = -5"):
        SapContactProblem(np.zeros((1, 3, 3)), [0.0], np.zeros(3), [-5.0], [0.1], [0.5], [1.0], 1e-3,
                          names=["ball/floor"])
    with pytest.raises(ValueError, match="contact #0: mu = -0.5"):
        SapContactProblem(np.zeros((1, 3, 3)), [0.0], np.zeros(3), [1e4], [0.1], [-0.5], [1.0], 1e-3)
