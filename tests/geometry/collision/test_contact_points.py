"""CollisionModel.contact_points (the whole margin-inclusive contact query in one compiled call) against the
staged query it replaces: candidate pairs, narrow phase, contact frames and per-contact margins and gaps."""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from mallard.geometry.collision import mujoco_contact_frame
from mallard.geometry.collision.engine import CollisionModel

PLANE, SPHERE, CAPSULE, CYLINDER, BOX = 0, 2, 3, 5, 6


def _model(types, sizes, margins, contype=None, conaffinity=None, excluded=()):
    n = len(types)
    return CollisionModel(types, np.asarray(sizes, float), np.arange(n), np.zeros((0, 3)), np.zeros(n, np.int64),
                          np.zeros(n, np.int64), np.zeros((0, 4)), np.zeros(n, np.int64), np.zeros(n, np.int64),
                          margins, np.ones(n, np.int64) if contype is None else contype,
                          np.ones(n, np.int64) if conaffinity is None else conaffinity, list(excluded))


def _staged(model, R, p, gaps):
    dist, pos, normal, tangent, g1, g2 = model.contacts(R, p, use_margins=True)
    frame = mujoco_contact_frame(normal, tangent) if len(dist) else np.zeros((0, 3, 3))
    return dist, pos, frame, g1, g2, model.margins[g1] + model.margins[g2], gaps[g1] + gaps[g2]


def _assert_same(model, R, p, gaps):
    got = model.contact_points(R, p, gaps)
    ref = _staged(model, R, p, gaps)
    assert len(got) == len(ref)
    for a, b, name in zip(got, ref, ("dist", "pos", "frame", "geom1", "geom2", "margin", "gap")):
        np.testing.assert_array_equal(a, b, err_msg=name)
    return got


def test_mixed_primitives_on_a_plane_match_the_staged_query():
    rng = np.random.default_rng(4)
    types = [PLANE] + [SPHERE, CAPSULE, CYLINDER, BOX] * 4
    n = len(types)
    sizes = np.zeros((n, 3))
    for k, t in enumerate(types[1:], 1):
        sizes[k] = {SPHERE: [0.1, 0, 0], CAPSULE: [0.05, 0.12, 0], CYLINDER: [0.08, 0.1, 0],
                    BOX: [0.1, 0.07, 0.05]}[t]
    R = np.ascontiguousarray(Rotation.random(n, random_state=3).as_matrix())
    R[0] = np.eye(3)
    p = np.zeros((n, 3))
    p[1:, :2] = rng.uniform(-0.3, 0.3, (n - 1, 2))
    p[1:, 2] = rng.uniform(0.0, 0.25, n - 1)
    margins = rng.uniform(0.0, 0.01, n)
    gaps = rng.uniform(0.0, 0.002, n)
    contype = np.ones(n, np.int64)
    conaff = np.ones(n, np.int64)
    contype[5], conaff[5] = 2, 2  # pairs only with itself: no contact
    got = _assert_same(_model(types, sizes, margins, contype, conaff, excluded=[1 * n + 2]), R, p, gaps)
    assert got[0].shape[0] > 10 and 5 not in got[3] and 5 not in got[4]
    assert not np.any((got[3] == 1) & (got[4] == 2))  # the excluded pair


def test_many_overlapping_boxes_grow_the_contact_buffer():
    """Twelve boxes piled into each other: more contacts than the first buffer guess (4 per pair + 50)."""
    rng = np.random.default_rng(8)
    n = 12
    types = [BOX] * n
    sizes = np.tile([0.1, 0.1, 0.1], (n, 1))
    R = np.ascontiguousarray(Rotation.random(n, random_state=5).as_matrix())
    p = rng.uniform(-0.02, 0.02, (n, 3))
    got = _assert_same(_model(types, sizes, np.zeros(n)), R, p, np.zeros(n))
    assert got[0].shape[0] > 4 * (n * (n - 1) // 2) + 50


def test_no_pairs_give_empty_arrays():
    model = _model([SPHERE], [[0.1, 0, 0]], np.zeros(1))
    got = model.contact_points(np.eye(3)[None], np.zeros((1, 3)), np.zeros(1))
    assert [a.shape for a in got] == [(0,), (0, 3), (0, 3, 3), (0,), (0,), (0,), (0,)]
