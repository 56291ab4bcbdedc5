"""Contacts of the narrow phase against MuJoCo's mj_collision on the same two-geom scenes.

Where MuJoCo uses an analytic routine (planes, spheres, capsules, cylinders against planes and
spheres, boxes) every contact's dist, position and frame must agree to 1e-9; so must the general convex
pairs, whose GJK/EPA are MuJoCo 4's (a sphere's or capsule's shallow contact to 1e-5, see below).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mallard.geometry.collision import collide, mujoco_contact_frame

PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX = 0, 2, 3, 4, 5, 6
NOVERTS = np.zeros((0, 3))


def _size(rng, t):
    if t == PLANE:
        return [0.0, 0.0, 1.0]
    if t == SPHERE:
        return [rng.uniform(0.1, 0.5)]
    if t in (CAPSULE, CYLINDER):
        return [rng.uniform(0.1, 0.3), rng.uniform(0.1, 0.5)]
    return list(rng.uniform(0.1, 0.45, 3))


def ours(t1, s1, X1, t2, s2, X2, margin=0.0):
    S1 = np.zeros(3)
    S1[:len(s1)] = s1
    S2 = np.zeros(3)
    S2[:len(s2)] = s2
    out = np.zeros((16, 10))
    n = collide(out, 0, margin, t1, S1, X1[0], X1[1], NOVERTS, t2, S2, X2[0], X2[1], NOVERTS, np.zeros(0), np.zeros(0))
    return out[:n]


def assert_same(mine, ref, tol=1e-9):
    assert len(mine) == len(ref), f"{len(mine)} contacts, MuJoCo has {len(ref)}"
    if not len(ref):
        return
    frames = mujoco_contact_frame(mine[:, 4:7], mine[:, 7:10])
    for k, (dist, pos, normal, frame) in enumerate(ref):
        assert mine[k, 0] == pytest.approx(dist, abs=tol)
        np.testing.assert_allclose(mine[k, 1:4], pos, atol=tol)
        np.testing.assert_allclose(mine[k, 4:7], normal, atol=tol)
        np.testing.assert_allclose(frames[k], frame, atol=tol)


ANALYTIC = [(PLANE, SPHERE), (PLANE, CAPSULE), (PLANE, CYLINDER), (PLANE, BOX), (SPHERE, SPHERE),
            (SPHERE, CAPSULE), (SPHERE, CYLINDER), (SPHERE, BOX), (CAPSULE, CAPSULE), (CAPSULE, BOX), (BOX, BOX)]


@pytest.mark.parametrize("t1,t2", ANALYTIC)
def test_random_configurations_equal_mujoco(mujoco_contacts, t1, t2):
    rng = np.random.default_rng(100 * t1 + t2)
    compared = 0
    for trial in range(80):
        s1, s2 = _size(rng, t1), _size(rng, t2)
        aligned = trial % 4 == 0  # parallel faces and axes
        R1 = np.eye(3) if (t1 == PLANE or aligned) else Rotation.random(random_state=rng).as_matrix()
        R2 = np.eye(3) if aligned else Rotation.random(random_state=rng).as_matrix()
        p1 = np.zeros(3) if t1 == PLANE else rng.uniform(-0.3, 0.3, 3)
        p2 = rng.uniform(-0.6, 0.6, 3)
        margin = 0.05 if trial % 2 else 0.0
        ref = mujoco_contacts(t1, s1, (p1, R1), t2, s2, (p2, R2), margin)
        assert_same(ours(t1, s1, (p1, R1), t2, s2, (p2, R2), margin), ref)
        compared += len(ref) > 0
    assert compared >= 15


def _rot(axis, angle):
    return Rotation.from_rotvec(np.asarray(axis, float) * angle).as_matrix()


I3 = np.eye(3)
SPECIAL = {
    # name: (t1, s1, X1, t2, s2, X2, expected number of contacts)
    "sphere-sphere touching": (SPHERE, [0.2], ([0, 0, 0], I3), SPHERE, [0.3], ([0.5, 0, 0], I3), 1),
    "sphere-sphere concentric": (SPHERE, [0.2], ([0, 0, 0], I3), SPHERE, [0.3], ([0, 0, 0], _rot([1, 0, 0], 0.3)), 1),
    "box resting flat on plane": (PLANE, [0, 0, 1], ([0, 0, 0], I3), BOX, [0.2, 0.3, 0.1], ([0, 0, 0.099], I3), 4),
    "box corner down on plane": (PLANE, [0, 0, 1], ([0, 0, 0], I3), BOX, [0.2, 0.2, 0.2],
                                 ([0, 0, 0.3], _rot([1, 1, 0] / np.sqrt(2), 0.9553166181245093)), 1),
    "capsule lying on plane": (PLANE, [0, 0, 1], ([0, 0, 0], I3), CAPSULE, [0.1, 0.4], ([0, 0, 0.09], _rot([1, 0, 0], np.pi / 2)), 2),
    "cylinder upright on plane": (PLANE, [0, 0, 1], ([0, 0, 0], I3), CYLINDER, [0.1, 0.2], ([0, 0, 0.19], I3), 3),
    "parallel capsules": (CAPSULE, [0.1, 0.3], ([0, 0, 0], I3), CAPSULE, [0.1, 0.3], ([0.15, 0, 0.1], I3), 2),
    "antiparallel capsules": (CAPSULE, [0.1, 0.3], ([0, 0, 0], I3), CAPSULE, [0.1, 0.3], ([0.15, 0, 0.1], _rot([1, 0, 0], np.pi)), 2),
    "crossed capsules": (CAPSULE, [0.1, 0.3], ([0, 0, 0], I3), CAPSULE, [0.1, 0.3], ([0, 0.15, 0], _rot([1, 0, 0], np.pi / 2)), 1),
    "sphere center inside box": (SPHERE, [0.1], ([0.05, 0.02, 0.0], I3), BOX, [0.2, 0.3, 0.4], ([0, 0, 0], I3), 1),
    "capsule along box face": (CAPSULE, [0.05, 0.2], ([0, 0, 0.24], _rot([0, 1, 0], np.pi / 2)), BOX, [0.3, 0.3, 0.2], ([0, 0, 0], I3), 2),
    "stacked boxes (parallel faces)": (BOX, [0.2, 0.2, 0.1], ([0, 0, 0], I3), BOX, [0.1, 0.1, 0.1], ([0.02, 0.01, 0.195], I3), 4),
    "rotated box on box face": (BOX, [0.3, 0.3, 0.1], ([0, 0, 0], I3), BOX, [0.1, 0.1, 0.1], ([0, 0, 0.195], _rot([0, 0, 1], 0.4)), 4),
    "box-box octagon clip": (BOX, [0.1, 0.1, 0.1], ([0, 0, 0], I3), BOX, [0.1, 0.1, 0.1], ([0, 0, 0.195], _rot([0, 0, 1], np.pi / 4)), 8),
    "box-box edge-edge": (BOX, [0.1, 0.1, 0.1], ([0, 0, 0], _rot([1, 0, 0], np.pi / 4)), BOX, [0.1, 0.1, 0.1],
                          ([0, 0, 0.275], _rot([0, 1, 0], np.pi / 4)), 1),
    "box-box deep": (BOX, [0.2, 0.2, 0.2], ([0, 0, 0], I3), BOX, [0.1, 0.15, 0.1], ([0.05, 0.02, 0.03], _rot([1, 2, 3] / np.sqrt(14), 0.7)), None),
}


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_configurations_equal_mujoco(mujoco_contacts, name):
    t1, s1, X1, t2, s2, X2, count = SPECIAL[name]
    X1 = (np.asarray(X1[0], float), X1[1])
    X2 = (np.asarray(X2[0], float), X2[1])
    ref = mujoco_contacts(t1, s1, X1, t2, s2, X2, 0.0)
    mine = ours(t1, s1, X1, t2, s2, X2)
    assert_same(mine, ref)
    if count is not None:
        assert len(mine) == count
    assert np.all(mine[:, 0] <= 1e-12)


def test_analytic_values_by_hand():
    # sphere on plane: depth 0.05, position midway, normal +z
    c = ours(PLANE, [0, 0, 1], (np.zeros(3), I3), SPHERE, [0.25], (np.array([1.0, 2.0, 0.2]), I3))
    np.testing.assert_allclose(c[0, :7], [-0.05, 1.0, 2.0, -0.025, 0, 0, 1], atol=1e-15)
    # separated spheres within the margin: positive dist, not reported without it
    c = ours(SPHERE, [0.1], (np.zeros(3), I3), SPHERE, [0.1], (np.array([0.0, 0.3, 0.0]), I3), margin=0.2)
    np.testing.assert_allclose(c[0, :7], [0.1, 0, 0.15, 0, 0, 1, 0], atol=1e-15)
    assert len(ours(SPHERE, [0.1], (np.zeros(3), I3), SPHERE, [0.1], (np.array([0.0, 0.3, 0.0]), I3))) == 0
    # edge-edge: two unit-ish boxes crossed, penetration along z by 0.01
    h = 0.1 * np.sqrt(2)
    c = ours(BOX, [0.1, 0.1, 0.1], (np.zeros(3), _rot([1, 0, 0], np.pi / 4)), BOX, [0.1, 0.1, 0.1],
             (np.array([0, 0, 2 * h - 0.01]), _rot([0, 1, 0], np.pi / 4)))
    assert len(c) == 1
    np.testing.assert_allclose(c[0, :7], [-0.01, 0, 0, h - 0.005, 0, 0, 1], atol=1e-12)


CONVEX = [(PLANE, ELLIPSOID), (SPHERE, ELLIPSOID), (CAPSULE, CYLINDER), (ELLIPSOID, BOX), (CYLINDER, CYLINDER),
          (CYLINDER, BOX), (ELLIPSOID, ELLIPSOID)]


@pytest.mark.parametrize("t1,t2", CONVEX)
def test_general_convex_pairs(mujoco_contacts, t1, t2):
    """GJK/EPA as MuJoCo 4 runs them (collision/ccd*.py): a pair's contact is MuJoCo's. Its depth agrees to
    round-off (EPA's, not the exact depth: MuJoCo stops within ccd_tolerance); its point and normal too, except
    that a sphere's or capsule's shallow contact (GJK on the shrunk point or segment) differs in the last bits of
    GJK's steps, which its flat witness region grows to ~1e-6. Where MuJoCo 4's multiccd adds a second contact
    (capsule/cylinder on a flat face) the pair is left out: that rule is not mirrored."""
    rng = np.random.default_rng(7 * t1 + t2)
    shrunk = t1 in (SPHERE, CAPSULE) or t2 in (SPHERE, CAPSULE)
    compared = 0
    for trial in range(25):
        s1, s2 = _size(rng, t1), _size(rng, t2)
        R1 = I3 if t1 == PLANE else Rotation.random(random_state=rng).as_matrix()
        R2 = Rotation.random(random_state=rng).as_matrix()
        p1 = np.zeros(3) if t1 == PLANE else rng.uniform(-0.2, 0.2, 3)
        p2 = rng.uniform(-0.5, 0.5, 3)
        mine = ours(t1, s1, (p1, R1), t2, s2, (p2, R2))
        ref = mujoco_contacts(t1, s1, (p1, R1), t2, s2, (p2, R2))
        if len(ref) > 1 and t1 != PLANE:
            continue
        assert len(mine) == len(ref), f"trial {trial}: {len(mine)} contacts, MuJoCo has {len(ref)}"
        for k, (dist, pos, normal, _frame) in enumerate(ref):
            assert mine[k, 0] == pytest.approx(dist, abs=1e-10)
            tol = 1e-5 if shrunk else 1e-9
            np.testing.assert_allclose(mine[k, 1:4], pos, atol=tol)
            np.testing.assert_allclose(mine[k, 4:7], normal, atol=tol)
            compared += 1
    assert compared >= 10
