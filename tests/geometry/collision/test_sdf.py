"""SDF collision kernels: shape fields, Halton points, a sphere resting in the bowl, MuJoCo's contacts."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry.collision.sdf import (BOX, CAPSULE, CYLINDER, ELLIPSOID, SDF_BOWL, SDF_TORUS, SPHERE, USER,
                                            SdfShape, halton, primitive_aabb, sdf_collide,
                                            shape_distance, shape_gradient)
from oracles import require_mujoco

H, R, T = 0.4, 1.0, 0.02  # MuJoCo's bowl defaults: rim height, sphere radius, wall half-thickness
BOWL = SdfShape(SDF_BOWL, np.array([H, R, T]), np.array([0, 0, 0, R + T, R + T, R + T]))
BALL = 0.1
I3 = np.eye(3)


def _rot(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def test_halton_matches_radical_inverse():
    assert [halton(i, 2) for i in range(5)] == [0.0, 0.5, 0.25, 0.75, 0.125]
    assert halton(5, 3) == pytest.approx(2 / 3 + 1 / 9)
    mujoco = require_mujoco()
    for i in (0, 1, 7, 33, 100):
        for b in (2, 3, 5):
            assert halton(i, b) == mujoco.mju_Halton(i, b)


def test_bowl_and_torus_fields_match_the_geometry():
    # bowl: inside the wall near the bottom, distance = |(|p| - R)| - T
    for p, expect in (((0, 0, -1.0), -T), ((0, 0, -0.5), 0.5 - T), ((0, 0, -1.1), 0.1 - T),
                      ((0.3, 0, -0.95), abs(np.hypot(0.3, 0.95) - R) - T)):
        assert shape_distance(SDF_BOWL, BOWL.params, np.array(p, float)) == pytest.approx(expect, abs=1e-14)
    # above the rim plane the distance is to the rim circle (radius w at height H)
    w = np.sqrt(R * R - H * H)
    assert shape_distance(SDF_BOWL, BOWL.params, np.array([0, 0, 1.0])) == pytest.approx(np.hypot(w, 1 - H) - T)
    torus = np.array([0.35, 0.15])
    assert shape_distance(SDF_TORUS, torus, np.array([0.35, 0, 0])) == pytest.approx(-0.15)
    assert shape_distance(SDF_TORUS, torus, np.array([0, 0, 0.0])) == pytest.approx(0.2)
    assert shape_distance(SDF_TORUS, torus, np.array([0.6, 0, 0.0])) == pytest.approx(0.1)


@pytest.mark.parametrize("kind,prm", [(SDF_BOWL, [H, R, T]), (SDF_TORUS, [0.35, 0.15]), (SPHERE, [0.3, 0, 0]),
                                      (CAPSULE, [0.1, 0.3, 0]), (BOX, [0.2, 0.3, 0.4]), (CYLINDER, [0.2, 0.3, 0])])
def test_gradients_match_finite_differences(kind, prm):
    rng = np.random.default_rng(3)
    prm = np.asarray(prm, float)
    for _ in range(40):
        x = rng.uniform(-0.8, 0.8, 3)
        g = shape_gradient(kind, prm, x)
        fd = np.array([(shape_distance(kind, prm, x + e) - shape_distance(kind, prm, x - e)) / 2e-6
                       for e in 1e-6 * np.eye(3)])
        if kind == BOX and np.all(np.abs(x) < prm):  # MuJoCo's box gradient inside: the nearest face normal
            assert np.count_nonzero(g) == 1
            continue
        np.testing.assert_allclose(g, fd, atol=2e-5)


def test_ellipsoid_field_as_mujoco():
    """MuJoCo's ellipsoid field k0 (k0 - 1) / k1 and its (approximate) gradient formula, kept as MuJoCo has them."""
    s = np.array([0.2, 0.3, 0.4])
    x = np.array([0.3, -0.1, 0.2])
    a, b = x / s, x / s ** 2
    k0, k1 = np.linalg.norm(a), np.linalg.norm(b)
    assert shape_distance(ELLIPSOID, s, x) == pytest.approx(k0 * (k0 - 1) / k1)
    np.testing.assert_allclose(shape_gradient(ELLIPSOID, s, x), a * (2 * k0 - 1) / k1 + k0 * (k0 - 1) * b / k1 ** 2)
    assert shape_distance(ELLIPSOID, s, np.array([0.2, 0, 0])) == pytest.approx(0.0, abs=1e-15)


def test_primitive_aabb_as_mujoco_geom_aabb():
    np.testing.assert_array_equal(primitive_aabb(SPHERE, [0.1]), [0, 0, 0, 0.1, 0.1, 0.1])
    np.testing.assert_array_equal(primitive_aabb(CAPSULE, [0.1, 0.3]), [0, 0, 0, 0.1, 0.1, 0.4])
    np.testing.assert_array_equal(primitive_aabb(BOX, [1, 2, 3]), [0, 0, 0, 1, 2, 3])
    with pytest.raises(ValueError, match="no finite bounding box"):
        primitive_aabb(0, [0, 0, 0])


def _inner_lens_normal(x, c):
    """Exact mid-surface normal (from the ball into the bowl wall) at x for a ball centred at c."""
    n_ball = (x - c) / np.linalg.norm(x - c)
    n_wall = x / np.linalg.norm(x)  # outward normal of the inner wall surface points away from the centre
    n = n_ball + n_wall
    return n / np.linalg.norm(n)


@pytest.mark.parametrize("offset", [np.zeros(3), np.array([0.05, 0.02, 0.0])])
def test_sphere_resting_in_bowl_against_exact_geometry(offset):
    c = np.array([0.0, 0.0, -(R - T - BALL) - 0.001]) + offset  # 1 mm below contact with the inner wall
    depth = np.linalg.norm(c) + BALL - (R - T)  # exact penetration along the radial line
    nhat = c / np.linalg.norm(c)
    pos, n, d = sdf_collide(SdfShape.Primitive(SPHERE, [BALL]), (I3, c), BOWL, (I3, np.zeros(3)))
    assert 5 <= len(d) <= 50
    assert np.all(d <= 0) and np.all(d >= -depth / 2 - 1e-12)  # the intersection field is >= -depth/2
    for k in range(len(d)):
        x = pos[k] - 0.5 * d[k] * n[k]  # the descent point (MuJoCo 4 places pos at x + dist/2 * normal)
        a = abs(np.linalg.norm(x) - R) - T
        b = np.linalg.norm(x - c) - BALL
        assert d[k] == pytest.approx(max(a, b), abs=1e-12)
        np.testing.assert_allclose(n[k], _inner_lens_normal(x, c), atol=1e-6)
    k = int(np.argmin(d))  # the deepest contact sits at the exact contact
    assert d[k] == pytest.approx(-depth / 2, abs=0.3 * depth)
    assert n[k] @ nhat > np.cos(np.radians(5))
    mid = nhat * (np.linalg.norm(c) + BALL + R - T) / 2
    assert np.linalg.norm(pos[k] - mid) < 0.015
    if not offset.any():  # on the axis: symmetric and well converged
        assert d[k] == pytest.approx(-depth / 2, abs=3e-5)
        assert n[k] @ nhat > np.cos(np.radians(1))
        assert np.linalg.norm(pos[k] - mid) < 3e-3


def test_no_contact_when_apart_and_pose_invariance():
    sph = SdfShape.Primitive(SPHERE, [BALL])
    c = np.array([0.0, 0.0, -0.5])  # floating inside the bowl
    assert len(sdf_collide(sph, (I3, c), BOWL, (I3, np.zeros(3)))[2]) == 0
    c = np.array([0.0, 0.0, -0.881])
    pos, n, d = sdf_collide(sph, (I3, c), BOWL, (I3, np.zeros(3)))
    # move and rotate the whole scene: contacts move with it
    Rw, pw = _rot([1, 2, 3], 0.7), np.array([0.3, -1.0, 2.0])
    pos2, n2, d2 = sdf_collide(sph, (Rw, Rw @ c + pw), BOWL, (Rw, pw))
    assert len(d2) == len(d)
    # (the bowl's gradient is MuJoCo's 1e-8 forward difference: round-off enters at ~1e-8)
    np.testing.assert_allclose(d2, d, atol=1e-7)
    np.testing.assert_allclose(n2, n @ Rw.T, atol=1e-5)
    np.testing.assert_allclose(pos2, pos @ Rw.T + pw, atol=1e-6)


def test_python_path_matches_compiled_path():
    sph = SdfShape.Primitive(SPHERE, [BALL])
    user_bowl = SdfShape.User(BOWL.Distance, BOWL.Gradient, BOWL.aabb)
    c = np.array([0.05, 0.02, -0.881])
    fast = sdf_collide(sph, (I3, c), BOWL, (I3, np.zeros(3)))
    slow = sdf_collide(sph, (I3, c), user_bowl, (I3, np.zeros(3)))
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-12)
    with pytest.raises(ValueError, match="shape 2 must be an SDF"):
        sdf_collide(BOWL, (I3, c), sph, (I3, np.zeros(3)))
    with pytest.raises(ValueError, match="aabb must be"):
        SdfShape.User(BOWL.Distance, BOWL.Gradient, [0, 0, 0, -1, 1, 1])
    assert user_bowl.kind == USER


def test_torus_vs_ball_on_its_tube():
    torus = SdfShape(SDF_TORUS, np.array([0.35, 0.15]), np.array([0, 0, 0, 0.5, 0.5, 0.15]))
    c = np.array([0.35, 0.0, 0.15 + BALL - 0.002])  # resting on top of the tube, 2 mm deep
    pos, n, d = sdf_collide(SdfShape.Primitive(SPHERE, [BALL]), (I3, c), torus, (I3, np.zeros(3)))
    k = int(np.argmin(d))
    assert d[k] == pytest.approx(-0.001, abs=2e-4)
    assert n[k] @ np.array([0, 0, -1.0]) > np.cos(np.radians(3))  # from the ball down into the torus


def _bowl_model(c):
    return f"""<mujoco>
  <extension><plugin plugin="mujoco.sdf.bowl"><instance name="bowl">
    <config key="height" value="{H}"/><config key="radius" value="{R}"/><config key="thickness" value="{T}"/>
  </instance></plugin></extension>
  <asset><mesh name="bowl"><plugin instance="bowl"/></mesh></asset>
  <worldbody><geom type="sdf" name="bowl" mesh="bowl"><plugin instance="bowl"/></geom>
    <body pos="{c[0]} {c[1]} {c[2]}"><freejoint/><geom type="sphere" size="{BALL}"/></body></worldbody>
</mujoco>"""


@pytest.mark.parametrize("c", [(0.05, 0.02, -0.881), (0.0, 0.0, -0.8815), (-0.1, 0.2, -0.86)])
def test_sphere_in_bowl_matches_mujoco(c):
    mujoco = require_mujoco()
    m = mujoco.MjModel.from_xml_string(_bowl_model(c))
    data = mujoco.MjData(m)
    mujoco.mj_forward(m, data)
    assert tuple(data.contact.geom[0]) == (1, 0)  # MuJoCo's order: the sphere first, the SDF second
    pos, n, d = sdf_collide(SdfShape.Primitive(SPHERE, [BALL]), (I3, data.geom_xpos[1]), BOWL, (I3, np.zeros(3)),
                            initpoints=m.opt.sdf_initpoints, iterations=m.opt.sdf_iterations)
    assert len(d) == data.ncon
    # same starting points, same descent, same contacts (up to round-off in the bowl's finite-difference gradient)
    np.testing.assert_allclose(d, data.contact.dist, atol=1e-9)
    np.testing.assert_allclose(n, data.contact.frame[:, :3], atol=1e-6)
    np.testing.assert_allclose(pos, data.contact.pos, atol=1e-8)
