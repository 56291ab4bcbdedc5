"""Data: the per-context scratch of the compiled step (MuJoCo's mjData): kinematics, forces, contacts, constraint
rows, solver results. It lives in a cache entry of the plant's context (never shared between contexts, dropped by
Clone and pickle, rebuilt on first use); the state the next step needs (the solver's warm start) travels in the
context's state instead (see `StepResults`).

Stages assign whole arrays to Data's fields; a field holds whatever the last stage that computed it left. The
constraint rows and the solve's outputs are views of buffers Data keeps from step to step (efc_rows.py, solver.py):
the next step overwrites them (the contacts' Jacobians d.con_J too), so whatever must outlive a step is copied
(step_contacts.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from .structs import BOOL, F1, F2, F3, FLOAT, I1, I2, INT, declare


@structref.register
class DataType(types.StructRef):
    """numba type of Data."""


class Data(structref.StructRefProxy):
    """One context's scratch of the compiled step (see module docstring and `DATA` for the fields)."""


DATA = declare(DataType, Data, [
    # diagnostics: the stage running (STAGE_* in forward.py), the offending row / contact of an error status
    ("stage", INT), ("bad_index", INT), ("bad_what", INT),
    # smooth (smooth.py): state, body parameters (nb × 13), kinematics at Wo in W
    ("q", F1), ("v", F1), ("bp", F2),
    ("R_WB", F3), ("p_WB", F2), ("R_WF", F3), ("p_WF", F2), ("p_WM", F2), ("S", F2), ("V", F2), ("c", F2),
    ("Iw", F3),
    # tendons (tendon.py): lengths [m or rad], velocities, moment arms ∂L/∂v (nten × nv), path points (MuJoCo's
    # ten_wrapadr / ten_wrapnum / wrap_obj / wrap_xpos, plus each point's plant body)
    ("ten_length", F1), ("ten_velocity", F1), ("ten_J", F2),
    ("ten_wrapadr", I1), ("ten_wrapnum", I1), ("wrap_obj", I1), ("wrap_body", I1), ("wrap_xpos", F2),
    # forces: body forces at origins (nb × 6), generalized forces without damping, MuJoCo actuator forces
    ("F", F2), ("tau", F1), ("actuator_force", F1),
    # M̂ = M + h·D, unconstrained and constrained accelerations
    ("M", F2), ("qacc_smooth", F1), ("qacc", F1),
    # the smooth stages' scratch (smooth.py): composite inertias (nb × 10), body accelerations and forces (2·nb × 6),
    # M̂'s Cholesky factor (nv × nv) and the damped generalized forces (nv)
    ("sm_Ic", F2), ("sm_Af", F2), ("sm_L", F2), ("sm_tau", F1),
    # collision (collision.py): geometry poses and candidates
    ("R_WG", F3), ("p_WG", F2),
    ("col_dist", F1), ("col_pos", F2), ("col_frame", F3), ("col_g1", I1), ("col_g2", I1), ("col_margin", F1),
    ("col_pair", I1),
    # contacts (contact.py): MuJoCo contacts first (ncon_mujoco), then Drake's
    ("ncon", INT), ("ncon_mujoco", INT),
    ("con_body", I2), ("con_geom", I2), ("con_dist", F1), ("con_pos", F2), ("con_frame", F3),
    ("con_condim", I1), ("con_friction", F2), ("con_solref", F2), ("con_solreffriction", F2), ("con_solimp", F2),
    ("con_includemargin", F1), ("con_drake", F2), ("con_J", F3),
    # equality rows (equality.py): J (ne × nv), residual, J̇·v (ne) and the impedance position of each equality
    ("eq_J", F2), ("eq_pos", F1), ("eq_jdv", F1), ("eq_gpos", F1),
    ("eq_F", F2),               # Drake's SAP constraints' forces on the bodies F_Bo_W (nb × 6; drake_constraints.py)
    # constraint rows (constraint.py)
    ("efc_J", F2), ("efc_type", I1), ("efc_id", I1), ("efc_pos", F1), ("efc_margin", F1), ("efc_floss", F1),
    ("efc_diagA", F1), ("efc_R", F1), ("efc_D", F1), ("efc_KBIP", F2), ("efc_vel", F1), ("efc_aref", F1),
    ("efc_limit", I1), ("ne", INT), ("nf", INT), ("nl", INT),
    ("con_dim", I1), ("con_fric", F2), ("con_mu", F1), ("con_efc_address", I1),
    # the buffers the rows above are views of (efc_rows.py; capacity grown when a step's rows exceed it): J (cap × nv),
    # per-row floats (EFC_F_* × cap), ints (EFC_I_* × cap), KBIP (cap × 4), per-group floats (gcap × GRP_F) and ints
    # (2 × gcap), per-contact floats (2 × ccap: con_mu, spare) and ints (2 × ccap: efc address, rows), contact forces
    # (ccap × 6); each contact's dofs con_chain[con_chain_adr[c]:con_chain_adr[c + 1]] (ContactChains, once a step)
    ("efc_bJ", F2), ("efc_bf", F2), ("efc_bi", I2), ("efc_bK", F2), ("grp_bf", F2), ("grp_bi", I2),
    ("con_bf", F2), ("con_bi", I2), ("con_bforce", F2), ("con_chain", I1), ("con_chain_adr", I1),
    # the storage d.con_J views (efc_rows.contact_jacobians) and the contacts and rows per contact it last held (on
    # their chains d.con_chain); the rows efc_bJ last held: nh head rows whole, then contact rows up to efc_bJ_n,
    # row r on the chain efc_bJ_chain[efc_bJ_adr[c]:efc_bJ_adr[c + 1]] of its contact c = efc_bi[EI_ID, r]
    ("con_bJ", F1), ("con_bJ_n", INT), ("con_bJ_nr", INT),
    ("efc_bJ_nh", INT), ("efc_bJ_n", INT), ("efc_bJ_chain", I1), ("efc_bJ_adr", I1),
    # the solve's workspace (solver.py): floats, ints, and its outputs qacc, qfrc_constraint, tau_contact and
    # qacc_warmstart (4 × nv) that the Data's fields are views of
    ("sol_f", F1), ("sol_i", I1), ("sol_out", F2),
    # solve (solver.py)
    ("efc_force", F1), ("qfrc_constraint", F1), ("con_force", F2), ("tau_contact", F1),
    ("qacc_warmstart", F1), ("warm_valid", BOOL),
    ("solver_converged", BOOL), ("solver_iterations", INT), ("solver_residual", FLOAT),
    # integration (derivative.py, integrate.py): velocity derivative of the smooth forces (implicit schemes)
    ("qDeriv", F2),
    # Drake's discrete contact (drake_contact.py): contact-frame velocities [vn, vt1, vt2] at v⁺
    ("con_vel", F2),
    # actuation (actuation.py): activations (the step's `act` input or an RK4 stage's) and their rates, actuator
    # lengths, velocities and moment arms (nout × nv)
    ("act", F1), ("act_dot", F1), ("actuator_length", F1), ("actuator_velocity", F1), ("actuator_moment", F2),
    # gravity compensation (gravcomp.py): MuJoCo's qfrc_gravcomp (nv)
    ("qfrc_gravcomp", F1),
    # actuators' generalized forces (MuJoCo's qfrc_actuator), sensors (sensor.py): MuJoCo's sensordata at the
    # step's starting state
    ("qfrc_actuator", F1), ("sensordata", F1),
    # hydroelastic contact (hydroelastic.py): the surfaces (surface_kernels.contact_surfaces' arrays) and each
    # contact's (surface, face), (-1, -1) for a point pair
    ("hyd_surf", I2), ("hyd_sface", I1), ("hyd_V", F2), ("hyd_vp", F1), ("hyd_fi", I1), ("hyd_fs", I1),
    ("hyd_fn", F2), ("hyd_fc", F2), ("hyd_fa", F1), ("hyd_fp", F1), ("hyd_gM", F2), ("hyd_gN", F2),
    ("con_hyd", I2),
])


@njit(cache=True)
def new_data():
    """An empty Data (every array of size 0); the step sizes its fields."""
    d = structref.new(DATA)
    z1, z2, z3 = np.zeros(0), np.zeros((0, 0)), np.zeros((0, 0, 0))
    i1, i2 = np.zeros(0, np.int64), np.zeros((0, 0), np.int64)
    d.stage, d.bad_index, d.bad_what = 0, -1, -1
    d.q, d.v, d.bp = z1, z1, z2
    d.R_WB, d.p_WB, d.R_WF, d.p_WF, d.p_WM, d.S, d.V, d.c, d.Iw = z3, z2, z3, z2, z2, z2, z2, z2, z3
    d.ten_length, d.ten_velocity, d.ten_J = z1, z1, z2
    d.ten_wrapadr, d.ten_wrapnum, d.wrap_obj, d.wrap_body, d.wrap_xpos = i1, i1, i1, i1, z2
    d.F, d.tau, d.actuator_force = z2, z1, z1
    d.M, d.qacc_smooth, d.qacc = z2, z1, z1
    d.sm_Ic, d.sm_Af, d.sm_L, d.sm_tau = z2, z2, z2, z1
    d.R_WG, d.p_WG = z3, z2
    d.col_dist, d.col_pos, d.col_frame, d.col_g1, d.col_g2, d.col_margin, d.col_pair = z1, z2, z3, i1, i1, z1, i1
    d.ncon, d.ncon_mujoco = 0, 0
    d.con_body, d.con_geom, d.con_dist, d.con_pos, d.con_frame = i2, i2, z1, z2, z3
    d.con_condim, d.con_friction, d.con_solref, d.con_solreffriction, d.con_solimp = i1, z2, z2, z2, z2
    d.con_includemargin, d.con_drake, d.con_J = z1, z2, z3
    d.eq_J, d.eq_pos, d.eq_jdv, d.eq_gpos = z2, z1, z1, z1
    d.eq_F = z2
    d.efc_J, d.efc_type, d.efc_id, d.efc_pos, d.efc_margin, d.efc_floss = z2, i1, i1, z1, z1, z1
    d.efc_diagA, d.efc_R, d.efc_D, d.efc_KBIP, d.efc_vel, d.efc_aref = z1, z1, z1, z2, z1, z1
    d.efc_limit, d.ne, d.nf, d.nl = i1, 0, 0, 0
    d.con_dim, d.con_fric, d.con_mu, d.con_efc_address = i1, z2, z1, i1
    d.efc_bJ, d.efc_bf, d.efc_bi, d.efc_bK, d.grp_bf, d.grp_bi = z2, z2, i2, z2, z2, i2
    d.con_bf, d.con_bi, d.con_bforce, d.con_chain, d.con_chain_adr = z2, i2, z2, i1, np.zeros(1, np.int64)
    d.con_bJ, d.con_bJ_n, d.con_bJ_nr = z1, 0, 0
    d.efc_bJ_nh, d.efc_bJ_n, d.efc_bJ_chain, d.efc_bJ_adr = 0, 0, i1, i1
    d.sol_f, d.sol_i, d.sol_out = z1, i1, z2
    d.efc_force, d.qfrc_constraint, d.con_force, d.tau_contact = z1, z1, z2, z1
    d.qacc_warmstart, d.warm_valid = z1, False
    d.solver_converged, d.solver_iterations, d.solver_residual = True, 0, 0.0
    d.qDeriv = z2
    d.con_vel = z2
    d.act, d.act_dot, d.actuator_length, d.actuator_velocity, d.actuator_moment = z1, z1, z1, z1, z2
    d.qfrc_gravcomp = z1
    d.qfrc_actuator, d.sensordata = z1, z1
    d.hyd_surf, d.hyd_sface, d.hyd_V, d.hyd_vp, d.hyd_fi, d.hyd_fs = i2, np.zeros(1, np.int64), z2, z1, i1, \
        np.zeros(1, np.int64)
    d.hyd_fn, d.hyd_fc, d.hyd_fa, d.hyd_fp, d.hyd_gM, d.hyd_gN, d.con_hyd = z2, z2, z1, z1, z2, z2, i2
    return d


@njit(cache=True)
def contact_arrays(d):
    """The last step's contacts as arrays: (body pairs (ncon, 2), geometry rows (ncon, 2), distance, point (ncon, 3),
    frame (ncon, 3, 3) rows normal from A to B and tangents, contact-frame force on B (ncon, 6), the relative
    velocity Jacobians' translational rows (ncon, 3, nv))."""
    return (d.con_body.copy(), d.con_geom.copy(), d.con_dist.copy(), d.con_pos.copy(), d.con_frame.copy(),
            d.con_force.copy(), d.con_J[:, :3, :].copy())


@njit(cache=True)
def solver_input_arrays(d):
    """The last step's unconstrained accelerations qacc_smooth (nv) and constraint Jacobian efc_J (nefc × nv)."""
    return d.qacc_smooth, d.efc_J


@njit(cache=True)
def drake_contact_arrays(d):
    """Drake contacts' per-pair parameters d.con_drake (drake_contact.DK_* columns) and contact-frame velocities at
    v⁺ d.con_vel [vn, vt1, vt2]."""
    return d.con_drake, d.con_vel


@njit(cache=True)
def hydro_arrays(d):
    """The last step's contact surfaces (surface_kernels.contact_surfaces' arrays) and each contact's (surface,
    face)."""
    return (d.hyd_surf, d.hyd_sface, d.hyd_V, d.hyd_vp, d.hyd_fi, d.hyd_fs, d.hyd_fn, d.hyd_fc, d.hyd_fa, d.hyd_fp,
            d.hyd_gM, d.hyd_gN), d.con_hyd


@njit(cache=True)
def error_info(d):
    """(stage, bad_index, bad_what) of the last step (see forward.py's status codes)."""
    return d.stage, d.bad_index, d.bad_what


class StepResults:
    """What one discrete step leaves in the context's state for the next (an abstract state value): the sampled
    outputs [v̇ (nv); net actuation u (nu); generalized contact forces (nv)], the solver's warm start (nv), whether
    it is valid, the solve's convergence, iterations and residual, whether the step computed the sensors, and the
    MJCF sensordata at the state the step started from (ns, MuJoCo's timing) — one float row of `size(nv, nu, ns)`.

    Two rows share one buffer: a step reads the current row and writes the other one, then the context's value
    becomes the other row's StepResults (no allocation per step). Copies (Clone, pickle) copy both rows.
    `contacts`: the step's contacts for the sampled contact_results port (step_contacts.StepContacts, a list of
    contact infos on the Python path, None before the first step); copies keep this row's. `start`: on the Python
    path, (q, v, F_Bo_W with the contact forces) the step started from, for the sampled reaction forces (the compiled
    step keeps them with its contacts)."""

    __slots__ = ("buffer", "row", "data", "other", "contacts", "start")

    def __init__(self, buffer: np.ndarray, row: int, other: "StepResults | None" = None, contacts=None, start=None):
        self.buffer, self.row, self.contacts, self.start = buffer, row, contacts, start
        self.data = buffer[row]  # this row (a view of the shared buffer)
        self.other = other if other is not None else StepResults(buffer, 1 - row, self)

    @staticmethod
    def New(nv: int, nu: int, ns: int = 0) -> "StepResults":
        return StepResults(np.zeros((2, StepResults.size(nv, nu, ns))), 0)

    @staticmethod
    def size(nv: int, nu: int, ns: int = 0) -> int:
        return 3 * nv + nu + 5 + ns

    @staticmethod
    def sensors(nv: int, nu: int) -> int:
        """Index of the sensors-valid flag; sensordata follows it."""
        return 3 * nv + nu + 4

    def _kept_contacts(self):
        return self.contacts.Kept() if hasattr(self.contacts, "Kept") else self.contacts

    def __deepcopy__(self, memo) -> "StepResults":
        return StepResults(self.buffer.copy(), self.row, contacts=self._kept_contacts(), start=self.start)

    def __copy__(self) -> "StepResults":
        return StepResults(self.buffer.copy(), self.row, contacts=self._kept_contacts(), start=self.start)

    def __getstate__(self) -> dict:
        return {"buffer": self.buffer, "row": self.row, "contacts": self._kept_contacts(), "start": self.start}

    def __setstate__(self, state: dict) -> None:
        StepResults.__init__(self, state["buffer"], state["row"], contacts=state.get("contacts"),
                             start=state.get("start"))
