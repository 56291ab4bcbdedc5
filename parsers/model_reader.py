"""Format dispatch: read any supported model file (or string, or URL) into `ModelRecord`s.

This is the format-neutral front half of `Parser`: `.urdf` → URDF reader, `.sdf` → SDFormat
reader. `.xacro` files are rejected with instructions to run xacro first. (MJCF `.xml` and
model directives are read elsewhere.)
"""
from __future__ import annotations

import os
from typing import Optional

from .errors import ParseError
from .obj_model import ReadObjModel
from .package_map import PackageMap
from .sdformat import ReadSdf
from .urdf import XACRO_MESSAGE, ReadUrdf

__all__ = ["ReadModels", "ReadModelsFromString", "ReadModelsFromUrl", "SUPPORTED_EXTENSIONS"]

SUPPORTED_EXTENSIONS = (".urdf", ".sdf", ".obj")


def ReadModels(filename: str, package_map: Optional[PackageMap] = None,
               strict: bool = False) -> list:
    """Read a `.urdf` or `.sdf` file into a list of ModelRecords (ParseError on bad input)."""
    filename = os.fspath(filename)
    lower = filename.lower()
    if lower.endswith(".xacro"):
        raise ParseError(XACRO_MESSAGE, filename)
    if lower.endswith(".urdf"):
        return ReadUrdf(filename, package_map=package_map, strict=strict)
    if lower.endswith(".sdf"):
        return ReadSdf(filename, package_map=package_map, strict=strict)
    if lower.endswith(".obj"):
        return [ReadObjModel(filename)]
    raise ParseError(f"the file type is not recognized; known types are "
                     f"{', '.join(SUPPORTED_EXTENSIONS)}", filename)


def ReadModelsFromString(file_contents: str, file_type: str,
                         package_map: Optional[PackageMap] = None, strict: bool = False) -> list:
    """Read model text of `file_type` ("urdf" or "sdf") into ModelRecords."""
    kind = file_type.lower().lstrip(".")
    if kind == "urdf":
        return ReadUrdf(file_contents=file_contents, package_map=package_map, strict=strict)
    if kind == "sdf":
        return ReadSdf(file_contents=file_contents, package_map=package_map, strict=strict)
    if kind == "xacro":
        raise ParseError(XACRO_MESSAGE)
    if kind == "obj":
        raise RuntimeError("Parser does not yet support adding models using in-memory OBJ data. The OBJ data must be "
                         "referenced as a file.")
    raise ValueError(f"file_type {file_type!r} is not recognized; known types are 'urdf', 'sdf'")


def ReadModelsFromUrl(url: str, package_map: PackageMap, strict: bool = False) -> list:
    """Resolve `url` (package://, model://, file://) through `package_map`, then ReadModels."""
    try:
        path = package_map.ResolveUrl(url)
    except (KeyError, ValueError) as exc:
        raise ParseError(str(exc), url) from None
    return ReadModels(path, package_map=package_map, strict=strict)
