"""Tetrahedral meshes in legacy VTK files (ASCII DATASET UNSTRUCTURED_GRID), read and written as Drake
does: ReadVtkToVolumeMesh and WriteVolumeMeshToVtkFileContents."""
from __future__ import annotations

import numpy as np

from mallard.geometry.mesh_source import MeshSource
from mallard.geometry.volume_mesh import VolumeMesh

__all__ = ["ReadVtkToVolumeMesh", "WriteVolumeMeshToVtkFileContents"]

_VTK_TETRA = 10
_VTK_TRIANGLE = 5


def _source_text(source: MeshSource) -> str:
    if source.is_in_memory():
        data = source.in_memory().mesh_file.contents()
    else:
        try:
            with open(source.path(), "rb") as f:
                data = f.read()
        except OSError:
            raise FileNotFoundError(f"ReadVtkToVolumeMesh: cannot read the file '{source.path()}'") from None
    return data.decode("utf-8", errors="replace")


def ReadVtkToVolumeMesh(source: MeshSource, scale=(1.0, 1.0, 1.0)) -> VolumeMesh:
    """The tetrahedral mesh of a legacy ASCII VTK unstructured grid, vertices scaled per axis (a mirroring
    scale swaps each tetrahedron's first and third vertices, keeping it positively oriented). Raises
    ValueError naming the source for other cell types or malformed data."""
    name = source.description()
    lines = _source_text(source).splitlines()
    tokens = " ".join(lines[2:]).split()  # after the version line and the title line

    def fail(why: str):
        raise ValueError(f"ReadVtkToVolumeMesh(): cannot read '{name}' as a VTK tetrahedral mesh: {why}")

    upper = [t.upper() for t in tokens]
    if "UNSTRUCTURED_GRID" not in upper:
        fail("it is not a legacy VTK 'DATASET UNSTRUCTURED_GRID' file")
    try:
        k = upper.index("POINTS")
        n = int(tokens[k + 1])
        V = np.array(tokens[k + 3:k + 3 + 3 * n], dtype=float).reshape(n, 3)
        k = upper.index("CELLS")
        m, size = int(tokens[k + 1]), int(tokens[k + 2])
        cells = np.array(tokens[k + 3:k + 3 + size], dtype=np.int64)
        k = upper.index("CELL_TYPES")
        types = np.array(tokens[k + 2:k + 2 + m], dtype=np.int64)
    except (ValueError, IndexError):
        fail("its POINTS, CELLS or CELL_TYPES section is malformed (only ASCII files are read)")
    if len(types) != m or np.any(types != _VTK_TETRA):
        bad = int(types[types != _VTK_TETRA][0]) if np.any(types != _VTK_TETRA) else -1
        raise ValueError(f"ReadVtkToVolumeMesh(): mesh data should only contain tetrahedra (type id={_VTK_TETRA}). "
                         f"Read cell with type id={bad} in '{name}'.")
    if size != 5 * m or np.any(cells[0::5] != 4):
        fail("its CELLS section does not list 4 vertices per tetrahedron")
    E = cells.reshape(m, 5)[:, 1:]
    s = np.asarray(scale, dtype=float).reshape(3)
    if int(np.sum(s < 0)) % 2 == 1:
        E = E[:, [2, 1, 0, 3]]
    return VolumeMesh(elements=E, vertices=V * s)


def WriteVolumeMeshToVtkFileContents(mesh: VolumeMesh, title: str) -> str:
    """The mesh as a legacy ASCII VTK file, formatted as Drake writes it."""
    V, E = mesh.vertex_array(), mesh.element_array()
    out = ["# vtk DataFile Version 3.0\n", f"{title}\n", "ASCII\n", "\n", "DATASET UNSTRUCTURED_GRID\n",
           f"POINTS {len(V)} double\n"]
    out += [f"{x:12.8f} {y:12.8f} {z:12.8f}\n" for x, y, z in V.tolist()]
    out.append("\n")
    out.append(f"CELLS {len(E)} {5 * len(E)}\n")
    out += ["4" + "".join(f" {v:6d}" for v in row) + "\n" for row in E.tolist()]
    out.append("\n")
    out.append(f"CELL_TYPES {len(E)}\n")
    out += [f"{_VTK_TETRA}\n"] * len(E)
    out.append("\n")
    return "".join(out)
