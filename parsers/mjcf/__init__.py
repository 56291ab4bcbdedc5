"""mallard.parsers.mjcf: MJCF (MuJoCo XML) reader and compiler producing an mjModel-like record set."""
from .compiler import compile_model, load_mjcf
from .errors import MjcfError, MjcfUnsupportedWarning
from .model import (MjcfActuator, MjcfBody, MjcfCamera, MjcfEquality, MjcfExclude, MjcfGeom, MjcfJoint, MjcfKey,
                    MjcfLight, MjcfMesh, MjcfModel, MjcfOption, MjcfPair, MjcfSensor, MjcfSite, MjcfTendon,
                    MjcfTendonWrap)
from .reader import read_mjcf

__all__ = [
    "load_mjcf", "compile_model", "read_mjcf", "MjcfError", "MjcfUnsupportedWarning", "MjcfModel", "MjcfOption",
    "MjcfBody", "MjcfJoint", "MjcfGeom", "MjcfSite", "MjcfCamera", "MjcfLight", "MjcfMesh", "MjcfTendon",
    "MjcfTendonWrap", "MjcfActuator", "MjcfEquality", "MjcfPair", "MjcfExclude", "MjcfSensor", "MjcfKey",
]
