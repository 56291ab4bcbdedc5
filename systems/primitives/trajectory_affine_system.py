"""TrajectoryAffineSystem and TrajectoryLinearSystem: affine / linear systems whose coefficients are
trajectories of time (pydrake.systems.primitives); see TimeVaryingAffineSystem for the equations."""
from __future__ import annotations

import numpy as np

from mallard.systems.trajectories import PiecewisePolynomial

from .time_varying_affine_system import TimeVaryingAffineSystem

__all__ = ["TrajectoryAffineSystem", "TrajectoryLinearSystem"]


class TrajectoryAffineSystem(TimeVaryingAffineSystem):
    """A(t), B(t), f0(t), C(t), D(t), y0(t) given as Trajectories (cloned); A(t) etc. evaluate them."""

    def __init__(self, A, B, f0, C, D, y0, time_period: float = 0.0) -> None:
        self._traj = {name: t.Clone() for name, t in zip(("A", "B", "f0", "C", "D", "y0"), (A, B, f0, C, D, y0))}
        n, m, p = A.rows(), B.cols(), C.rows()
        for name, shape in (("A", (n, n)), ("B", (n, m)), ("f0", (n, 1)), ("C", (p, n)), ("D", (p, m)),
                            ("y0", (p, 1))):
            t = self._traj[name]
            if (t.rows(), t.cols()) != shape:
                raise ValueError(f"TrajectoryAffineSystem: {name} is {t.rows()}x{t.cols()}, expected "
                                 f"{shape[0]}x{shape[1]} (from A {n}x{n}, B {n}x{m}, C {p}x{n})")
        super().__init__(n, m, p, time_period)

    def _at(self, name: str, t: float) -> np.ndarray:
        return self._traj[name].value(t)

    def A(self, t: float) -> np.ndarray:
        return self._at("A", t)

    def B(self, t: float) -> np.ndarray:
        return self._at("B", t)

    def f0(self, t: float) -> np.ndarray:
        return self._at("f0", t)

    def C(self, t: float) -> np.ndarray:
        return self._at("C", t)

    def D(self, t: float) -> np.ndarray:
        return self._at("D", t)

    def y0(self, t: float) -> np.ndarray:
        return self._at("y0", t)

    def _coefficients(self, t: float) -> tuple:
        return (self.A(t), self.B(t), self.f0(t)[:, 0], self.C(t), self.D(t), self.y0(t)[:, 0])


class TrajectoryLinearSystem(TrajectoryAffineSystem):
    """A TrajectoryAffineSystem with f0 = 0 and y0 = 0."""

    def __init__(self, A, B, C, D, time_period: float = 0.0) -> None:
        super().__init__(A, B, PiecewisePolynomial(np.zeros((A.rows(), 1))), C, D,
                         PiecewisePolynomial(np.zeros((C.rows(), 1))), time_period)
