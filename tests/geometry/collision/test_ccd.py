"""MuJoCo 4's native GJK/EPA (geometry/collision/ccd*.py) against MuJoCo: an ellipsoid against a box, a cylinder,
another ellipsoid and a hull mesh (pairs MuJoCo gives one contact) at random overlapping poses, contact for contact
to round-off; and an ellipsoid (Shadow Hand's object) tumbling onto a box and a cylinder against mj_step."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.geometry.collision import collide
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.parsers.mjcf import load_mjcf
from mallard.parsers.mjcf.mesh_hull import MujocoMeshHull
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

_HEX = " ".join(f"{0.03 * np.cos(a):.6f} {0.03 * np.sin(a):.6f} {z}" for z in (-0.02, 0.02)
                for a in np.arange(6) * np.pi / 3 + 0.2)
OTHERS = {"box": '<geom type="box" size=".02 .025 .015"/>', "cylinder": '<geom type="cylinder" size=".02 .03"/>',
          "ellipsoid": '<geom type="ellipsoid" size=".02 .01 .03"/>', "mesh": '<geom type="mesh" mesh="hex"/>'}


@pytest.mark.parametrize("other", OTHERS)
def test_ellipsoid_contacts_equal_mujocos(other):
    """GJK's simplex, EPA's polytope and its stopping rule as MuJoCo 4's: depth, point and normal to 1e-10 (the
    old EPA, exact to 1e-9 in depth, missed MuJoCo's point by up to 5e-3)."""
    mujoco = require_mujoco()
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(25):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        p = rng.uniform(-0.035, 0.035, 3)
        xml = f"""<mujoco><asset><mesh name="hex" vertex="{_HEX}"/></asset><worldbody>
          <geom type="ellipsoid" size=".03 .04 .02" euler="10 20 30"/>
          <body pos="{p[0]} {p[1]} {p[2]}" quat="{q[0]} {q[1]} {q[2]} {q[3]}"><freejoint/>{OTHERS[other]}</body>
          </worldbody></mujoco>"""
        mm = mujoco.MjModel.from_xml_string(xml)
        md = mujoco.MjData(mm)
        mujoco.mj_forward(mm, md)
        hull = MujocoMeshHull(load_mjcf(xml).meshes[0])
        args = []
        for g in (0, 1):
            t = int(mm.geom_type[g])
            v, f = hull if t == 7 else (np.zeros((0, 3)), np.zeros(0))
            args.append((t, mm.geom_size[g].copy(), md.geom_xpos[g].copy(), md.geom_xmat[g].reshape(3, 3).copy(), v, f))
        first = 0 if args[0][0] <= args[1][0] else 1
        a, b = args[first], args[1 - first]
        out = np.zeros((16, 10))
        n = collide(out, 0, 0.0, *a[:5], *b[:5], a[5], b[5])
        assert n == md.ncon <= 1
        if n:
            c = md.contact[0]
            sign = 1.0 if int(c.geom[0]) == first else -1.0  # MuJoCo's normal points from its first geom
            assert out[0, 0] == pytest.approx(c.dist, abs=1e-10)
            np.testing.assert_allclose(out[0, 1:4], c.pos, rtol=0, atol=1e-10)
            np.testing.assert_allclose(sign * out[0, 4:7], c.frame[:3], rtol=0, atol=1e-10)
            compared += 1
    assert compared >= 8


def test_ellipsoid_tumbling_onto_a_box_and_a_cylinder_matches_mj_step():
    """The contacts of the step as MuJoCo's make the trajectory MuJoCo's (the old EPA's contact points, off by
    its tolerance, moved this body by ~1e-4 within 100 steps)."""
    mujoco = require_mujoco()
    xml = """<mujoco><option timestep="0.002"/><worldbody>
      <geom type="box" size=".05 .05 .01" pos="0 0 0" euler="3 -2 0"/>
      <geom type="cylinder" size=".02 .03" pos=".04 .01 .02" euler="80 10 0"/>
      <body pos=".02 .0 .06" euler="20 30 10"><freejoint/><geom type="ellipsoid" size=".03 .04 .02"/></body>
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
    touched = 0
    for k in range(1, 301):
        mujoco.mj_step(mm, md)
        sim.AdvanceTo(k * mm.opt.timestep)
        touched = max(touched, md.ncon)
    assert touched >= 2  # both fixed geoms were hit
    q, _ = GetMujocoState(plant, ctx)
    np.testing.assert_allclose(q, md.qpos, rtol=0, atol=1e-9)
