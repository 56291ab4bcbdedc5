"""MuJoCo 4's multi-contact for penetrating box/mesh and mesh/mesh pairs (collision/multiccd.py) against MuJoCo's
contacts: face on face (clipped, pruned to four), a corner into a face (EPA's one);
and a box and a prism dropped on a mesh slab against mj_step."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.geometry.collision import collide
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.plant._mjcf_state import GetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf import load_mjcf
from mallard.parsers.mjcf.mesh_hull import MujocoMeshHull
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

_HEX = " ".join(f"{0.05 * np.cos(a):.6f} {0.05 * np.sin(a):.6f} {z}" for z in (-0.02, 0.02)
                for a in np.arange(6) * np.pi / 3 + 0.2)
_SLAB = "-.3 -.2 -.03  .3 -.2 -.03  .3 .2 -.03  -.3 .2 -.03  -.3 -.2 .03  .3 -.2 .03  .3 .2 .03  -.3 .2 .03"
ASSETS = f'<asset><mesh name="slab" vertex="{_SLAB}"/><mesh name="hex" vertex="{_HEX}"/></asset>'

# (name, the moving geom and its pose): each penetrates the slab's top face
CASES = {
    "box_face": ('<geom type="box" size=".04 .03 .02"/>', "0.02 0.01 0.048", "0.02 -0.015 0.3"),
    "hex_face": ('<geom type="mesh" mesh="hex"/>', "-0.05 0.03 0.0495", "0.01 0.02 -0.4"),
    "hex_corner": ('<geom type="mesh" mesh="hex"/>', "0.05 0 0.076", "35 30 10"),
}


def _xml(geom: str, pos: str, euler: str) -> str:
    return f"""<mujoco>{ASSETS}<worldbody><body euler="0.01 -0.005 0.2"><geom type="mesh" mesh="slab"/></body>
      <body pos="{pos}" euler="{euler}"><freejoint/>{geom}</body></worldbody></mujoco>"""


@pytest.mark.parametrize("name", CASES)
def test_contacts_equal_mujocos(name):
    mujoco = require_mujoco()
    xml = _xml(*CASES[name])
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    model = load_mjcf(xml)
    hulls = {m.name: MujocoMeshHull(m) for m in model.meshes}
    args = []
    for g in (0, 1):  # the slab (mesh) and the moving geom (box or mesh), in MuJoCo's pair order
        t = int(mm.geom_type[g])
        v, f = hulls[mujoco.mj_id2name(mm, mujoco.mjtObj.mjOBJ_MESH, mm.geom_dataid[g])] if t == 7 else (
            np.zeros((0, 3)), np.zeros(0))
        args.append((t, mm.geom_size[g].copy(), md.geom_xpos[g].copy(), md.geom_xmat[g].reshape(3, 3).copy(), v, f))
    a, b = sorted(args, key=lambda x: x[0])
    out = np.zeros((16, 10))
    n = collide(out, 0, 0.0, *a[:5], *b[:5], a[5], b[5])
    mj = np.array([[c.dist, *c.pos, *c.frame[:3]] for c in md.contact[:md.ncon]])
    assert n == md.ncon == {"box_face": 4, "hex_face": 4, "hex_corner": 1}[name]
    mine = out[:n, :7]
    order = [int(np.argmin(np.linalg.norm(mine[:, 1:4] - p, axis=1))) for p in mj[:, 1:4]]
    assert sorted(order) == list(range(n))
    # the mesh frames (principal axes) agree with MuJoCo's to ~1e-10 (MuJoCo's Jacobi eigensolver), the geom
    # poses here are MuJoCo's; one contact is EPA's depth and point (not MuJoCo's own EPA)
    tol = 1e-6 if name == "hex_corner" else 1e-8
    np.testing.assert_allclose(mine[order], mj, rtol=0, atol=tol)


def test_box_and_prism_dropped_on_a_mesh_slab_match_mujoco():
    mujoco = require_mujoco()
    xml = f"""<mujoco><option timestep="0.002"/>{ASSETS}<worldbody><geom type="mesh" mesh="slab"/>
      <body pos="-.1 0 .08" euler="0.02 -0.01 0.3"><freejoint/><geom type="box" size=".04 .03 .02"/></body>
      <body pos=".15 0 .08" euler="-0.015 0.02 0.1"><freejoint/><geom type="mesh" mesh="hex"/></body>
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
