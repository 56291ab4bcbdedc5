"""SDFormat `<visual>` / `<collision>` → GeometryRecord (shapes, material color, friction and
Drake's proximity properties)."""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from mallard.geometry.shapes import CalcHalfSpaceRotation

from .errors import Diagnostic
from .model_records import GeometryRecord, ShapeRecord
from .xml_values import (child, children, get_attr, parse_float, parse_vector, resolve_path,
                         tag, text_of)

__all__ = ["read_geometry", "CalcHalfSpaceFrame"]

_SHAPES = ("box", "sphere", "cylinder", "capsule", "ellipsoid", "plane", "mesh", "empty",
           "drake:capsule", "drake:ellipsoid")
_GEOMETRY_IGNORED = {"laser_retro", "max_contacts", "plugin", "cast_shadows", "transparency",
                     "visibility_flags", "meta", "drake:accepting_renderer"}
_PROXIMITY_FLAGS = {"rigid_hydroelastic", "compliant_hydroelastic"}


def CalcHalfSpaceFrame(normal: np.ndarray) -> np.ndarray:
    """X_GC (4x4, rotation only): the frame C of a half space whose outward normal is `normal`
    (in G), chosen as Drake's HalfSpace::MakePose chooses it (`CalcHalfSpaceRotation`)."""
    X = np.eye(4)
    X[:3, :3] = CalcHalfSpaceRotation(normal)
    return X


def _positive(node, name: str, diag: Diagnostic) -> float:
    e = child(node, name)
    if e is None:
        diag.error(node, f"<{tag(node)}> needs a <{name}>")
    value = parse_float(text_of(e), diag, e, f"<{name}>")
    if value <= 0:
        diag.error(e, f"<{name}> must be positive, got {value}")
    return value


def _sdformat_value(node, name: str, default, diag: Diagnostic, size: int = 1):
    """A shape dimension as libsdformat reads it: a value with any entry <= 0 is replaced by libsdformat's default,
    with its warning (Drake parses SDFormat through libsdformat, so a zero-size shape becomes the default one)."""
    e = child(node, name)
    if e is None:
        return np.array(default, dtype=float) if size > 1 else float(default)
    value = parse_vector(text_of(e), diag, e, f"<{name}>", size) if size > 1 else parse_float(text_of(e), diag, e,
                                                                                          f"<{name}>")
    if np.any(np.asarray(value) <= 0):
        shown = ", ".join(f"{v:g}" for v in np.atleast_1d(default)) if size > 1 else f"{default!r}"
        diag.warning(e, f"Value of <{name}> is negative. Using default value of {shown}.")
        return np.array(default, dtype=float) if size > 1 else float(default)
    return value


def _shape(gnode, diag: Diagnostic, package_map, root_dir: str) -> Optional[ShapeRecord]:
    shapes = list(children(gnode))
    if len(shapes) != 1:
        diag.error(gnode, f"<geometry> must contain exactly one shape, found {len(shapes)}")
    s = shapes[0]
    t = tag(s)
    if t == "empty":
        return None
    if t == "box":
        return ShapeRecord("box", size=_sdformat_value(s, "size", (1, 1, 1), diag, 3))
    if t == "sphere":
        return ShapeRecord("sphere", radius=_sdformat_value(s, "radius", 1.0, diag))
    if t == "drake:capsule":  # Drake's spelling from before SDFormat 1.9, read by Drake itself (not libsdformat)
        return ShapeRecord("capsule", radius=_positive(s, "radius", diag), length=_positive(s, "length", diag))
    if t == "drake:ellipsoid":  # (with <a>, <b>, <c> semi-axes)
        return ShapeRecord("ellipsoid", radii=np.array([_positive(s, k, diag) for k in "abc"]))
    if t in ("cylinder", "capsule"):
        return ShapeRecord(t, radius=_sdformat_value(s, "radius", 0.5, diag),
                           length=_sdformat_value(s, "length", 1.0, diag))
    if t == "ellipsoid":
        return ShapeRecord("ellipsoid", radii=_sdformat_value(s, "radii", (1, 1, 1), diag, 3))
    if t == "plane":
        e = child(s, "normal")
        normal = np.array([0, 0, 1.0]) if e is None else parse_vector(text_of(e), diag, e,
                                                                        "<normal>", 3)
        if np.linalg.norm(normal) < 1e-8:
            diag.error(e, "plane normal is zero")
        e = child(s, "size")
        size = np.ones(2) if e is None else parse_vector(text_of(e), diag, e, "<size>", 2)
        return ShapeRecord("plane", normal=normal / np.linalg.norm(normal), size=size)
    if t == "mesh":
        uri = child(s, "uri")
        if uri is None or not text_of(uri):
            diag.error(s, "<mesh> needs a <uri>")
        filename = resolve_path(diag, uri, text_of(uri), package_map, root_dir)
        e = child(s, "scale")
        scale = np.ones(3) if e is None else parse_vector(text_of(e), diag, e, "<scale>", 3)
        if child(s, "submesh") is not None:
            diag.warning(child(s, "submesh"), "<submesh> is not supported; the whole mesh is used")
        return ShapeRecord("mesh", filename=filename, scale=scale,
                           convex=child(s, "drake:declare_convex") is not None)
    diag.error(s, f"unknown geometry shape <{t}>; expected one of {list(_SHAPES)}")


def _color(node, diag: Diagnostic) -> Optional[np.ndarray]:
    material = child(node, "material")
    if material is None:
        return None
    e = child(material, "diffuse")
    if e is None:
        return None
    v = parse_vector(text_of(e), diag, e, "<diffuse>")
    if v.size == 3:
        v = np.append(v, 1.0)
    if v.size != 4:
        diag.error(e, f"<diffuse>: expected 3 or 4 numbers, got {v.size}")
    return v


def _proximity(node, diag: Diagnostic) -> dict:
    out: dict = {}
    props = child(node, "drake:proximity_properties")
    if props is not None:
        for p in children(props):
            t = tag(p)
            if not t.startswith("drake:"):
                diag.warning(p, f"unknown proximity property <{t}> is ignored")
                continue
            key = t[6:]
            if key == "soft_hydroelastic":
                diag.error(p, "<drake:soft_hydroelastic> is not supported; use "
                              "<drake:compliant_hydroelastic>")
            out[key] = None if key in _PROXIMITY_FLAGS else parse_float(text_of(p), diag, p,
                                                                           f"<{t}>")
    ode = None
    surface = child(node, "surface")
    if surface is not None and child(surface, "friction") is not None:
        ode = child(child(surface, "friction"), "ode")
    # As Drake: drake:mu_static / mu_dynamic (each defaulting to the other) win over the ODE
    # friction, whose mu (static) and mu2 (dynamic) each default to 1.
    if "mu_static" in out or "mu_dynamic" in out:
        out.setdefault("mu_static", out.get("mu_dynamic"))
        out.setdefault("mu_dynamic", out["mu_static"])
        keys, where = ("mu_static", "mu_dynamic"), props
    elif ode is not None:
        for key in ("mu", "mu2"):
            e = child(ode, key)
            out[key] = 1.0 if e is None else parse_float(text_of(e), diag, e, f"<{key}>")
        keys, where = ("mu", "mu2"), ode
    else:
        return out
    static, dynamic = (out[k] for k in keys)
    if static < 0 or dynamic < 0:
        diag.error(where, f"friction coefficients must be non-negative, got {static} (static) "
                          f"and {dynamic} (dynamic)")
    if dynamic > static:
        diag.error(where, f"the dynamic friction ({dynamic}) is greater than the static friction "
                          f"({static}); dynamic friction must be less than or equal to static "
                          f"friction")
    return out


def read_geometry(node, role: str, diag: Diagnostic, package_map, root_dir: str,
                  parse_pose: Callable) -> tuple:
    """(GeometryRecord or None for `<empty/>`, relative_to reference or None) of a visual or
    collision element. X_BG holds the pose relative to that reference (the link when None)."""
    name = get_attr(node, "name")
    if not name:
        diag.error(node, "missing required attribute 'name'")
    known = {"pose", "geometry", "material", "surface", "drake:proximity_properties"}
    for c in children(node):
        if tag(c) not in known and tag(c) not in _GEOMETRY_IGNORED:
            diag.warning(c, f"unknown or unsupported element <{tag(c)}> in <{role}> is ignored")
    rel, X = None, np.eye(4)
    p = child(node, "pose")
    if p is not None:
        rel, X = parse_pose(p, diag)
    gnode = child(node, "geometry")
    if gnode is None:
        diag.error(node, f"<{role}> '{name}' has no <geometry>")
    shape = _shape(gnode, diag, package_map, root_dir)
    if shape is None:
        return None, None
    if shape.type == "plane":  # (as Drake, even for the default normal +z)
        X = X @ CalcHalfSpaceFrame(shape.normal)
        shape.normal = np.array([0.0, 0.0, 1.0])
    rec = GeometryRecord(name=name, role=role, shape=shape, X_BG=X, line=node.sourceline)
    if role == "visual":
        rec.rgba = _color(node, diag)
    else:
        rec.proximity = _proximity(node, diag)
    return rec, rel
