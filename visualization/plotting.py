"""Sub-level sets drawn with matplotlib (pydrake.visualization.plot_sublevelset_quadratic / _expression).

mallard has no symbolic expressions, so ``plot_sublevelset_expression`` takes the function as a Python callable
of a 2-vector; the level set is found along rays from the origin, as pydrake does.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from mallard.common.lazy_import import LazyModule

mpl = LazyModule("matplotlib")  # loaded on first use (import time)
scipy_optimize = LazyModule("scipy.optimize")

__all__ = ["plot_sublevelset_expression", "plot_sublevelset_quadratic"]


def plot_sublevelset_quadratic(ax, A, b=(0, 0), c: float = 0, vertices: int = 51, **kwargs):
    """Fill the ellipse x'Ax + b'x + c <= 1 (A 2x2 with a positive definite symmetric part) on ``ax`` with
    ``vertices`` boundary points; kwargs go to ``ax.fill``, whose result is returned."""
    if not isinstance(ax, mpl.axes.Axes):
        raise TypeError(f"plot_sublevelset_quadratic: ax must be matplotlib Axes; given {type(ax).__name__}")
    A = np.asarray(A, dtype=float)
    if A.shape != (2, 2):
        raise ValueError(f"plot_sublevelset_quadratic: A must be 2x2; given shape {A.shape}")
    H = 0.5 * (A + A.T)  # x'Ax = x'Hx
    x_min = np.linalg.solve(-2.0 * H, np.reshape(np.asarray(b, dtype=float), 2))
    f_min = float(c - x_min @ H @ x_min)
    if f_min > 1:
        raise ValueError(f"plot_sublevelset_quadratic: the minimum value {f_min} is > 1; there is no sub-level set "
                         "to plot")
    try:
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        raise ValueError("plot_sublevelset_quadratic: the symmetric part of A must be positive definite") from None
    th = np.linspace(0, 2 * np.pi, vertices)
    Y = np.sqrt(1.0 - f_min) * np.vstack([np.sin(th), np.cos(th)])
    X = x_min[:, None] + np.linalg.solve(L.T, Y)  # (x - x_min)'H(x - x_min) = y'y = 1 - f_min
    return ax.fill(X[0], X[1], **kwargs)


def plot_sublevelset_expression(ax, e: Callable[[np.ndarray], float], vertices: int = 51, **kwargs):
    """Fill the sub-level set e(x) <= 1 of a function of x = (x0, x1) that contains the origin (e(0) < 1):
    along ``vertices`` directions in [0, π] the boundary is found on both rays by root finding. kwargs go to
    ``ax.fill``, whose result is returned."""
    if not callable(e):
        raise TypeError("plot_sublevelset_expression: e must be a function of a 2-vector (mallard has no symbolic "
                        f"Expression); given {type(e).__name__}")
    if not float(e(np.zeros(2))) < 1:
        raise ValueError("plot_sublevelset_expression: the sub-level set must contain the origin (e(0) < 1)")

    def boundary(direction: np.ndarray) -> float:
        g = lambda r: float(e(r * direction)) - 1.0  # noqa: E731
        r = 0.1
        while g(r) < 0:
            r *= 2.0
            if r > 1e9:
                raise ValueError("plot_sublevelset_expression: the sub-level set is unbounded along "
                                 f"{direction.tolist()}")
        return scipy_optimize.brentq(g, 0.0, r, xtol=1e-12)

    plus, minus = [], []
    for theta in np.linspace(0, np.pi, vertices):
        u = np.array([np.cos(theta), np.sin(theta)])
        plus.append(boundary(u) * u)
        minus.append(-boundary(-u) * u)
    P, M = np.array(plus), np.array(minus)
    return ax.fill(np.hstack((P[:, 0], M[:, 0])), np.hstack((P[:, 1], M[:, 1])), **kwargs)
