"""The discrete plant's constraint step: contacts, limits, dry friction and equality constraints solved
as one soft-constraint problem (MuJoCo's formulation), installed through the plant's
_SetDiscreteConstraintSolver hook.

Per step: MuJoCo-style contact manifolds from the geometry_query input (QueryObject.ComputeContactPoints),
contact-frame Jacobians, MuJoCo rows for MuJoCo-parameterized pairs (ConstraintAssembler), SAP rows for
Drake-material pairs (one deepest point per penetrating pair, as Drake's point contact), then
SolveConstraints (Newton by default, warm-started with the previous step's acceleration).
"""
from __future__ import annotations

import re

from dataclasses import dataclass

import numpy as np

from mallard.systems.framework.portable import PortableAttributes
from mallard.systems.framework.weak_owner import WeakAttribute

from . import (ConstraintAssembler, ContactForces, DelassusDiagonal, PointPairContactInfo,
                       SapContactProblem, SolveConstraints)
from .assembler import ConstraintProblem, RowNames
from .assembly import AssembleLimitContactRows
from .parameters import CONE_ELLIPTIC, CONE_PYRAMIDAL
from .constraint_rows import ConstraintRowModel
from .elimination import ReverseTreeSolve
from .geometry_table import ContactGeometryTable
from ..kernels.contact_kernels import ContactJacobians, MujocoContactArrays
from ..pipeline.integrate import QuaternionJoints, rotate_quaternion_blocks


_EMPTY_F, _EMPTY_F2, _EMPTY_F5 = np.zeros(0), np.zeros((0, 2)), np.zeros((0, 5))
_EMPTY_I = np.zeros(0, np.int64)


class _Ids:
    """The geometry ids of the selected contacts, listed on first use (only ContactResults reads them)."""

    __slots__ = ("_ids", "_sel", "_list")

    def __init__(self, ids, sel):
        self._ids, self._sel, self._list = ids, sel, None

    def _get(self) -> list:
        if self._list is None:
            self._list = list(self._ids) if self._sel is None else [self._ids[k] for k in self._sel.tolist()]
        return self._list

    def __getitem__(self, c):
        return self._get()[c]

    def __len__(self) -> int:
        return len(self._ids) if self._sel is None else int(self._sel.shape[0])

    def __iter__(self):
        return iter(self._get())


@dataclass
class ContactSet:
    """The contacts of one step (MuJoCo pairs first, then Drake pairs), all arrays with leading ncon."""
    body_A: np.ndarray
    body_B: np.ndarray
    id_A: list            # GeometryIds (a list or a lazily listed _Ids)
    id_B: list
    pos_W: np.ndarray
    frame_W: np.ndarray   # rows: normal from A to B, tangent 1, tangent 2
    dist: np.ndarray
    J: np.ndarray         # (ncon, 6, nv) contact-frame Jacobians of V_B - V_A ((ncon, 3, nv) if condim <= 3)
    n_mujoco: int

    @property
    def size(self) -> int:
        return int(self.dist.shape[0])


@dataclass
class StepSolution:
    """One solved step: the accelerations, the problem and solver result, contacts and contact forces."""
    qacc: np.ndarray
    problem: ConstraintProblem
    result: object
    contacts: ContactSet
    f_contact: np.ndarray     # (ncon, 6) contact-frame forces on B (normal, t1, t2, spin, roll1, roll2)
    tau_contact: np.ndarray   # (nv,) generalized contact forces J_c' f


def _concat_problems(a: ConstraintProblem, b: ConstraintProblem) -> ConstraintProblem:
    """Append b's contact rows (only contacts) after a's rows."""
    ncon_a = a.con_dim.shape[0]
    cat = np.concatenate
    id_b = b.efc_id + ncon_a
    return ConstraintProblem(
        J=np.vstack([a.J, b.J]), efc_type=cat([a.efc_type, b.efc_type]), efc_id=cat([a.efc_id, id_b]),
        efc_pos=cat([a.efc_pos, b.efc_pos]), efc_margin=cat([a.efc_margin, b.efc_margin]),
        efc_frictionloss=cat([a.efc_frictionloss, b.efc_frictionloss]), efc_diagA=cat([a.efc_diagA, b.efc_diagA]),
        efc_R=cat([a.efc_R, b.efc_R]), efc_D=cat([a.efc_D, b.efc_D]),
        efc_KBIP=np.vstack([a.efc_KBIP.reshape(-1, 4), b.efc_KBIP.reshape(-1, 4)]),
        efc_vel=cat([a.efc_vel, b.efc_vel]), efc_aref=cat([a.efc_aref, b.efc_aref]), ne=a.ne, nf=a.nf, nl=a.nl,
        con_dim=cat([a.con_dim, b.con_dim]).astype(np.int64),
        con_friction=np.vstack([a.con_friction.reshape(-1, 5), b.con_friction]),
        con_mu=cat([a.con_mu, b.con_mu]), con_efc_address=cat([a.con_efc_address, b.con_efc_address + a.nefc]),
        cone=a.cone, names=list(a.names) + list(b.names))


def _TreeBlocks(m):
    """Start offsets of the dof ranges of the plant's trees as MuJoCo's (a tree starts at each body with dofs
    none of whose ancestors has dofs: two arms on a welded base are two trees), or None when some tree's dofs
    are not contiguous. The constraint solver's islands and sparse factorization order by them."""
    if m.nv == 0:
        return None
    root = np.full(m.nb, -1, np.int64)  # the tree's first moving body; -1: welded to the world
    for b in m.order:
        if b == 0:
            continue
        parent = int(m.ji[b, 0])
        above = root[parent] if parent > 0 else -1
        root[b] = above if above >= 0 or int(m.ji[b, 5]) == 0 else b
    tree_of_dof = np.full(m.nv, -1, np.int64)
    for b in m.order:
        if b == 0:
            continue
        vs, nvb = int(m.ji[b, 4]), int(m.ji[b, 5])
        tree_of_dof[vs:vs + nvb] = root[b]
    if np.any(tree_of_dof < 0):
        return None
    change = np.flatnonzero(np.diff(tree_of_dof)) + 1
    starts = np.concatenate([[0], change, [m.nv]])
    if len(set(tree_of_dof[starts[:-1]].tolist())) != starts.shape[0] - 1:
        return None  # a tree's dofs are split
    starts = starts.astype(np.int64)
    starts.flags.writeable = False  # fixed at Finalize (lets SolveConstraints check it once)
    return starts


class PlantConstraintSolver(PortableAttributes):
    """callable(plant, context, kin, M_hat, a_free, h) -> (a, tau_contact): the plant's constraint step."""

    _plant = WeakAttribute()  # its plant holds it: no reference cycle (systems/framework/weak_owner.py)

    def __init__(self, plant):
        self._plant = plant
        self.rows = ConstraintRowModel(plant)
        self.geometry = ContactGeometryTable(plant)
        self.tree_blocks = _TreeBlocks(plant._model)
        self._has_geometry = plant.num_collision_geometries() > 0  # fixed at Finalize (no registration after)
        self.last_report = None
        self.failures = 0

    # ---- contacts ----------------------------------------------------------------------------------------
    def CalcContacts(self, context, kin) -> tuple[ContactSet, dict]:
        """Contacts at this state with their (mixed) parameters."""
        plant = self._plant
        m = plant._model
        port = plant.get_geometry_query_input_port()
        if not self._has_geometry or not port.HasValue(context):
            return self._Empty(m.nv), {}
        query = port.Eval(context)
        cps = query.ComputeContactPoints()
        active = cps.dist < cps.margin  # MuJoCo excludes contacts at or beyond the margin (no rows, no force)
        if not active.all():
            cps = cps.Subset(np.flatnonzero(active))
        if cps.size() == 0:
            return self._Empty(m.nv), {}
        inspector = query.inspector()
        table = self.geometry
        table.Sync(inspector)
        i1, i2 = np.asarray(cps.index_1, np.int64), np.asarray(cps.index_2, np.int64)
        fast = table.FastArrays()
        if fast is not None and not table.has_solreffriction and cps.pos_W.flags.c_contiguous and \
                cps.frame_W.flags.c_contiguous:
            ok, bA, bB, cd, fr, ref, imp, mar, J = MujocoContactArrays(i1, i2, *fast, m.ji, kin.S, cps.pos_W,
                                                                       cps.frame_W)
            if ok:  # every contact a MuJoCo pair seen and validated before: one compiled call
                dist = np.ascontiguousarray(cps.dist, dtype=np.float64)
                cs = ContactSet(bA, bB, _Ids(cps.id_1, None), _Ids(cps.id_2, None), cps.pos_W, cps.frame_W, dist, J,
                                int(dist.shape[0]))
                return cs, {"i1": i1, "i2": i2, "mujoco": (cd, fr, ref, imp, mar), "validated": True}
        body, is_mujoco = table.IndexArrays(inspector, i1, i2, cps.id_1, cps.id_2)
        is_mj = is_mujoco[i1] | is_mujoco[i2]
        all_mj = bool(is_mj.all())
        mj = np.arange(is_mj.shape[0]) if all_mj else np.flatnonzero(is_mj)
        # Drake pairs: the deepest penetrating point of each pair (Drake's point-pair contact)
        dk_all = mj[:0] if all_mj else np.flatnonzero(~is_mj & (cps.dist < 0))
        dk = []
        if dk_all.size:
            best = {}
            for k in dk_all.tolist():
                key = (int(i1[k]), int(i2[k]))
                if key not in best or cps.dist[k] < cps.dist[best[key]]:
                    best[key] = k
            dk = sorted(best.values())
        sel = mj if not dk else np.concatenate([mj, np.asarray(dk, np.int64)])
        if sel.size == 0:
            return self._Empty(m.nv), {}
        if all_mj:  # every contact kept, in order: no gathers
            s1, s2 = i1, i2
            pos, frame = np.ascontiguousarray(cps.pos_W), np.ascontiguousarray(cps.frame_W)
            dist = np.ascontiguousarray(cps.dist, dtype=np.float64)
        else:
            s1, s2 = i1[sel], i2[sel]
            pos = np.ascontiguousarray(cps.pos_W[sel])
            frame = np.ascontiguousarray(cps.frame_W[sel])
            dist = np.ascontiguousarray(cps.dist[sel])
        bA, bB = body[s1], body[s2]
        nmj = int(mj.size)
        mj_par = table.MujocoPairArrays(s1[:nmj], s2[:nmj]) if nmj else None
        rotational = mj_par is not None and bool((mj_par[0] > 3).any())  # condim 4/6 need the rotational rows
        J = ContactJacobians(m.ji, kin.S, bA, bB, pos, frame, rotational)
        cs = ContactSet(bA, bB, _Ids(cps.id_1, sel), _Ids(cps.id_2, sel), pos, frame, dist, J, nmj)
        info = {"i1": s1, "i2": s2, "mujoco": mj_par}
        if nmj and table.has_solreffriction:  # explicit pairs with their own solreffriction: general path
            info["solreffriction"] = table.Solreffriction(table.last_slots)
        return cs, info

    @staticmethod
    def _Empty(nv: int) -> ContactSet:
        return ContactSet(np.zeros(0, np.int64), np.zeros(0, np.int64), [], [], np.zeros((0, 3)),
                          np.zeros((0, 3, 3)), np.zeros(0), np.zeros((0, 6, nv)), 0)

    # ---- the step ----------------------------------------------------------------------------------------
    def Solve(self, context, kin, M_hat, a_free, h) -> StepSolution:
        """One constraint step: contacts, rows (one compiled call when only joint limits and already validated
        MuJoCo pairs are present, ConstraintAssembler otherwise) and the solve."""
        opts = self._plant.get_constraint_solver_options()
        contacts, info = self.CalcContacts(context, kin)
        nmj = contacts.n_mujoco
        problem = None
        try:
            if self.rows.only_limits and nmj == contacts.size and "solreffriction" not in info and (
                    nmj == 0 or info.get("validated") or self.geometry.SlotsValidated(self.geometry.last_slots)):
                problem = self._LimitContactProblem(kin, contacts, info, h, opts)
            else:
                problem = self._GeneralProblem(kin, contacts, info, h, opts, M_hat)
            return self._SolveProblem(context, problem, contacts, kin, M_hat, a_free, h, opts)
        except ValueError as exc:  # e.g. NaN in the rows: name the contact or constraint that brought it
            self._RaiseIfNonFiniteContact(context, contacts)
            if problem is not None:
                self._RaiseIfNonFiniteRow(context, problem)
            bad_sap = re.match(r"contact #(\d+): (.*)", str(exc))
            if bad_sap is not None and nmj + int(bad_sap.group(1)) < contacts.size:
                raise RuntimeError(f"MultibodyPlant '{self._plant.get_name()}' at t = {context.get_time()}: the contact "
                                   f"between {self._ContactLabel(context, contacts, nmj + int(bad_sap.group(1)))}: "
                                   f"{bad_sap.group(2)}") from None
            raise

    def _ContactLabel(self, context, contacts: ContactSet, k: int) -> str:
        """`geometry 'a' of body 'x' and geometry 'b' of body 'y'` for contact k (error messages)."""
        plant = self._plant
        inspector = plant.get_geometry_query_input_port().Eval(context).inspector()
        ids = (contacts.id_A[k], contacts.id_B[k])
        bodies = (plant._bodies[int(contacts.body_A[k])], plant._bodies[int(contacts.body_B[k])])
        return " and ".join(f"geometry '{inspector.GetName(g)}' of body '{b.name()}'" for g, b in zip(ids, bodies))

    def _RaiseIfNonFiniteRow(self, context, problem: ConstraintProblem) -> None:
        """RuntimeError naming the first constraint row (joint limit, equality, tendon, ...) whose position error,
        reference acceleration or Jacobian is not finite."""
        for r in range(problem.nefc):
            if np.isfinite(problem.efc_pos[r]) and np.isfinite(problem.efc_aref[r]) and np.all(np.isfinite(problem.J[r])):
                continue
            name = problem.names[r] if problem.names is not None and r < len(problem.names) else f"row {r}"
            raise RuntimeError(f"MultibodyPlant '{self._plant.get_name()}' at t = {context.get_time()}: the constraint "
                               f"'{name}' is not finite (position error {problem.efc_pos[r]}, reference acceleration "
                               f"{problem.efc_aref[r]}); a frame, site or body it uses is too far out (e.g. at 1e308)")

    def _RaiseIfNonFiniteContact(self, context, contacts: ContactSet) -> None:
        """RuntimeError naming the geometries of the first contact whose distance, point, frame or Jacobian is
        not finite (a collision geometry of enormous size or at an enormous distance)."""
        for k in range(contacts.size):
            if all(np.all(np.isfinite(a[k])) for a in (contacts.dist, contacts.pos_W, contacts.frame_W, contacts.J)):
                continue
            raise RuntimeError(f"MultibodyPlant '{self._plant.get_name()}' at t = {context.get_time()}: the contact "
                               f"between {self._ContactLabel(context, contacts, k)} is not finite (distance "
                               f"{contacts.dist[k]}, point {contacts.pos_W[k].tolist()}); a geometry's size or pose is "
                               "too large (e.g. 1e308) or not finite")

    def _LimitContactProblem(self, kin, contacts: ContactSet, info: dict, h: float, opts) -> ConstraintProblem:
        """The problem of a step whose rows are joint limits and MuJoCo contacts of already validated pairs: one
        compiled call (AssembleLimitContactRows) in place of ConstraintAssembler's per-constraint assembly."""
        rows = self.rows
        if contacts.size:
            cd, fr, ref, imp, mar = info["mujoco"]
            Jc, dist, bA, bB = contacts.J, contacts.dist, contacts.body_A, contacts.body_B
        else:
            Jc, dist, bA, bB = np.zeros((0, 3, rows.nv)), _EMPTY_F, _EMPTY_I, _EMPTY_I
            cd, fr, ref, imp, mar = _EMPTY_I, _EMPTY_F5, _EMPTY_F2, _EMPTY_F5, _EMPTY_F
        cone = CONE_ELLIPTIC if opts.cone == "elliptic" else CONE_PYRAMIDAL
        J, F, I, KBIP, con_mu, C, kk, bad = AssembleLimitContactRows(
            kin.q, *rows.LimitArrays(), rows.dof_invweight0, Jc, dist, cd, fr, mar, bA, bB, rows.body_invweight0, ref,
            imp, cone == CONE_PYRAMIDAL, float(h), True, float(opts.impratio), kin.v)
        if bad >= 0:
            rows.RaiseIfBadLimit(int(bad))
        names = rows.LimitNames(kk)
        return ConstraintProblem(J=J, efc_type=I[0], efc_id=I[1], efc_pos=F[0], efc_margin=F[1],
                                 efc_frictionloss=F[2], efc_diagA=F[5], efc_R=F[3], efc_D=F[4], efc_KBIP=KBIP,
                                 efc_vel=F[6], efc_aref=F[7], ne=0, nf=0, nl=int(kk.shape[0]), con_dim=cd,
                                 con_friction=fr, con_mu=con_mu, con_efc_address=C[0], cone=cone,
                                 names=RowNames(names, None, C[1]) if contacts.size else names)

    def _GeneralProblem(self, kin, contacts: ContactSet, info: dict, h: float, opts, M_hat) -> ConstraintProblem:
        """The problem through ConstraintAssembler: any rows, MuJoCo and Drake (SAP) contacts."""
        plant = self._plant
        m = plant._model
        asm = ConstraintAssembler(m.nv)
        self.rows.Add(asm, m, kin)
        nmj = contacts.n_mujoco
        iw = self.rows.body_invweight0
        if nmj:
            cd, fr, ref, imp, mar = info["mujoco"]
            bA, bB = contacts.body_A[:nmj], contacts.body_B[:nmj]
            iwA, iwB = iw[bA], iw[bB]
            tran, rot = iwA[:, 0] + iwB[:, 0], iwA[:, 1] + iwB[:, 1]
            table = self.geometry
            slots = table.last_slots
            if info.get("validated") or table.SlotsValidated(slots):  # every pair checked before: no screening
                asm.SetValidatedContacts(contacts.J if nmj == contacts.size else contacts.J[:nmj],
                                         contacts.dist if nmj == contacts.size else contacts.dist[:nmj], cd, fr, ref,
                                         imp, mar, tran, rot, solreffriction=info.get("solreffriction"))
            else:
                asm.SetContacts(contacts.J[:nmj], contacts.dist[:nmj], cd, fr, ref, imp, mar, tran, rot,
                                solreffriction=info.get("solreffriction"))
                table.MarkValidated(slots)
        problem = asm.Build(kin.v, h, cone=opts.cone, impratio=opts.impratio)
        ndk = contacts.size - nmj
        if ndk:
            par = [self.geometry.DrakePair(i, j) for i, j in zip(info["i1"][nmj:].tolist(), info["i2"][nmj:].tolist())]
            J3 = np.ascontiguousarray(contacts.J[nmj:, :3])
            w = DelassusDiagonal(J3, M_hat)
            sap = SapContactProblem(J3, contacts.dist[nmj:], kin.v, [p[0] for p in par], [p[2] for p in par],
                                    [p[4] for p in par], w, h, beta=plant.get_sap_near_rigid_threshold())
            problem = _concat_problems(problem, sap)
        return problem

    def _SolveProblem(self, context, problem: ConstraintProblem, contacts: ContactSet, kin, M_hat, a_free, h,
                      opts) -> StepSolution:
        plant = self._plant
        m = plant._model
        mujoco_damping = bool(m.damping.any()) and opts.position_integration_is_mujoco(plant)
        damping = h * m.damping if mujoco_damping else None
        tb = self.tree_blocks  # M's trees: the damping solves by ReverseTreeSolve, as the compiled step's solver.py
        blocks = tb if tb is not None and tb.shape[0] >= 2 and tb[-1] == m.nv else np.array([0, m.nv], np.int64)
        if mujoco_damping and problem.nefc:
            # MuJoCo's Euler: constraints solved with M and explicit damping in qacc_smooth; the implicit
            # damping (M + hD) is applied afterwards to the total force, a = (M + hD)^-1 (tau_smooth + J'f)
            tau_smooth = M_hat @ a_free
            M_hat = M_hat - np.diag(damping)
            a_free = ReverseTreeSolve(M_hat, blocks, tau_smooth)
        # the warm start is kept as MuJoCo's qacc_warmstart: ball and free joints' angular blocks in the child frame
        # (an angular acceleration reused at the next step stays fixed to the rotating body)
        qs, vs = QuaternionJoints(m.ji)
        if problem.nefc == 0:  # nothing active: the unconstrained step
            self.last_report = (True, 0, 0.0)
            # next step's warm start: this step's qacc, whose implicit damping MuJoCo applies only when integrating
            context._contact_warm_start = rotate_quaternion_blocks(
                kin.q, ReverseTreeSolve(M_hat - np.diag(damping), blocks, M_hat @ a_free) if mujoco_damping
                else np.array(a_free, dtype=float), qs, vs, True)
            return StepSolution(np.array(a_free, dtype=float), problem, None, contacts, np.zeros((0, 6)),
                                np.zeros(m.nv))
        warm_start = getattr(context, "_contact_warm_start", None)  # the previous step's, kept with the context
        if warm_start is None:
            warm_start = np.zeros(m.nv)  # MuJoCo's qacc_warmstart after a reset
        warm_start = rotate_quaternion_blocks(kin.q, np.asarray(warm_start, dtype=float), qs, vs, False)
        try:
            res = SolveConstraints(problem, M_hat, a_free, solver=opts.solver, iterations=opts.iterations,
                                   tolerance=opts.tolerance, ls_iterations=opts.ls_iterations,
                                   ls_tolerance=opts.ls_tolerance, qacc_warmstart=warm_start,
                                   meaninertia=self.rows.meaninertia, tree_blocks=self.tree_blocks,
                                   check_mass_matrix=False, noslip_iterations=opts.noslip_iterations,
                                   noslip_tolerance=opts.noslip_tolerance)  # M_hat is symmetric by construction
        except (ValueError, RuntimeError) as err:
            if "NaN/inf" not in str(err):
                raise
            plant._RaiseIllPosedSolve(context, str(err), a_free, problem.J)
        context._contact_warm_start = rotate_quaternion_blocks(kin.q, res.qacc, qs, vs, True)  # pickles, clones
        self.last_report = (bool(res.converged), int(res.iterations), float(res.residual))
        if not res.converged:
            self.failures += 1
            if opts.throw_on_failure:
                res.ThrowIfNotConverged(f"MultibodyPlant '{plant.get_name()}' constraint solver at t = "
                                        f"{context.get_time()}")
        qacc = res.qacc
        if mujoco_damping:
            qacc = ReverseTreeSolve(M_hat + np.diag(damping), blocks, tau_smooth + res.qfrc_constraint)
        f_c = ContactForces(res.efc_force, problem.efc_type, problem.con_efc_address, problem.con_dim,
                            problem.con_friction) if contacts.size else np.zeros((0, 6))
        c0 = problem.con_efc_address[0] if contacts.size else problem.nefc  # first contact row
        if c0 == problem.nefc:
            tau_c = np.zeros(m.nv)
        elif c0 == 0:  # only contact rows: J' f is the solver's qfrc_constraint
            tau_c = res.qfrc_constraint.copy()
        else:
            tau_c = problem.J[c0:].T @ res.efc_force[c0:]
        return StepSolution(qacc, problem, res, contacts, f_c, tau_c)

    def __call__(self, plant, context, kin, M_hat, a_free, h):
        sol = self.Solve(context, kin, M_hat, a_free, h)
        capture = plant._contact_capture
        if capture is not None:
            capture.append(sol)
        return sol.qacc, sol.tau_contact


def ContactInfosFromSolution(plant, sol: StepSolution, kin) -> list[PointPairContactInfo]:
    """PointPairContactInfo of every contact of a solved step (force on B at the contact point, in W)."""
    cs = sol.contacts
    out = []
    if cs.size == 0:
        return out
    from ...geometry import PenetrationAsPointPair
    vrel = cs.J[:, :3, :] @ kin.v  # (ncon, 3) [separation speed, slip components] in the contact frame
    for c in range(cs.size):
        f_W = cs.frame_W[c].T @ sol.f_contact[c, :3]
        n, depth = cs.frame_W[c, 0], -float(cs.dist[c])  # n from A to B; the pair's points straddle pos_W
        pair = PenetrationAsPointPair(cs.id_A[c], cs.id_B[c], cs.pos_W[c] + 0.5 * depth * n,
                                      cs.pos_W[c] - 0.5 * depth * n, -n.copy(), depth)
        out.append(PointPairContactInfo(plant._bodies[int(cs.body_A[c])].index(),
                                        plant._bodies[int(cs.body_B[c])].index(), f_W, cs.pos_W[c],
                                        float(vrel[c, 0]), float(np.hypot(vrel[c, 1], vrel[c, 2])), pair))
    return out
