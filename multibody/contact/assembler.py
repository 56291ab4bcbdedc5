"""Assemble one step's constraint problem: equality, dry friction, limit and contact rows.

`ConstraintAssembler` collects constraints given their Jacobians and residuals (the plant computes
kinematics), validates their parameters with errors naming the element, and `Build` returns a
`ConstraintProblem`: the row arrays the solvers consume (J, aref, R, D, ...), laid out and
parameterized exactly as MuJoCo's efc_* arrays (rows ordered equality, friction, limit, contact).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from numba import njit

from .impedance import MakeImpedance, ReferenceAcceleration
from .linalg import MatVec
from .parameters import (CONE_ELLIPTIC, CONE_PYRAMIDAL, EQUALITY, FRICTION_DOF, FRICTION_TENDON,
                         LIMIT_JOINT, LIMIT_TENDON, ClampSolimp, ValidateFriction, ValidateSolimp,
                         ValidateSolref)
from .rows import ContactRows


@njit(cache=True)
def _contacts_valid(cd, fr, ref, reff, imp, has_rot):
    """Per-contact screen of condim, friction, solref, solreffriction and solimp (True = valid); the
    per-contact validators run only on failures, to word the error."""
    n = cd.shape[0]
    ok = np.ones(n, dtype=np.bool_)
    for c in range(n):
        d = cd[c]
        good = (d == 1 or d == 3 or d == 4 or d == 6) and (has_rot or d <= 3)
        for k in range(fr.shape[1]):
            good = good and np.isfinite(fr[c, k]) and fr[c, k] >= 0.0
        r0, r1 = ref[c, 0], ref[c, 1]
        good = good and np.isfinite(r0) and np.isfinite(r1) and ((r0 > 0 and r1 > 0) or (r0 < 0 and r1 <= 0))
        f0, f1 = reff[c, 0], reff[c, 1]
        good = good and ((f0 > 0 and f1 > 0) or (f0 < 0 and f1 <= 0) or (f0 == 0 and f1 == 0))
        for k in range(5):
            good = good and np.isfinite(imp[c, k])
        good = good and 0 <= imp[c, 0] <= 1 and 0 <= imp[c, 1] <= 1 and 0 <= imp[c, 3] <= 1
        good = good and imp[c, 2] >= 0 and imp[c, 4] >= 1
        ok[c] = good
    return ok

_EQUALITY_KINDS = {"connect": 3, "weld": 6, "joint": 1, "distance": 1, "tendon": 1, "coupler": 1}


@dataclass
class ConstraintProblem:
    """One step's constraint rows (nefc of them) over nv velocities; field names follow MuJoCo's efc_*.

    J (nefc, nv); efc_type / efc_id (row kind, index of the constraint or contact); efc_pos,
    efc_margin (m or rad); efc_frictionloss (N or N m); efc_diagA, efc_R, efc_D, efc_KBIP (k, b, d,
    d'); efc_vel = J v; efc_aref; ne, nf, nl row counts; per contact: con_dim, con_friction (5),
    con_mu (regularized cone coefficient), con_efc_address. `names[i]` labels row i's constraint.
    """
    J: np.ndarray
    efc_type: np.ndarray
    efc_id: np.ndarray
    efc_pos: np.ndarray
    efc_margin: np.ndarray
    efc_frictionloss: np.ndarray
    efc_diagA: np.ndarray
    efc_R: np.ndarray
    efc_D: np.ndarray
    efc_KBIP: np.ndarray
    efc_vel: np.ndarray
    efc_aref: np.ndarray
    ne: int
    nf: int
    nl: int
    con_dim: np.ndarray
    con_friction: np.ndarray
    con_mu: np.ndarray
    con_efc_address: np.ndarray
    cone: int = CONE_PYRAMIDAL
    names: Sequence = field(default_factory=list)

    @property
    def nefc(self) -> int:
        return int(self.J.shape[0])

    @property
    def nv(self) -> int:
        return int(self.J.shape[1])


class RowNames(Sequence):
    """Row labels of a ConstraintProblem: the non-contact rows' names followed by one label per contact row
    (the contact's name, or "contact #c"), expanded only when read (error messages)."""

    def __init__(self, head: list, contact_names, rows_per_contact: np.ndarray):
        self._head = list(head)
        self._names = contact_names
        self._end = np.cumsum(np.asarray(rows_per_contact, dtype=np.int64))

    def __len__(self) -> int:
        return len(self._head) + (int(self._end[-1]) if self._end.shape[0] else 0)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        k = int(i) + n if int(i) < 0 else int(i)
        if not 0 <= k < n:
            raise IndexError(f"row {i} out of range for {n} constraint rows")
        if k < len(self._head):
            return self._head[k]
        c = int(np.searchsorted(self._end, k - len(self._head), side="right"))
        return self._names[c] if self._names is not None else f"contact #{c}"


def _rows2d(J, nv: int, label: str) -> np.ndarray:
    A = np.atleast_2d(np.asarray(J, dtype=np.float64))
    if A.ndim != 2 or A.shape[1] != nv:
        raise ValueError(f"{label}: Jacobian must have shape (rows, nv={nv}), got {np.shape(J)}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{label}: Jacobian contains NaN or inf")
    return A


class ConstraintAssembler:
    """Collects the constraints of one step over `nv` generalized velocities.

    Each Add* call validates solref/solimp (ValueError naming the constraint) and records rows;
    `diagA` values are MuJoCo's diagonal approximation of J M^-1 J^T for those rows (inverse weights:
    dof_invweight0 for joints, body_invweight0 sums for bodies).
    """

    def __init__(self, nv: int):
        if int(nv) < 0:
            raise ValueError(f"ConstraintAssembler: nv must be >= 0, got {nv}")
        self.nv = int(nv)
        self._groups = {"eq": [], "fr": [], "lim": []}
        self._contacts = None

    def _add(self, cat, J, pos, margin, floss, tp, diagA, solref, solimp, dim_group, imp_pos, name,
             jdotv=None):
        self._groups[cat].append(dict(J=J, pos=pos, margin=margin, floss=floss, tp=tp, diagA=diagA,
                                      solref=solref, solimp=solimp, dim=dim_group, imp_pos=imp_pos,
                                      name=name, jdotv=jdotv))

    def AddEquality(self, kind: str, J, residual, diagA, solref=(0.02, 1.0),
                    solimp=(0.9, 0.95, 0.001, 0.5, 2.0), name: str | None = None, Jdot_v=None) -> None:
        """An equality constraint: `kind` in connect (3 rows), weld (6), joint/coupler, distance, tendon (1).

        J (rows, nv) and residual (rows,) are the constraint Jacobian and violation (residual -> 0);
        connect/weld impedance uses the residual norm. `Jdot_v` (rows,), if given, is subtracted from
        aref as MuJoCo does for connect and weld. `diagA` is a scalar or per-row inverse weight.
        """
        label = f"equality constraint '{name}'" if name else "equality constraint"
        if kind not in _EQUALITY_KINDS:
            raise ValueError(f"{label}: kind '{kind}' is not one of {sorted(_EQUALITY_KINDS)}")
        rows = _EQUALITY_KINDS[kind]
        A = _rows2d(J, self.nv, label)
        res = np.asarray(residual, dtype=np.float64).reshape(-1)
        if A.shape[0] != rows or res.shape[0] != rows:
            raise ValueError(f"{label}: a {kind} constraint has {rows} rows; got J {A.shape} and "
                             f"residual {res.shape}")
        ref = ValidateSolref(solref, "equality constraint", name)
        imp = ValidateSolimp(solimp, "equality constraint", name)
        dA = np.broadcast_to(np.asarray(diagA, dtype=np.float64), (rows,)).copy()
        jdv = None if Jdot_v is None else np.asarray(Jdot_v, dtype=np.float64).reshape(rows)
        if rows > 1:
            self._add("eq", A, res, np.zeros(rows), np.zeros(rows), EQUALITY, dA, ref, imp, rows,
                      float(np.linalg.norm(res)), name, jdv)
        else:
            self._add("eq", A, res, np.zeros(1), np.zeros(1), EQUALITY, dA, ref, imp, 1, float(res[0]),
                      name, jdv)

    def AddFrictionLoss(self, J, frictionloss: float, diagA: float, solref=(0.02, 1.0),
                        solimp=(0.9, 0.95, 0.001, 0.5, 2.0), name: str | None = None,
                        tendon: bool = False) -> None:
        """A dry-friction row (joint dof or tendon) with maximum force `frictionloss` (N or N m)."""
        label = f"frictionloss of '{name}'" if name else "frictionloss"
        A = _rows2d(J, self.nv, label)
        if A.shape[0] != 1:
            raise ValueError(f"{label}: expected one Jacobian row, got {A.shape[0]}")
        fl = float(frictionloss)
        if not np.isfinite(fl) or fl < 0.0:
            raise ValueError(f"{label}: frictionloss must be finite and >= 0, got {fl}")
        if fl == 0.0:
            return
        ref = ValidateSolref(solref, "frictionloss", name)
        imp = ValidateSolimp(solimp, "frictionloss", name)
        self._add("fr", A, np.zeros(1), np.zeros(1), np.array([fl]),
                  FRICTION_TENDON if tendon else FRICTION_DOF, np.array([float(diagA)]), ref, imp, 1,
                  0.0, name)

    def AddLimit(self, J, dist: float, margin: float, diagA: float, solref=(0.02, 1.0),
                 solimp=(0.9, 0.95, 0.001, 0.5, 2.0), name: str | None = None,
                 tendon: bool = False) -> None:
        """A joint or tendon limit row: `dist` is the distance to the limit (negative when violated)
        and J its gradient (for a lower limit +e_dof, upper limit -e_dof). Active when dist < margin."""
        label = f"limit of '{name}'" if name else "limit"
        A = _rows2d(J, self.nv, label)
        if A.shape[0] != 1:
            raise ValueError(f"{label}: expected one Jacobian row, got {A.shape[0]}")
        ref = ValidateSolref(solref, "limit", name)
        imp = ValidateSolimp(solimp, "limit", name)
        self._add("lim", A, np.array([float(dist)]), np.array([float(margin)]), np.zeros(1),
                  LIMIT_TENDON if tendon else LIMIT_JOINT, np.array([float(diagA)]), ref, imp, 1,
                  float(dist), name)

    def SetContacts(self, J_contact, dist, condim, friction, solref, solimp, includemargin, tran, rot,
                    solreffriction=None, names: Sequence[str] | None = None) -> None:
        """All contacts of the step as arrays (ncon leading dimension); see rows.ContactRows.

        J_contact (ncon, 6, nv) or (ncon, 3, nv) for condim <= 3; dist (m); condim in {1,3,4,6};
        friction (ncon, 5) or (ncon, 3) (slide, spin, roll expanded as MuJoCo); solref (ncon, 2);
        solimp (ncon, 5); solreffriction (ncon, 2), (0, 0) = use solref. `names[c]` labels errors.
        """
        Jc = np.asarray(J_contact, dtype=np.float64)
        if Jc.ndim != 3 or Jc.shape[2] != self.nv or Jc.shape[1] not in (3, 6):
            raise ValueError(f"contacts: J_contact must have shape (ncon, 3 or 6, nv={self.nv}), got {Jc.shape}")
        ncon = Jc.shape[0]
        has_rot = Jc.shape[1] == 6
        cd = np.asarray(condim, dtype=np.int64).reshape(ncon)
        fr = np.asarray(friction, dtype=np.float64).reshape(ncon, -1)
        if fr.shape[1] == 3:
            fr = fr[:, [0, 0, 1, 2, 2]]
        if fr.shape[1] != 5:
            raise ValueError(f"contacts: friction must be (ncon, 3) or (ncon, 5), got {fr.shape}")
        ref = np.asarray(solref, dtype=np.float64).reshape(ncon, 2)
        imp = np.asarray(solimp, dtype=np.float64).reshape(ncon, 5)
        reff = (np.zeros((ncon, 2)) if solreffriction is None
                else np.asarray(solreffriction, dtype=np.float64).reshape(ncon, 2))
        # compiled screening; the per-contact validators run only to word the error
        ok = _contacts_valid(cd, np.ascontiguousarray(fr), np.ascontiguousarray(ref), np.ascontiguousarray(reff),
                             np.ascontiguousarray(imp), has_rot)
        for c in np.flatnonzero(~ok):
            nm = names[c] if names is not None else None
            label = f"contact '{nm}'" if nm else f"contact #{c}"
            if cd[c] not in (1, 3, 4, 6):
                raise ValueError(f"{label}: condim {cd[c]} is invalid; use 1, 3, 4 or 6")
            if cd[c] > 3 and not has_rot:
                raise ValueError(f"{label}: condim {cd[c]} needs rotational rows: pass J_contact (ncon, 6, nv)")
            ValidateFriction(fr[c], "contact", nm, c)
            ValidateSolref(ref[c], "contact", nm, c)
            ValidateSolref(reff[c], "contact (solreffriction)", nm, c, allow_unset=True)
            ValidateSolimp(imp[c], "contact", nm, c)
        self._contacts = dict(J=Jc, dist=np.asarray(dist, dtype=np.float64).reshape(ncon), condim=cd,
                              friction=fr, solref=ref, solimp=imp, solreffriction=reff,
                              includemargin=np.asarray(includemargin, dtype=np.float64).reshape(ncon),
                              tran=np.asarray(tran, dtype=np.float64).reshape(ncon),
                              rot=np.asarray(rot, dtype=np.float64).reshape(ncon),
                              names=list(names) if names is not None else None)

    def Build(self, v, timestep: float, cone: int | str = CONE_PYRAMIDAL, impratio: float = 1.0,
              refsafe: bool = True) -> ConstraintProblem:
        """The constraint problem at velocity `v` (nv,) for a step of `timestep` seconds.

        cone: 0/'pyramidal' or 1/'elliptic'. refsafe clamps positive time constants to 2*timestep.
        """
        if isinstance(cone, str):
            if cone not in ("pyramidal", "elliptic"):
                raise ValueError(f"cone must be 'pyramidal' or 'elliptic', got '{cone}'")
            cone = CONE_ELLIPTIC if cone == "elliptic" else CONE_PYRAMIDAL
        if not (np.isfinite(timestep) and timestep > 0):
            raise ValueError(f"Build: timestep must be > 0, got {timestep}")
        if not (np.isfinite(impratio) and impratio > 0):
            raise ValueError(f"Build: impratio must be > 0, got {impratio}")
        vel = np.asarray(v, dtype=np.float64).reshape(-1)
        if vel.shape[0] != self.nv:
            raise ValueError(f"Build: v has {vel.shape[0]} entries, expected nv={self.nv}")
        nv = self.nv
        parts, names, jdv_rows = [], [], []
        grp_adr, grp_dim, grp_pos, grp_ref, grp_reff, grp_imp = [], [], [], [], [], []
        row = 0
        counts = {}
        for cat in ("eq", "fr", "lim"):
            counts[cat] = 0
            for g in self._groups[cat]:
                n = g["J"].shape[0]
                parts.append(g)
                grp_adr.append(row)
                grp_dim.append(g["dim"])
                grp_pos.append(g["imp_pos"])
                grp_ref.append(g["solref"])
                grp_reff.append(np.zeros(2))
                grp_imp.append(g["solimp"])
                names.extend([g["name"]] * n)
                if g["jdotv"] is not None:
                    jdv_rows.append((row, g["jdotv"]))
                row += n
                counts[cat] += n
        ne, nf, nl = counts["eq"], counts["fr"], counts["lim"]
        J_list = [p["J"] for p in parts]
        pos_l = [p["pos"] for p in parts]
        mar_l = [p["margin"] for p in parts]
        fl_l = [p["floss"] for p in parts]
        dA_l = [p["diagA"] for p in parts]
        if parts:
            sizes = [p["J"].shape[0] for p in parts]
            tp_l = [np.repeat(np.array([p["tp"] for p in parts], dtype=np.int64), sizes)]
            id_l = [np.repeat(np.arange(len(parts), dtype=np.int64), sizes)]
        else:
            tp_l, id_l = [], []
        con = self._contacts
        ncon = 0 if con is None else con["J"].shape[0]
        con_addr = np.zeros(0, dtype=np.int64)
        if ncon:
            (Jc, pos_c, mar_c, dA_c, tp_c, id_c, gadr_c, gdim_c, con_addr) = ContactRows(
                con["J"], con["dist"], con["condim"], con["friction"], con["includemargin"],
                con["tran"], con["rot"], cone == CONE_PYRAMIDAL, row, 0)
            J_list.append(Jc)
            pos_l.append(pos_c)
            mar_l.append(mar_c)
            fl_l.append(np.zeros(Jc.shape[0]))
            dA_l.append(dA_c)
            tp_l.append(tp_c)
            id_l.append(id_c)
            contact_groups = (gadr_c, gdim_c, con["dist"], con["solref"], con["solreffriction"], con["solimp"])
            names = RowNames(names, con["names"], gdim_c)
        cat = (lambda lst, shape, dt=np.float64: np.concatenate(lst) if lst else np.zeros(shape, dtype=dt))
        J = (J_list[0] if len(J_list) == 1 and ncon else  # only contact rows: ContactRows' fresh array
             np.concatenate(J_list, axis=0) if J_list else np.zeros((0, nv)))
        efc_pos, efc_margin = cat(pos_l, 0), cat(mar_l, 0)
        efc_fl, diagA0 = cat(fl_l, 0), cat(dA_l, 0)
        efc_type, efc_id = cat(tp_l, 0, np.int64), cat(id_l, 0, np.int64)
        con_dim = con["condim"] if ncon else np.zeros(0, dtype=np.int64)
        con_fr = con["friction"] if ncon else np.zeros((0, 5))
        g_adr = np.array(grp_adr, dtype=np.int64)
        g_dim = np.array(grp_dim, dtype=np.int64)
        g_pos = np.array(grp_pos, dtype=np.float64)
        g_ref = np.array(grp_ref, dtype=np.float64).reshape(-1, 2)
        g_reff = np.array(grp_reff, dtype=np.float64).reshape(-1, 2)
        g_imp = np.array(grp_imp, dtype=np.float64).reshape(-1, 5)
        if ncon:
            g_adr, g_dim, g_pos, g_ref, g_reff, g_imp = (
                np.concatenate([a, b]) if a.shape[0] else np.ascontiguousarray(b)
                for a, b in zip((g_adr, g_dim, g_pos, g_ref, g_reff, g_imp), contact_groups))
        grp_imp_arr = ClampSolimp(g_imp) if g_imp.shape[0] else np.zeros((0, 5))
        R, D, KBIP, diagA, con_mu = MakeImpedance(
            efc_type, efc_id, efc_margin, diagA0, g_adr, g_dim, g_pos, g_ref, g_reff, grp_imp_arr, ne, nf, con_dim,
            con_fr, float(timestep), bool(refsafe), float(impratio))
        efc_vel = MatVec(np.ascontiguousarray(J), vel)
        aref = ReferenceAcceleration(KBIP, efc_vel, efc_pos, efc_margin)
        for r0, jdv in jdv_rows:  # J̇v of connect / weld / distance rows (MuJoCo subtracts it from aref)
            aref[r0:r0 + jdv.shape[0]] -= jdv
        return ConstraintProblem(J=J, efc_type=efc_type, efc_id=efc_id, efc_pos=efc_pos,
                                 efc_margin=efc_margin, efc_frictionloss=efc_fl, efc_diagA=diagA, efc_R=R,
                                 efc_D=D, efc_KBIP=KBIP, efc_vel=efc_vel, efc_aref=aref, ne=ne, nf=nf,
                                 nl=nl, con_dim=con_dim, con_friction=con_fr, con_mu=con_mu,
                                 con_efc_address=con_addr, cone=int(cone), names=names)
