"""Contacts of the discrete step: which collision candidates become contacts, with which parameters, and their
contact-frame Jacobians (MuJoCo's mj_collision tail and mj_contactParam, Drake's point-pair selection).

A pair in which either geometry carries MuJoCo parameters is a MuJoCo pair: every candidate closer than its margin
becomes a contact, with the explicit pair's parameters or the two geometries' mixed ones (priority, solmix, max
friction, MuJoCo's mjMINMU floor). Other pairs use Drake's point contact: only penetrating pairs, one contact per
pair at its deepest point, with the combined material (k₁k₂/(k₁+k₂), summed relaxation times, 2μ₁μ₂/(μ₁+μ₂)).
MuJoCo contacts come first (candidate order), then Drake's (candidate order).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..contact.parameters import DEFAULT_SOLIMP, DEFAULT_SOLREF, SolmixWeight, ValidateFriction
from .efc_rows import contact_jacobians
from .hydroelastic import no_surfaces
from .structs import B1, F1, F2, FLOAT, I1, INT, declare, floats, ints

MINMU = 1e-5  # MuJoCo's mjMINMU: the smallest contact friction coefficient
_MUJOCO_DEFAULT_FRICTION = (1.0, 0.005, 0.0001)

#: Status codes of `select_contacts` (with d.bad_index = the offending contact).
CONTACTS_OK, CONTACTS_BAD_MUJOCO_GEOMETRY, CONTACTS_RIGID_PAIR = 0, 1, 2


@structref.register
class ContactModelType(types.StructRef):
    """numba type of ContactModel."""


class ContactModel(structref.StructRefProxy):
    """Contact parameters per proximity geometry (MuJoCo's and Drake's) and per MuJoCo explicit pair."""


CONTACT_MODEL = declare(ContactModelType, ContactModel, [
    ("geom_mujoco", B1),          # the geometry carries MuJoCo parameters
    ("geom_bad", B1),             # its MuJoCo condim or friction is invalid (raised when it makes a contact)
    ("geom_priority", I1), ("geom_condim", I1), ("geom_solmix", F1),
    ("geom_solref", F2), ("geom_solimp", F2), ("geom_friction", F2),   # (ng, 2), (ng, 5), (ng, 3)
    ("geom_drake", F2),           # (ng, 5): stiffness [N/m], dissipation [s/m], relaxation time [s], μs, μd
    ("pair_condim", I1), ("pair_friction", F2), ("pair_solref", F2), ("pair_solreffriction", F2),
    ("pair_solimp", F2), ("pair_margin", F1),
    ("sap_beta", FLOAT),          # SAP's near-rigid threshold β
    # Drake's discrete point contact (drake_contact.py)
    ("approx", INT),              # APPROX_*: -1 MuJoCo's soft constraints (+ SAP rows), else Drake's approximation
    ("geom_id", I1),              # GeometryId value per geometry (Drake orders a pair's geometries by it)
    ("stiction_tolerance", FLOAT),  # the plant's stiction tolerance v_s [m/s]
    ("lim_penalty", F2),          # (nlim, 2) kTamsi's joint-limit penalty stiffness and damping, by RowModel limit
])


@njit(cache=True)
def new_contact_model(geom_mujoco, geom_bad, geom_priority, geom_condim, geom_solmix, geom_solref, geom_solimp,
                      geom_friction, geom_drake, pair_condim, pair_friction, pair_solref, pair_solreffriction,
                      pair_solimp, pair_margin, sap_beta, approx, geom_id, stiction_tolerance, lim_penalty):
    c = structref.new(CONTACT_MODEL)
    c.approx, c.geom_id, c.stiction_tolerance, c.lim_penalty = approx, geom_id, stiction_tolerance, lim_penalty
    c.geom_mujoco, c.geom_bad, c.geom_priority, c.geom_condim, c.geom_solmix = (geom_mujoco, geom_bad, geom_priority,
                                                                                geom_condim, geom_solmix)
    c.geom_solref, c.geom_solimp, c.geom_friction, c.geom_drake = geom_solref, geom_solimp, geom_friction, geom_drake
    c.pair_condim, c.pair_friction, c.pair_solref = pair_condim, pair_friction, pair_solref
    c.pair_solreffriction, c.pair_solimp, c.pair_margin, c.sap_beta = (pair_solreffriction, pair_solimp, pair_margin,
                                                                       sap_beta)
    return c


def CompileContact(rows: list, pairs: list, sap_beta: float, approx: int = -1, geom_ids=(),
                   stiction_tolerance: float = 1e-4, lim_penalty=None) -> ContactModel:
    """The ContactModel of proximity geometries `rows` (contact/geometry_table.py GeometryContactData, validated)
    and explicit `pairs` (geometry/mujoco_pairs.py MujocoExplicitPair, in the GeomModel's pair order); `approx`
    (drake_contact.APPROX_*) selects Drake's discrete contact for a model without MuJoCo parameters, `geom_ids`
    are the geometries' GeometryId values, `lim_penalty` kTamsi's joint-limit penalties (nlim, 2)."""
    ng = len(rows)
    mj = [r.mujoco or {} for r in rows]
    bad = []
    for r, p in zip(rows, mj):
        ok = r.mujoco is None or int(p["condim"]) in (1, 3, 4, 6)
        if ok and r.mujoco is not None:
            try:
                ValidateFriction(np.asarray(p["friction"], float), "geom", r.name)
            except ValueError:
                ok = False
        bad.append(not ok)
    get = lambda key, default: [p.get(key, default) for p in mj]  # noqa: E731
    drake = [(r.stiffness, r.dissipation, r.relaxation_time, r.mu_static, r.mu_dynamic) for r in rows]
    return new_contact_model(
        np.array([r.mujoco is not None for r in rows], np.bool_), np.array(bad, np.bool_),
        ints(get("priority", 0)), ints(get("condim", 3)), floats(get("solmix", 1.0)),
        floats(get("solref", DEFAULT_SOLREF), (ng, 2)), floats(get("solimp", DEFAULT_SOLIMP), (ng, 5)),
        floats(get("friction", _MUJOCO_DEFAULT_FRICTION), (ng, 3)), floats(drake, (ng, 5)),
        ints([p.condim for p in pairs]), floats([np.maximum(p.friction, MINMU) for p in pairs], (-1, 5)),
        floats([p.solref for p in pairs], (-1, 2)), floats([p.solreffriction for p in pairs], (-1, 2)),
        floats([p.solimp for p in pairs], (-1, 5)), floats([p.margin for p in pairs]), float(sap_beta), int(approx),
        ints([int(i) for i in geom_ids]) if len(geom_ids) else np.zeros(ng, np.int64), float(stiction_tolerance),
        floats(lim_penalty if lim_penalty is not None else np.zeros((0, 2)), (-1, 2)))


@njit(cache=True)
def _mix_mujoco(cm, i, j, c, condim, friction, solref, solimp, includemargin, g_margin):
    """Contact c of MuJoCo geometries i, j: MuJoCo's mj_contactParam mixing (MixContactParameters)."""
    p1, p2 = cm.geom_priority[i], cm.geom_priority[j]
    if p1 != p2:
        w = i if p1 > p2 else j
        condim[c] = cm.geom_condim[w]
        for k in range(2):
            solref[c, k] = cm.geom_solref[w, k]
        for k in range(5):
            solimp[c, k] = cm.geom_solimp[w, k]
        f0, f1, f2 = cm.geom_friction[w, 0], cm.geom_friction[w, 1], cm.geom_friction[w, 2]
    else:
        condim[c] = max(cm.geom_condim[i], cm.geom_condim[j])
        mix = SolmixWeight(cm.geom_solmix[i], cm.geom_solmix[j])
        r1, r2 = cm.geom_solref[i], cm.geom_solref[j]
        for k in range(2):
            solref[c, k] = mix * r1[k] + (1.0 - mix) * r2[k] if r1[0] > 0 and r2[0] > 0 else min(r1[k], r2[k])
        for k in range(5):
            solimp[c, k] = mix * cm.geom_solimp[i, k] + (1.0 - mix) * cm.geom_solimp[j, k]
        f0 = max(cm.geom_friction[i, 0], cm.geom_friction[j, 0])
        f1 = max(cm.geom_friction[i, 1], cm.geom_friction[j, 1])
        f2 = max(cm.geom_friction[i, 2], cm.geom_friction[j, 2])
    friction[c, 0], friction[c, 1] = max(f0, MINMU), max(f0, MINMU)
    friction[c, 2] = max(f1, MINMU)
    friction[c, 3], friction[c, 4] = max(f2, MINMU), max(f2, MINMU)
    includemargin[c] = g_margin[i] + g_margin[j]


@njit(cache=True)
def _combine(a, b):
    """Drake's pair friction 2ab/(a + b) (0 when both are 0)."""
    return 0.0 if a + b == 0.0 else 2.0 * a * b / (a + b)


@njit(cache=True)
def _sized(d, ncon, nmj, ndk):
    """d.con_* (but con_J) for ncon contacts, nmj MuJoCo and ndk Drake: the last step's arrays when their sizes match
    (written in place: no allocation while the contacts stay the same in number), else new ones."""
    if d.con_body.shape[0] != ncon:
        d.con_body, d.con_geom = np.empty((ncon, 2), np.int64), np.empty((ncon, 2), np.int64)
        d.con_dist, d.con_pos, d.con_frame = np.empty(ncon), np.empty((ncon, 3)), np.empty((ncon, 3, 3))
    if d.con_condim.shape[0] != nmj or d.con_friction.shape[1] != 5:
        d.con_condim, d.con_friction = np.empty(nmj, np.int64), np.empty((nmj, 5))
        d.con_solref, d.con_solreffriction, d.con_solimp = np.empty((nmj, 2)), np.empty((nmj, 2)), np.empty((nmj, 5))
        d.con_includemargin = np.empty(nmj)
    if d.con_drake.shape[0] != ndk or d.con_drake.shape[1] != 3:
        d.con_drake = np.empty((ndk, 3))


@njit(cache=True)
def select_contacts(m, d):
    """The step's contacts from d.col_* into d.con_*: bodies, geometries, distance, point, frame, MuJoCo parameters
    (condim, friction (5), solref, solreffriction, solimp, includemargin) for the first d.ncon_mujoco contacts and
    Drake's (stiffness, relaxation time, μ) for the others, and the contact-frame Jacobians d.con_J (6 rows when a
    MuJoCo contact has condim > 3, else 3). The arrays of the last step are written in place when the counts match
    (`_sized`; readers that keep them past the step copy them, step_contacts.py). Returns CONTACTS_OK or an error
    code (d.bad_index: the contact)."""
    g, cm = m.geom, m.contact
    dist, g1, g2, margin, pair = d.col_dist, d.col_g1, d.col_g2, d.col_margin, d.col_pair
    n = dist.shape[0]
    if d.sol_i.shape[0] < 2 * n:  # the stages' int scratch (the solve's workspace later in the step)
        d.sol_i = np.empty(max(2 * n, 2 * d.sol_i.shape[0]), np.int64)
    sel, best = d.sol_i[:n], d.sol_i[n:2 * n]
    nmj = 0
    for c in range(n):  # MuJoCo contacts: every candidate closer than its margin
        if dist[c] < margin[c] and (cm.geom_mujoco[g1[c]] or cm.geom_mujoco[g2[c]]):
            sel[nmj] = c
            nmj += 1
    ndk = 0
    for c in range(n):  # Drake pairs: the deepest penetrating candidate of each pair
        if not (dist[c] < margin[c]) or cm.geom_mujoco[g1[c]] or cm.geom_mujoco[g2[c]] or not dist[c] < 0:
            continue
        found = False
        for r in range(ndk):
            b = best[r]
            if g1[b] == g1[c] and g2[b] == g2[c]:
                if dist[c] < dist[b]:
                    best[r] = c
                found = True
                break
        if not found:
            best[ndk] = c
            ndk += 1
    if ndk:
        sel[nmj:nmj + ndk] = np.sort(best[:ndk])
    ncon = nmj + ndk
    d.ncon, d.ncon_mujoco = ncon, nmj
    _sized(d, ncon, nmj, ndk)
    body, geom, con_dist, pos, frame = d.con_body, d.con_geom, d.con_dist, d.con_pos, d.con_frame
    for k in range(ncon):
        c = sel[k]
        geom[k, 0], geom[k, 1] = g1[c], g2[c]
        body[k, 0], body[k, 1] = g.geom_body[g1[c]], g.geom_body[g2[c]]
        con_dist[k] = dist[c]
        for i in range(3):
            pos[k, i] = d.col_pos[c, i]
            for j in range(3):
                frame[k, i, j] = d.col_frame[c, i, j]
    condim, friction, solref, solreffriction = d.con_condim, d.con_friction, d.con_solref, d.con_solreffriction
    solimp, includemargin = d.con_solimp, d.con_includemargin
    rotational = False
    status = CONTACTS_OK
    for k in range(nmj):
        c = sel[k]
        i, j, p = g1[c], g2[c], pair[c]
        if p >= 0:  # an explicit pair: all its own parameters
            condim[k] = cm.pair_condim[p]
            for q in range(5):
                friction[k, q] = cm.pair_friction[p, q]
                solimp[k, q] = cm.pair_solimp[p, q]
            for q in range(2):
                solref[k, q] = cm.pair_solref[p, q]
                solreffriction[k, q] = cm.pair_solreffriction[p, q]
            includemargin[k] = cm.pair_margin[p]
        else:
            if cm.geom_bad[i] or cm.geom_bad[j]:
                d.bad_index = k
                status = CONTACTS_BAD_MUJOCO_GEOMETRY
            solreffriction[k, 0], solreffriction[k, 1] = 0.0, 0.0
            _mix_mujoco(cm, i, j, k, condim, friction, solref, solimp, includemargin, g.margin)
        rotational = rotational or condim[k] > 3
    drake = d.con_drake  # pair stiffness, relaxation time, dynamic friction
    for k in range(ndk):
        i, j = geom[nmj + k, 0], geom[nmj + k, 1]
        k1, k2 = cm.geom_drake[i, 0], cm.geom_drake[j, 0]
        if np.isinf(k1) and np.isinf(k2):
            d.bad_index = nmj + k
            status = CONTACTS_RIGID_PAIR
            kp = 0.0
        elif np.isinf(k1):
            kp = k2
        elif np.isinf(k2):
            kp = k1
        else:
            kp = 0.0 if k1 + k2 == 0.0 else k1 * k2 / (k1 + k2)
        drake[k, 0] = kp
        drake[k, 1] = cm.geom_drake[i, 2] + cm.geom_drake[j, 2]
        drake[k, 2] = _combine(cm.geom_drake[i, 4], cm.geom_drake[j, 4])
    contact_jacobians(m, d, rotational)  # d.con_J (a view of Data's buffer) and the contacts' chains
    return status


@njit(cache=True)
def no_contacts(m, d):
    """A step without contacts (no geometry, or no SceneGraph connected): empty d.con_*."""
    nv = m.tree.nv
    d.ncon, d.ncon_mujoco = 0, 0
    if not _contacts_empty(d, nv):
        _empty_contacts(d, nv)
    no_surfaces(d)


@njit(cache=True)
def _contacts_empty(d, nv):
    """Whether d.con_* already are the empty arrays of `_empty_contacts` (a step without contacts after another:
    nothing to allocate)."""
    return (d.con_body.shape == (0, 2) and d.con_geom.shape == (0, 2) and d.con_dist.shape[0] == 0
            and d.con_pos.shape == (0, 3) and d.con_frame.shape == (0, 3, 3) and d.con_condim.shape[0] == 0
            and d.con_friction.shape == (0, 5) and d.con_solref.shape == (0, 2)
            and d.con_solreffriction.shape == (0, 2) and d.con_solimp.shape == (0, 5)
            and d.con_includemargin.shape[0] == 0 and d.con_drake.shape == (0, 3) and d.con_J.shape == (0, 3, nv)
            and d.con_hyd.shape == (0, 2))


@njit(cache=True)
def _empty_contacts(d, nv):
    """d.con_* as empty arrays (rows of the widths `select_contacts` and `drake_contacts` fill)."""
    d.con_body, d.con_geom = np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64)
    d.con_dist, d.con_pos, d.con_frame = np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3, 3))
    d.con_condim, d.con_friction = np.zeros(0, np.int64), np.zeros((0, 5))
    d.con_solref, d.con_solreffriction, d.con_solimp = np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 5))
    d.con_includemargin, d.con_drake, d.con_J = np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3, nv))
    d.con_hyd = np.zeros((0, 2), np.int64)
