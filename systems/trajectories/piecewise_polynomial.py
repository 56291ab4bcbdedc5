"""`PiecewisePolynomial`: matrix-valued piecewise polynomials, as `pydrake.trajectories.PiecewisePolynomial`.

Storage is two arrays: `breaks` (N+1,) and `coeffs` (N, rows, cols, D+1) with segment i's polynomial in
ascending powers of the local time (t - breaks[i]); `degrees` (N,) keeps each segment's nominal degree
(pydrake reports the stored degree, zero leading coefficients included). Evaluation is vectorized over
times. Outside [start_time, end_time] time is clamped, exactly as Drake: value(t) holds the end values and
EvalDerivative(t) returns the end segment's derivative at the end time.
"""
from __future__ import annotations

import bisect
from math import comb, factorial
from typing import Sequence

import numpy as np

from . import spline_fitting as fit
from mallard.common.tolerance_type import ToleranceType

from .piecewise_trajectory import PiecewiseTrajectory
from .polynomial import Polynomial


_POWERS = np.arange(64, dtype=float)


def _derivative_coeffs(c: np.ndarray, k: int) -> np.ndarray:
    """Coefficients (..., D+1-k) of the k-th derivative of polynomials with coefficients c (..., D+1)."""
    D = c.shape[-1] - 1
    if k > D:
        return np.zeros(c.shape[:-1] + (1,))
    scale = np.array([factorial(j + k) / factorial(j) for j in range(D + 1 - k)])
    return c[..., k:] * scale


def _horner(c: np.ndarray, dt: np.ndarray) -> np.ndarray:
    """Evaluate polynomials c (T, rows, cols, D+1) at local times dt (T,)."""
    acc = c[..., -1].copy()
    x = dt[:, None, None]
    for j in range(c.shape[-1] - 2, -1, -1):
        acc *= x
        acc += c[..., j]
    return acc


class PiecewisePolynomial(PiecewiseTrajectory):
    """A matrix of piecewise polynomials over breaks t_0 < ... < t_N (seconds)."""

    # Breaks and coefficients are properties so every edit drops the evaluation caches.
    @property
    def _breaks(self) -> np.ndarray:
        return self._b

    @_breaks.setter
    def _breaks(self, value: np.ndarray) -> None:
        self._b = value
        self._blist = None

    @property
    def _coeffs(self) -> np.ndarray:
        return self._c

    @_coeffs.setter
    def _coeffs(self, value: np.ndarray) -> None:
        self._c = value
        self._dcache = {}

    def _derivative_coeffs_cached(self, k: int) -> np.ndarray:
        c = self._dcache.get(k)
        if c is None:
            c = self._dcache[k] = self._c if k == 0 else _derivative_coeffs(self._c, k)
        return c

    def _eval_one(self, t: float, k: int) -> np.ndarray:
        """Fast path of _eval for one time: bisection on a list and one small matrix-vector product."""
        if self._c.shape[0] == 0:
            raise RuntimeError("PiecewisePolynomial.value: the trajectory has no segments")
        bl = self._blist
        if bl is None:
            bl = self._blist = self._b.tolist()
        last = len(bl) - 2
        i = bisect.bisect_right(bl, t) - 1
        i = 0 if i < 0 else (last if i > last else i)
        c = self._derivative_coeffs_cached(k)[i]
        d1 = c.shape[-1]
        if d1 == 1:
            return c[:, :, 0].copy()
        if d1 > _POWERS.shape[0]:
            return self._eval(np.array([t]), k)[0]
        tc = bl[0] if t < bl[0] else (bl[-1] if t > bl[-1] else t)
        return c @ ((tc - bl[i]) ** _POWERS[:d1])

    def __init__(self, constant_value=None, *, _breaks=None, _coeffs=None, _degrees=None):
        """`PiecewisePolynomial()` is empty; `PiecewisePolynomial(M)` is the constant M for all time."""
        if _breaks is not None:
            self._breaks = np.asarray(_breaks, dtype=float)
            self._coeffs = np.asarray(_coeffs, dtype=float)
            self._degrees = np.asarray(_degrees, dtype=int)
            return
        if constant_value is None:
            self._breaks = np.zeros(0)
            self._coeffs = np.zeros((0, 0, 0, 1))
            self._degrees = np.zeros(0, dtype=int)
            return
        m = np.asarray(constant_value, dtype=float)
        if m.ndim == 0:
            m = m.reshape(1, 1)
        elif m.ndim == 1:
            m = m[:, None]
        if m.ndim != 2:
            raise ValueError(f"PiecewisePolynomial: constant value must be a matrix, got shape {m.shape}")
        self._breaks = np.array([-np.inf, np.inf])
        self._coeffs = m[None, :, :, None].copy()
        self._degrees = np.zeros(1, dtype=int)

    # ---- makers ---------------------------------------------------------------------------------
    @staticmethod
    def _make(method: str, breaks, samples, min_length: int):
        t = np.asarray(breaks, dtype=float).ravel() if not np.isscalar(breaks) else np.array([float(breaks)])
        Y = fit.as_samples(samples, method)
        fit.check_breaks_and_samples(t, Y, min_length, method)
        return t, Y

    @classmethod
    def _from_coeffs(cls, t: np.ndarray, C: np.ndarray) -> "PiecewisePolynomial":
        return cls(_breaks=t.copy(), _coeffs=C, _degrees=np.full(C.shape[0], C.shape[-1] - 1))

    @classmethod
    def ZeroOrderHold(cls, breaks: Sequence[float], samples) -> "PiecewisePolynomial":
        """Piecewise constant; segment i holds samples[i] (the last sample is only a time marker)."""
        t, Y = cls._make("ZeroOrderHold", breaks, samples, 2)
        return cls._from_coeffs(t, fit.zero_order_hold_coeffs(t, Y))

    @classmethod
    def FirstOrderHold(cls, breaks: Sequence[float], samples) -> "PiecewisePolynomial":
        """Piecewise linear interpolation of the samples."""
        t, Y = cls._make("FirstOrderHold", breaks, samples, 2)
        return cls._from_coeffs(t, fit.first_order_hold_coeffs(t, Y))

    @classmethod
    def CubicShapePreserving(cls, breaks: Sequence[float], samples,
                             zero_end_point_derivatives: bool = False) -> "PiecewisePolynomial":
        """Monotonicity-preserving C1 cubic (pchip); end slopes zero if `zero_end_point_derivatives`."""
        t, Y = cls._make("CubicShapePreserving", breaks, samples, 2 if zero_end_point_derivatives else 3)
        Ydot = fit.shape_preserving_slopes(t, Y, bool(zero_end_point_derivatives))
        return cls._from_coeffs(t, fit.cubic_hermite_coeffs(t, Y, Ydot))

    @classmethod
    def CubicWithContinuousSecondDerivatives(cls, breaks: Sequence[float], samples, *args,
                                             **kwargs) -> "PiecewisePolynomial":
        """C2 cubic spline.

        Forms: `(breaks, samples, sample_dot_at_start, sample_dot_at_end)` (clamped end slopes) or
        `(breaks, samples, periodic_end=False)` (periodic, else not-a-knot end conditions; pydrake also
        spells the flag `periodic_end_condition`).
        """
        method = "CubicWithContinuousSecondDerivatives"
        if "sample_dot_at_start" in kwargs or "sample_dot_at_end" in kwargs or len(args) == 2 or (
                len(args) == 1 and "sample_dot_at_end" in kwargs):
            vals = list(args)
            d0 = vals[0] if vals else kwargs.pop("sample_dot_at_start")
            d1 = vals[1] if len(vals) > 1 else kwargs.pop("sample_dot_at_end")
            t, Y = cls._make(method, breaks, samples, 2)
            rows, cols = Y.shape[1:]
            d0 = fit.as_sample_matrix(d0, rows, cols, f"{method}: sample_dot_at_start")
            d1 = fit.as_sample_matrix(d1, rows, cols, f"{method}: sample_dot_at_end")
            return cls._from_coeffs(t, fit.cubic_clamped_coeffs(t, Y, d0, d1))
        periodic = bool(args[0]) if args else bool(kwargs.pop("periodic_end",
                                                            kwargs.pop("periodic_end_condition", False)))
        if kwargs:
            raise TypeError(f"{method}: unexpected arguments {sorted(kwargs)}")
        t, Y = cls._make(method, breaks, samples, 3)
        return cls._from_coeffs(t, fit.cubic_natural_end_coeffs(t, Y, periodic))

    @classmethod
    def CubicHermite(cls, breaks: Sequence[float], samples, samples_dot) -> "PiecewisePolynomial":
        """Cubic segments matching the samples and their time derivatives `samples_dot` at every break."""
        t, Y = cls._make("CubicHermite", breaks, samples, 2)
        Yd = fit.as_samples(samples_dot, "CubicHermite")
        if Yd.shape != Y.shape:
            raise ValueError(f"CubicHermite: samples_dot shape {Yd.shape[1:]} x {Yd.shape[0]} does not match "
                             f"samples {Y.shape[1:]} x {Y.shape[0]}")
        return cls._from_coeffs(t, fit.cubic_hermite_coeffs(t, Y, Yd))

    @classmethod
    def LagrangeInterpolatingPolynomial(cls, times: Sequence[float], samples) -> "PiecewisePolynomial":
        """A single segment: the degree N-1 polynomial through all N samples."""
        t, Y = cls._make("LagrangeInterpolatingPolynomial", times, samples, 2)
        return cls._from_coeffs(np.array([t[0], t[-1]]), fit.lagrange_coeffs(t, Y))

    # ---- sizes and segments ---------------------------------------------------------------------
    def empty(self) -> bool:
        """True when there are no segments."""
        return self._coeffs.shape[0] == 0

    def do_rows(self) -> int:
        if self.empty():
            raise RuntimeError("PiecewisePolynomial has no segments. Number of rows is undefined.")
        return int(self._coeffs.shape[1])

    def do_cols(self) -> int:
        if self.empty():
            raise RuntimeError("PiecewisePolynomial has no segments. Number of columns is undefined.")
        return int(self._coeffs.shape[2])

    def get_number_of_segments(self) -> int:
        """Number of polynomial segments."""
        return int(self._coeffs.shape[0])

    def getSegmentPolynomialDegree(self, segment_index: int, row: int = 0, col: int = 0) -> int:
        """Degree of the stored polynomial of one segment (zero leading coefficients count, as in Drake)."""
        i = self._check_segment(segment_index)
        if not (0 <= row < self.rows() and 0 <= col < self.cols()):
            raise ValueError(f"element ({row}, {col}) is outside the {self.rows()}x{self.cols()} trajectory")
        return int(self._degrees[i])

    def coefficients(self) -> np.ndarray:
        """The coefficient array (segments, rows, cols, degree+1), ascending powers of local time (a copy)."""
        return self._coeffs.copy()

    # ---- evaluation -----------------------------------------------------------------------------
    def _eval(self, times: np.ndarray, derivative_order: int) -> np.ndarray:
        """Values (T, rows, cols) of the derivative of the given order at times (T,), Drake's clamping."""
        self._require_segments("value")
        n = self.get_number_of_segments()
        idx = np.clip(np.searchsorted(self._breaks, times, side="right") - 1, 0, n - 1)
        tc = np.clip(times, self._breaks[0], self._breaks[-1])
        c = self._derivative_coeffs_cached(derivative_order)
        if c.shape[-1] == 1:
            return c[idx, :, :, 0].copy()
        return _horner(c[idx], tc - self._breaks[idx])

    def DoValue(self, t: float) -> np.ndarray:
        return self._eval_one(float(t), 0)

    def value(self, t: float) -> np.ndarray:
        """The (rows, cols) value at t; t outside the breaks is clamped to [start_time, end_time]."""
        return self._eval_one(float(t), 0)

    def vector_values(self, t: Sequence[float]) -> np.ndarray:
        """Values at many times: (rows, len(t)) for a column trajectory, (len(t), cols) for a row one."""
        rows, cols = self.rows(), self.cols()
        if cols != 1 and rows != 1:
            raise RuntimeError(
                f"vector_values() only supports vector-valued trajectories; this one is {rows}x{cols}")
        v = self._eval(np.asarray(t, dtype=float).ravel(), 0)
        return v[:, :, 0].T.copy() if cols == 1 else v[:, 0, :].copy()

    def do_has_derivative(self) -> bool:
        return True

    def DoEvalDerivative(self, t: float, derivative_order: int) -> np.ndarray:
        return self._eval_one(float(t), derivative_order)

    def EvalDerivatives(self, times: Sequence[float], derivative_order: int = 1) -> np.ndarray:
        """Derivative values (len(times), rows, cols) at many times in one vectorized call."""
        if derivative_order < 0:
            raise ValueError(f"derivative_order must be >= 0, got {derivative_order}")
        return self._eval(np.asarray(times, dtype=float).ravel(), int(derivative_order))

    def DoMakeDerivative(self, derivative_order: int) -> "PiecewisePolynomial":
        return self.derivative(derivative_order)

    def derivative(self, derivative_order: int = 1) -> "PiecewisePolynomial":
        """The `derivative_order`-th time derivative as a new PiecewisePolynomial."""
        if derivative_order < 0:
            raise ValueError(f"derivative_order must be >= 0, got {derivative_order}")
        if derivative_order == 0 or self.empty():
            return self.Clone()
        return PiecewisePolynomial(_breaks=self._breaks.copy(),
                                   _coeffs=_derivative_coeffs(self._coeffs, derivative_order),
                                   _degrees=np.maximum(self._degrees - derivative_order, 0))

    def Clone(self) -> "PiecewisePolynomial":
        """A deep copy."""
        return PiecewisePolynomial(_breaks=self._breaks.copy(), _coeffs=self._coeffs.copy(),
                                   _degrees=self._degrees.copy())

    def __copy__(self):
        return self.Clone()

    def __deepcopy__(self, memo):
        return self.Clone()

    def isApprox(self, other: "PiecewisePolynomial", tol: float,
                 tol_type: ToleranceType = ToleranceType.kRelative) -> bool:
        """Same shape, breaks within `tol`, and every coefficient within `tol` (kAbsolute) or within
        tol * min(|a|, |b|) (kRelative; then the stored degrees must match too), as Drake compares."""
        if (self.empty() or other.empty()) and not (self.empty() and other.empty()):
            return False
        if self.empty():
            return True
        if (self.rows(), self.cols()) != (other.rows(), other.cols()):
            return False
        if self._breaks.shape != other._breaks.shape or np.any(np.abs(self._breaks - other._breaks) > tol):
            return False
        a, b = self._coeffs, other._coeffs
        if ToleranceType(tol_type) == ToleranceType.kAbsolute:
            D = max(a.shape[-1], b.shape[-1])
            return bool(np.all(np.abs(_pad(a, D) - _pad(b, D)) <= tol))
        if a.shape != b.shape:
            return False
        return bool(np.all(np.abs(a - b) <= tol * np.minimum(np.abs(a), np.abs(b))))

    # ---- polynomial access and arithmetic -------------------------------------------------------
    def getPolynomial(self, segment_index: int, row: int = 0, col: int = 0) -> Polynomial:
        """The polynomial of element (row, col) in segment `segment_index`, in the local time t - t_i."""
        i = self._check_segment(segment_index)
        if not (0 <= row < self.rows() and 0 <= col < self.cols()):
            raise IndexError(f"getPolynomial: element ({row}, {col}) is outside the {self.rows()}x{self.cols()} "
                             "trajectory")
        return Polynomial(self._coeffs[i, row, col, :int(self._degrees[i]) + 1])

    def getPolynomialMatrix(self, segment_index: int) -> np.ndarray:
        """The (rows, cols) object array of Polynomials of one segment."""
        i = self._check_segment(segment_index)
        out = np.empty((self.rows(), self.cols()), dtype=object)
        for r in range(self.rows()):
            for c in range(self.cols()):
                out[r, c] = Polynomial(self._coeffs[i, r, c, :int(self._degrees[i]) + 1])
        return out

    def setPolynomialMatrixBlock(self, replacement, segment_index: int, row_start: int = 0,
                                 col_start: int = 0) -> None:
        """Replaces a block of segment `segment_index` by a matrix of Polynomials (local time t - t_i)."""
        i = self._check_segment(segment_index)
        block = np.asarray(replacement, dtype=object)
        block = block.reshape(block.shape + (1,) * (2 - block.ndim)) if block.ndim < 2 else block
        rows, cols = block.shape
        if row_start + rows > self.rows() or col_start + cols > self.cols():
            raise ValueError(f"setPolynomialMatrixBlock: a {rows}x{cols} block at ({row_start}, {col_start}) does not "
                             f"fit the {self.rows()}x{self.cols()} trajectory")
        coeffs = [[np.asarray(p.GetCoefficients(), dtype=float) for p in row] for row in block]
        D = max(self._coeffs.shape[-1], max(c.size for row in coeffs for c in row))
        c = _pad(self._coeffs, D)
        for r, row in enumerate(coeffs):
            for k, poly in enumerate(row):
                c[i, row_start + r, col_start + k, :] = 0.0
                c[i, row_start + r, col_start + k, :poly.size] = poly
        self._coeffs = c
        self._degrees = self._degrees.copy()
        self._degrees[i] = max(int(self._degrees[i]), max(p.size for row in coeffs for p in row) - 1)

    def _combine(self, other, sign: float, op: str) -> "PiecewisePolynomial":
        if isinstance(other, PiecewisePolynomial):
            if (self.rows(), self.cols()) != (other.rows(), other.cols()):
                raise ValueError(f"PiecewisePolynomial {op}: shapes differ ({self.rows()}x{self.cols()} vs "
                                 f"{other.rows()}x{other.cols()})")
            if self._breaks.shape != other._breaks.shape or not np.allclose(self._breaks, other._breaks,
                                                                               rtol=0, atol=fit.kEpsilonTime):
                raise ValueError(f"PiecewisePolynomial {op}: the two trajectories must have the same breaks")
            D = max(self._coeffs.shape[-1], other._coeffs.shape[-1])
            c = _pad(self._coeffs, D) + sign * _pad(other._coeffs, D)
            degrees = np.maximum(self._degrees, other._degrees)
        else:
            offset = np.broadcast_to(np.asarray(other, dtype=float).reshape(
                (self.rows(), -1) if np.ndim(other) else (1, 1)), (self.rows(), self.cols()))
            c = self._coeffs.copy()
            c[..., 0] += sign * offset
            degrees = self._degrees.copy()
        return PiecewisePolynomial(_breaks=self._breaks.copy(), _coeffs=c, _degrees=degrees)

    def __add__(self, other) -> "PiecewisePolynomial":
        return self._combine(other, 1.0, "+")

    __radd__ = __add__

    def __sub__(self, other) -> "PiecewisePolynomial":
        return self._combine(other, -1.0, "-")

    def __neg__(self) -> "PiecewisePolynomial":
        return PiecewisePolynomial(_breaks=self._breaks.copy(), _coeffs=-self._coeffs, _degrees=self._degrees.copy())

    def __mul__(self, scale: float) -> "PiecewisePolynomial":
        if not np.isscalar(scale):
            raise TypeError("PiecewisePolynomial * x: only scalar x is supported; use Block/Transpose for matrices")
        return PiecewisePolynomial(_breaks=self._breaks.copy(), _coeffs=self._coeffs * float(scale),
                                   _degrees=self._degrees.copy())

    __rmul__ = __mul__

    # ---- in-place editing -----------------------------------------------------------------------
    def ConcatenateInTime(self, other: "PiecewisePolynomial") -> None:
        """Append `other`'s segments; other.start_time() must equal end_time() (to rounding)."""
        if self.empty():
            self._breaks, self._coeffs, self._degrees = (other._breaks.copy(), other._coeffs.copy(),
                                                         other._degrees.copy())
            return
        if other.empty():
            return
        if (self.rows(), self.cols()) != (other.rows(), other.cols()):
            raise ValueError(f"ConcatenateInTime: shapes differ ({self.rows()}x{self.cols()} vs "
                             f"{other.rows()}x{other.cols()})")
        offset = other.start_time() - self.end_time()
        tol = max(abs(self.end_time()), 1.0) * np.finfo(float).eps
        if not abs(offset) < tol:
            raise ValueError(f"ConcatenateInTime: other starts at {other.start_time()} but this trajectory ends "
                             f"at {self.end_time()}; shift it first (shiftRight)")
        D = max(self._coeffs.shape[-1], other._coeffs.shape[-1])
        self._breaks = np.concatenate([self._breaks[:-1], other._breaks - offset])
        self._coeffs = np.concatenate([_pad(self._coeffs, D), _pad(other._coeffs, D)])
        self._degrees = np.concatenate([self._degrees, other._degrees])

    def _check_append(self, time: float, method: str) -> None:
        self._require_segments(method)
        if not time > self.end_time():
            raise ValueError(f"{method}: time {time} must be after end_time() = {self.end_time()}")
        if time - self.end_time() < fit.kEpsilonTime:
            raise ValueError(f"{method}: time must be at least {fit.kEpsilonTime} after end_time()")

    def AppendFirstOrderSegment(self, time: float, sample) -> None:
        """Add a linear segment from the current end value to `sample` at `time`."""
        self._check_append(float(time), "AppendFirstOrderSegment")
        y1 = fit.as_sample_matrix(sample, self.rows(), self.cols(), "AppendFirstOrderSegment: sample")
        y0 = self.value(self.end_time())
        C = fit.first_order_hold_coeffs(np.array([self.end_time(), float(time)]), np.stack([y0, y1]))
        self._append(float(time), C)

    def AppendCubicHermiteSegment(self, time: float, sample, sample_dot) -> None:
        """Add a cubic segment from the current end value/slope to (`sample`, `sample_dot`) at `time`."""
        self._check_append(float(time), "AppendCubicHermiteSegment")
        y1 = fit.as_sample_matrix(sample, self.rows(), self.cols(), "AppendCubicHermiteSegment: sample")
        d1 = fit.as_sample_matrix(sample_dot, self.rows(), self.cols(), "AppendCubicHermiteSegment: sample_dot")
        t_end = self.end_time()
        y0, d0 = self.value(t_end), self.EvalDerivative(t_end, 1)
        C = fit.cubic_hermite_coeffs(np.array([t_end, float(time)]), np.stack([y0, y1]), np.stack([d0, d1]))
        self._append(float(time), C)

    def _append(self, time: float, C: np.ndarray) -> None:
        D = max(self._coeffs.shape[-1], C.shape[-1])
        self._coeffs = np.concatenate([_pad(self._coeffs, D), _pad(C, D)])
        self._breaks = np.append(self._breaks, time)
        self._degrees = np.append(self._degrees, C.shape[-1] - 1)

    def RemoveFinalSegment(self) -> None:
        """Drop the last segment."""
        self._require_segments("RemoveFinalSegment")
        self._coeffs = self._coeffs[:-1].copy()
        self._degrees = self._degrees[:-1].copy()
        self._breaks = self._breaks[:-1].copy() if self._coeffs.shape[0] else np.zeros(0)

    def shiftRight(self, offset: float) -> None:
        """Shift the whole trajectory later in time by `offset` seconds."""
        self._breaks = self._breaks + float(offset)

    def ScaleTime(self, scale: float) -> None:
        """Stretch time by `scale` > 0: pp_after(t) = pp_before(t / scale)."""
        if not scale > 0:
            raise ValueError(f"ScaleTime: scale must be positive, got {scale} (use ReverseTime() to negate time)")
        D = self._coeffs.shape[-1]
        self._breaks = self._breaks * float(scale)
        self._coeffs = self._coeffs / float(scale) ** np.arange(D)

    def ReverseTime(self) -> None:
        """Reflect time: pp_after(t) = pp_before(-t); breaks become -t_N..-t_0."""
        self._require_segments("ReverseTime")
        D = self._coeffs.shape[-1]
        h = np.diff(self._breaks)  # (N,)
        # p(h - tau) = sum_k c_k (h - tau)^k  ->  new_j = (-1)^j sum_{k>=j} C(k, j) h^(k-j) c_k
        M = np.zeros((h.size, D, D))  # M[i, j, k]
        for j in range(D):
            for k in range(j, D):
                M[:, j, k] = (-1.0) ** j * comb(k, j) * h ** (k - j)
        new = np.einsum("ijk,irck->ircj", M, self._coeffs)
        self._coeffs = new[::-1].copy()
        self._degrees = self._degrees[::-1].copy()
        self._breaks = -self._breaks[::-1]

    def slice(self, start_segment_index: int, num_segments: int) -> "PiecewisePolynomial":
        """A new trajectory made of `num_segments` segments starting at `start_segment_index`."""
        self._check_segment(start_segment_index)
        self._check_segment(start_segment_index + num_segments - 1)
        if num_segments < 1:
            raise ValueError(f"slice: num_segments must be >= 1, got {num_segments}")
        s, e = start_segment_index, start_segment_index + num_segments
        return PiecewisePolynomial(_breaks=self._breaks[s:e + 1].copy(), _coeffs=self._coeffs[s:e].copy(),
                                   _degrees=self._degrees[s:e].copy())

    def Reshape(self, rows: int, cols: int) -> None:
        """Reshape every segment's matrix (column-major, as Eigen) to rows x cols."""
        if rows * cols != self.rows() * self.cols():
            raise ValueError(f"Reshape: {rows}x{cols} has a different size than {self.rows()}x{self.cols()}")
        n, D = self._coeffs.shape[0], self._coeffs.shape[-1]
        flat = self._coeffs.transpose(0, 2, 1, 3).reshape(n, -1, D)  # column-major element order
        self._coeffs = flat.reshape(n, cols, rows, D).transpose(0, 2, 1, 3).copy()

    def Transpose(self) -> "PiecewisePolynomial":
        """A new trajectory whose value is value(t).T."""
        return PiecewisePolynomial(_breaks=self._breaks.copy(), _coeffs=self._coeffs.transpose(0, 2, 1, 3).copy(),
                                   _degrees=self._degrees.copy())

    def Block(self, start_row: int, start_col: int, block_rows: int, block_cols: int) -> "PiecewisePolynomial":
        """A new trajectory holding the given block of the value matrix."""
        if (start_row < 0 or start_col < 0 or block_rows < 1 or block_cols < 1
                or start_row + block_rows > self.rows() or start_col + block_cols > self.cols()):
            raise ValueError(f"Block({start_row}, {start_col}, {block_rows}, {block_cols}) is outside the "
                             f"{self.rows()}x{self.cols()} trajectory")
        c = self._coeffs[:, start_row:start_row + block_rows, start_col:start_col + block_cols].copy()
        return PiecewisePolynomial(_breaks=self._breaks.copy(), _coeffs=c, _degrees=self._degrees.copy())

    def __repr__(self) -> str:
        if self.empty():
            return "PiecewisePolynomial()"
        return (f"PiecewisePolynomial({self.rows()}x{self.cols()}, {self.get_number_of_segments()} segments, "
                f"t in [{self.start_time()}, {self.end_time()}])")


def _pad(c: np.ndarray, D: int) -> np.ndarray:
    """Pad coefficient arrays (..., d) with zero high-order terms to (..., D)."""
    if c.shape[-1] == D:
        return c
    pad = [(0, 0)] * (c.ndim - 1) + [(0, D - c.shape[-1])]
    return np.pad(c, pad)
