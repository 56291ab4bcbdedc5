"""`BarycentricMeshSystem`: y = the barycentric interpolation of tabulated values at the input (pydrake.systems.primitives).

A `BarycentricMesh` grids the input space; column j of `output_values` is the output at mesh point j, and the output
at any input is the mesh's barycentric interpolation of those columns (e.g. a policy from FittedValueIteration).
"""
from __future__ import annotations

import numpy as np

from mallard.multibody.math.barycentric_mesh import BarycentricMesh
from mallard.systems.framework import LeafSystem

from ._util import input_data

__all__ = ["BarycentricMeshSystem"]


class BarycentricMeshSystem(LeafSystem):
    """Input u0 of the mesh's input size, output y0 of output_values.rows() (direct feedthrough)."""

    def __init__(self, mesh: BarycentricMesh, output_values) -> None:
        super().__init__()
        values = np.array(output_values, dtype=float, ndmin=2)
        if values.shape[0] == 0 or values.shape[1] != mesh.get_num_mesh_points():
            raise ValueError(f"BarycentricMeshSystem: output_values must have one column per mesh point "
                             f"({mesh.get_num_mesh_points()}) and at least one row, got shape {values.shape}")
        self._mesh, self._values = mesh, values
        self.DeclareVectorInputPort("u0", mesh.get_input_size())
        self.DeclareVectorOutputPort("y0", values.shape[0], self._calc, {self.all_input_ports_ticket()})

    def get_mesh(self) -> BarycentricMesh:
        return self._mesh

    def get_output_values(self) -> np.ndarray:
        return self._values.copy()

    def _calc(self, context, output) -> None:
        output.get_mutable_value()[:] = np.ravel(self._mesh.Eval(self._values, np.asarray(input_data(self, context, 0))))
