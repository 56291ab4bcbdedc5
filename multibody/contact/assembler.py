"""Assemble one step's constraint problem: equality, dry friction, limit and contact rows.

`ConstraintAssembler` collects constraints given their Jacobians and residuals (the plant computes
kinematics), validates their parameters with errors naming the element, and `Build` returns a
`ConstraintProblem`: the row arrays the solvers consume (J, aref, R, D, ...), laid out and
parameterized exactly as MuJoCo's efc_* arrays (rows ordered equality, friction, limit, contact).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from numba import njit

from .assembly import AssembleRows
from .rows import AllColumns
from .parameters import (CONE_ELLIPTIC, CONE_PYRAMIDAL, EQUALITY, FRICTION_DOF, FRICTION_TENDON,
                         LIMIT_JOINT, LIMIT_TENDON, ValidateFriction, ValidateSolimp,
                         ValidateSolref)


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

_EMPTY_F, _EMPTY_F2, _EMPTY_F5 = np.zeros(0), np.zeros((0, 2)), np.zeros((0, 5))
_EMPTY_I = np.zeros(0, dtype=np.int64)
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
        self._head = head
        self._names = contact_names
        self._rows = rows_per_contact
        self._end_cache = None

    @property
    def _end(self) -> np.ndarray:
        if self._end_cache is None:  # computed when a row label is first read
            self._end_cache = np.cumsum(np.asarray(self._rows, dtype=np.int64))
        return self._end_cache

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

    def AddValidatedLimit(self, dof: int, sign: float, dist: float, margin: float, diagA: float, solref: np.ndarray,
                          solimp: np.ndarray, name: str | None = None) -> None:
        """A joint limit row J = sign * e_dof (+1 lower, -1 upper) whose solref / solimp already passed
        ValidateSolref / ValidateSolimp (a caller adding the same limits every step checks them once)."""
        J = np.zeros((1, self.nv))
        J[0, dof] = sign
        self._add("lim", J, np.array([dist]), np.array([margin]), np.zeros(1), LIMIT_JOINT, np.array([diagA]),
                  solref, solimp, 1, dist, name)

    def AddValidatedLimits(self, dofs: np.ndarray, signs: np.ndarray, dists: np.ndarray, margins: np.ndarray,
                           diagA: np.ndarray, solref: np.ndarray, solimp: np.ndarray, names: list) -> None:
        """Several joint limit rows at once (arrays of the k rows, in row order): as k AddValidatedLimit calls,
        kept as one block that Build lays out without per-row work. solref (k, 2), solimp (k, 5) validated."""
        k = int(dofs.shape[0])
        if k:
            self._groups["lim"].append(dict(block=True, dofs=dofs, signs=signs, dists=dists, margins=margins,
                                            diagA=diagA, solref=solref, solimp=solimp, names=names))

    def _expand_blocks(self, group: list) -> list:
        """The parts of a group with every AddValidatedLimits block replaced by its rows."""
        out = []
        for p in group:
            if not p.get("block"):
                out.append(p)
                continue
            for r in range(p["dofs"].shape[0]):
                J = np.zeros((1, self.nv))
                J[0, int(p["dofs"][r])] = float(p["signs"][r])
                d = float(p["dists"][r])
                out.append(dict(J=J, pos=np.array([d]), margin=np.array([float(p["margins"][r])]), floss=np.zeros(1),
                                tp=LIMIT_JOINT, diagA=np.array([float(p["diagA"][r])]), solref=p["solref"][r],
                                solimp=p["solimp"][r], dim=1, imp_pos=d, name=p["names"][r], jdotv=None))
        return out

    def _limit_block_head(self, b: dict) -> tuple:
        """Build's head arrays when the only non-contact rows are one AddValidatedLimits block."""
        k = b["dofs"].shape[0]
        J = np.zeros((k, self.nv))
        J[np.arange(k), b["dofs"]] = b["signs"]
        dist = np.ascontiguousarray(b["dists"], dtype=np.float64)
        return (J, dist, np.ascontiguousarray(b["margins"], dtype=np.float64), np.zeros(k),
                np.ascontiguousarray(b["diagA"], dtype=np.float64), np.full(k, LIMIT_JOINT, np.int64),
                np.ones(k, np.int64), dist, np.ascontiguousarray(b["solref"], dtype=np.float64).reshape(k, 2),
                np.ascontiguousarray(b["solimp"], dtype=np.float64).reshape(k, 5))

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
        for c in (np.flatnonzero(~ok) if not ok.all() else ()):
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
        c64 = np.ascontiguousarray
        self._contacts = dict(J=c64(Jc), dist=c64(dist, dtype=np.float64).reshape(ncon), condim=c64(cd),
                              friction=c64(fr), solref=c64(ref), solimp=c64(imp), solreffriction=c64(reff),
                              includemargin=c64(includemargin, dtype=np.float64).reshape(ncon),
                              tran=c64(tran, dtype=np.float64).reshape(ncon),
                              rot=c64(rot, dtype=np.float64).reshape(ncon),
                              names=list(names) if names is not None else None)

    def SetValidatedContacts(self, J_contact: np.ndarray, dist: np.ndarray, condim: np.ndarray, friction: np.ndarray,
                             solref: np.ndarray, solimp: np.ndarray, includemargin: np.ndarray, tran: np.ndarray,
                             rot: np.ndarray, solreffriction: np.ndarray | None = None) -> None:
        """As SetContacts (no names) for arrays that already passed its checks: C-contiguous float64 (condim
        int64), friction (ncon, 5), J_contact (ncon, 3 or 6, nv) with 6 rows whenever a condim exceeds 3,
        solreffriction (ncon, 2) or None (all (0, 0): use solref). A caller stepping the same contact pairs
        validates each pair once through SetContacts."""
        ncon = J_contact.shape[0]
        reff = np.zeros((ncon, 2)) if solreffriction is None else np.ascontiguousarray(solreffriction, dtype=np.float64)
        self._contacts = dict(J=J_contact, dist=dist, condim=condim, friction=friction, solref=solref, solimp=solimp,
                              solreffriction=reff, includemargin=includemargin, tran=tran, rot=rot, names=None)

    def Build(self, v, timestep: float, cone: int | str = CONE_PYRAMIDAL, impratio: float = 1.0,
              refsafe: bool = True) -> ConstraintProblem:
        """The constraint problem at velocity `v` (nv,) for a step of `timestep` seconds.

        cone: 0/'pyramidal' or 1/'elliptic'. refsafe clamps positive time constants to 2*timestep.
        """
        if isinstance(cone, str):
            if cone not in ("pyramidal", "elliptic"):
                raise ValueError(f"cone must be 'pyramidal' or 'elliptic', got '{cone}'")
            cone = CONE_ELLIPTIC if cone == "elliptic" else CONE_PYRAMIDAL
        if not (math.isfinite(float(timestep)) and timestep > 0):
            raise ValueError(f"Build: timestep must be > 0, got {timestep}")
        if not (math.isfinite(float(impratio)) and impratio > 0):
            raise ValueError(f"Build: impratio must be > 0, got {impratio}")
        vel = np.asarray(v, dtype=np.float64).reshape(-1)
        if vel.shape[0] != self.nv:
            raise ValueError(f"Build: v has {vel.shape[0]} entries, expected nv={self.nv}")
        nv = self.nv
        eq, fr, lim = self._groups["eq"], self._groups["fr"], self._groups["lim"]
        names, jdv_rows = [], []
        ne = nf = nl = 0
        if not eq and not fr and len(lim) == 1 and lim[0].get("block"):  # only joint limits: no per-row work
            head = self._limit_block_head(lim[0])
            nl = head[0].shape[0]
            names = list(lim[0]["names"])
            parts = None
        else:
            lim = self._expand_blocks(lim)
            parts = eq + fr + lim
        if parts:
            sizes = [p["J"].shape[0] for p in parts]
            n_eq, n_fr = len(eq), len(eq) + len(fr)
            ne, nf, nl = sum(sizes[:n_eq]), sum(sizes[n_eq:n_fr]), sum(sizes[n_fr:])
            row = 0
            for p, n in zip(parts, sizes):
                names.extend([p["name"]] * n)
                if p["jdotv"] is not None:
                    jdv_rows.append((row, p["jdotv"]))
                row += n
            tps = np.array([p["tp"] for p in parts], dtype=np.int64)
            if row == len(parts):  # one row per constraint (limits, dry friction): the row values in one array
                rv = np.ascontiguousarray(np.array([(p["pos"][0], p["margin"][0], p["floss"][0], p["diagA"][0],
                                                     p["imp_pos"]) for p in parts], dtype=np.float64).T)
                per_row = (rv[0], rv[1], rv[2], rv[3], tps, np.ones(row, np.int64), rv[4])
            else:
                per_row = (np.concatenate([p["pos"] for p in parts]), np.concatenate([p["margin"] for p in parts]),
                           np.concatenate([p["floss"] for p in parts]), np.concatenate([p["diagA"] for p in parts]),
                           np.repeat(tps, sizes), np.array([p["dim"] for p in parts], dtype=np.int64),
                           np.array([p["imp_pos"] for p in parts], dtype=np.float64))
            head = (np.concatenate([p["J"] for p in parts], axis=0), *per_row,
                    np.array([p["solref"] for p in parts], dtype=np.float64).reshape(-1, 2),
                    np.array([p["solimp"] for p in parts], dtype=np.float64).reshape(-1, 5))
        elif parts is not None:
            head = (np.zeros((0, nv)), _EMPTY_F, _EMPTY_F, _EMPTY_F, _EMPTY_F, _EMPTY_I, _EMPTY_I, _EMPTY_F,
                    _EMPTY_F2, _EMPTY_F5)
        con = self._contacts
        ncon = 0 if con is None else con["J"].shape[0]
        if ncon:
            contacts = (con["J"], con["dist"], con["condim"], con["friction"], con["includemargin"], con["tran"],
                        con["rot"], con["solref"], con["solreffriction"], con["solimp"])
        else:
            contacts = (np.zeros((0, 3, nv)), _EMPTY_F, _EMPTY_I, _EMPTY_F5, _EMPTY_F, _EMPTY_F, _EMPTY_F, _EMPTY_F2,
                        _EMPTY_F2, _EMPTY_F5)
        (J, efc_pos, efc_margin, efc_fl, efc_type, efc_id, R, D, KBIP, diagA, con_mu, efc_vel, aref, con_addr,
         rows_c) = AssembleRows(*head, *contacts, cone == CONE_PYRAMIDAL, ne, nf, float(timestep), bool(refsafe),
                                float(impratio), vel, *AllColumns(ncon, nv))
        for r0, jdv in jdv_rows:  # J̇v of connect / weld / distance rows (MuJoCo subtracts it from aref)
            aref[r0:r0 + jdv.shape[0]] -= jdv
        if ncon:
            names = RowNames(names, con["names"], rows_c)
        con_dim, con_fr = contacts[2], contacts[3]
        return ConstraintProblem(J=J, efc_type=efc_type, efc_id=efc_id, efc_pos=efc_pos,
                                 efc_margin=efc_margin, efc_frictionloss=efc_fl, efc_diagA=diagA, efc_R=R,
                                 efc_D=D, efc_KBIP=KBIP, efc_vel=efc_vel, efc_aref=aref, ne=ne, nf=nf,
                                 nl=nl, con_dim=con_dim, con_friction=con_fr, con_mu=con_mu,
                                 con_efc_address=con_addr, cone=int(cone), names=names)
