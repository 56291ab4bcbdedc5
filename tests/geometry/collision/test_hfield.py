"""Height-field contacts (geometry/collision/hfield.py) against MuJoCo's mjc_ConvexHField on the same scenes,
the exact prism penetration depths, the point-query helpers and the CollisionModel plumbing."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull
from scipy.spatial.transform import Rotation

from oracles import require_mujoco

from mallard.geometry import HeightField
from mallard.geometry.collision import CollisionModel, collide
from mallard.geometry.collision.hfield import MAXCONPAIR, hfield_elevation, hfield_prism, pack_height_field

HFIELD, SPHERE, CAPSULE, BOX = 1, 2, 3, 6
NOVERTS = np.zeros((0, 3))
SIZE = (0.6, 0.5, 0.15, 0.05)  # rx, ry, elevation z, base
ELEV = np.random.default_rng(7).uniform(0.0, 1.0, (6, 7)).astype(np.float32)  # rows from +y down, as in MJCF


def _scene(geom: str, elev=ELEV, size=SIZE) -> str:
    nrow, ncol = elev.shape
    values = " ".join(repr(float(x)) for x in elev.reshape(-1))
    return f"""<mujoco><asset><hfield name="h" nrow="{nrow}" ncol="{ncol}" size="{' '.join(map(str, size))}"
        elevation="{values}"/></asset>
        <worldbody><geom type="hfield" hfield="h" pos="0.1 -0.05 0.02" euler="4 -3 20"/>
        <body name="b"><freejoint/>{geom}</body></worldbody></mujoco>"""


class Oracle:
    """One MuJoCo scene (height field + one free geometry) and the same contacts from mallard's kernel."""

    def __init__(self, geom: str, **kw):
        mujoco = require_mujoco()
        self.mj = mujoco
        self.m = mujoco.MjModel.from_xml_string(_scene(geom, **kw))
        self.d = mujoco.MjData(self.m)
        self.grid = self.m.hfield_data.reshape(self.m.hfield_nrow[0], self.m.hfield_ncol[0]).astype(float)
        self.vh = pack_height_field(self.grid, self.m.hfield_size[0])

    def set(self, p_HB, quat):
        """Place the body at p_HB in the height-field frame, orientation quat (w, x, y, z) in that frame."""
        self.mj.mj_kinematics(self.m, self.d)
        R_WH = self.d.geom_xmat[0].reshape(3, 3).copy()
        p_WH = self.d.geom_xpos[0].copy()
        self.d.qpos[:3] = p_WH + R_WH @ np.asarray(p_HB, float)
        q_WH = np.zeros(4)
        self.mj.mju_mat2Quat(q_WH, R_WH.reshape(-1))
        q = np.zeros(4)
        self.mj.mju_mulQuat(q, q_WH, np.asarray(quat, float))
        self.d.qpos[3:7] = q
        self.mj.mj_forward(self.m, self.d)

    def reference(self):
        return np.array([[c.dist, *c.pos, *c.frame[:3]] for c in self.d.contact[:self.d.ncon]]).reshape(-1, 7)

    def mine(self):
        out = np.zeros((MAXCONPAIR + 8, 10))
        margin = float(self.m.geom_margin[0] + self.m.geom_margin[1])
        n = collide(out, 0, margin, HFIELD, np.asarray(self.m.hfield_size[0][:3], float), self.d.geom_xpos[0].copy(),
                    self.d.geom_xmat[0].reshape(3, 3).copy(), self.vh, int(self.m.geom_type[1]),
                    self.m.geom_size[1].copy(), self.d.geom_xpos[1].copy(), self.d.geom_xmat[1].reshape(3, 3).copy(),
                    NOVERTS, np.zeros(0), np.zeros(0))
        return out[:n, :7]

    def surface(self, x, y):
        """Surface height of the triangulated grid at (x, y) of the height-field frame."""
        return hfield_elevation(self.vh, x, y)[0]


def _random_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_sphere_contacts_equal_mujoco(margin):
    """Spheres whose center is above the surface: MuJoCo's point-prism distance less the radius, to 1e-9;
    with a margin, also the prisms within it (positive distances)."""
    o = Oracle(f'<geom type="sphere" size="0.07" margin="{margin}"/>')
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(40):
        x, y = rng.uniform(-0.55, 0.55), rng.uniform(-0.45, 0.45)
        z = o.surface(x, y) + 0.07 * rng.uniform(0.2, 1.1)  # from 0.056 m deep to 0.007 m clear of the surface
        o.set([x, y, z], [1, 0, 0, 0])
        ref, mine = o.reference(), o.mine()
        assert len(mine) == len(ref)
        np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-9)
        seen += len(ref)
    assert seen > 40  # several prisms per sphere


@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_capsule_contacts_equal_mujoco(margin):
    o = Oracle(f'<geom type="capsule" size="0.04 0.08" margin="{margin}"/>')
    rng = np.random.default_rng(2)
    seen = 0
    for _ in range(40):
        q = _random_quat(rng)
        axis = Rotation.from_quat(q[[1, 2, 3, 0]]).as_matrix()[:, 2]
        x, y = rng.uniform(-0.45, 0.45), rng.uniform(-0.35, 0.35)
        # lift the segment until its whole core clears the surface, then lower it by part of the radius
        ts = np.linspace(-0.08, 0.08, 33)
        lift = max(o.surface(x + t * axis[0], y + t * axis[1]) - t * axis[2] for t in ts)
        o.set([x, y, lift + 0.04 * rng.uniform(0.3, 1.1)], q)
        ref, mine = o.reference(), o.mine()
        assert len(mine) == len(ref)
        np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-9)
        seen += len(ref)
    assert seen > 40


def _prism_depth(P, Q):
    """Minimum translation distance of two overlapping convex polytopes by the separating-axis test."""
    axes = list(ConvexHull(P).equations[:, :3]) + list(ConvexHull(Q).equations[:, :3])
    for a in (P[i] - P[j] for i in range(len(P)) for j in range(i)):
        for b in (Q[i] - Q[j] for i in range(len(Q)) for j in range(i)):
            c = np.cross(a, b)
            if np.linalg.norm(c) > 1e-9:
                axes.append(c / np.linalg.norm(c))
    return min(min(max(P @ n) - min(Q @ n), max(Q @ n) - min(P @ n)) for n in axes)


def test_box_contacts_are_exact_prism_penetrations():
    """A box against each prism it overlaps: one contact per prism, its depth the exact minimum translation
    distance (MuJoCo's contact count; MuJoCo's native-CCD depth for box-prism pairs is not the minimum
    translation distance, see the report)."""
    o = Oracle('<geom type="box" size="0.06 0.05 0.04"/>')
    rng = np.random.default_rng(3)
    size = o.m.geom_size[1]
    corners = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]) * size
    rx, ry, ez, base = o.m.hfield_size[0]
    nrow, ncol = o.grid.shape
    dx, dy = 2 * rx / (ncol - 1), 2 * ry / (nrow - 1)

    def vertex(r, c):
        return [dx * c - rx, dy * r - ry, o.grid[r, c] * ez]

    for _ in range(6):
        q = _random_quat(rng)
        x, y = rng.uniform(-0.4, 0.4), rng.uniform(-0.3, 0.3)
        o.set([x, y, o.surface(x, y) + rng.uniform(0.0, 0.04)], q)
        R_WH = o.d.geom_xmat[0].reshape(3, 3)
        p_HB = R_WH.T @ (o.d.geom_xpos[1] - o.d.geom_xpos[0])
        box = corners @ (R_WH.T @ o.d.geom_xmat[1].reshape(3, 3)).T + p_HB
        depths = []
        for r in range(nrow - 1):
            for c in range(ncol - 1):
                for tri in ([(r, c), (r + 1, c), (r + 1, c + 1)], [(r, c), (r, c + 1), (r + 1, c + 1)]):
                    top = np.array([vertex(*v) for v in tri])
                    if np.any(top[:, :2].min(axis=0) > box[:, :2].max(axis=0)) or \
                            np.any(top[:, :2].max(axis=0) < box[:, :2].min(axis=0)):
                        continue  # footprints apart: no overlap
                    bottom = top.copy()
                    bottom[:, 2] = -base
                    d = _prism_depth(np.vstack([top, bottom]), box)
                    if d > 1e-9:
                        depths.append(d)
        mine = o.mine()
        assert len(mine) == len(depths) == len(o.reference())
        np.testing.assert_allclose(sorted(-mine[:, 0]), sorted(depths), rtol=0, atol=1e-9)
        np.testing.assert_allclose(np.linalg.norm(mine[:, 4:7], axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("geom", ['<geom type="ellipsoid" size="0.05 0.07 0.04"/>',
                                  '<geom type="cylinder" size="0.05 0.04"/>'])
def test_smooth_convex_contacts_touch_the_prisms_mujoco_touches(geom):
    """Ellipsoids and cylinders (GJK/EPA against each prism): MuJoCo's contact count, and each contact's depth
    the exact penetration of the shape into its prism (checked by pushing the shape out along the normal)."""
    o = Oracle(geom)
    rng = np.random.default_rng(6)
    for _ in range(8):
        x, y = rng.uniform(-0.4, 0.4), rng.uniform(-0.3, 0.3)
        o.set([x, y, o.surface(x, y) + rng.uniform(0.0, 0.04)], _random_quat(rng))
        ref, mine = o.reference(), o.mine()
        assert len(mine) == len(ref)
        assert np.all(mine[:, 0] < 0) and np.allclose(np.linalg.norm(mine[:, 4:7], axis=1), 1.0, atol=1e-12)
        if len(ref):
            np.testing.assert_allclose(np.sort(mine[:, 0]), np.sort(ref[:, 0]), rtol=0, atol=5e-3)


def test_box_flat_on_flat_height_field_equals_mujoco():
    o = Oracle('<geom type="box" size="0.05 0.04 0.03"/>', elev=np.zeros((2, 2), np.float32),
               size=(0.5, 0.5, 0.1, 0.05))
    for pen in (1e-4, 1e-3, 4e-3):
        o.set([0.2, -0.2, 0.03 - pen], [1, 0, 0, 0])
        ref, mine = o.reference(), o.mine()
        assert len(ref) == len(mine) == 1
        # depth and normal are MuJoCo's; face on face the point is any point of the overlap's mid-plane (both
        # engines pick a different one), so only its height along the normal is compared
        np.testing.assert_allclose(mine[0, [0, 4, 5, 6]], ref[0, [0, 4, 5, 6]], rtol=0, atol=1e-9)
        p_WH = o.d.geom_xpos[0]
        assert ref[0, 4:7] @ (mine[0, 1:4] - p_WH) == pytest.approx(ref[0, 4:7] @ (ref[0, 1:4] - p_WH), abs=1e-9)


def test_contact_count_is_capped_as_in_mujoco():
    """A large box pressed into a fine bumpy grid touches more prisms than MuJoCo keeps (mjMAXCONPAIR = 50)."""
    elev = np.random.default_rng(4).uniform(0.0, 1.0, (15, 15)).astype(np.float32)
    o = Oracle('<geom type="box" size="0.4 0.4 0.05"/>', elev=elev, size=(0.5, 0.5, 0.02, 0.05))
    o.set([0.0, 0.0, 0.06], [1, 0, 0, 0])
    ref, mine = o.reference(), o.mine()
    assert len(ref) == len(mine) == MAXCONPAIR


def test_far_and_outside_geometries_have_no_contacts():
    o = Oracle('<geom type="sphere" size="0.05"/>')
    for p in ([0.0, 0.0, 0.3], [0.8, 0.0, 0.05], [0.0, -0.7, 0.05], [0.0, 0.0, -0.2]):
        o.set(p, [1, 0, 0, 0])
        assert len(o.reference()) == len(o.mine()) == 0


def test_elevation_and_prism_queries():
    heights = np.array([[0.0, 0.5, 1.0], [0.25, 0.75, 0.5]])
    size = np.array([1.0, 0.5, 0.2, 0.1])
    vh = pack_height_field(heights, size)
    # grid points: the elevation times z; row 0 at y = -0.5, column 0 at x = -1
    for r in range(2):
        for c in range(3):
            z, nx, ny, nz, inside = hfield_elevation(vh, -1.0 + c, -0.5 + r)
            assert inside and z == pytest.approx(heights[r, c] * 0.2, abs=1e-15)
    # inside a triangle the surface is the plane through its corners, with that plane's upward unit normal
    x, y = -0.8, -0.1  # cell (0, 0), above the (0,0)-(1,1) diagonal: corners (c, r) = (0,0), (0,1), (1,1)
    assert hfield_prism(vh, x, y) == (0, 0, 0)
    a, b, c = np.array([-1, -0.5, 0.0]), np.array([-1, 0.5, 0.05]), np.array([0, 0.5, 0.15])
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n)
    z, nx, ny, nz, inside = hfield_elevation(vh, x, y)
    assert z == pytest.approx(a[2] - (n[0] * (x - a[0]) + n[1] * (y - a[1])) / n[2], abs=1e-15)
    np.testing.assert_allclose([nx, ny, nz], n * np.sign(n[2]), atol=1e-15)
    assert hfield_prism(vh, -0.2, -0.4) == (0, 0, 1)
    assert hfield_prism(vh, 1.0, 0.5) == (0, 1, 0)  # the far corner belongs to the last cell
    assert hfield_prism(vh, 1.1, 0.0) == (-1, -1, -1)
    z, nx, ny, nz, inside = hfield_elevation(vh, 3.0, -2.0)  # off the grid: the nearest grid point, +z
    assert not inside and z == pytest.approx(1.0 * 0.2) and (nx, ny, nz) == (0.0, 0.0, 1.0)


def _model(types, sizes):
    n = len(types)
    zeros = np.zeros(n, np.int64)
    return CollisionModel(types, sizes, np.arange(n), np.zeros((0, 3)), zeros.copy(), zeros.copy(), np.zeros((0, 4)),
                          zeros.copy(), zeros.copy(), np.zeros(n), np.ones(n), np.ones(n), [])


def test_collision_model_height_field_rows():
    hf = HeightField(np.array([[0.0, 1.0], [1.0, 0.0]]), [0.5, 0.5, 0.1, 0.05])
    model = _model([HFIELD, SPHERE], [hf._kernel_size(), [0.05, 0, 0]])
    R = np.stack([np.eye(3)] * 2)
    p = np.array([[0.0, 0.0, 0.0], [0.1, -0.3, 0.06]])
    with pytest.raises(RuntimeError, match="set_height_fields"):
        model.contacts(R, p)
    with pytest.raises(ValueError, match="row 1 is not a height-field"):
        model.set_height_fields({1: hf})
    model.set_height_fields({0: hf})
    dist, pos, normal, _, g1, g2 = model.contacts(R, p)
    assert len(dist) >= 1 and np.all(dist < 0) and list(g1) == [0] * len(dist) and list(g2) == [1] * len(dist)
    z = hfield_elevation(pack_height_field(hf.heights(), hf.size()), 0.1, -0.3)[0]
    assert -dist.min() == pytest.approx(0.05 - (0.06 - z) * normal[np.argmin(dist), 2], abs=1e-12)
    with pytest.raises(RuntimeError, match="HeightField"):
        model.pair_distances(R, p, np.array([[0, 1]]))


def test_height_field_shape():
    hf = HeightField([[2.0, 4.0], [6.0, 2.0]], [1.0, 2.0, 0.5, 0.1])
    np.testing.assert_allclose(hf.heights(), [[0.0, 0.5], [1.0, 0.0]])
    assert hf.nrow() == hf.ncol() == 2 and hf == HeightField([[0.0, 0.5], [1.0, 0.0]], [1.0, 2.0, 0.5, 0.1])
    with pytest.raises(ValueError, match="at least 2x2"):
        HeightField([[1.0, 2.0]], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="4 values"):
        HeightField(np.zeros((2, 2)), [1, 1, 1])
    with pytest.raises(ValueError, match="finite and > 0"):
        HeightField(np.zeros((2, 2)), [1, 1, 1, 0])
