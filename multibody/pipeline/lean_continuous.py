"""The continuous plant's compiled integration: the Simulator's default error-controlled RK3 (Drake's
RungeKutta3Integrator, systems/analysis/explicit_integrators.py) over the plant's time derivatives in one compiled
call, for a diagram whose only continuous state is the plant's and whose steps nothing else interrupts.

The derivatives are those of _ContinuousDynamicsMixin with the same kernels in the same order — kinematics, gravity,
joint damping, SceneGraph's geometry poses (one body frame per registered body), the hydroelastic contact surfaces and
their tractions (contact/continuous.py) shifted to the body origins, forward dynamics, q̇ = N(q)·v — for plants whose
forces are only these: no force elements besides gravity, no input with a value, hydroelastic contact without a
point-contact pair (every unfiltered geometry pair has a contact surface representation). The step-size control is IntegratorBase's
(_step_error_controlled, _adjusted_step_size, _error_norm) statement by statement, so states and statistics agree
with the Python loop to round-off. Crawling steps (below 1e-6 of the maximum step, as a scene that starts deep in
penetration takes) are counted as the integrator's CrawlMonitor counts them; a step the Python loop would treat
specially (non-finite error, a step below the minimum, the crawl that reaches the monitor's limit) is left undone for
it to redo and report.

(numba caches a compiled function with the code of the kernels it calls from other modules: after editing those
kernels, edit this module too, or its cached integrator keeps their previous code.)
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...geometry.compiled_scene import compose_poses
from ...systems.analysis import integrator_diagnostics
from ...geometry.hydroelastic.surface_kernels import contact_surfaces
from ...geometry.collision.engine import _narrowphase
from ...geometry.collision.narrowphase import BOX, CAPSULE, CYLINDER, MAXCON, PLANE
from ...geometry.collision.point_pair import HalfSpaceDeepestPoint
from ..contact.hydroelastic_traction import HydroelasticSurfaceForces, ShiftToBodyOrigins
from ..contact.point_contact import CalcCompliantPointContactForces, GeneralizedContactForces
from ..kernels.contact_kernels import ContactJacobians
from ..kernels.dynamics import gravity_forces_at_body_origins
from ..kernels.pipeline import forward_dynamics_from_inertias, kinematics_stage, map_velocity_to_qdot, nplus_matrix

__all__ = ["AdvanceContinuous", "LeanContinuousPlan", "IntegrateRK3"]

_SAFETY, _MIN_SHRINK, _MAX_GROW, _HYSTERESIS_LOW, _HYSTERESIS_HIGH = 0.9, 0.1, 5.0, 0.9, 1.2
_NEAR_SMALLER, _NEAR_LARGER = 0.95, 1.001
LEAN_OK, LEAN_BAIL = 0, 1


def AdvanceContinuous(plant, context, integrator, boundary: float) -> int:
    """Integrate the root context of the plant's `context` towards `boundary` with the compiled RK3 (IntegrateRK3),
    updating the integrator's statistics; returns the Simulator steps taken (0 when the plan does not apply)."""
    plan = LeanContinuousPlan(plant, context)
    if plan is None:
        return 0
    root = integrator._context
    control = np.array([integrator._ideal_h, integrator._initial_step_target, integrator.get_accuracy_in_use(),
                        integrator._max_step, integrator._requested_min_step, float(integrator._throw_on_min)])
    counts = np.zeros(4, np.int64)
    sizes = np.array([integrator._largest_step, integrator._smallest_adapted, integrator._actual_initial_step])
    x = np.array(root._xc, dtype=np.float64)
    crawl = np.array([integrator._crawl.steps, integrator._crawl.t0, integrator_diagnostics.CRAWL_STEPS],
                     dtype=np.float64)
    _status, t = IntegrateRK3(x, float(root._time), float(boundary), control, counts, sizes,
                              integrator_diagnostics.CRAWL_FRACTION * integrator._max_step, crawl, *plan)
    if counts[3]:
        integrator._set(t, x)
        integrator._ideal_h = float(control[0])
        integrator._num_steps += int(counts[0])
        integrator._num_fev += int(counts[1])
        integrator._num_shrinkages += int(counts[2])
        integrator._largest_step, integrator._smallest_adapted, integrator._actual_initial_step = map(float, sizes)
        integrator._crawl.steps, integrator._crawl.t0 = int(crawl[0]), float(crawl[1])
    return int(counts[3])


def LeanContinuousPlan(plant, context) -> tuple | None:
    """The arrays of the plant's compiled time derivatives at `context` (the plant's), or None when the plant
    computes forces the compiled derivatives do not (see the module docstring)."""
    if plant._time_step > 0 or plant._xc_nz or plant._constraints or plant._tendon_inertia is not None:
        return None
    if len(plant._force_elements) != 1 or plant._mjcf_mocap is not None or plant._mjcf_actuation.adds_forces:
        return None
    if plant._pd.active or any(plant._input_wiring(context)[:1]) or plant._input_wiring(context)[1] or \
            any(plant._input_wiring(context)[2:]):
        return None
    contact = plant._continuous_contact
    if plant._force_contributors not in ([], [contact]):
        return None
    plant._ThrowIfElementParametersChangeDynamics(context, "MultibodyPlant time derivatives", simulating=True)
    m = plant._model
    mc = plant._ModelFor(context)
    bp = np.ascontiguousarray(plant._body_params(context), dtype=np.float64)
    tree = (m.order, m.ji, np.ascontiguousarray(m.jf, dtype=np.float64), bp,
            np.ascontiguousarray(mc.reflected_inertia, dtype=np.float64),
            np.ascontiguousarray(mc.damping, dtype=np.float64),
            np.ascontiguousarray(plant.gravity_field()._g, dtype=np.float64),
            np.ascontiguousarray(plant._gravity_mask, dtype=np.float64))
    geometry = _GeometryPlan(plant, context, contact)
    if geometry is None:
        return None
    return tree, geometry, float(plant.stiction_tolerance())


def _GeometryPlan(plant, context, contact):
    """The contact arrays of the plan: SceneGraph's poses (5), the hydroelastic part (6), the point part (14) and
    whether the plant's pairs are point pairs (else all hydroelastic); None when not supported."""
    port = plant.get_geometry_query_input_port()
    if contact is None or plant.num_collision_geometries() == 0 or not port.HasValue(context):
        return None
    model = plant.get_contact_model().name
    query = port.Eval(context)
    P, c, R, p = query._prox_poses()
    h = c.hydroelastic()
    point = model == "kPoint" or (model == "kHydroelasticWithFallback" and h.pairs.shape[0] == 0)
    if not point:
        if h.pairs.shape[0] == 0:
            return None
        hydro = {(min(int(i), int(j)), max(int(i), int(j))) for i, j in h.pair_set()}
        if any((int(i), int(j)) not in hydro for i, j in c.model.all_pairs()):
            return None  # hydroelastic and point pairs together: the Python path
    frame_parent = np.asarray(c.frame_parent)
    if frame_parent.shape[0] and np.any(frame_parent[1:] != 0):
        return None
    ids, bodies = plant._GeometryPoseRows()
    body_row = np.full(plant._model.nb, -1, np.int64)
    for fid, b in zip(ids, bodies):
        body_row[int(b)] = c.frame_index[fid]
    if sorted(body_row[body_row >= 0].tolist()) != list(range(1, len(c.frame_ids))):
        return None  # SceneGraph has frames the plant does not pose
    rows = np.zeros(0, np.int64) if c.proximity_is_all else np.ascontiguousarray(c.proximity_rows, dtype=np.int64)
    inspector = query.inspector()
    contact.geometry.Sync(inspector)
    ids = c.proximity_ids
    poses = (body_row, np.ascontiguousarray(c.geom_frame, dtype=np.int64), np.ascontiguousarray(c.R_FG),
             np.ascontiguousarray(c.p_FG), rows)
    points = _PointPlan(c.model, ids, inspector, contact.geometry) if point else _NoPoints(c.model)
    if points is None:
        return None
    keys, params = [], []
    for i, j in h.pairs if not point else ():
        a, b = (int(i), int(j)) if h.gid[i] < h.gid[j] else (int(j), int(i))
        bM, bN, d, mu = contact._SurfaceParams(inspector, ids, (a, b))
        keys.append((a, b))
        params.append((bM, bN, d, mu))
    triangles = plant.get_contact_surface_representation().name == "kTriangle"
    hydro = (np.ascontiguousarray(h.pairs, dtype=np.int64).reshape(-1, 2), np.ascontiguousarray(h.gid, dtype=np.int64),
             h.arrays(), triangles, np.array(keys, np.int64).reshape(-1, 2), np.array(params, np.float64).reshape(-1, 4))
    return poses + hydro + points + (1 if point else 0,)


def _NoPoints(model):
    """The point part of a hydroelastic plan: the model's arrays, no pair."""
    return (model.types, model.sizes, model.verts, model.vadr, model.vnum, model.faces,
            model.fadr, np.zeros((0, 2), np.int64), np.zeros((0, 0), np.int64), np.zeros(0, np.int64), np.zeros((0, 8)),
            model.graph, model.gadr, model.radii)


def _PointPlan(model, ids, inspector, table):
    """The point-contact arrays of the plan: the collision model's arrays, every unfiltered pair (rows i < j), the
    pair index of each (i, j), the GeometryId values and, per pair, the rows of A (smaller id) and B, their bodies
    and Drake's combined (k, d, μs, μd); then the hull graphs and bounding radii the narrow phase climbs."""
    if model._n_hfield or model.sdf or model.forced is not None:
        return None
    pairs = np.ascontiguousarray(model.all_pairs(), dtype=np.int64).reshape(-1, 2)
    n = model.n
    index = np.full((n, n), -1, np.int64)
    gid = np.array([g.get_value() for g in ids], np.int64)
    par = np.zeros((pairs.shape[0], 8))
    for k, (i, j) in enumerate(pairs):
        index[i, j] = index[j, i] = k
        a, b = (int(i), int(j)) if gid[i] < gid[j] else (int(j), int(i))
        rA, rB = table.ById(inspector, ids[a]), table.ById(inspector, ids[b])
        kk, dd, _tau, mus, mud = table.DrakePairById(rA, rB)
        par[k] = (a, b, rA.body, rB.body, kk, dd, mus, mud)
    return (model.types, model.sizes, model.verts, model.vadr, model.vnum, model.faces,
            model.fadr, pairs, index, gid, par, model.graph, model.gadr, model.radii)


@njit(cache=True)
def PlantDerivatives(x, tree, geometry, stiction, out):
    """ẋ = [N(q)·v; v̇] of the plan's plant at x = [q; v] into `out` (_ContinuousDynamicsMixin's computation)."""
    order, ji, jf, bp, refl, damping, g_W, gmask = tree
    body_row, geom_frame, R_FG, p_FG, rows = geometry[:5]
    nv = refl.shape[0]
    nq = x.shape[0] - nv
    q, v = x[:nq].copy(), x[nq:].copy()
    R_WB, p_WB, _R_WF, _p_WF, _p_WM, S, V, c, Iw = kinematics_stage(order, ji, jf, bp, q, v, nv)
    F = gravity_forces_at_body_origins(bp, R_WB, g_W, gmask)
    tau = np.zeros(nv)
    tau -= damping * v
    # SceneGraph's poses: body frames (parent: the world) posed by the plant, then X_WG = X_WF·X_FG
    nf = 1
    for b in range(body_row.shape[0]):
        nf = max(nf, body_row[b] + 1)
    R_WF = np.empty((nf, 3, 3))
    p_WF = np.zeros((nf, 3))
    for i in range(3):
        for j in range(3):
            R_WF[0, i, j] = 1.0 if i == j else 0.0
    for b in range(body_row.shape[0]):
        r = body_row[b]
        if r > 0:
            R_WF[r] = R_WB[b]
            p_WF[r] = p_WB[b]
    R_WG, p_WG = compose_poses(geom_frame, R_FG, p_FG, R_WF, p_WF)
    if rows.shape[0]:
        R_WG, p_WG = R_WG[rows].copy(), p_WG[rows].copy()
    if geometry[25] == 0:
        F += _HydroForces(geometry, R_WG, p_WG, V, p_WB, ji.shape[0], stiction)
        tau += np.zeros(nv)  # the contributors' generalized forces (none: no point contact), as _AssembleForces adds
    else:
        tau += _PointForces(geometry, R_WG, p_WG, ji, S, v, stiction)
        F += np.zeros((ji.shape[0], 6))  # (the contributors' body forces: none)
    vdot = forward_dynamics_from_inertias(order, ji, refl, S, Iw, p_WB, V, c, F, tau, np.zeros(nv))
    out[:nq] = map_velocity_to_qdot(order, ji, q, v)
    out[nq:] = vdot


@njit(cache=True)
def _HydroForces(geometry, R_WG, p_WG, V, p_WB, nb, stiction):
    """The contact surfaces' forces F_Bo_W (nb × 6) (ContinuousContactModel's hydroelastic part)."""
    pairs, gid, harr, triangles, keys, params = geometry[5:11]
    surf, sface, Vs, vp, fi, fs, fn, fc, fa, fp, _gM, _gN = contact_surfaces(pairs, gid, R_WG, p_WG, harr, triangles)
    ns = surf.shape[0]
    bA, bB = np.zeros(ns, np.int64), np.zeros(ns, np.int64)
    d, mu = np.zeros(ns), np.zeros(ns)
    for s in range(ns):
        for k in range(keys.shape[0]):
            if keys[k, 0] == surf[s, 0] and keys[k, 1] == surf[s, 1]:
                bA[s], bB[s], d[s], mu[s] = int(params[k, 0]), int(params[k, 1]), params[k, 2], params[k, 3]
                break
    F_s, C = HydroelasticSurfaceForces(sface, Vs, vp, fi, fs, fn, fc, fa, fp, bA, bB, V, d, mu, stiction, triangles)
    F_c = np.zeros((nb, 6))
    ShiftToBodyOrigins(F_s, C, bA, bB, p_WB, F_c)
    return F_c


@njit(cache=True)
def _PointForces(geometry, R, p, ji, S, v, stiction):
    """The point pairs' generalized forces (ContinuousContactModel's point part over QueryObject's
    ComputePointPairPenetration: the deepest contact of each penetrating pair, FCL's point for a half space against
    a box, capsule or cylinder, pairs ordered by GeometryId)."""
    types, sizes, verts, vadr, vnum, faces, fadr, pairs, index, gid, par, graph, gadr, radii = geometry[11:25]
    npair = pairs.shape[0]
    cap = max(64, 4 * npair + MAXCON)
    out = np.empty((cap, 10))
    g1 = np.empty(cap, np.int64)
    g2 = np.empty(cap, np.int64)
    k, _start = _narrowphase(pairs, 0, types, sizes, R, p, verts, vadr, vnum, np.zeros(types.shape[0]), out, g1, g2,
                             faces, fadr, graph, gadr, radii)
    best = np.full(npair, -1, np.int64)
    for c in range(k):
        if out[c, 0] < 0:
            q = index[g1[c], g2[c]]
            if best[q] < 0 or out[c, 0] < out[best[q], 0]:
                best[q] = c
    sel = np.empty(npair, np.int64)
    n = 0
    for q in range(npair):  # pair order (id_A, id_B): insertion by the A and B ids of each penetrating pair
        if best[q] < 0:
            continue
        j = n
        while j > 0 and (gid[int(par[sel[j - 1], 0])] > gid[int(par[q, 0])] or (
                gid[int(par[sel[j - 1], 0])] == gid[int(par[q, 0])]
                and gid[int(par[sel[j - 1], 1])] > gid[int(par[q, 1])])):
            sel[j] = sel[j - 1]
            j -= 1
        sel[j] = q
        n += 1
    p_WCa, p_WCb, nhat, depth = np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3)), np.empty(n)
    bA, bB = np.empty(n, np.int64), np.empty(n, np.int64)
    kk, dd, mus, mud = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    for r in range(n):
        q = sel[r]
        c = best[q]
        i, j = g1[c], g2[c]
        dep = -out[c, 0]
        nrm = out[c, 4:7].copy()
        on_1 = out[c, 1:4] + nrm * (0.5 * dep)
        on_2 = out[c, 1:4] - nrm * (0.5 * dep)
        ti, tj = types[i], types[j]
        if (ti == PLANE) != (tj == PLANE):
            h, o = (i, j) if ti == PLANE else (j, i)
            if types[o] == BOX or types[o] == CAPSULE or types[o] == CYLINDER:  # FCL's single point
                n_h = R[h][:, 2].copy()
                po = HalfSpaceDeepestPoint(types[o], sizes[o].copy(), R[o].copy(), p[o].copy(), n_h)
                dep = np.dot(n_h, p[h] - po)
                pp = po + n_h * dep
                if o == i:
                    on_1, on_2, nrm = po, pp, -n_h
                else:
                    on_1, on_2, nrm = pp, po, n_h
        if gid[i] < gid[j]:
            p_WCa[r], p_WCb[r], nhat[r] = on_1, on_2, -nrm
        else:
            p_WCa[r], p_WCb[r], nhat[r] = on_2, on_1, nrm
        depth[r] = dep
        bA[r], bB[r] = int(par[q, 2]), int(par[q, 3])
        kk[r], dd[r], mus[r], mud[r] = par[q, 4], par[q, 5], par[q, 6], par[q, 7]
    p_WC = 0.5 * (p_WCa + p_WCb)
    eye = np.zeros((n, 3, 3))
    for r in range(n):
        eye[r, 0, 0] = eye[r, 1, 1] = eye[r, 2, 2] = 1.0
    J = np.ascontiguousarray(ContactJacobians(ji, S, bA, bB, p_WC, eye)[:, :3, :])
    v_rel = np.empty((n, 3))
    for r in range(n):
        v_rel[r] = np.dot(J[r], v)
    f_B, _p, _fn, _slip, _sep = CalcCompliantPointContactForces(p_WCa, p_WCb, nhat, depth, v_rel, kk, dd, mus, mud,
                                                                stiction)
    return GeneralizedContactForces(J, f_B)


@njit(cache=True)
def _error_norm(err, x1, order, ji, nq):
    """IntegratorBase._error_norm: max |·| of N(q)·N⁺(q)·δq and δv at the step's end state (NaN if any is NaN)."""
    nv = err.shape[0] - nq
    q1 = x1[:nq].copy()
    dq = map_velocity_to_qdot(order, ji, q1, np.dot(nplus_matrix(order, ji, q1, nq, nv), err[:nq].copy()))
    out = 0.0
    for part in (dq, err[nq:]):
        for k in range(part.shape[0]):
            a = abs(part[k])
            if a != a:
                return math.nan
            out = max(out, a)
    return out


@njit(cache=True)
def _adjusted(err, h, at_min, t, accuracy, max_step, requested_min, throw_on_min):
    """IntegratorBase._adjusted_step_size: (accepted, next h, at-minimum flag, bail: the Python loop must raise)."""
    if not math.isfinite(err):
        return False, _MIN_SHRINK * h, at_min, False
    new_h = _MAX_GROW * h if err == 0 else _SAFETY * h * (accuracy / err) ** (1.0 / 3)
    if new_h > h:
        at_min = False
        if new_h < _HYSTERESIS_HIGH * h:
            new_h = h
    if new_h < h and at_min:
        return True, h, at_min, False
    if new_h < h:
        new_h = h if err <= accuracy else min(new_h, _HYSTERESIS_LOW * h)
    new_h = max(min(new_h, _MAX_GROW * h), _MIN_SHRINK * h)
    new_h = min(new_h, max_step)
    working_min = max(requested_min, max(1e-14, 1e-14 * abs(t)))
    if new_h < working_min and new_h < h and throw_on_min:
        return False, new_h, at_min, True
    new_h = max(new_h, working_min)
    if new_h == working_min:
        at_min = True
        if new_h < h:
            return False, new_h, at_min, False
    return new_h >= h, new_h, at_min, False


@njit(cache=True)
def IntegrateRK3(x, t, boundary, control, counts, sizes, crawl_h, crawl, tree, geometry, stiction):
    """The Simulator's loop to `boundary` with nothing but integration (one error-controlled RK3 step per pass,
    each at most the maximum step and landing on the boundary), on x in place. control = [ideal h (NaN: none),
    initial step target, accuracy, maximum step, requested minimum step, throw on minimum (1/0)] (the ideal h is
    updated); counts = [steps, derivative evaluations, error-control shrinkages, simulator steps] and sizes =
    [largest step, smallest adapted step, actual initial step] are updated as IntegratorBase's statistics, and
    crawl = [accepted steps in a row shorter than crawl_h (below h_max), the time that stretch began, the monitor's
    limit CRAWL_STEPS] as the CrawlMonitor's. The step that would reach the limit (when the integrator throws at its
    minimum step),
    or one the Python loop treats specially, ends the call before it. Returns (LEAN_OK or LEAN_BAIL, t)."""
    order, ji = tree[0], tree[1]
    nv = tree[4].shape[0]
    nq = x.shape[0] - nv
    n = x.shape[0]
    k1, k2, k3 = np.empty(n), np.empty(n), np.empty(n)
    max_step, accuracy = control[3], control[2]
    while t < boundary:
        target = boundary
        if t + max_step < target:
            target = t + max_step
        h_max = target - t
        t0 = t
        x0 = x.copy()
        h = control[0] if not math.isnan(control[0]) else control[1]
        at_min = False
        shrinks = 0
        while True:
            limited = False
            if h_max < _NEAR_SMALLER * h:
                limited, h = True, h_max
            elif h_max < _NEAR_LARGER * h:
                h = h_max
            h = min(h, max_step)
            PlantDerivatives(x0, tree, geometry, stiction, k1)
            PlantDerivatives(x0 + 0.5 * h * k1, tree, geometry, stiction, k2)
            PlantDerivatives(x0 + h * (2.0 * k2 - k1), tree, geometry, stiction, k3)
            x1 = x0 + (h / 6.0) * (k1 + 4.0 * k2 + k3)
            err = x1 - (x0 + h * k2)
            err_norm = _error_norm(err, x1, order, ji, nq)
            accepted, next_h, at_min, bail = _adjusted(err_norm, h, at_min, t0 + h, accuracy, max_step, control[4],
                                                       control[5] != 0.0)
            if bail or (not accepted and not math.isfinite(err_norm)):
                return LEAN_BAIL, t0
            if accepted:
                for i in range(n):
                    if not math.isfinite(x1[i]):
                        return LEAN_BAIL, t0
                if h >= h_max or h >= crawl_h:
                    crawl[0] = 0.0
                else:  # a crawling step (integrator_diagnostics.CrawlMonitor): the Python loop raises at the limit
                    if crawl[0] + 1.0 >= crawl[2] and control[5] != 0.0:
                        return LEAN_BAIL, t0
                    if crawl[0] == 0.0:
                        crawl[1] = t0
                    crawl[0] += 1.0
                if not limited:
                    control[0] = next_h
                if math.isnan(sizes[1]) or (h < sizes[1] and h < h_max):
                    sizes[1] = h
                counts[0] += 1
                counts[1] += 3 * (shrinks + 1)
                counts[2] += shrinks
                if not sizes[0] >= h:
                    sizes[0] = h
                if math.isnan(sizes[2]):
                    sizes[2] = h
                x[:] = x1
                t = t0 + h
                if h == h_max or t >= target:
                    t = target
                counts[3] += 1
                break
            shrinks += 1
            h = next_h
    return LEAN_OK, t
