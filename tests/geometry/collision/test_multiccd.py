"""MuJoCo 4's multi-contact for penetrating box/mesh and mesh/mesh pairs (collision/multiccd.py) against MuJoCo's
contacts: face on face, an edge along a face, a corner into a face (EPA's one); and a box and a mesh block
dropped on a mesh slab against mj_step."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.geometry.collision import collide
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import load_mjcf
from mallard.parsers.mjcf.mesh_hull import MujocoMeshHull
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

_HEX = " ".join(f"{0.05 * np.cos(a):.6f} {0.05 * np.sin(a):.6f} {z}" for z in (-0.02, 0.02)
                for a in np.arange(6) * np.pi / 3 + 0.2)
_BIGHEX = " ".join(f"{r * np.cos(a):.6f} {r * np.sin(a):.6f} {z}" for z in (-0.03, 0.03)
                   for r, a in zip((0.3, 0.28, 0.31, 0.29, 0.3, 0.27), np.arange(6) * 1.1 + 0.2))


def _box_mesh(x: float, y: float, z: float) -> str:
    return " ".join(f"{sx * x} {sy * y} {sz * z}" for sz in (-1, 1) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)))


_HEX3 = " ".join(f"{0.03 * np.cos(a):.6f} {0.03 * np.sin(a):.6f} {z}" for z in (-0.02, 0.02)
                 for a in np.arange(6) * np.pi / 3 + 0.2)
ASSETS = (f'<asset><mesh name="slab" vertex="{_box_mesh(.3, .2, .03)}"/><mesh name="hex" vertex="{_HEX}"/>'
          f'<mesh name="small" vertex="{_box_mesh(.04, .03, .02)}"/><mesh name="bighex" vertex="{_BIGHEX}"/>'
          f'<mesh name="hex3" vertex="{_HEX3}"/><mesh name="bm" vertex="{_box_mesh(.03, .025, .015)}"/>'
          '<mesh name="tet" vertex="0.0313 0.0117 0 -0.0271 0.0219 0 -0.0093 -0.0301 0 0.0011 0.0007 0.041"/>'
          f'<mesh name="pyr" vertex="{_box_mesh(.04, .03, .02)} 0.003 0.002 0.0215"/></asset>')
_SLAB, _BOX = '<geom type="mesh" mesh="slab"/>', '<geom type="box" size=".3 .2 .03"/>'

# (the fixed geom, the moving geom and its pose, MuJoCo's contact count): each penetrates the fixed geom's top
CASES = {
    "box_face": (_SLAB, '<geom type="box" size=".04 .03 .02"/>', "0.02 0.01 0.048", "0.02 -0.015 0.3", 4),
    "mesh_face": (_SLAB, '<geom type="mesh" mesh="small"/>', "0.02 0.01 0.0495", "0.01 0.02 -0.4", 4),
    "mesh_face_on_heptagon": ('<geom type="mesh" mesh="bighex"/>', '<geom type="mesh" mesh="small"/>',
                              "0.02 0.01 0.0495", "0.01 0.02 -0.4", 4),
    "big_box_on_mesh": ('<geom type="mesh" mesh="small"/>', _BOX, "0.02 0.01 0.0495", "0.01 0.02 -0.4", 4),
    "box_edge": (_SLAB, '<geom type="box" size=".04 .03 .03"/>', "0.02 0.01 0.0715", "45.1 0.3 0.3", 2),
    "mesh_edge": (_BOX, '<geom type="mesh" mesh="small"/>', "0.02 0.01 0.0714", "0.3 45.1 0.2", 2),
    "hex_tilted": ('<geom type="mesh" mesh="small"/>', '<geom type="mesh" mesh="hex"/>', "0 0 0.0405", "6 1 20", 2),
    "hex_corner": (_SLAB, '<geom type="mesh" mesh="hex"/>', "0.05 0 0.076", "35 30 10", 1),
}


# edge against edge on EPA's final face: MuJoCo 4 tries geom 1's edge along geom 2's faces, then geom 2's edge
# along geom 1's faces (two contacts; the support sets of the penetration normal named no parallel edge)
_HEX3G, _BM = '<geom type="mesh" mesh="hex3"/>', '<geom type="mesh" mesh="bm"/>'
# a tetrahedron's bottom triangle on a box top, over its edge: the triangle's single-precision corners are off the
# plane of its (double-precision) normal by ~1e-9, so each contact's depth is its own (the clipped triangle's
# points, not one plane through its first corner)
CASES.update({
    "triangle_on_box": ('<geom type="box" size=".05 .04 .03"/>', '<geom type="mesh" mesh="tet"/>', "0.035 0.012 0.0292",
                        "2.1 -1.7 17", 3),
    "triangle_on_box_edge": ('<geom type="box" size=".05 .04 .03"/>', '<geom type="mesh" mesh="tet"/>',
                             "0.02 0.005 0.0294", "2.1 -1.7 17", 2),
})
CASES.update({
    "edge_edge_mesh": (_BM, _HEX3G, "-0.0155 0.02329 0.02311", "0.70952 0.47972 0.51413 0.04604", 2),
    "edge_edge_mesh2": (_BM, _HEX3G, "0.015 -0.02016 0.02889", "0.24181 0.66469 0.18533 0.68217", 2),
    "edge_edge_box": ('<geom type="box" size=".03 .025 .015"/>', _HEX3G, "0.02576 -0.01054 0.02074",
                      "0.99952 -0.02209 0.0149 -0.01601", 2),
})


# a box pressed on the apex of a flat pyramid (a 4 x 3 cm block whose top rises 1.5 mm to an off-centre apex): EPA
# names the apex, whose four triangles all face the box within the face tolerance; MuJoCo 4 clips with the most
# opposed pair of candidate faces (not the first), and prunes a clipped polygon of more than four points to the
# quadrilateral its walk finds largest by true area
_PYR = '<geom type="mesh" mesh="pyr"/>'
CASES.update({
    "box_on_pyramid_apex": (_PYR, '<geom type="box" size=".012 .01 .01"/>', "0.003 0.002 0.0308", "1 1.5 10", 4),
    "box_on_pyramid_apex2": (_PYR, '<geom type="box" size=".012 .01 .01"/>', "0.01 0.004 0.0305", "1 1.5 10", 4),
})


def _xml(fixed: str, geom: str, pos: str, pose: str) -> str:
    """The fixed geom (tilted) and the moving one at pos, oriented by euler angles or a quaternion (4 numbers)."""
    if len(pose.split()) == 4:
        return f"""<mujoco>{ASSETS}<worldbody><body euler="3 2 1">{fixed}</body>
      <body pos="{pos}" quat="{pose}"><freejoint/>{geom}</body></worldbody></mujoco>"""
    return f"""<mujoco>{ASSETS}<worldbody><body euler="0.01 -0.005 0.2">{fixed}</body>
      <body pos="{pos}" euler="{pose}"><freejoint/>{geom}</body></worldbody></mujoco>"""


@pytest.mark.parametrize("name", CASES)
def test_contacts_equal_mujocos(name):
    """Face against face: geom 2's face clipped by the side planes of geom 1's face, each point moved onto geom 1's
    face along its normal and its depth taken along geom 2's normal (MuJoCo 4); an edge along a face; a corner
    (EPA). Contacts in MuJoCo's order."""
    mujoco = require_mujoco()
    *case, count = CASES[name]
    xml = _xml(*case)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    model = load_mjcf(xml)
    hulls = {m.name: MujocoMeshHull(m) for m in model.meshes}
    args = []
    for g in (0, 1):  # the fixed and the moving geom, in MuJoCo's pair order
        t = int(mm.geom_type[g])
        v, f = hulls[mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_MESH, mm.geom_dataid[g])] if t == 7 else (
            np.zeros((0, 3)), np.zeros(0))
        args.append((t, mm.geom_size[g].copy(), md.geom_xpos[g].copy(), md.geom_xmat[g].reshape(3, 3).copy(), v, f))
    first = 0 if args[0][0] <= args[1][0] else 1
    a, b = args[first], args[1 - first]
    out = np.zeros((16, 10))
    n = collide(out, 0, 0.0, *a[:5], *b[:5], a[5], b[5])
    mj = np.array([[c.dist, *c.pos, *c.frame[:3]] for c in md.contact[:md.ncon]])
    assert n == md.ncon == count
    mine = out[:n, :7].copy()
    if int(md.contact[0].geom[0]) != first:  # MuJoCo's normal points from its first geom to its second
        mine[:, 4:] *= -1
    # the geom poses here are MuJoCo's; the corner contact is EPA's depth and point (not MuJoCo's own EPA)
    tol = 1e-6 if name == "hex_corner" else 1e-12
    np.testing.assert_allclose(mine, mj, rtol=0, atol=tol)


def test_box_and_mesh_block_dropped_on_a_mesh_slab_match_mujoco():
    mujoco = require_mujoco()
    xml = f"""<mujoco><option timestep="0.002"/>{ASSETS}<worldbody><geom type="mesh" mesh="slab"/>
      <body pos="-.1 0 .08" euler="0.02 -0.01 0.3"><freejoint/><geom type="box" size=".04 .03 .02"/></body>
      <body pos=".15 0 .08" euler="-0.015 0.02 0.1"><freejoint/><geom type="mesh" mesh="small"/></body>
      </worldbody></mujoco>"""
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, mm.opt.timestep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    sim = Simulator(builder.Build())
    ctx = plant.GetMyMutableContextFromRoot(sim.get_mutable_context())
    sim.Initialize()
    ncon = 0
    for k in range(1, 151):
        mujoco.mj_step(mm, md)
        sim.AdvanceTo(k * mm.opt.timestep)
        ncon = max(ncon, md.ncon)
    assert ncon == 8  # four per body once they rest face down
    assert plant.get_contact_results_output_port().Eval(ctx).num_point_pair_contacts() == md.ncon
    q, _ = GetMujocoState(plant, ctx)
    np.testing.assert_allclose(q, md.qpos, rtol=0, atol=1e-8)
