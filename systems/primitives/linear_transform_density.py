"""`LinearTransformDensity`: w_out = A w_in + b for a random w_in, with the density of w_out
(pydrake.systems.primitives)."""
from __future__ import annotations

import numpy as np

from mallard.common.random_distribution import CalcProbabilityDensity, RandomDistribution
from mallard.systems.framework import LeafSystem
from mallard.systems.framework.ports import PortDataType

from ._util import input_data, positive_int

__all__ = ["LinearTransformDensity"]


class LinearTransformDensity(LeafSystem):
    """Inputs w_in (a random input of `distribution`), A (output_size x input_size, flattened column-major)
    and b (optional, zero when unconnected); outputs w_out and w_out_density = pdf(A^-1 (w_out - b)) / |det A|."""

    def __init__(self, distribution: RandomDistribution, input_size: int, output_size: int) -> None:
        super().__init__()
        self._distribution = RandomDistribution(distribution)
        self._n_in = positive_int(input_size, "LinearTransformDensity: input_size")
        self._n_out = positive_int(output_size, "LinearTransformDensity: output_size")
        self._w_in = self.DeclareInputPort("w_in", PortDataType.kVectorValued, self._n_in, self._distribution)
        self._A = self.DeclareInputPort("A", PortDataType.kVectorValued, self._n_in * self._n_out)
        self._b = self.DeclareVectorInputPort("b", self._n_out, required=False)
        self._w_out = self.DeclareVectorOutputPort("w_out", self._n_out, self._calc_output)
        self._density = self.DeclareVectorOutputPort("w_out_density", 1, self._calc_density_output)

    def get_input_port_w_in(self):
        return self._w_in

    def get_input_port_A(self):
        return self._A

    def get_input_port_b(self):
        return self._b

    def get_output_port_w_out(self):
        return self._w_out

    def get_output_port_w_out_density(self):
        return self._density

    def get_distribution(self) -> RandomDistribution:
        return self._distribution

    def FixConstantA(self, context, A):
        """Fixes input A to the (output_size, input_size) matrix `A`."""
        self.ValidateContext(context)
        A = np.asarray(A, dtype=float)
        if A.shape != (self._n_out, self._n_in):
            raise ValueError(f"FixConstantA: A must be {self._n_out}x{self._n_in}, got {A.shape}")
        return self._A.FixValue(context, A.ravel(order="F"))

    def FixConstantB(self, context, b):
        self.ValidateContext(context)
        return self._b.FixValue(context, b)

    def _matrix(self, context) -> np.ndarray:
        return input_data(self, context, int(self._A.get_index())).reshape((self._n_out, self._n_in), order="F")

    def _offset(self, context) -> np.ndarray:
        raw = self._eval_input_raw(context, int(self._b.get_index()))
        return np.zeros(self._n_out) if raw is None else raw._data

    def _calc_output(self, context, output) -> None:
        output.SetFromVector(self._matrix(context) @ input_data(self, context, 0) + self._offset(context))

    def CalcDensity(self, context) -> float:
        """The density of the current w_out (A must be square and invertible)."""
        self.ValidateContext(context)
        A = self._matrix(context)
        if self._n_in != self._n_out or np.linalg.matrix_rank(A) < self._n_in:
            raise RuntimeError("CalcDensity: to compute the density, we require the matrix A being invertible.")
        w_out = A @ input_data(self, context, 0) + self._offset(context)
        w_in = np.linalg.solve(A, w_out - self._offset(context))
        return CalcProbabilityDensity(self._distribution, w_in) / abs(np.linalg.det(A))

    def _calc_density_output(self, context, output) -> None:
        output.get_mutable_value()[0] = self.CalcDensity(context)
