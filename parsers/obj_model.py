"""An OBJ mesh file as a model (Drake's mesh parser): one free body named after the mesh, its mass properties
those of the closed mesh filled with water (1000 kg/m³), the mesh itself as its collision and visual geometry."""
from __future__ import annotations

import os
import re

import numpy as np

from mallard.geometry import ReadObjToTriangleSurfaceMesh
from mallard.multibody.tree import CalcSpatialInertia

from .errors import ParseError
from .model_records import GeometryRecord, InertialRecord, LinkRecord, ModelRecord, ShapeRecord

__all__ = ["ReadObjModel", "WATER_DENSITY"]

#: kg/m³: Drake infers an OBJ model's mass as if the mesh were filled with water.
WATER_DENSITY = 1000.0


def _object_name(filename: str) -> str:
    """The last `o name` statement of the OBJ file ('' when it names no object)."""
    name = ""
    with open(filename, "r", errors="replace") as stream:
        for line in stream:
            match = re.match(r"\s*o\s+(.*\S)", line)
            if match:
                name = match.group(1)
    return name


def ReadObjModel(filename: str, model_name: str = "") -> ModelRecord:
    """The ModelRecord of the OBJ file `filename`: named `model_name`, else the file's last object name, else the
    file's stem; one link of that name with the water-filled mesh's inertia and the mesh as both geometries."""
    filename = os.path.abspath(filename)
    if not os.path.isfile(filename):
        raise ParseError(f"Cannot open file '{filename}'", filename)
    try:
        mesh = ReadObjToTriangleSurfaceMesh(filename)
    except (ValueError, RuntimeError) as exc:
        raise ParseError(str(exc), filename) from None
    name = model_name or _object_name(filename) or os.path.splitext(os.path.basename(filename))[0]
    try:
        M_BBo_B = CalcSpatialInertia(mesh=mesh, density=WATER_DENSITY)
    except (ValueError, RuntimeError) as exc:
        raise ParseError(f"cannot infer the mass properties of the mesh as a model: {exc}", filename) from None
    p_BoBcm_B = np.asarray(M_BBo_B.get_com(), dtype=float)
    I_BBcm_B = M_BBo_B.Shift(p_BoBcm_B).CalcRotationalInertia().CopyToFullMatrix3()
    shape = ShapeRecord(type="mesh", filename=filename)
    link = LinkRecord(name=name, inertial=InertialRecord(mass=M_BBo_B.get_mass(), p_BoBcm_B=p_BoBcm_B,
                                                         I_BBcm_B=I_BBcm_B),
                      visuals=[GeometryRecord(name="visual", role="visual", shape=shape)],
                      collisions=[GeometryRecord(name="collision", role="collision", shape=shape)])
    return ModelRecord(name=name, filename=filename, format="obj", links=[link])
