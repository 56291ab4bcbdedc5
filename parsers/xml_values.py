"""Reading typed values (numbers, vectors, poses, booleans) out of XML elements, with located errors.

Poses are 4x4 homogeneous transforms (numpy float arrays). Rotations from roll-pitch-yaw follow
Drake's RollPitchYaw convention: R = Rz(yaw) @ Ry(pitch) @ Rx(roll).
"""
from __future__ import annotations

import math
import re
from typing import Iterator, Optional

import numpy as np

from .errors import DRAKE_NAMESPACE, Diagnostic, element_tag

__all__ = [
    "children", "child", "get_attr", "parse_float", "parse_vector", "rpy_to_rotation",
    "make_transform", "invert_transform", "text_of", "quaternion_to_rotation", "parse_bool",
    "resolve_path", "tag",
]


def _qualified(name: str) -> str:
    """lxml's key for a tag/attribute name written as `drake:foo` in the file."""
    if name.startswith("drake:"):
        return "{" + DRAKE_NAMESPACE + "}" + name[6:]
    return name


def children(node, name: Optional[str] = None) -> Iterator:
    """Child elements of `node` (all of them, or those whose tag is `name`)."""
    for c in node:
        t = c.tag
        if not isinstance(t, str):
            continue
        if name is None or (t == name if t[:1] != "{" else element_tag(c) == name):  # plain tags as written
            yield c


def child(node, name: str):
    """The first child element named `name`, or None."""
    return next(children(node, name), None)


def get_attr(node, name: str) -> Optional[str]:
    """The value of attribute `name` (`drake:`-prefixed names allowed), or None."""
    return node.get(_qualified(name))


def text_of(node) -> str:
    """The element's text, stripped ("" when empty)."""
    return (node.text or "").strip()


_NUMBER_PREFIX = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")


def _to_float(word: str, diag: Diagnostic, node, what: str) -> float:
    """float(word); a number followed by stray characters (e.g. `2.35"`, which SDFormat's C++
    reader accepts) is read with a warning (an error in strict mode)."""
    try:
        return float(word)
    except ValueError:
        pass
    match = _NUMBER_PREFIX.match(word)
    if match is None or match.end() == 0:
        diag.error(node, f"{what}: {word!r} is not a number")
    diag.warning(node, f"{what}: {word!r} has stray characters after the number "
                       f"{match.group(0)}; they are ignored")
    return float(match.group(0))


def parse_float(text: str, diag: Diagnostic, node, what: str, allow_inf: bool = False) -> float:
    """Parse one finite float (or ±inf when `allow_inf`), raising ParseError on bad input."""
    parts = text.split()
    if len(parts) != 1:
        diag.error(node, f"{what}: expected one number, got {text!r}")
    value = _to_float(parts[0], diag, node, what)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        diag.error(node, f"{what}: {parts[0]!r} is not a finite number")
    return value


def parse_vector(text: str, diag: Diagnostic, node, what: str, size: Optional[int] = None,
                 allow_inf: bool = False) -> np.ndarray:
    """Parse whitespace-separated finite floats; `size` (if given) is the required count."""
    parts = text.split()
    if size is not None and len(parts) != size:
        diag.error(node, f"{what}: expected {size} numbers, got {len(parts)} in {text!r}")
    values = np.empty(len(parts))
    for i, p in enumerate(parts):
        values[i] = _to_float(p, diag, node, what)
        if math.isnan(values[i]) or (math.isinf(values[i]) and not allow_inf):
            diag.error(node, f"{what}: {p!r} is not a finite number")
    return values


def rpy_to_rotation(rpy) -> np.ndarray:
    """Rotation matrix R = Rz(y) Ry(p) Rx(r) for roll-pitch-yaw angles in radians."""
    r, p, y = (float(a) for a in rpy)
    cr, sr = math.cos(r), math.sin(r)
    cp, sp = math.cos(p), math.sin(p)
    cy, sy = math.cos(y), math.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def make_transform(R: Optional[np.ndarray] = None, p=None) -> np.ndarray:
    """A 4x4 homogeneous transform from a rotation matrix and a translation (identity by default)."""
    X = np.eye(4)
    if R is not None:
        X[:3, :3] = R
    if p is not None:
        X[:3, 3] = p
    return X


def invert_transform(X: np.ndarray) -> np.ndarray:
    """Inverse of a rigid 4x4 transform."""
    Xi = np.eye(4)
    Rt = X[:3, :3].T
    Xi[:3, :3] = Rt
    Xi[:3, 3] = -Rt @ X[:3, 3]
    return Xi


def quaternion_to_rotation(wxyz) -> np.ndarray:
    """Rotation matrix of the (normalized) quaternion [w, x, y, z]."""
    w, x, y, z = np.asarray(wxyz, dtype=float) / np.linalg.norm(wxyz)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def parse_bool(text: str, diag: Diagnostic, node, what: str) -> bool:
    """SDFormat/URDF booleans: true/false/1/0 (case-insensitive)."""
    t = text.strip().lower()
    if t in ("true", "1"):
        return True
    if t in ("false", "0"):
        return False
    diag.error(node, f"{what}: expected true/false/1/0, got {text!r}")


def tag(node) -> str:
    """Alias of errors.element_tag for readers."""
    t = node.tag
    if isinstance(t, str) and t[:1] != "{":  # a plain tag is written as is
        return t
    return element_tag(node)


def resolve_path(diag: Diagnostic, node, url: str, package_map, root_dir: Optional[str]) -> str:
    """Resolve a file reference from a model file (package://, model://, file://, or a path
    relative to the file's folder) through `package_map`, as a located ParseError on failure."""
    try:
        return package_map.ResolveUrl(url, root_dir=root_dir)
    except (KeyError, ValueError) as exc:
        diag.error(node, str(exc))
