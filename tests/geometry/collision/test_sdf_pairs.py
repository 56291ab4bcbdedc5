"""SDF against planes, meshes and height fields (geometry/collision/sdf_pairs.py): exact geometry and MuJoCo."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.geometry.collision.sdf import (SDF_BOWL, SDF_TORUS, SPHERE, SdfShape, hfield_triangles,
                                            sdf_hfield_collide, sdf_mesh_collide, sdf_plane_collide,
                                            sdf_triangles_collide)
from mallard.geometry.sdf_shape import SignedDistanceField
from oracles import require_mujoco

H, R, T = 0.4, 1.0, 0.02  # MuJoCo's bowl defaults
BOWL = SdfShape(SDF_BOWL, np.array([H, R, T]), np.array([0, 0, 0, R + T, R + T, R + T]))
R1, R2 = 0.35, 0.15
TORUS = SdfShape(SDF_TORUS, np.array([R1, R2]), np.array([0, 0, 0, R1 + R2, R1 + R2, R2]))
I3 = np.eye(3)
A = 0.1  # box half-size
BOX_V = np.array([[x, y, z] for z in (-A, A) for y in (-A, A) for x in (-A, A)])  # MuJoCo's vertex order


def _rot(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def _box_faces():
    from mallard.geometry.meshes import convex_hull

    v, f = convex_hull(BOX_V)
    return v, f


@pytest.fixture(scope="module")
def torus_hull():
    return SignedDistanceField(TORUS, name="torus")._hull_vertices()


def test_flat_torus_on_plane_rests_on_its_bottom_ring(torus_hull):
    z0 = R2 - 0.001  # 1 mm into the plane
    p = np.array([0.2, 0.1, z0])
    pos, n, d = sdf_plane_collide((I3, np.zeros(3)), torus_hull, (_rot([0, 0, 1], 0.4), p))
    assert len(d) == 4  # the support vertex and three more hull vertices, as MuJoCo 4.0
    np.testing.assert_allclose(n, np.tile([0, 0, 1.0], (4, 1)))
    assert d[0] == pytest.approx(-0.001, abs=5e-5)  # the support vertex: the surface mesh is accurate to ~grid^2
    assert np.all((d < 0) & (d >= d[0]))  # the others: hull vertices that also reach below the plane
    np.testing.assert_allclose(pos[:, 2], d / 2)
    rho = np.hypot(pos[:, 0] - p[0], pos[:, 1] - p[1])
    footprint = np.sqrt(R2 ** 2 - (R2 - 0.001) ** 2)  # half-width of the tube's cut through the plane
    assert np.all(np.abs(rho - R1) < footprint + 2e-3)
    # spread around the ring: the support polygon holds the centre of the torus
    ang = np.sort(np.arctan2(pos[:, 1] - p[1], pos[:, 0] - p[0]))
    assert np.diff(np.append(ang, ang[0] + 2 * np.pi)).max() < 0.75 * np.pi
    assert len(sdf_plane_collide((I3, np.zeros(3)), torus_hull, (I3, p + [0, 0, 0.002]))[2]) == 0
    assert len(sdf_plane_collide((I3, np.zeros(3)), torus_hull, (I3, p + [0, 0, 0.002]), margin=0.01)[2]) == 4


def test_tilted_torus_touches_the_plane_at_its_lowest_point(torus_hull):
    th = 0.3
    Rx = _rot([1, 0, 0], th)
    z0 = R1 * np.sin(th) + R2 - 0.001
    pos, n, d = sdf_plane_collide((I3, np.zeros(3)), torus_hull, (Rx, np.array([0.0, 0.0, z0])))
    assert len(d) == 1
    assert d[0] == pytest.approx(-0.001, abs=1e-4)
    # the lowest point lies under the lowest point of the ring circle
    np.testing.assert_allclose(pos[0, :2], [0.0, -R1 * np.cos(th)], atol=2e-3)


def test_mesh_box_in_bowl_against_exact_geometry():
    v, f = _box_faces()
    zc = -(R - T) + A + 0.002  # box resting flat at the bottom of the inner wall; its corners reach into it
    pos, n, d = sdf_mesh_collide(v, f, (I3, np.array([0, 0, zc])), BOWL, (I3, np.zeros(3)))
    corners = BOX_V[BOX_V[:, 2] < 0] + [0, 0, zc]
    depth = (R - T) - np.linalg.norm(corners, axis=1)  # SDF of the inner wall at the corners (all equal)
    assert len(d) == 4 and np.all(depth < 0)
    np.testing.assert_allclose(d, depth, atol=1e-12)
    x = pos - n * d[:, None] / 2  # the contact points found: the four bottom corners
    np.testing.assert_allclose(np.sort(x, axis=0), np.sort(corners, axis=0), atol=1e-12)
    radial = x / np.linalg.norm(x, axis=1)[:, None]
    np.testing.assert_allclose(n, radial, atol=1e-6)  # from the box into the wall (bowl gradient: finite diff.)
    # a rotated, shifted scene gives the same contacts moved along
    Rw, pw = _rot([1, 2, 3], 0.7), np.array([0.3, -1.0, 2.0])
    pos2, n2, d2 = sdf_mesh_collide(v, f, (Rw, Rw @ [0, 0, zc] + pw), BOWL, (Rw, pw))
    np.testing.assert_allclose(d2, d, atol=1e-9)
    np.testing.assert_allclose(pos2, pos @ Rw.T + pw, atol=1e-9)


def _box_in_bowl_xml(pos, quat):
    vert = " ".join(f"{c:g}" for c in BOX_V.ravel())
    return f"""<mujoco>
  <extension><plugin plugin="mujoco.sdf.bowl"><instance name="b"/></plugin></extension>
  <asset><mesh name="b"><plugin instance="b"/></mesh><mesh name="box" vertex="{vert}"/></asset>
  <worldbody><geom type="sdf" mesh="b"><plugin instance="b"/></geom>
    <body pos="{pos}" quat="{quat}"><freejoint/><geom type="mesh" mesh="box"/></body></worldbody>
</mujoco>"""


@pytest.mark.parametrize("pos,quat", [("0.05 0.02 -0.878", "1 0 0 0"), ("0.05 0.02 -0.87", "0.9 0.1 0.2 0.05"),
                                      ("-0.2 0.1 -0.85", "0.95 -0.1 0.3 0")])
def test_mesh_in_bowl_matches_mujoco(pos, quat):
    """MuJoCo stops collecting at 50 candidate points in its bounding-volume-tree order: each of its contacts
    is one of ours, with the same depth, point and normal (same triangles, starting points and Frank-Wolfe)."""
    mujoco = require_mujoco()
    m = mujoco.MjModel.from_xml_string(_box_in_bowl_xml(pos, quat))
    data = mujoco.MjData(m)
    mujoco.mj_forward(m, data)
    assert data.ncon > 0 and all(tuple(c.geom) == (1, 0) for c in data.contact)  # the mesh first, the SDF second
    v = m.mesh_vert[m.mesh_vertadr[1]:m.mesh_vertadr[1] + m.mesh_vertnum[1]]
    f = m.mesh_face[m.mesh_faceadr[1]:m.mesh_faceadr[1] + m.mesh_facenum[1]]
    X1 = (data.geom_xmat[1].reshape(3, 3), data.geom_xpos[1])
    p, n, d = sdf_mesh_collide(v, f, X1, BOWL, (I3, np.zeros(3)), m.opt.sdf_initpoints, m.opt.sdf_iterations)
    assert len(d) >= data.ncon
    for k in range(data.ncon):
        match = np.nonzero(np.linalg.norm(p - data.contact.pos[k], axis=1) < 1e-9)[0]
        assert len(match) == 1
        assert d[match[0]] == pytest.approx(data.contact.dist[k], abs=1e-12)
        np.testing.assert_allclose(n[match[0]], data.contact.frame[k, :3], atol=1e-9)


def test_height_field_under_torus_against_exact_geometry():
    heights = np.full((21, 21), 0.5)
    size = (1.0, 1.0, 0.2)  # surface at z = 0.1
    c = np.array([0.05, -0.1, 0.1 + R2 - 0.002])  # the tube 2 mm into the surface all along its ring
    pos, n, d = sdf_hfield_collide(heights, size, (I3, np.zeros(3)), TORUS, (I3, c))
    assert 20 <= len(d) <= 50
    assert d.min() == pytest.approx(-0.002, abs=1e-5) and np.all(d < 0)
    x = pos - n * d[:, None] / 2
    np.testing.assert_allclose(x[:, 2], 0.1, atol=1e-12)  # on the surface
    np.testing.assert_allclose([TORUS.Distance(p - c) for p in x], d, atol=1e-12)
    rho = np.hypot(x[:, 0] - c[0], x[:, 1] - c[1])
    assert np.all(np.abs(rho - R1) < np.sqrt(R2 ** 2 - (R2 - 0.002) ** 2) + 1e-9)  # inside the tube's footprint
    # normals: -grad of the torus, from the surface up into the tube
    for k in range(len(d)):
        g = TORUS.Gradient(x[k] - c)
        np.testing.assert_allclose(n[k], -g / np.linalg.norm(g), atol=1e-12)
    assert np.all(n[:, 2] > 0.95)
    # above the surface: nothing; the triangles under the SDF's box only
    assert len(sdf_hfield_collide(heights, size, (I3, np.zeros(3)), TORUS, (I3, c + [0, 0, 0.01]))[2]) == 0


def test_height_field_triangles_follow_the_grid():
    h = np.array([[0.0, 0.5, 1.0], [0.2, 0.4, 0.6]])  # 2 rows (y), 3 columns (x)
    tris = hfield_triangles(h, (2.0, 1.0, 0.5))
    assert tris.shape == (4, 3, 3)
    pts = {tuple(np.round(p, 12)) for p in tris.reshape(-1, 3)}
    expect = {(-2.0 + 2.0 * c, -1.0 + 2.0 * r, 0.5 * h[r, c]) for r in range(2) for c in range(3)}
    assert pts == expect
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    assert np.all(normals[:, 2] > 0)  # upward wound
    assert hfield_triangles(h, (2.0, 1.0, 0.5), [-1.9, -0.9], [-0.1, 0.9]).shape == (2, 3, 3)
    assert hfield_triangles(h, (2.0, 1.0, 0.5), [5, 5], [6, 6]).shape == (0, 3, 3)


def test_user_sdf_runs_the_same_triangle_search():
    v, f = _box_faces()
    X1 = (_rot([1, 1, 0], 0.2), np.array([0.03, 0.0, -0.875]))
    user = SdfShape.User(BOWL.Distance, BOWL.Gradient, BOWL.aabb)
    fast = sdf_mesh_collide(v, f, X1, BOWL, (I3, np.zeros(3)))
    slow = sdf_mesh_collide(v, f, X1, user, (I3, np.zeros(3)))
    assert len(fast[2]) > 0
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_bad_arguments():
    with pytest.raises(ValueError, match="shape 2 must be an SDF"):
        sdf_triangles_collide(np.zeros((1, 3, 3)), (I3, np.zeros(3)), SdfShape.Primitive(SPHERE, [0.1]),
                              (I3, np.zeros(3)))
    with pytest.raises(ValueError, match=r"shape \(m, 3, 3\)"):
        sdf_triangles_collide(np.zeros((3, 3)), (I3, np.zeros(3)), BOWL, (I3, np.zeros(3)))
    with pytest.raises(ValueError, match="non-negative"):
        sdf_triangles_collide(np.zeros((1, 3, 3)), (I3, np.zeros(3)), BOWL, (I3, np.zeros(3)), iterations=-1)
    with pytest.raises(ValueError, match="non-empty"):
        sdf_plane_collide((I3, np.zeros(3)), np.zeros((0, 3)), (I3, np.zeros(3)))
    with pytest.raises(ValueError, match="a pose must be"):
        sdf_triangles_collide(np.zeros((1, 3, 3)), (I3, np.zeros(2)), BOWL, (I3, np.zeros(3)))


def test_collision_model_runs_the_sdf_routine_of_each_partner_type():
    """A CollisionModel with a plane, a height field and two SDF tori: each SDF pair goes to its routine."""
    from mallard.geometry.collision.engine import CollisionModel
    from mallard.geometry.shapes import HeightField

    torus = SignedDistanceField(TORUS, name="torus")
    types = np.array([0, 1, 8, 8])  # plane, height field (its own frame at x = 5), torus on each
    sizes = np.array([[5, 5, 0.1], [1, 1, 0.2], torus._kernel_size(), torus._kernel_size()])
    model = CollisionModel(types, sizes, np.array([0, 0, 1, 2]), np.zeros((0, 3)), np.zeros(4, int),
                           np.zeros(4, int), np.zeros((0, 4)), np.zeros(4, int), np.zeros(4, int), np.zeros(4),
                           np.ones(4, int), np.ones(4, int), [])
    model.set_height_fields({1: HeightField(np.zeros((21, 21)), [1.0, 1.0, 0.2, 0.1])})
    model.sdf = {2: torus, 3: torus}
    R = np.tile(I3, (4, 1, 1))
    p = np.array([[0, 0, 0], [5, 0, 0.1], [0, 0, R2 - 0.001], [5, 0, 0.1 + R2 - 0.002]], float)
    dist, pos, normal, _, g1, g2 = model.contacts(R, p)
    on_plane = (g1 == 0) & (g2 == 2)
    on_field = (g1 == 1) & (g2 == 3)
    assert on_plane.sum() == 4 and on_field.sum() >= 20 and np.all(on_plane | on_field)
    assert dist[on_plane].min() == pytest.approx(-0.001, abs=5e-5)
    assert dist[on_field].min() == pytest.approx(-0.002, abs=1e-5)
    assert np.all(normal[:, 2] > 0.95)  # up, from the plane / height field into the tori
