"""mallard's Newton and CG solvers reproduce MuJoCo's iterates, not only its optimum: fed MuJoCo's own rows
(efc_J, aref, D, R, contacts), mass matrix, qacc_smooth and warm start at every step of a simulation, PrimalSolve
returns MuJoCo's qacc to 1e-9 relative with MuJoCo's default limits and with the small ones of MJX scenes
(iterations="1" ls_iterations="4"), where the answer is the unconverged iterate: same warm-start choice,
constraint islands, line search, early exits and CG direction (MuJoCo's mj_solPrimal)."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.contact.primal_solver import PrimalSolve

# two islands (a box stack, a sphere rolling into a capsule on a hinge) and a free body in the air (no rows)
XML = """
<mujoco>
  <option cone="{cone}" solver="{solver}" iterations="{it}" ls_iterations="{ls}" timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="3 3 .1"/>
    <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body pos=".03 .02 .32" euler="10 5 20"><freejoint/><geom type="box" size=".08 .06 .1" condim="4"/></body>
    <body pos="1 0 .1"><freejoint/><geom type="sphere" size=".1" condim="6" friction="1 .01 .001"/></body>
    <body pos="1.3 0 .3"><joint type="hinge" axis="0 1 0" range="-20 20" frictionloss=".2"/>
      <geom type="capsule" fromto="0 0 0 0 0 -.25" size=".04"/></body>
    <body pos="-1 0 2"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
  </worldbody>
</mujoco>"""


def _solve_like_mujoco(mujoco, m, d, warm):
    nv, nefc = m.nv, d.nefc
    M = np.zeros((nv, nv))
    mujoco.mj_fullM(m, d, M)
    J = np.array(d.efc_J).reshape(nefc, nv)
    ncon = d.ncon
    con_dim = np.array([d.contact[c].dim for c in range(ncon)], np.int64)
    con_mu = np.array([d.contact[c].mu for c in range(ncon)])
    con_fric = np.array([d.contact[c].friction[:5] for c in range(ncon)]).reshape(ncon, 5)
    efc_id = np.array(d.efc_id, np.int64)
    blocks = np.append(np.array(m.tree_dofadr, np.int64), nv)
    ne, nf = int(d.ne), int(d.nf)
    out = PrimalSolve(M, d.qacc_smooth.copy(), J, d.efc_aref.copy(), d.efc_D.copy(), d.efc_R.copy(),
                      d.efc_frictionloss.copy(), np.array(d.efc_type, np.int64), efc_id, ne, nf, con_dim, con_mu,
                      con_fric, warm, m.opt.solver == 2, int(m.opt.iterations), float(m.opt.tolerance),
                      int(m.opt.ls_iterations), float(m.opt.ls_tolerance), 1.0, blocks)
    return out[0], out[1]


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("solver", ["Newton", "CG"])
@pytest.mark.parametrize("limits", [(100, 50), (1, 4), (3, 2)])
def test_iterates_match_mujoco(cone, solver, limits):
    mujoco = require_mujoco()
    m = mujoco.MjModel.from_xml_string(XML.format(cone=cone, solver=solver, it=limits[0], ls=limits[1]))
    assert m.ntree == 5
    d = mujoco.MjData(m)
    d.qvel[:] = np.linspace(-1.0, 1.0, m.nv)
    islands = set()
    for step in range(120):
        warm = d.qacc_warmstart.copy()
        mujoco.mj_step(m, d)
        if d.nefc == 0:
            continue
        islands.add(int(d.nisland))
        qacc, force = _solve_like_mujoco(mujoco, m, d, warm)
        scale = 1.0 + np.abs(d.qacc)
        assert np.max(np.abs(qacc - d.qacc) / scale) < 1e-9, f"step {step}"
        assert np.max(np.abs(force - d.efc_force) / (1.0 + np.abs(d.efc_force))) < 1e-8, f"step {step}"
    assert max(islands) >= 2  # several islands solved on their own
