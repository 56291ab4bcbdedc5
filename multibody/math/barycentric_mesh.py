"""BarycentricMesh: piecewise-linear interpolation over a rectangular grid split into simplices (pydrake.math).

The grid is one sorted set of coordinates per input dimension; mesh point i has, in dimension d, the coordinate
at index (i // stride_d) % size_d with stride_0 = 1 (the first dimension varies fastest), as in Drake. An
input is interpolated from the num_interpolants = 1 + (number of non-singleton dimensions) vertices of the
simplex that contains it (Kuhn triangulation); inputs outside the grid are clamped to its boundary.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np

from ._validation import MathValueError

__all__ = ["BarycentricMesh"]


class BarycentricMesh:
    """Barycentric interpolation on the grid `input_grid` (a list of sets of floats, one per input dimension)."""

    def __init__(self, input_grid: Sequence[Iterable[float]]) -> None:
        grid = [sorted({float(c) for c in coords}) for coords in input_grid]
        if not grid:
            raise MathValueError("BarycentricMesh: input_grid must have at least one dimension")
        for d, coords in enumerate(grid):
            if not coords:
                raise MathValueError(f"BarycentricMesh: input_grid[{d}] is empty; every dimension needs a mesh point")
        self._grid = [np.array(c) for c in grid]
        self._stride = np.ones(len(grid), dtype=int)
        for d in range(1, len(grid)):
            self._stride[d] = self._stride[d - 1] * len(grid[d - 1])
        self._num_interpolants = 1 + sum(1 for c in grid if len(c) > 1)

    def get_input_grid(self) -> list[set]:
        return [set(c.tolist()) for c in self._grid]

    def get_input_size(self) -> int:
        return len(self._grid)

    def get_num_mesh_points(self) -> int:
        return int(np.prod([len(c) for c in self._grid]))

    def get_num_interpolants(self) -> int:
        return self._num_interpolants

    def get_mesh_point(self, index: int) -> np.ndarray:
        """The coordinates of mesh point `index` (0 ≤ index < get_num_mesh_points())."""
        if not 0 <= int(index) < self.get_num_mesh_points():
            raise IndexError(f"BarycentricMesh.get_mesh_point: index {index} is outside [0, "
                             f"{self.get_num_mesh_points()})")
        index = int(index)
        point = np.empty(len(self._grid))
        for d, coords in enumerate(self._grid):
            point[d] = coords[index % len(coords)]
            index //= len(coords)
        return point

    def get_all_mesh_points(self) -> np.ndarray:
        """All mesh points as the columns of an (input_size, num_mesh_points) matrix."""
        return np.column_stack([self.get_mesh_point(i) for i in range(self.get_num_mesh_points())])

    def EvalBarycentricWeights(self, input) -> tuple[np.ndarray, np.ndarray]:
        """(mesh_indices, weights): the simplex vertices around `input` and their barycentric weights."""
        x = np.asarray(input, dtype=float).reshape(-1)
        if x.size != len(self._grid):
            raise MathValueError(f"BarycentricMesh: input has {x.size} entries, the mesh has {len(self._grid)} dimensions")
        relative, has_volume, index = [], np.zeros(len(self._grid), dtype=bool), 0
        for d, coords in enumerate(self._grid):
            if len(coords) == 1:
                continue
            right = int(np.searchsorted(coords, x[d], side="left"))
            if right == len(coords):
                right, position = len(coords) - 1, 1.0
            elif right == 0:
                position = 1.0
            else:
                has_volume[d] = True
                position = (x[d] - coords[right - 1]) / (coords[right] - coords[right - 1])
            index += self._stride[d] * right
            relative.append((position, d))
        relative.sort()
        n = self._num_interpolants
        indices, weights = np.empty(n, dtype=int), np.empty(n)
        indices[0] = index
        weights[0] = relative[0][0] if relative else 1.0
        for i in range(1, n):
            d = relative[i - 1][1]
            if has_volume[d]:
                index -= self._stride[d]
            indices[i] = index
            weights[i] = 1.0 - relative[i - 1][0] if i == n - 1 else relative[i][0] - relative[i - 1][0]
        return indices, weights

    def Eval(self, mesh_values, input) -> np.ndarray:
        """The interpolated output at `input`; column i of `mesh_values` is the output at mesh point i."""
        values = np.asarray(mesh_values, dtype=float)
        if values.ndim == 1:
            values = values.reshape(1, -1)
        if values.shape[1] != self.get_num_mesh_points():
            raise MathValueError(f"BarycentricMesh.Eval: mesh_values has {values.shape[1]} columns, the mesh has "
                             f"{self.get_num_mesh_points()} points")
        indices, weights = self.EvalBarycentricWeights(input)
        return values[:, indices] @ weights

    def MeshValuesFrom(self, vector_func: Callable[[np.ndarray], Sequence[float]]) -> np.ndarray:
        """The (num_outputs, num_mesh_points) matrix of vector_func evaluated at every mesh point."""
        return np.column_stack([np.asarray(vector_func(self.get_mesh_point(i)), dtype=float).reshape(-1)
                                for i in range(self.get_num_mesh_points())])
