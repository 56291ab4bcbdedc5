"""The reused Jacobian storage of the constraint rows (pipeline/efc_rows.py): the contacts' Jacobians d.con_J and the
rows' d.efc_J are views of Data's buffers in which each step writes the contacts' chains (and the head rows) only,
after clearing what the last step wrote. Along a scene whose contacts, contact widths (condim 6 or not) and active
limits change from step to step, d.con_J must equal kernels/contact_kernels.ContactJacobians' new array, each
contact row of d.efc_J must be zero outside its contact's chain, and the buffers past the step's rows zero: a
stale entry left by an earlier step fails here even when its effect on the trajectory is small."""
from __future__ import annotations

import numpy as np
from numba import njit

from mjcf_scene import build_mjcf_scene

from mallard.multibody.kernels.contact_kernels import ContactJacobians

# a tumbling box (condim 6, so the contact rows' width changes as it touches down and lifts off), a capsule
# (condim 3) and a hinge pendulum that swings through both limits with dry friction
SCENE = """<mujoco><option timestep="0.004"/>
<worldbody><geom type="plane" size="3 3 .1"/>
<body pos="0 0 0.25" euler="20 35 10"><freejoint/><geom type="box" size="0.05 0.08 0.03" condim="6"/></body>
<body pos="0.4 0 0.1"><freejoint/><geom type="capsule" size="0.03" fromto="-0.1 0 0 0.1 0 0"/></body>
<body pos="-0.6 0 0.5"><joint type="hinge" axis="0 1 0" range="-0.4 0.4" frictionloss="0.01"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" contype="0" conaffinity="0"/></body>
</worldbody></mujoco>"""


@njit(cache=True)
def _stale(m, d):
    """(ncon, rows, |d.con_J − ContactJacobians|max, nonzeros of the contact rows of d.efc_J outside their
    contact's chain, nonzeros of the buffers past the step's contacts and rows)."""
    n, nv = d.ncon, m.tree.nv
    J = d.con_J
    ref = ContactJacobians(m.tree.ji, d.S, d.con_body[:, 0].copy(), d.con_body[:, 1].copy(), d.con_pos,
                           d.con_frame, J.shape[1] == 6)
    err = np.max(np.abs(ref - J)) if n else 0.0
    outside = 0
    on = np.zeros(nv, np.bool_)
    for r in range(d.ne + d.nf + d.nl, d.efc_J.shape[0]):
        c = d.efc_id[r]
        on[:] = False
        for p in range(d.con_chain_adr[c], d.con_chain_adr[c + 1]):
            on[d.con_chain[p]] = True
        for q in range(nv):
            if d.efc_J[r, q] != 0.0 and not on[q]:
                outside += 1
    past = np.count_nonzero(d.con_bJ[J.size:]) + np.count_nonzero(d.efc_bJ[d.efc_J.shape[0]:])
    return n, d.efc_J.shape[0], err, outside, past


def test_reused_jacobians_hold_only_the_steps_entries():
    plant, _, root, context = build_mjcf_scene(SCENE)
    plant.SetVelocities(context, np.concatenate([[6.0, -4.0, 9.0, 1.5, 0.5, 0.0], [0.0, 8.0, 0.0, 0.0, 0.0, 0.0],
                                                 [12.0]]))
    model = plant._PipelineModel(context).model
    state = context.get_mutable_state()
    seen = set()
    for k in range(150):
        plant._DiscreteStepUpdate(context, state)
        d = plant._pipeline_data._eval(context)._value.data
        n, rows, err, outside, past = _stale(model, d)
        assert err == 0.0 and outside == 0 and past == 0, (k, n, rows, err, outside, past)
        seen.add((n, rows))
    assert len({n for n, _ in seen}) >= 3 and len({r for _, r in seen}) >= 5  # contacts and rows came and went
