"""The contacts of a discrete step, as the plant's sampled `contact_results` port reports them.

Drake 1.51's discrete MultibodyPlant samples its dynamic output ports by default: `contact_results` reports the
contacts and forces its last step computed (DiscreteStepMemory), empty before the first step, unchanged by
SetPositions; only with `use_sampled_output_ports=False` does it compute them at the current state. The compiled
step leaves its contacts in the context's Data (pipeline/data.py), whose contact arrays each step assigns anew;
a StepResults row keeps a `StepContacts` naming that Data and the step that filled it, and the arrays are read
from Data only when the port is evaluated (no work per step) or the row is copied (Clone, pickle).
"""
from __future__ import annotations

from numba import njit



@njit(cache=True)
def step_contact_arrays(d):
    """Data's contacts of the step that filled it: (body pairs (ncon, 2), geometry rows (ncon, 2), distances,
    points p_WC (ncon, 3), frames (ncon, 3, 3) [normal from A to B; tangents], contact-frame forces on B (ncon, 6),
    the relative velocity Jacobians' translational rows (ncon, 3, nv), v at the step's start (nv), Drake's per-pair
    parameters, contact-frame velocities at v⁺, the contact surfaces' arrays and each contact's (surface, face), q at
    the step's start (an Euler step's; an RK4 step leaves its last stage's q and v), and the body forces F_Bo_W
    (nb × 6) the step applied besides the contacts' (Drake's SAP constraints' included, drake_constraints.py).
    The contacts' arrays are copies: the next step writes Data's in place (contact.select_contacts, efc_rows.py)."""
    F = d.F.copy()
    if d.eq_F.shape[0] == F.shape[0]:
        F += d.eq_F
    return (d.con_body.copy(), d.con_geom.copy(), d.con_dist.copy(), d.con_pos.copy(), d.con_frame.copy(),
            d.con_force.copy(), d.con_J[:, :3, :].copy(), d.v.copy(), d.con_drake.copy(), d.con_vel,
            (d.hyd_surf, d.hyd_sface, d.hyd_V, d.hyd_vp, d.hyd_fi, d.hyd_fs, d.hyd_fn, d.hyd_fc, d.hyd_fa, d.hyd_fp,
             d.hyd_gM, d.hyd_gN), d.con_hyd, d.q.copy(), F)


class StepContacts:
    """The contacts of one compiled step: read from `scratch.data` (a context's Data holder, whose `fresh` names the
    StepContacts of the last step run on it, None once another step has started) while it is the fresh one, then
    kept as arrays."""

    __slots__ = ("scratch", "geom_ids", "arrays")

    def __init__(self, scratch, geom_ids: list, arrays: tuple | None = None):
        self.scratch, self.geom_ids, self.arrays = scratch, geom_ids, arrays
        if scratch is not None:
            scratch.fresh = self

    def Arrays(self) -> tuple:
        """step_contact_arrays of the step; raises when the context's Data has moved on without keeping them (the
        step after this one failed and the state was put back)."""
        if self.arrays is None:
            if self.scratch is None or self.scratch.fresh is not self:
                raise RuntimeError("contact_results: the contacts of the last discrete step are no longer available "
                                   "(a later step on this context failed after overwriting them); step the plant "
                                   "again, or use use_sampled_output_ports=False for the contacts at the current "
                                   "state")
            self.arrays = step_contact_arrays(self.scratch.data)
            self.scratch = None
        return self.arrays

    def Kept(self) -> "StepContacts":
        """A copy independent of the context's Data (for a cloned or pickled row); a stale one stays stale."""
        try:
            return StepContacts(None, self.geom_ids, self.Arrays())
        except RuntimeError:
            return StepContacts(None, self.geom_ids, None)

    def __getstate__(self) -> dict:
        kept = self.Kept()
        return {"geom_ids": kept.geom_ids, "arrays": kept.arrays}

    def __setstate__(self, state: dict) -> None:
        self.scratch, self.geom_ids, self.arrays = None, state["geom_ids"], state["arrays"]


def AttachStepContacts(row, scratch, geom_ids: list) -> None:
    """Make the StepResults `row` name the step just run on `scratch` (reusing its StepContacts: no allocation)."""
    c = row.contacts
    if type(c) is StepContacts:
        c.scratch, c.geom_ids, c.arrays = scratch, geom_ids, None
        scratch.fresh = c
    else:
        row.contacts = StepContacts(scratch, geom_ids)
