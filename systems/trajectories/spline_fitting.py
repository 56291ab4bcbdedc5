"""Coefficient fitting for piecewise polynomials (array kernels behind PiecewisePolynomial's makers).

Every function takes breaks `t` (N,) and samples `Y` (N, rows, cols) and returns segment coefficients
`C` (N-1, rows, cols, degree+1) in ascending powers of the segment-local time (t - t_i), the layout
`PiecewisePolynomial` stores. The formulas are Drake's (pchip slopes, not-a-knot / clamped / periodic
cubic splines), so the fits agree with `pydrake.trajectories` to rounding.
"""
from __future__ import annotations

import numpy as np

# Two breaks closer than this are rejected (Drake's PiecewiseTrajectory::kEpsilonTime).
kEpsilonTime = 1e-10
_kSlopeEpsilon = 1e-10


def _is_vector_sample(s) -> bool:
    """True for a 1-D sequence of numbers (a list / tuple of scalars or a 1-D array): one row of a matrix."""
    if isinstance(s, np.ndarray):
        return s.ndim == 1
    return isinstance(s, (list, tuple)) and all(np.ndim(x) == 0 for x in s)


def as_samples(samples, method: str) -> np.ndarray:
    """Normalize pydrake's sample forms to an (N, rows, cols) array.

    As in pydrake, a matrix (an ndarray (rows, N), or a list of rows each a 1-D sequence of numbers) holds one
    sample per COLUMN; a list of matrices (2-D arrays or nested lists) holds one sample per item. A list of
    scalars is N scalar samples. A 1-D ndarray is one row (N scalar samples).
    """
    if isinstance(samples, np.ndarray) or (isinstance(samples, (list, tuple)) and samples
                                           and all(_is_vector_sample(s) for s in samples)):
        rows = [np.asarray(r, dtype=float).ravel() for r in samples] if not isinstance(samples, np.ndarray) \
            else None
        if rows is not None and len({r.size for r in rows}) > 1:
            raise ValueError(f"{method}: the rows of the samples matrix have different lengths "
                             f"{[r.size for r in rows]}; each column of the matrix is one sample")
        a = np.asarray(samples if rows is None else np.stack(rows), dtype=float)
        if a.ndim == 1:
            a = a[None, :]
        if a.ndim != 2:
            raise ValueError(f"{method}: samples must be a (rows, N) array or a list of matrices, got shape {a.shape}")
        return a.T[:, :, None].copy()
    return as_matrix_list(samples, method)


def as_matrix_list(samples, method: str) -> np.ndarray:
    """An (N, rows, cols) array from N items, each a scalar, a vector (a column) or a matrix."""
    items = list(samples)
    if not items:
        raise ValueError(f"{method}: samples is empty")
    mats = []
    for s in items:
        m = np.asarray(s, dtype=float)
        if m.ndim == 0:
            m = m.reshape(1, 1)
        elif m.ndim == 1:
            m = m[:, None]
        elif m.ndim != 2:
            raise ValueError(f"{method}: each sample must be a scalar, vector or matrix, got shape {m.shape}")
        mats.append(m)
    shape = mats[0].shape
    for m in mats:
        if m.shape != shape:
            raise ValueError(f"{method}: knots have inconsistent dimensions {shape} vs {m.shape}")
    return np.stack(mats)


def as_sample_matrix(value, rows: int, cols: int, what: str) -> np.ndarray:
    m = np.asarray(value, dtype=float)
    if m.ndim <= 1 and m.size == rows * cols and (cols == 1 or rows == 1):
        m = m.reshape(rows, cols)
    if m.shape != (rows, cols):
        raise ValueError(f"{what} must have shape ({rows}, {cols}), got {np.shape(value)}")
    return m


def check_breaks_and_samples(t: np.ndarray, Y: np.ndarray, min_length: int, method: str) -> None:
    """Raise ValueError unless breaks are strictly increasing, match the samples and are numerous enough."""
    if t.ndim != 1:
        raise ValueError(f"{method}: breaks must be a 1-D sequence of times, got shape {t.shape}")
    if t.size != Y.shape[0]:
        raise ValueError(
            f"{method}: number of break points {t.size} does not match number of samples {Y.shape[0]}")
    if t.size < min_length:
        raise ValueError(
            f"{method}: {t.size} samples is not enough samples (this method requires at least {min_length})")
    if Y.shape[1] < 1 or Y.shape[2] < 1:
        raise ValueError(f"{method}: samples must be non-empty matrices, got shape {Y.shape[1:]}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(Y))):
        raise ValueError(f"{method}: breaks and samples must be finite")
    dt = np.diff(t)
    if np.any(dt <= 0.0):
        raise ValueError(f"{method}: times must be in increasing order, got {t.tolist()}")
    if np.any(dt < kEpsilonTime):
        raise ValueError(f"{method}: times must be at least {kEpsilonTime} apart")


def zero_order_hold_coeffs(t: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Piecewise constant: segment i holds sample i."""
    return Y[:-1, :, :, None].copy()


def first_order_hold_coeffs(t: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Piecewise linear interpolation of the samples."""
    h = np.diff(t)[:, None, None]
    return np.stack([Y[:-1], (Y[1:] - Y[:-1]) / h], axis=-1)


def cubic_hermite_coeffs(t: np.ndarray, Y: np.ndarray, Ydot: np.ndarray) -> np.ndarray:
    """Cubic segments matching values Y and slopes Ydot at both ends of each segment."""
    h = np.diff(t)[:, None, None]
    y0, y1, d0, d1 = Y[:-1], Y[1:], Ydot[:-1], Ydot[1:]
    c2 = (3.0 * (y1 - y0) / h - 2.0 * d0 - d1) / h
    c3 = (d0 + d1 - 2.0 * (y1 - y0) / h) / (h * h)
    return np.stack([y0, d0, c2, c3], axis=-1)


def _sign(x: np.ndarray, tol: float) -> np.ndarray:
    return np.where(x < -tol, -1, np.where(x > tol, 1, 0))


def _pchip_end_slope(dt0: float, dt1: float, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
    """Non-centred shape-preserving three-point end slope (Drake's ComputePchipEndSlope)."""
    d = ((2.0 * dt0 + dt1) * s0 - dt0 * s1) / (dt0 + dt1)
    sd, ss0, ss1 = _sign(d, _kSlopeEpsilon), _sign(s0, _kSlopeEpsilon), _sign(s1, _kSlopeEpsilon)
    d = np.where(sd != ss0, 0.0, d)
    clip = (sd == ss0) & (ss0 != ss1) & (np.abs(d) > np.abs(3.0 * s0))
    return np.where(clip, 3.0 * s0, d)


def shape_preserving_slopes(t: np.ndarray, Y: np.ndarray, zero_end_point_derivatives: bool) -> np.ndarray:
    """Break slopes of the monotone (pchip) cubic: weighted harmonic means inside, 3-point rule at ends."""
    dt = np.diff(t)
    slope = (Y[1:] - Y[:-1]) / dt[:, None, None]
    Ydot = np.zeros_like(Y)
    if t.size > 2:
        s0, s1 = slope[:-1], slope[1:]
        common = (dt[:-1] + dt[1:])[:, None, None]
        w0 = common + dt[1:][:, None, None]
        w1 = common + dt[:-1][:, None, None]
        extremum = s0 * s1 <= 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            hm = 3.0 * common / (w0 / s0 + w1 / s1)
        Ydot[1:-1] = np.where(extremum, 0.0, hm)
    if not zero_end_point_derivatives:
        Ydot[0] = _pchip_end_slope(dt[0], dt[1], slope[0], slope[1])
        Ydot[-1] = _pchip_end_slope(dt[-1], dt[-2], slope[-1], slope[-2])
    return Ydot


def _interior_spline_system(t: np.ndarray) -> tuple[np.ndarray, int]:
    """Rows of the 4(N-1) linear system shared by all cubic splines: interpolation and C1/C2 continuity.

    Returns the matrix A (with the last two rows left free for the end conditions) and the number of
    rows filled. The right-hand side is built by `_interior_spline_rhs`.
    """
    n = t.size - 1
    A = np.zeros((4 * n, 4 * n))
    r = 0
    for i in range(n):
        h = t[i + 1] - t[i]
        A[r, 4 * i] = 1.0
        r += 1
        A[r, 4 * i: 4 * i + 4] = [1.0, h, h * h, h * h * h]
        if i != n - 1:
            A[r, 4 * (i + 1)] = -1.0
        r += 1
        if i != n - 1:
            A[r, 4 * i + 1: 4 * i + 4] = [1.0, 2.0 * h, 3.0 * h * h]
            A[r, 4 * (i + 1) + 1] = -1.0
            r += 1
            A[r, 4 * i + 2: 4 * i + 4] = [2.0, 6.0 * h]
            A[r, 4 * (i + 1) + 2] = -2.0
            r += 1
    return A, r


def _interior_spline_rhs(Y: np.ndarray) -> np.ndarray:
    """Right-hand sides (4(N-1), rows*cols) for `_interior_spline_system`."""
    n = Y.shape[0] - 1
    flat = Y.reshape(Y.shape[0], -1)
    b = np.zeros((4 * n, flat.shape[1]))
    r = 0
    for i in range(n):
        b[r] = flat[i]
        r += 1
        if i == n - 1:
            b[r] = flat[n]
        r += 1
        if i != n - 1:
            r += 2
    return b


def _solve_spline(A: np.ndarray, b: np.ndarray, Y: np.ndarray) -> np.ndarray:
    n = Y.shape[0] - 1
    sol = np.linalg.solve(A, b)  # (4n, rows*cols)
    return sol.reshape(n, 4, Y.shape[1], Y.shape[2]).transpose(0, 2, 3, 1).copy()


def cubic_clamped_coeffs(t: np.ndarray, Y: np.ndarray, dY0: np.ndarray, dY1: np.ndarray) -> np.ndarray:
    """C2 cubic spline with prescribed first derivatives dY0 at the start and dY1 at the end."""
    A, r = _interior_spline_system(t)
    b = _interior_spline_rhs(Y)
    n = t.size - 1
    h = t[-1] - t[-2]
    A[r, 1] = 1.0
    b[r] = dY0.ravel()
    A[r + 1, 4 * (n - 1) + 1: 4 * (n - 1) + 4] = [1.0, 2.0 * h, 3.0 * h * h]
    b[r + 1] = dY1.ravel()
    return _solve_spline(A, b, Y)


def cubic_natural_end_coeffs(t: np.ndarray, Y: np.ndarray, periodic_end_condition: bool) -> np.ndarray:
    """C2 cubic spline with periodic (C1/C2 wrap-around) or not-a-knot end conditions.

    With three breaks the not-a-knot spline is the interpolating quadratic (zero jerk), as in Drake.
    """
    A, r = _interior_spline_system(t)
    b = _interior_spline_rhs(Y)
    n = t.size - 1
    if periodic_end_condition:
        h = t[-1] - t[-2]
        A[r, 1] = -1.0
        A[r, 4 * (n - 1) + 1: 4 * (n - 1) + 4] = [1.0, 2.0 * h, 3.0 * h * h]
        A[r + 1, 2] = -2.0
        A[r + 1, 4 * (n - 1) + 2: 4 * (n - 1) + 4] = [2.0, 6.0 * h]
    elif t.size > 3:
        A[r, 3], A[r, 7] = 1.0, -1.0
        A[r + 1, 4 * (n - 2) + 3], A[r + 1, 4 * (n - 1) + 3] = 1.0, -1.0
    else:
        A[r, 3] = 1.0
        A[r + 1, 7] = 1.0
    return _solve_spline(A, b, Y)


def lagrange_coeffs(t: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """One polynomial of degree N-1 through all samples, in powers of (t - t_0); shape (1, rows, cols, N)."""
    tau = t - t[0]
    V = np.vander(tau, increasing=True)
    sol = np.linalg.solve(V, Y.reshape(Y.shape[0], -1))  # (N, rows*cols)
    return sol.T.reshape(1, Y.shape[1], Y.shape[2], t.size).copy()
