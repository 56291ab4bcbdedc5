"""The continuous plant's compiled integration: the Simulator's default error-controlled RK3 (Drake's
RungeKutta3Integrator, systems/analysis/explicit_integrators.py) over the plant's time derivatives in one compiled
call, for a diagram whose only continuous state is the plant's and whose steps nothing else interrupts.

The derivatives are those of _ContinuousDynamicsMixin with the same kernels in the same order — kinematics, gravity,
joint damping, SceneGraph's geometry poses (one body frame per registered body), the hydroelastic contact surfaces and
their tractions (contact/continuous.py) shifted to the body origins, forward dynamics, q̇ = N(q)·v — for plants whose
forces are only these: no force elements besides gravity, no input with a value, hydroelastic contact without a
point-contact pair (every unfiltered geometry pair has a contact surface representation). The step-size control is IntegratorBase's
(_step_error_controlled, _adjusted_step_size, _error_norm) statement by statement, so states and statistics agree
with the Python loop to round-off. A step the Python loop would treat specially (non-finite error, a step below the
minimum, a crawling step) is left undone for it to redo and report.

(numba caches a compiled function with the code of the kernels it calls from other modules: after editing those
kernels, edit this module too, or its cached integrator keeps their previous code.)
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...geometry.compiled_scene import compose_poses
from ...systems.analysis.integrator_diagnostics import CRAWL_FRACTION
from ...geometry.hydroelastic.surface_kernels import contact_surfaces
from ..contact.hydroelastic_traction import HydroelasticSurfaceForces, ShiftToBodyOrigins
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
    _status, t = IntegrateRK3(x, float(root._time), float(boundary), control, counts, sizes,
                              CRAWL_FRACTION * integrator._max_step, *plan)
    if counts[3]:
        integrator._set(t, x)
        integrator._ideal_h = float(control[0])
        integrator._num_steps += int(counts[0])
        integrator._num_fev += int(counts[1])
        integrator._num_shrinkages += int(counts[2])
        integrator._largest_step, integrator._smallest_adapted, integrator._actual_initial_step = map(float, sizes)
        integrator._crawl.reset()
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
    """The contact arrays of the plan (hydroelastic pairs only), or None when not supported."""
    port = plant.get_geometry_query_input_port()
    if contact is None or plant.num_collision_geometries() == 0 or not port.HasValue(context):
        return None
    model = plant.get_contact_model().name
    if model == "kPoint":
        return None
    query = port.Eval(context)
    P, c, R, p = query._prox_poses()
    h = c.hydroelastic()
    if h.pairs.shape[0] == 0:
        return None
    hydro = {(min(int(i), int(j)), max(int(i), int(j))) for i, j in h.pair_set()}
    if any((int(i), int(j)) not in hydro for i, j in c.model.all_pairs()):
        return None  # a point-contact pair is possible
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
    keys, params = [], []
    for i, j in h.pairs:
        a, b = (int(i), int(j)) if h.gid[i] < h.gid[j] else (int(j), int(i))
        bM, bN, d, mu = contact._SurfaceParams(inspector, ids, (a, b))
        keys.append((a, b))
        params.append((bM, bN, d, mu))
    triangles = plant.get_contact_surface_representation().name == "kTriangle"
    return (body_row, np.ascontiguousarray(c.geom_frame, dtype=np.int64), np.ascontiguousarray(c.R_FG),
            np.ascontiguousarray(c.p_FG), rows, np.ascontiguousarray(h.pairs, dtype=np.int64),
            np.ascontiguousarray(h.gid, dtype=np.int64), h.arrays(), triangles,
            np.array(keys, np.int64).reshape(-1, 2), np.array(params, np.float64).reshape(-1, 4))


@njit(cache=True)
def PlantDerivatives(x, tree, geometry, stiction, out):
    """ẋ = [N(q)·v; v̇] of the plan's plant at x = [q; v] into `out` (_ContinuousDynamicsMixin's computation)."""
    order, ji, jf, bp, refl, damping, g_W, gmask = tree
    body_row, geom_frame, R_FG, p_FG, rows, pairs, gid, harr, triangles, keys, params = geometry
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
    F_c = np.zeros((ji.shape[0], 6))
    ShiftToBodyOrigins(F_s, C, bA, bB, p_WB, F_c)
    F += F_c
    tau += np.zeros(nv)  # the contributors' generalized forces (none: no point contact), as _AssembleForces adds them
    vdot = forward_dynamics_from_inertias(order, ji, refl, S, Iw, p_WB, V, c, F, tau, np.zeros(nv))
    out[:nq] = map_velocity_to_qdot(order, ji, q, v)
    out[nq:] = vdot


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
def IntegrateRK3(x, t, boundary, control, counts, sizes, crawl_h, tree, geometry, stiction):
    """The Simulator's loop to `boundary` with nothing but integration (one error-controlled RK3 step per pass,
    each at most the maximum step and landing on the boundary), on x in place. control = [ideal h (NaN: none),
    initial step target, accuracy, maximum step, requested minimum step, throw on minimum (1/0)] (the ideal h is
    updated); counts = [steps, derivative evaluations, error-control shrinkages, simulator steps] and sizes =
    [largest step, smallest adapted step, actual initial step] are updated as IntegratorBase's statistics. A step
    shorter than crawl_h (below h_max) or one the Python loop treats specially ends the call before it. Returns
    (LEAN_OK or LEAN_BAIL, t)."""
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
                if not (h >= h_max or h >= crawl_h):
                    return LEAN_BAIL, t0
                for i in range(n):
                    if not math.isfinite(x1[i]):
                        return LEAN_BAIL, t0
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
