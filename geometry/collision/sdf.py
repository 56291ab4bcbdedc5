"""Signed-distance-field (SDF) collision and surface extraction (MuJoCo's engine_collision_sdf).

Contacts between an SDF and a primitive (or two SDFs) follow MuJoCo's mjc_SDF: from `initpoints`
Halton-sequence starting points spread over the intersection of the two bounding boxes, gradient
descent with a backtracking line search minimizes A + B + |max(A, B)| (A: the SDF, B: the other
shape) for up to `iterations` steps (MuJoCo's `sdf_initpoints`, `sdf_iterations`), then one step on
the intersection max(A, B) filters spurious points; every point that ends inside both shapes
(max(A, B) <= 0) and is new gives one contact. Results follow MuJoCo's convention: `normal` (the
gradient of the mid-surface A - B) points from shape 1 into shape 2 (the SDF), `dist` = max(A, B)
<= 0, `pos` = x + dist/2 normal. Checked against mujoco 4.0 contact by contact.

Shapes are given either by a kind code with a parameter vector (first-party shapes and primitives:
fully compiled with numba) or by Python callables (user plugins: same algorithm in Python).
Frames: every shape is described in its own frame S; poses are X_WS = (R_WS, p_WS).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

__all__ = [
    "PLANE", "SPHERE", "CAPSULE", "ELLIPSOID", "CYLINDER", "BOX", "SDF_BOWL", "SDF_TORUS", "SdfShape",
    "shape_distance", "shape_gradient", "halton", "primitive_aabb", "sdf_collide", "sdf_surface_mesh",
]

# kind codes: MuJoCo's mjtGeom ids for primitives, then the first-party SDF plugins
PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX = 0, 2, 3, 4, 5, 6
SDF_BOWL, SDF_TORUS = 20, 21
USER = -1  #: a shape evaluated through Python callables
MINVAL = 1e-15  # MuJoCo's mjMINVAL
MAXVAL = 1e10  # MuJoCo's mjMAXVAL
MAXCONPAIR = 50  # MuJoCo's mjMAXCONPAIR


@njit(cache=True, error_model="numpy")
def _norm3(x):
    return math.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2])


@njit(cache=True, error_model="numpy")
def shape_distance(kind: int, prm: np.ndarray, x: np.ndarray) -> float:
    """Signed distance [m] of point x (shape frame) for a compiled shape `kind` with parameters `prm`.

    Primitives use MuJoCo's geom sizes (sphere r; capsule r, half-length; ellipsoid radii; cylinder
    r, half-length; box half-sizes). Bowl: (height, radius, thickness); torus: (radius1, radius2).
    """
    if kind == PLANE:
        return x[2]
    if kind == SPHERE:
        return _norm3(x) - prm[0]
    if kind == BOX:
        a0 = abs(x[0]) - prm[0]
        a1 = abs(x[1]) - prm[1]
        a2 = abs(x[2]) - prm[2]
        b0, b1, b2 = max(a0, 0.0), max(a1, 0.0), max(a2, 0.0)
        return math.sqrt(b0 * b0 + b1 * b1 + b2 * b2) + min(max(a0, max(a1, a2)), 0.0)
    if kind == CAPSULE:
        z = x[2] - min(max(x[2], -prm[1]), prm[1])
        return math.sqrt(x[0] * x[0] + x[1] * x[1] + z * z) - prm[0]
    if kind == ELLIPSOID:
        a0, a1, a2 = x[0] / prm[0], x[1] / prm[1], x[2] / prm[2]
        k0 = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        b0, b1, b2 = a0 / prm[0], a1 / prm[1], a2 / prm[2]
        k1 = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
        return k0 * (k0 - 1.0) / k1
    if kind == CYLINDER:
        a0 = math.sqrt(x[0] * x[0] + x[1] * x[1]) - prm[0]
        a1 = abs(x[2]) - prm[1]
        b0, b1 = max(a0, 0.0), max(a1, 0.0)
        return min(max(a0, a1), 0.0) + math.sqrt(b0 * b0 + b1 * b1)
    if kind == SDF_BOWL:
        h, r, t = prm[0], prm[1], prm[2]
        w = math.sqrt(r * r - h * h)
        q0 = math.sqrt(x[0] * x[0] + x[1] * x[1])
        q1 = x[2]
        if h * q0 < w * q1:  # beyond the rim: distance to the rim circle
            return math.sqrt((q0 - w) ** 2 + (q1 - h) ** 2) - t
        return abs(math.sqrt(q0 * q0 + q1 * q1) - r) - t
    if kind == SDF_TORUS:
        q = math.sqrt(x[0] * x[0] + x[1] * x[1]) - prm[0]
        return math.sqrt(q * q + x[2] * x[2]) - prm[1]
    return np.nan


@njit(cache=True, error_model="numpy")
def shape_gradient(kind: int, prm: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Gradient of `shape_distance` at x (shape frame); MuJoCo's formulas for the primitives."""
    g = np.zeros(3)
    if kind == PLANE:
        g[2] = 1.0
    elif kind == SPHERE:
        c = _norm3(x)
        g[0], g[1], g[2] = x[0] / c, x[1] / c, x[2] / c
    elif kind == BOX:
        a = np.array([abs(x[0]) - prm[0], abs(x[1]) - prm[1], abs(x[2]) - prm[2]])
        k = 0 if a[0] > a[1] else 1
        m = 2 if a[2] > a[k] else k
        if a[m] < 0:
            g[m] = x[m] / abs(x[m])
        else:
            b = np.maximum(a, 0.0)
            c = _norm3(b)
            for i in range(3):
                g[i] = b[i] / c * x[i] / abs(x[i]) if a[i] > 0 else 0.0
    elif kind == CAPSULE:
        z = x[2] - min(max(x[2], -prm[1]), prm[1])
        c = math.sqrt(x[0] * x[0] + x[1] * x[1] + z * z)
        g[0], g[1], g[2] = x[0] / c, x[1] / c, z / c
    elif kind == ELLIPSOID:
        a0, a1, a2 = x[0] / prm[0], x[1] / prm[1], x[2] / prm[2]
        b0, b1, b2 = a0 / prm[0], a1 / prm[1], a2 / prm[2]
        k0 = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        k1 = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
        g[0] = a0 * (2.0 * k0 - 1.0) / k1 + k0 * (k0 - 1.0) * b0 / (k1 * k1)
        g[1] = a1 * (2.0 * k0 - 1.0) / k1 + k0 * (k0 - 1.0) * b1 / (k1 * k1)
        g[2] = a2 * (2.0 * k0 - 1.0) / k1 + k0 * (k0 - 1.0) * b2 / (k1 * k1)
    elif kind == CYLINDER:
        c = math.sqrt(x[0] * x[0] + x[1] * x[1])
        e = abs(x[2])
        a0, a1 = c - prm[0], e - prm[1]
        ga0, ga1, ga2 = x[0] / c, x[1] / c, x[2] / e
        if max(a0, a1) < 0:
            if a0 > a1:
                g[0], g[1] = ga0, ga1
            else:
                g[2] = ga2
        else:
            b0, b1 = max(a0, 0.0), max(a1, 0.0)
            bn = math.sqrt(b0 * b0 + b1 * b1)
            g[0], g[1], g[2] = ga0 * b0 / bn, ga1 * b0 / bn, ga2 * b1 / bn
    elif kind == SDF_BOWL:
        # forward differences with step 1e-8, exactly as MuJoCo's bowl plugin (its analytic
        # gradient is not used there); keeps contacts identical to MuJoCo's
        eps = 1e-8
        d0 = shape_distance(kind, prm, x)
        xe = x.copy()
        for i in range(3):
            xe[i] += eps
            g[i] = (shape_distance(kind, prm, xe) - d0) / eps
            xe[i] = x[i]
    elif kind == SDF_TORUS:
        lxy = max(math.sqrt(x[0] * x[0] + x[1] * x[1]), MINVAL)
        q = lxy - prm[0]
        lqz = max(math.sqrt(q * q + x[2] * x[2]), MINVAL)
        g[0], g[1], g[2] = q * x[0] / lxy / lqz, q * x[1] / lxy / lqz, x[2] / lqz
    else:
        g[:] = np.nan
    return g


@njit(cache=True, error_model="numpy")
def halton(index: int, base: int) -> float:
    """Element `index` of the Halton (radical-inverse) sequence in `base`, in [0, 1)."""
    n0 = index
    f = 1.0 / base
    hn = 0.0
    while n0 > 0:
        n1 = n0 // base
        hn += f * (n0 - n1 * base)
        f /= base
        n0 = n1
    return hn


def primitive_aabb(kind: int, size: np.ndarray) -> np.ndarray:
    """Bounding box (center xyz, half-size xyz) of a primitive in its frame, as MuJoCo's geom_aabb."""
    s = np.asarray(size, float)
    if kind == SPHERE:
        half = [s[0]] * 3
    elif kind == CAPSULE:
        half = [s[0], s[0], s[0] + s[1]]
    elif kind == CYLINDER:
        half = [s[0], s[0], s[1]]
    elif kind in (BOX, ELLIPSOID):
        half = list(s[:3])
    else:
        raise ValueError(f"shape kind {kind} has no finite bounding box for SDF collision "
                         f"(valid: sphere, capsule, ellipsoid, cylinder, box or an SDF)")
    return np.array([0.0, 0.0, 0.0] + half)


@njit(cache=True, error_model="numpy")
def _overlap_box(aabb1, aabb2, R12, p12):
    """Intersection (min xyz, max xyz) in frame 1 of box 1 and the frame-1 AABB of box 2 (X_12 = R12, p12)."""
    lo1 = np.full(3, MAXVAL)
    hi1 = np.full(3, -MAXVAL)
    lo2 = np.full(3, MAXVAL)
    hi2 = np.full(3, -MAXVAL)
    v1 = np.zeros(3)
    v2 = np.zeros(3)
    for i in range(8):
        for k in range(3):
            sgn = 1.0 if (i >> k) & 1 else -1.0
            v1[k] = aabb1[k] + sgn * aabb1[3 + k]
            v2[k] = aabb2[k] + sgn * aabb2[3 + k]
        w = R12 @ v2 + p12
        for k in range(3):
            lo1[k] = min(lo1[k], v1[k])
            hi1[k] = max(hi1[k], v1[k])
            lo2[k] = min(lo2[k], w[k])
            hi2[k] = max(hi2[k], w[k])
    out = np.zeros(6)
    for k in range(3):
        out[k] = max(lo1[k], lo2[k])
        out[3 + k] = min(hi1[k], hi2[k])
    return out


# objectives minimized by the descent (MuJoCo's mjSDFTYPE_*)
_COLLISION, _INTERSECTION = 0, 1


def _collide(dist_fn, grad_fn, k1, prm1, R1, p1, aabb1, k2, prm2, R2, p2, aabb2, initpoints, iterations, maxcon):
    """SDF collision of shape 1 with SDF shape 2; returns (n, pos_W, normal_W, dist) in (maxcon, ...) arrays.

    `dist_fn(kind, prm, x)` / `grad_fn(kind, prm, x)` evaluate a shape in its frame. Compiled with
    numba for the kernel shapes (`_collide_compiled`); run as plain Python for user callables.
    """
    R12 = R1.T @ R2
    p12 = R1.T @ (p2 - p1)
    box = _overlap_box(aabb1, aabb2, R12, p12)
    pos = np.zeros((maxcon, 3))
    nrm = np.zeros((maxcon, 3))
    dist = np.zeros(maxcon)
    pts = np.zeros((maxcon, 3))
    if box[3] < box[0] or box[4] < box[1] or box[5] < box[2]:
        return 0, pos, nrm, dist
    R21 = R2.T @ R1  # shape 1 frame -> shape 2 (SDF) frame
    p21 = R2.T @ (p1 - p2)

    def pair(mode, x, want_grad):
        # COLLISION: A + B + |max(A, B)| drives x to the deepest common point; INTERSECTION: max(A, B)
        y = R21.T @ (x - p21)
        a = dist_fn(k2, prm2, x)
        b = dist_fn(k1, prm1, y)
        g = np.zeros(3)
        if mode == _COLLISION:
            val = a + b + abs(max(a, b))
            if want_grad:
                ga = grad_fn(k2, prm2, x)
                gb = R21 @ grad_fn(k1, prm1, y)
                g = ga + gb + (1.0 if max(a, b) > 0 else -1.0) * (ga if a > b else gb)
        else:
            val = max(a, b)
            if want_grad:
                g = grad_fn(k2, prm2, x) if a > b else R21 @ grad_fn(k1, prm1, y)
        return val, g

    def descend(mode, x, niter):
        # gradient steps with a backtracking (Armijo) line search; on no decrease keep the previous point
        d = MAXVAL
        for _ in range(niter):
            _, grad = pair(mode, x, True)
            if not (np.all(np.isfinite(grad)) and np.all(np.abs(grad) <= MAXVAL)):
                return MAXVAL
            x0 = x.copy()
            d0, _ = pair(mode, x0, False)
            alpha = 2.0
            wolfe = -0.1 * alpha * (grad @ grad)
            while True:
                alpha *= 0.5
                wolfe *= 0.5
                x[:] = x0 - alpha * grad
                d, _ = pair(mode, x, False)
                if not (alpha > 1e-4 and d - d0 > wolfe):
                    break
            if d0 < d:
                x[:] = x0
                return d0
        return d

    cnt = 0
    x1 = np.zeros(3)
    for j in range(initpoints):
        x1[0] = box[0] + (box[3] - box[0]) * halton(j, 2)
        x1[1] = box[1] + (box[4] - box[1]) * halton(j, 3)
        x1[2] = box[2] + (box[5] - box[2]) * halton(j, 5)
        x = R21 @ x1 + p21
        descend(_COLLISION, x, iterations)
        d = descend(_INTERSECTION, x, 1)  # inexact SDFs can give spurious points: this step filters them
        if d > 0 or cnt >= maxcon:
            continue
        known = False
        for i in range(cnt):
            if _norm3(pts[i] - x) < MINVAL:
                known = True
                break
        if known:
            continue
        pts[cnt] = x
        # normal: gradient of the mid-surface A - B (normalized gradients), pointing into the SDF
        y = R21.T @ (x - p21)
        ga = grad_fn(k2, prm2, x)
        gb = R21 @ grad_fn(k1, prm1, y)
        n = ga / max(_norm3(ga), MINVAL) - gb / max(_norm3(gb), MINVAL)
        nn = _norm3(n)
        if nn < MINVAL:
            continue
        nw = -(R2 @ (n / nn))
        nrm[cnt] = nw
        pos[cnt] = R2 @ x + p2 + nw * (d / 2.0)  # as MuJoCo 4.0 places it
        dist[cnt] = d
        cnt += 1
    return cnt, pos, nrm, dist


_collide_with_functions = njit(_collide)


@njit(cache=False)
def _collide_compiled(kind1, prm1, R1, p1, aabb1, kind2, prm2, R2, p2, aabb2, initpoints, iterations, max_contacts):
    """`_collide` for the compiled shapes. Not cached on disk: numba cannot cache code that passes functions as
    values, and with cache=True it wrote a new, never-reused cache entry in every process until saving the
    index failed (≈50 processes). It compiles once per process instead (a few seconds, on the first SDF contact)."""
    return _collide_with_functions(shape_distance, shape_gradient, kind1, prm1, R1, p1, aabb1, kind2, prm2, R2, p2,
                                   aabb2, initpoints, iterations, max_contacts)


@dataclass
class SdfShape:
    """A shape for SDF collision, in its own frame: a compiled kind + parameters, or Python callables.

    `aabb` is (center xyz, half-size xyz) in the shape frame. For user SDFs give `distance(p)` and
    `gradient(p)` (p a length-3 array in the shape frame); `kind` is then USER.
    """

    kind: int
    params: np.ndarray
    aabb: np.ndarray
    distance: Callable[[np.ndarray], float] | None = None
    gradient: Callable[[np.ndarray], np.ndarray] | None = None

    @staticmethod
    def Primitive(kind: int, size) -> "SdfShape":
        """A MuJoCo primitive (SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX) with MuJoCo's geom size."""
        return SdfShape(kind, np.asarray(size, float), primitive_aabb(kind, size))

    @staticmethod
    def User(distance: Callable, gradient: Callable, aabb) -> "SdfShape":
        """A shape given by Python callables (a user SDF plugin's distance/gradient with its data bound)."""
        aabb = np.asarray(aabb, float)
        if aabb.shape != (6,) or np.any(aabb[3:] < 0):
            raise ValueError(f"SDF aabb must be (center x, y, z, half-size x, y, z) with half-sizes >= 0, got {aabb}")
        return SdfShape(USER, np.zeros(0), aabb, distance, gradient)

    def Distance(self, x: np.ndarray) -> float:
        """Signed distance at x (shape frame)."""
        if self.kind == USER:
            return float(self.distance(x))
        return shape_distance(self.kind, self.params, x)

    def Gradient(self, x: np.ndarray) -> np.ndarray:
        """Distance gradient at x (shape frame)."""
        if self.kind == USER:
            return np.asarray(self.gradient(x), float)
        return shape_gradient(self.kind, self.params, x)


def _pose(X) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(X, "rotation") and hasattr(X, "translation"):  # a RigidTransform
        R = X.rotation()
        R = R.matrix() if hasattr(R, "matrix") else R
        return np.asarray(R, float), np.asarray(X.translation(), float)
    R, p = X
    R, p = np.asarray(R, float), np.asarray(p, float)
    if R.shape != (3, 3) or p.shape != (3,):
        raise ValueError(f"a pose must be (R 3x3, p 3) or a RigidTransform, got shapes {R.shape}, {p.shape}")
    return R, p


def sdf_collide(shape1: SdfShape, X_W1, shape2: SdfShape, X_W2, initpoints: int = 40, iterations: int = 10,
                max_contacts: int = MAXCONPAIR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contacts between shape 1 (a primitive or an SDF) and the SDF shape 2 (MuJoCo's mjc_SDF).

    Returns (pos_W (n,3), normal_W (n,3) pointing from shape 1 to shape 2, dist (n,) <= 0).
    `initpoints` / `iterations` are MJCF option sdf_initpoints / sdf_iterations.
    """
    if initpoints < 0 or iterations < 0 or max_contacts < 0:
        raise ValueError(f"sdf_collide: initpoints ({initpoints}), iterations ({iterations}) and max_contacts "
                         f"({max_contacts}) must be non-negative")
    if shape2.kind not in (USER, SDF_BOWL, SDF_TORUS):
        raise ValueError("sdf_collide: shape 2 must be an SDF (MuJoCo orders the pair so the SDF geom is second)")
    R1, p1 = _pose(X_W1)
    R2, p2 = _pose(X_W2)
    args = (R1, p1, shape1.aabb.astype(float), shape2.kind, shape2.params, R2, p2, shape2.aabb.astype(float),
            int(initpoints), int(iterations), int(max_contacts))
    if shape1.kind != USER and shape2.kind != USER:
        n, pos, nrm, dist = _collide_compiled(shape1.kind, shape1.params, *args)
    else:  # user callables: the same algorithm in Python; USER shapes are looked up by their slot
        shapes = (shape1, shape2)

        def dist_fn(kind, prm, x):
            return shapes[int(prm[0])].Distance(x) if kind == USER else shape_distance(kind, prm, x)

        def grad_fn(kind, prm, x):
            return shapes[int(prm[0])].Gradient(x) if kind == USER else shape_gradient(kind, prm, x)

        prm1 = np.zeros(1) if shape1.kind == USER else shape1.params
        prm2 = np.ones(1) if shape2.kind == USER else shape2.params
        args = args[:4] + (prm2,) + args[5:]
        n, pos, nrm, dist = _collide(dist_fn, grad_fn, shape1.kind, prm1, *args)
    return pos[:n].copy(), nrm[:n].copy(), dist[:n].copy()


# ---- surface extraction for visualization (marching tetrahedra over a uniform grid) ----------------

# each grid cube split into 6 tetrahedra sharing the main diagonal (corner 0 -> corner 6)
_CUBE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
_TETS = np.array([[0, 6, 1, 2], [0, 6, 2, 3], [0, 6, 3, 7], [0, 6, 7, 4], [0, 6, 4, 5], [0, 6, 5, 1]])


@njit(cache=True, error_model="numpy")
def _march(values, origin, step):
    """Triangles (m, 3, 3) of the zero level set of grid `values` (marching tetrahedra), outward-oriented."""
    nx, ny, nz = values.shape
    cap = max((nx - 1) * (ny - 1) * (nz - 1) * 12, 1)
    out = np.zeros((cap, 3, 3))
    m = 0
    corners = np.zeros((4, 3))
    vals = np.zeros(4)
    cut = np.zeros((4, 3))
    ins = np.zeros(4, np.int64)
    outs = np.zeros(4, np.int64)
    idx = np.zeros(3, np.int64)
    for i in range(nx - 1):
        for j in range(ny - 1):
            for k in range(nz - 1):
                idx[0], idx[1], idx[2] = i, j, k
                for t in range(6):
                    nin = 0
                    nout = 0
                    for c in range(4):
                        cc = _CUBE[_TETS[t, c]]
                        vals[c] = values[i + cc[0], j + cc[1], k + cc[2]]
                        for a in range(3):
                            corners[c, a] = origin[a] + step[a] * (idx[a] + cc[a])
                        if vals[c] < 0:
                            ins[nin] = c
                            nin += 1
                        else:
                            outs[nout] = c
                            nout += 1
                    if nin == 0 or nout == 0:
                        continue
                    ncut = 0
                    for ia in range(nin):
                        a = ins[ia]
                        for ib in range(nout):
                            b = outs[ib]
                            s = vals[a] / (vals[a] - vals[b])
                            cut[ncut] = corners[a] + s * (corners[b] - corners[a])
                            ncut += 1
                    out_dir = np.zeros(3)
                    for ib in range(nout):
                        out_dir += corners[outs[ib]] / nout
                    for ia in range(nin):
                        out_dir -= corners[ins[ia]] / nin
                    ntri = 1 if ncut == 3 else 2
                    for q in range(ntri):
                        if ncut == 3:
                            i0, i1, i2 = 0, 1, 2
                        elif q == 0:
                            i0, i1, i2 = 0, 1, 3
                        else:
                            i0, i1, i2 = 0, 3, 2
                        p0, p1, p2 = cut[i0].copy(), cut[i1].copy(), cut[i2].copy()
                        n = np.cross(p1 - p0, p2 - p0)
                        out[m, 0] = p0
                        if n @ out_dir < 0:
                            out[m, 1], out[m, 2] = p2, p1
                        else:
                            out[m, 1], out[m, 2] = p1, p2
                        m += 1
    return out[:m]


def sdf_surface_mesh(distance: Callable[[np.ndarray], np.ndarray] | SdfShape, aabb=None, resolution: int = 40,
                     padding: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Triangle mesh (vertices (n,3), faces (m,3), outward-oriented) of the zero level set of an SDF.

    The bounding box (center, half-size), enlarged by `padding` of its size, is sampled on a uniform
    grid with `resolution` cells along its longest side; each cell is cut into six tetrahedra and the
    surface is interpolated on their edges (marching tetrahedra). `distance` may be an `SdfShape` or a
    vectorizable callable f(points (k,3)) -> (k,).
    """
    if isinstance(distance, SdfShape):
        shape = distance
        aabb = shape.aabb if aabb is None else aabb

        def distance(pts):
            return np.array([shape.Distance(p) for p in pts])
    if aabb is None:
        raise ValueError("sdf_surface_mesh: aabb (center xyz, half-size xyz) is required for a callable")
    if resolution < 2:
        raise ValueError(f"sdf_surface_mesh: resolution must be >= 2, got {resolution}")
    aabb = np.asarray(aabb, float)
    half = aabb[3:] * (1.0 + padding) + 1e-9
    lo = aabb[:3] - half
    h = 2.0 * half.max() / resolution
    counts = np.maximum(np.ceil(2.0 * half / h).astype(int), 1) + 1
    axes = [lo[a] + h * np.arange(counts[a]) for a in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    values = np.asarray(distance(grid), float).reshape(tuple(counts))
    if not np.all(np.isfinite(values)):
        raise ValueError("sdf_surface_mesh: the distance function returned non-finite values")
    tris = _march(values, lo, np.full(3, h))
    if len(tris) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), int)
    verts = tris.reshape(-1, 3)
    key = np.round(verts / (h * 1e-6)).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    faces = inverse.reshape(-1, 3)
    keep = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    return verts[first], faces[keep]
