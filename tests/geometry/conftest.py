"""Fixtures for geometry tests: a MuJoCo two-geom scene builder used as the contact oracle."""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_mujoco

_TYPES = ["plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]


def _quat_wxyz(R: np.ndarray) -> list:
    from scipy.spatial.transform import Rotation

    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return [w, x, y, z]


@pytest.fixture(scope="session")
def mujoco_contacts():
    """f(t1, s1, (p1, R1), t2, s2, (p2, R2), margin) -> list of (dist, pos, normal, frame 3x3) from
    mujoco.mj_collision on a two-geom scene (geom1 in the world if it is a plane, else free)."""
    mujoco = require_mujoco()
    models = {}

    def model(t1, s1, t2, s2, margin):
        key = (t1, tuple(s1), t2, tuple(s2), margin)
        if key not in models:
            def geom(t, s, name):
                return (f'<geom name="{name}" type="{_TYPES[t]}" size="{" ".join(repr(float(x)) for x in s)}" '
                        f'margin="{margin / 2!r}"/>')
            first = geom(t1, s1, "g1") if t1 == 0 else f'<body name="b1"><freejoint/>{geom(t1, s1, "g1")}</body>'
            xml = (f'<mujoco><option><flag gravity="disable"/></option><worldbody>{first}'
                   f'<body name="b2"><freejoint/>{geom(t2, s2, "g2")}</body></worldbody></mujoco>')
            models[key] = mujoco.MjModel.from_xml_string(xml)
        return models[key]

    def contacts(t1, s1, X1, t2, s2, X2, margin=0.0):
        m = model(t1, s1, t2, s2, margin)
        d = mujoco.MjData(m)
        q = []
        for t, (p, R) in ((t1, X1), (t2, X2)):
            if t != 0:
                q += list(p) + _quat_wxyz(R)
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        return [(c.dist, c.pos.copy(), c.frame[:3].copy(), c.frame.reshape(3, 3).copy()) for c in d.contact[:d.ncon]]

    return contacts
