"""SDF against a primitive or another SDF: MuJoCo's mjc_SDF gradient descent from Halton starting points.

From `initpoints` Halton-sequence starting points spread over the intersection of the two bounding
boxes, gradient descent with a backtracking line search minimizes A + B + |max(A, B)| (A: the SDF,
B: the other shape) for up to `iterations` steps (MJCF `sdf_initpoints`, `sdf_iterations`), then one
step on the intersection max(A, B) filters spurious points; every point that ends inside both shapes
(max(A, B) <= 0) and is new gives one contact. Results follow MuJoCo's convention: `normal` (the
gradient of the mid-surface A - B) points from shape 1 into shape 2 (the SDF), `dist` = max(A, B)
<= 0, `pos` = x + dist/2 normal. Checked against mujoco 4.0 contact by contact.

The kernels call the compiled fields of sdf_fields.py by kind code, so they are cached on disk like
any numba kernel. Shapes given by Python callables (kind USER) run the very same functions as plain
Python with the field evaluation rebound to the callables (`python_variant`).
"""
from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from mallard.geometry.collision.blas_rounding import dot3, rotate_row, rotate_t_row
from mallard.geometry.collision.sdf_fields import (MAXVAL, MINVAL, SDF_KINDS, USER, _norm3, primitive_aabb,
                                                   shape_distance, shape_gradient)
from mallard.geometry.collision.sdf_halton import halton, overlap_box

__all__ = ["MAXCONPAIR", "SdfShape", "sdf_collide", "python_variant", "as_pose"]

MAXCONPAIR = 50  # MuJoCo's mjMAXCONPAIR

# the field evaluation every kernel below goes through (rebound for Python callables, see python_variant)
_dist = shape_distance
_grad = shape_gradient

# objectives minimized by the descent (MuJoCo's mjSDFTYPE_*)
_COLLISION, _INTERSECTION = 0, 1


@njit(cache=True, error_model="numpy")
def _pair_value(mode, k1, prm1, k2, prm2, R21, p21, x, want_grad):
    """Objective at x (SDF frame) and, if asked, its gradient. COLLISION: A + B + |max(A, B)| drives x to
    the deepest common point; INTERSECTION: max(A, B). A is the SDF (shape 2), B shape 1 mapped by X_21."""
    y = R21.T @ (x - p21)
    a = _dist(k2, prm2, x)
    b = _dist(k1, prm1, y)
    g = np.zeros(3)
    if mode == _COLLISION:
        val = a + b + abs(max(a, b))
        if want_grad:
            ga = _grad(k2, prm2, x)
            gb = R21 @ _grad(k1, prm1, y)
            g = ga + gb + (1.0 if max(a, b) > 0 else -1.0) * (ga if a > b else gb)
    else:
        val = max(a, b)
        if want_grad:
            g = _grad(k2, prm2, x) if a > b else R21 @ _grad(k1, prm1, y)
    return val, g


@njit(cache=True, error_model="numpy")
def _descend(mode, k1, prm1, k2, prm2, R21, p21, x, niter):
    """Gradient steps on x (in place) with a backtracking (Armijo) line search; on no decrease keep the
    previous point. Returns the last objective value (MAXVAL on a non-finite gradient)."""
    d = MAXVAL
    for _ in range(niter):
        _, grad = _pair_value(mode, k1, prm1, k2, prm2, R21, p21, x, True)
        if not (np.all(np.isfinite(grad)) and np.all(np.abs(grad) <= MAXVAL)):
            return MAXVAL
        x0 = x.copy()
        d0, _ = _pair_value(mode, k1, prm1, k2, prm2, R21, p21, x0, False)
        alpha = 2.0
        wolfe = -0.1 * alpha * (grad @ grad)
        while True:
            alpha *= 0.5
            wolfe *= 0.5
            x[:] = x0 - alpha * grad
            d, _ = _pair_value(mode, k1, prm1, k2, prm2, R21, p21, x, False)
            if not (alpha > 1e-4 and d - d0 > wolfe):
                break
        if d0 < d:
            x[:] = x0
            return d0
    return d


@njit(cache=True, error_model="numpy")
def _pair_value_into(mode, k1, prm1, k2, prm2, R21, p21, x, want_grad, y, g):
    """_pair_value with its gradient into g (when asked) and y the point in shape 1's frame: the same arithmetic,
    the products by R21 in scalars rounded as its BLAS calls (blas_rounding.py), no temporaries of its own."""
    t0, t1, t2 = x[0] - p21[0], x[1] - p21[1], x[2] - p21[2]
    t = (t0, t1, t2)
    for r in range(3):
        y[r] = rotate_t_row(R21, r, t)
    a = _dist(k2, prm2, x)
    b = _dist(k1, prm1, y)
    if mode == _COLLISION:
        val = a + b + abs(max(a, b))
        if want_grad:
            ga = _grad(k2, prm2, x)
            g1 = _grad(k1, prm1, y)
            s = 1.0 if max(a, b) > 0 else -1.0
            for r in range(3):
                gb = rotate_row(R21, r, g1)
                g[r] = ga[r] + gb + s * (ga[r] if a > b else gb)
    else:
        val = max(a, b)
        if want_grad:
            if a > b:
                ga = _grad(k2, prm2, x)
                for r in range(3):
                    g[r] = ga[r]
            else:
                g1 = _grad(k1, prm1, y)
                for r in range(3):
                    g[r] = rotate_row(R21, r, g1)
    return val


@njit(cache=True, error_model="numpy")
def _descend_fast(mode, k1, prm1, k2, prm2, R21, p21, x, niter):
    """_descend for compiled shapes: the same steps and line search over _pair_value_into, in place."""
    d = MAXVAL
    y, grad, x0, unused = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for _ in range(niter):
        _pair_value_into(mode, k1, prm1, k2, prm2, R21, p21, x, True, y, grad)
        for i in range(3):
            if not (np.isfinite(grad[i]) and abs(grad[i]) <= MAXVAL):
                return MAXVAL
        x0[0], x0[1], x0[2] = x[0], x[1], x[2]
        d0 = _pair_value_into(mode, k1, prm1, k2, prm2, R21, p21, x0, False, y, unused)
        alpha = 2.0
        wolfe = -0.1 * alpha * dot3(grad, grad)
        while True:
            alpha *= 0.5
            wolfe *= 0.5
            for i in range(3):
                x[i] = x0[i] - alpha * grad[i]
            d = _pair_value_into(mode, k1, prm1, k2, prm2, R21, p21, x, False, y, unused)
            if not (alpha > 1e-4 and d - d0 > wolfe):
                break
        if d0 < d:
            x[0], x[1], x[2] = x0[0], x0[1], x0[2]
            return d0
    return d


@njit(cache=True, error_model="numpy")
def _collide_kernel(k1, prm1, R1, p1, aabb1, k2, prm2, R2, p2, aabb2, initpoints, iterations, maxcon):
    """Contacts of shape 1 with the SDF shape 2: (n, pos_W, normal_W, dist) in (maxcon, ...) arrays."""
    R12 = R1.T @ R2
    p12 = R1.T @ (p2 - p1)
    box = overlap_box(aabb1, aabb2, R12, p12)
    pos = np.zeros((maxcon, 3))
    nrm = np.zeros((maxcon, 3))
    dist = np.zeros(maxcon)
    pts = np.zeros((maxcon, 3))
    if box[3] < box[0] or box[4] < box[1] or box[5] < box[2]:
        return 0, pos, nrm, dist
    R21 = R2.T @ R1  # shape 1 frame -> shape 2 (SDF) frame
    p21 = R2.T @ (p1 - p2)
    cnt = 0
    x1 = np.zeros(3)
    for j in range(initpoints):
        x1[0] = box[0] + (box[3] - box[0]) * halton(j, 2)
        x1[1] = box[1] + (box[4] - box[1]) * halton(j, 3)
        x1[2] = box[2] + (box[5] - box[2]) * halton(j, 5)
        x = R21 @ x1 + p21
        _descend_fast(_COLLISION, k1, prm1, k2, prm2, R21, p21, x, iterations)
        # inexact SDFs can give spurious points: one step on the intersection filters them
        d = _descend_fast(_INTERSECTION, k1, prm1, k2, prm2, R21, p21, x, 1)
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
        ga = _grad(k2, prm2, x)
        gb = R21 @ _grad(k1, prm1, y)
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


def python_variant(kernels, shapes) -> dict:
    """Plain-Python copies of the compiled `kernels` (which call each other by name) with the field
    evaluation `_dist` / `_grad` rebound so that USER shapes call their Python callables.

    A USER shape's parameter vector holds its slot in `shapes`. Returns the namespace holding the copies.
    """
    def dist(kind, prm, x):
        return shapes[int(prm[0])].Distance(x) if kind == USER else shape_distance(kind, prm, x)

    def grad(kind, prm, x):
        return shapes[int(prm[0])].Gradient(x) if kind == USER else shape_gradient(kind, prm, x)

    ns = dict(kernels[0].py_func.__globals__)
    ns["_dist"], ns["_grad"] = dist, grad
    for k in kernels:
        f = k.py_func
        ns[f.__name__] = types.FunctionType(f.__code__, ns, f.__name__, f.__defaults__, f.__closure__)
    return ns


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

    def __post_init__(self):
        # one dtype/layout for the compiled kernels: one cached specialization, whatever the caller passed
        self.kind = int(self.kind)
        self.params = np.ascontiguousarray(self.params, dtype=np.float64).reshape(-1)
        self.aabb = np.ascontiguousarray(self.aabb, dtype=np.float64).reshape(-1)

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

    def is_field(self) -> bool:
        """Whether this is a signed distance field (an SDF plugin) rather than a primitive."""
        return self.kind in SDF_KINDS

    def Distance(self, x: np.ndarray) -> float:
        """Signed distance [m] at x (shape frame)."""
        if self.kind == USER:
            return float(self.distance(x))
        return shape_distance(self.kind, self.params, np.ascontiguousarray(x, dtype=np.float64))

    def Gradient(self, x: np.ndarray) -> np.ndarray:
        """Distance gradient at x (shape frame)."""
        if self.kind == USER:
            return np.asarray(self.gradient(x), float)
        return shape_gradient(self.kind, self.params, np.ascontiguousarray(x, dtype=np.float64))


def as_pose(X) -> tuple[np.ndarray, np.ndarray]:
    """(R 3x3, p 3) float arrays of a pose given as a RigidTransform or an (R, p) pair."""
    if hasattr(X, "rotation") and hasattr(X, "translation"):  # a RigidTransform
        R = X.rotation()
        R = R.matrix() if hasattr(R, "matrix") else R
        return np.ascontiguousarray(R, dtype=np.float64), np.ascontiguousarray(X.translation(), dtype=np.float64)
    R, p = X
    R, p = np.ascontiguousarray(R, dtype=np.float64), np.ascontiguousarray(p, dtype=np.float64)
    if R.shape != (3, 3) or p.shape != (3,):
        raise ValueError(f"a pose must be (R 3x3, p 3) or a RigidTransform, got shapes {R.shape}, {p.shape}")
    return R, p


_KERNELS = (_pair_value, _descend, _collide_kernel)


def sdf_collide(shape1: SdfShape, X_W1, shape2: SdfShape, X_W2, initpoints: int = 40, iterations: int = 10,
                max_contacts: int = MAXCONPAIR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contacts between shape 1 (a primitive or an SDF) and the SDF shape 2 (MuJoCo's mjc_SDF).

    Returns (pos_W (n,3), normal_W (n,3) pointing from shape 1 to shape 2, dist (n,) <= 0).
    `initpoints` / `iterations` are MJCF option sdf_initpoints / sdf_iterations.
    """
    if initpoints < 0 or iterations < 0 or max_contacts < 0:
        raise ValueError(f"sdf_collide: initpoints ({initpoints}), iterations ({iterations}) and max_contacts "
                         f"({max_contacts}) must be non-negative")
    if not shape2.is_field():
        raise ValueError("sdf_collide: shape 2 must be an SDF (MuJoCo orders the pair so the SDF geom is second)")
    R1, p1 = as_pose(X_W1)
    R2, p2 = as_pose(X_W2)
    opts = (int(initpoints), int(iterations), int(max_contacts))
    if shape1.kind != USER and shape2.kind != USER:
        n, pos, nrm, dist = _collide_kernel(shape1.kind, shape1.params, R1, p1, shape1.aabb, shape2.kind,
                                            shape2.params, R2, p2, shape2.aabb, *opts)
    else:  # user callables: the same kernels as Python; USER shapes are looked up by their slot
        ns = python_variant(_KERNELS, (shape1, shape2))
        ns["_descend_fast"] = ns["_descend"]  # (its compiled twin: the same steps, rounded as the kernels' BLAS calls)
        prm1 = np.zeros(1) if shape1.kind == USER else shape1.params
        prm2 = np.ones(1) if shape2.kind == USER else shape2.params
        n, pos, nrm, dist = ns["_collide_kernel"](shape1.kind, prm1, R1, p1, shape1.aabb, shape2.kind, prm2, R2, p2,
                                                  shape2.aabb, *opts)
    return pos[:n].copy(), nrm[:n].copy(), dist[:n].copy()
