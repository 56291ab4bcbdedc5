"""Where a mesh's data come from: a file path or an InMemoryMesh (pydrake.geometry.MeshSource, InMemoryMesh)."""
from __future__ import annotations

import os
from pathlib import Path

from mallard.common.memory_file import MemoryFile

__all__ = ["InMemoryMesh", "MeshSource"]


def _supporting(value) -> dict:
    """A supporting-files dict {name: MemoryFile or Path}, strings taken as paths."""
    out = {}
    for name, f in dict(value or {}).items():
        if isinstance(f, MemoryFile):
            out[str(name)] = f
        elif isinstance(f, (str, os.PathLike)):
            out[str(name)] = Path(f)
        else:
            raise ValueError(f"InMemoryMesh: supporting file '{name}' must be a MemoryFile or a path; given "
                             f"{type(f).__name__}")
    return out


class InMemoryMesh:
    """A mesh file held in memory: its ``mesh_file`` (a MemoryFile) and ``supporting_files`` it refers to
    (e.g. an OBJ's .mtl), each a MemoryFile or a path, keyed by the name the mesh file uses."""

    def __init__(self, mesh_file: MemoryFile | None = None, supporting_files: dict | None = None):
        if mesh_file is None:
            mesh_file = MemoryFile()
        if not isinstance(mesh_file, MemoryFile):
            raise ValueError(f"InMemoryMesh needs a MemoryFile; given {type(mesh_file).__name__}")
        self.mesh_file = mesh_file
        self.supporting_files = _supporting(supporting_files)

    def empty(self) -> bool:
        return len(self.mesh_file.contents()) == 0

    def __eq__(self, other) -> bool:
        return (isinstance(other, InMemoryMesh) and self.mesh_file == other.mesh_file
                and self.supporting_files == other.supporting_files)

    def __hash__(self):
        return hash((self.mesh_file, tuple(sorted(self.supporting_files))))

    def __repr__(self) -> str:
        if not self.supporting_files:
            return f"InMemoryMesh(mesh_file={self.mesh_file!r})"
        return f"InMemoryMesh(mesh_file={self.mesh_file!r}, supporting_files={self.supporting_files!r})"

    def __getstate__(self) -> dict:
        return {"mesh_file": self.mesh_file, "supporting_files": dict(self.supporting_files)}

    def __setstate__(self, state: dict) -> None:
        self.mesh_file = state.get("mesh_file") or MemoryFile()
        self.supporting_files = _supporting(state.get("supporting_files"))


class MeshSource:
    """Either a path to a mesh file or an InMemoryMesh: ``MeshSource(path)``, ``MeshSource(mesh)``, or a copy
    ``MeshSource(other=...)``."""

    def __init__(self, path=None, *, mesh: InMemoryMesh | None = None, other: "MeshSource | None" = None):
        if other is None and isinstance(path, MeshSource):
            other = path
            path = None
        if other is None and isinstance(path, InMemoryMesh):
            mesh, path = path, None
        if sum(x is not None for x in (path, mesh, other)) != 1:
            raise ValueError("MeshSource needs exactly one of path, mesh (an InMemoryMesh) or other (a MeshSource)")
        if other is not None:
            if not isinstance(other, MeshSource):
                raise ValueError(f"MeshSource(other=) needs a MeshSource; given {type(other).__name__}")
            self._path, self._mesh = other._path, other._mesh
            return
        if mesh is not None:
            if not isinstance(mesh, InMemoryMesh):
                raise ValueError(f"MeshSource(mesh=) needs an InMemoryMesh; given {type(mesh).__name__}")
            self._path, self._mesh = None, mesh
            return
        if not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"MeshSource(path=) needs a path; given {type(path).__name__}")
        self._path, self._mesh = Path(path), None

    def is_path(self) -> bool:
        return self._path is not None

    def is_in_memory(self) -> bool:
        return self._mesh is not None

    def path(self) -> Path:
        """The file path; raises RuntimeError for an in-memory source."""
        if self._path is None:
            raise RuntimeError(f"MeshSource.path(): the source '{self.description()}' is in memory, not a path; "
                               "check is_path() first")
        return self._path

    def in_memory(self) -> InMemoryMesh:
        """The in-memory mesh; raises RuntimeError for a path source."""
        if self._mesh is None:
            raise RuntimeError(f"MeshSource.in_memory(): the source '{self._path}' is a path, not an in-memory mesh; "
                               "check is_in_memory() first")
        return self._mesh

    def description(self) -> str:
        """The path, or the in-memory mesh file's filename hint."""
        return str(self._path) if self._path is not None else self._mesh.mesh_file.filename_hint()

    def extension(self) -> str:
        """The lower-case extension with its dot (e.g. '.obj')."""
        if self._path is not None:
            return self._path.suffix.lower()
        return self._mesh.mesh_file.extension()

    def __eq__(self, other) -> bool:
        return isinstance(other, MeshSource) and self._path == other._path and self._mesh == other._mesh

    def __hash__(self):
        return hash((self._path, self._mesh))

    def __repr__(self) -> str:
        if self._path is not None:
            return f"MeshSource(path={str(self._path)!r})"
        return f"MeshSource(mesh={self._mesh!r})"

    def __getstate__(self) -> dict:
        return {"path": self._path} if self._path is not None else {"mesh": self._mesh}

    def __setstate__(self, state: dict) -> None:
        if "path" in state:
            self._path, self._mesh = Path(state["path"]), None
        else:
            self._path, self._mesh = None, state["mesh"]
