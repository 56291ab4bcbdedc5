"""Drake's resource files (`drake/...` paths) without Drake: FindResourceOrThrow and the resource root.

mallard ships none of Drake's data. A Drake resource root is a folder holding a `drake/` folder (Drake's
source tree, or the `share/` folder of an installed Drake). It is found, in order, from the environment
variable DRAKE_RESOURCE_ROOT (Drake's own name for it) or from an installed drake wheel's `share/`
folder (located without importing pydrake). Without one, lookups fail with an error that names the
resource and says which variable to set.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Optional

__all__ = ["DRAKE_RESOURCE_ROOT", "FindResourceOrThrow", "GetDrakePath", "GetDrakeResourceRoot", "getDrakePath"]

DRAKE_RESOURCE_ROOT = "DRAKE_RESOURCE_ROOT"


def _installed_drake_share() -> Optional[Path]:
    """The `share/` folder of an installed drake wheel (pydrake/share/drake), if any."""
    try:
        spec = importlib.util.find_spec("pydrake")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        share = Path(location) / "share"
        if (share / "drake").is_dir():
            return share
    return None


def GetDrakeResourceRoot() -> Optional[str]:
    """The folder that holds Drake's `drake/` resources, or None when there is none."""
    env = os.environ.get(DRAKE_RESOURCE_ROOT)
    if env:
        if (Path(env) / "drake").is_dir():
            return env
        return None  # an explicit but unusable root: do not silently fall back to another copy
    share = _installed_drake_share()
    return None if share is None else str(share)


def GetDrakePath() -> Optional[str]:
    """The folder of Drake's resources (the `drake/` folder under the resource root: `GetDrakePath()` +
    "/examples/pendulum/Pendulum.urdf" is the pendulum's URDF), or None when there is none."""
    root = GetDrakeResourceRoot()
    return None if root is None else os.path.join(root, "drake")


def getDrakePath() -> str:
    """pydrake's compatibility alias: the absolute GetDrakePath()."""
    path = GetDrakePath()
    if path is None:
        raise RuntimeError(f"No Drake resources found: set {DRAKE_RESOURCE_ROOT} to the folder that holds Drake's "
                           "'drake/' resources, or install the drake wheel")
    return os.path.abspath(path)


def FindResourceOrThrow(resource_path: str) -> str:
    """The absolute path of Drake resource `resource_path` (a relative path starting with "drake/")."""
    resource_path = os.fspath(resource_path)
    if os.path.isabs(resource_path):
        raise RuntimeError(f"Drake resource_path '{resource_path}' is not a relative path.")
    if not resource_path.startswith("drake/"):
        raise RuntimeError(f"Drake resource_path '{resource_path}' does not start with drake/.")
    root = GetDrakeResourceRoot()
    env = os.environ.get(DRAKE_RESOURCE_ROOT)
    if root is None:
        if env:
            raise RuntimeError(f"Could not find Drake resource_path '{resource_path}' because {DRAKE_RESOURCE_ROOT}="
                               f"'{env}' does not contain a 'drake' folder. Set {DRAKE_RESOURCE_ROOT} to the folder "
                               "that holds Drake's 'drake/' resources (the parent of a Drake source checkout, or "
                               "the 'share' folder of an installed Drake).")
        raise RuntimeError(f"Could not find Drake resource_path '{resource_path}': mallard ships none of Drake's "
                           f"resource files and no Drake resource root was found. Set {DRAKE_RESOURCE_ROOT} to the "
                           "folder that holds Drake's 'drake/' resources (the parent of a Drake source checkout, "
                           "or the 'share' folder of an installed Drake), or install the drake wheel.")
    path = os.path.join(root, resource_path)
    if not os.path.exists(path):
        where = f"{DRAKE_RESOURCE_ROOT}='{env}'" if env else f"the installed Drake's resource root '{root}'"
        raise RuntimeError(f"Could not find Drake resource_path '{resource_path}' because {where} does not contain "
                           f"the file '{path}'.")
    return path
