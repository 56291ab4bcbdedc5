"""Helpers for the contact tests: feed MuJoCo's own inputs (M, qacc_smooth, Jacobians, parameters)
to mallard's constraint assembly and solvers, so results compare row by row with MuJoCo's efc_*."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.contact import ConstraintAssembler
from mallard.multibody.contact.parameters import EQUALITY, FRICTION_DOF, FRICTION_TENDON, LIMIT_JOINT, LIMIT_TENDON


def mujoco_assembler(mujoco, m, d):
    """A ConstraintAssembler filled from mjModel/mjData after mj_forward; returns (asm, M, a0, build_args)."""
    nv = m.nv
    M = np.zeros((nv, nv))
    mujoco.mj_fullM(m, d, M)
    efc_J = np.array(d.efc_J).reshape(d.nefc, nv) if d.nefc else np.zeros((0, nv))
    asm = ConstraintAssembler(nv)
    seen_eq = set()
    for i in range(d.nefc):
        t, ident = int(d.efc_type[i]), int(d.efc_id[i])
        if t == EQUALITY and ident not in seen_eq:
            seen_eq.add(ident)
            rows = [r for r in range(d.nefc) if d.efc_type[r] == EQUALITY and d.efc_id[r] == ident]
            b1, b2 = m.eq_obj1id[ident], m.eq_obj2id[ident]
            kind = {0: "connect", 1: "weld", 2: "joint"}[int(m.eq_type[ident])]
            if kind == "joint":
                dA = m.dof_invweight0[m.jnt_dofadr[b1]] + (m.dof_invweight0[m.jnt_dofadr[b2]] if b2 >= 0 else 0)
                dA = np.full(len(rows), dA)
            elif kind == "connect":
                dA = np.full(len(rows), m.body_invweight0[b1, 0] + m.body_invweight0[b2, 0])
            else:
                dA = np.array([m.body_invweight0[b1, int(k > 2)] + m.body_invweight0[b2, int(k > 2)]
                               for k in range(6)])
            jdotv = None
            if kind == "connect":  # MuJoCo subtracts Jdot*v from aref of connect rows
                jp1, jp2 = np.zeros((3, nv)), np.zeros((3, nv))
                p1 = d.xpos[b1] + d.xmat[b1].reshape(3, 3) @ m.eq_data[ident, 0:3]
                p2 = d.xpos[b2] + d.xmat[b2].reshape(3, 3) @ m.eq_data[ident, 3:6]
                mujoco.mj_jacDot(m, d, jp1, None, p1, b1)
                mujoco.mj_jacDot(m, d, jp2, None, p2, b2)
                jdotv = (jp1 - jp2) @ d.qvel
            asm.AddEquality(kind, efc_J[rows], d.efc_pos[rows], dA, m.eq_solref[ident], m.eq_solimp[ident],
                            name=f"eq{ident}", Jdot_v=jdotv)
        elif t == FRICTION_DOF:
            asm.AddFrictionLoss(efc_J[i], m.dof_frictionloss[ident], m.dof_invweight0[ident],
                                m.dof_solref[ident], m.dof_solimp[ident], name=f"dof{ident}")
        elif t == FRICTION_TENDON:
            asm.AddFrictionLoss(efc_J[i], m.tendon_frictionloss[ident], m.tendon_invweight0[ident],
                                m.tendon_solref_fri[ident], m.tendon_solimp_fri[ident], name=f"tendon{ident}",
                                tendon=True)
        elif t == LIMIT_TENDON:
            asm.AddLimit(efc_J[i], d.efc_pos[i], d.efc_margin[i], m.tendon_invweight0[ident],
                         m.tendon_solref_lim[ident], m.tendon_solimp_lim[ident], name=f"tendon{ident}", tendon=True)
        elif t == LIMIT_JOINT:
            asm.AddLimit(efc_J[i], d.efc_pos[i], d.efc_margin[i], m.dof_invweight0[m.jnt_dofadr[ident]],
                         m.jnt_solref[ident], m.jnt_solimp[ident], name=f"joint{ident}")
    ncon = d.ncon
    if ncon:
        Jc = np.zeros((ncon, 6, nv))
        tran, rot = np.zeros(ncon), np.zeros(ncon)
        jp, jr = np.zeros((3, nv)), np.zeros((3, nv))
        for c in range(ncon):
            con = d.contact[c]
            frame = np.array(con.frame).reshape(3, 3)
            Jd = np.zeros((6, nv))
            for side, sgn in ((0, -1.0), (1, 1.0)):
                b = m.geom_bodyid[con.geom[side]]
                mujoco.mj_jac(m, d, jp, jr, con.pos, b)
                Jd[:3] += sgn * jp
                Jd[3:] += sgn * jr
                tran[c] += m.body_invweight0[b, 0]
                rot[c] += m.body_invweight0[b, 1]
            Jc[c, :3] = frame @ Jd[:3]
            Jc[c, 3:] = frame @ Jd[3:]
        cons = [d.contact[c] for c in range(ncon)]
        asm.SetContacts(Jc, [c.dist for c in cons], [c.dim for c in cons], [c.friction for c in cons],
                        [c.solref for c in cons], [c.solimp for c in cons], [c.includemargin for c in cons],
                        tran, rot, solreffriction=[c.solreffriction for c in cons])
    cone = "elliptic" if m.opt.cone == 1 else "pyramidal"
    build_args = dict(v=np.array(d.qvel), timestep=m.opt.timestep, cone=cone, impratio=m.opt.impratio)
    return asm, M, np.array(d.qacc_smooth), build_args


def mujoco_problem(mujoco, m, d):
    """The ConstraintProblem MuJoCo solved at this state; returns (problem, M, a0)."""
    asm, M, a0, build_args = mujoco_assembler(mujoco, m, d)
    return asm.Build(**build_args), M, a0


@pytest.fixture
def mj_problem():
    return mujoco_problem
