"""URDF `<visual>` / `<collision>` / `<material>` → GeometryRecord (a mixin of the URDF reader).

Shapes: box, sphere, cylinder, capsule (or `drake:capsule`), `drake:ellipsoid`, mesh (with scale
and `drake:declare_convex`). Collisions carry `drake:proximity_properties`; visuals the color and
texture of an inline or top-level named material.
"""
from __future__ import annotations

import numpy as np

from .model_records import GeometryRecord, ModelRecord, ShapeRecord
from .xml_values import (child, children, get_attr, parse_float, parse_vector, resolve_path, tag)

__all__ = ["UrdfGeometryReader"]

_PROXIMITY_FLAGS = {"rigid_hydroelastic", "compliant_hydroelastic", "soft_hydroelastic"}


#: Drake's Shape::type_name() of each shape record kind ((type, convex) -> name): an unnamed geometry's name.
_SHAPE_TYPE_NAMES = {("box", False): "Box", ("sphere", False): "Sphere", ("cylinder", False): "Cylinder",
                     ("capsule", False): "Capsule", ("ellipsoid", False): "Ellipsoid", ("mesh", False): "Mesh",
                     ("mesh", True): "Convex", ("plane", False): "HalfSpace"}


class UrdfGeometryReader:
    """Geometry parsing for the URDF reader (needs its diag, package_map, root_dir, origin())."""

    def material(self, node, materials: dict, top_level: bool) -> tuple:
        """(name, rgba or None, texture path); registers named materials in `materials`."""
        name = get_attr(node, "name") or ""
        if top_level and not name:
            self.diag.error(node, "a top-level <material> needs a name")
        color = child(node, "color")
        rgba = None
        if color is not None:
            rgba = parse_vector(self.required_attr(color, "rgba"), self.diag, color,
                                "attribute 'rgba'", 4)
        texture = ""
        tex = child(node, "texture")
        if tex is not None and get_attr(tex, "filename"):
            texture = resolve_path(self.diag, tex, get_attr(tex, "filename"), self.package_map,
                                   self.root_dir)
        if name:
            if rgba is None and not texture:
                if name in materials:
                    return (name,) + materials[name]
                if top_level:
                    self.diag.error(node, f"material '{name}' defines neither color nor texture")
                self.diag.error(node, f"material '{name}' is not defined; define it at the top "
                                      f"level or give it a <color>")
            old = materials.get(name)
            if old is not None and (old[1] != texture or (old[0] is None) != (rgba is None) or
                                    (rgba is not None and not np.allclose(old[0], rgba))):
                self.diag.error(node, f"material '{name}' was previously defined differently")
            materials[name] = (rgba, texture)
        return name, rgba, texture

    def geometry(self, node, role: str, link_name: str, index: int, names: set,
                 model: ModelRecord) -> GeometryRecord:
        known = {"origin", "geometry", "material"} if role == "visual" else \
            {"origin", "geometry", "drake:proximity_properties", "verbose"}
        self.warn_unknown(node, known)
        X_BG = self.origin(child(node, "origin"))
        gnode = child(node, "geometry")
        if gnode is None:
            self.diag.error(node, f"<{role}> of link '{link_name}' has no <geometry>")
        shape = self.shape(gnode)
        # Drake's naming: the given name, else the shape's type name; a repeat within the link and role gets the
        # first free suffix _1, _2, ... (with a warning when the file named it).
        given = get_attr(node, "name")
        name = given or _SHAPE_TYPE_NAMES.get((shape.type, shape.convex), shape.type.capitalize())
        if name in names:
            salted = next(f"{name}_{i}" for i in range(1, len(names) + 2) if f"{name}_{i}" not in names)
            if given:
                self.diag.warning(node, f"{role} name '{name}' has already been used, renaming to '{salted}' instead")
            name = salted
        names.add(name)
        rec = GeometryRecord(name=name, role=role, shape=shape, X_BG=X_BG, line=node.sourceline)
        if role == "visual":
            mat = child(node, "material")
            if mat is not None:
                rec.material_name, rec.rgba, rec.texture = self.material(mat, model.materials,
                                                                         top_level=False)
        else:
            props = child(node, "drake:proximity_properties")
            if props is not None:
                rec.proximity = self.proximity(props)
        return rec

    def proximity(self, node) -> dict:
        out: dict = {}
        for p in children(node):
            t = tag(p)
            if not t.startswith("drake:"):
                self.diag.warning(p, f"unknown proximity property <{t}> is ignored")
                continue
            key = t[6:]
            if key in _PROXIMITY_FLAGS:
                out[key] = None
            else:
                out[key] = parse_float(self.required_attr(p, "value"), self.diag, p,
                                       "attribute 'value'")
        return out

    def shape(self, gnode) -> ShapeRecord:
        shapes = list(children(gnode))
        if len(shapes) != 1:
            self.diag.error(gnode, f"<geometry> must contain exactly one shape, found "
                                   f"{len(shapes)}")
        s = shapes[0]
        t = tag(s)
        positive = self.positive
        if t == "box":
            size = parse_vector(self.required_attr(s, "size"), self.diag, s, "attribute 'size'", 3)
            if np.any(size <= 0):
                self.diag.error(s, f"box size must be positive, got {size}")
            return ShapeRecord("box", size=size)
        if t == "sphere":  # Drake accepts a zero radius (a point); a negative one is an error
            radius = parse_float(self.required_attr(s, "radius"), self.diag, s, "attribute 'radius'")
            if radius < 0:
                self.diag.error(s, f"attribute 'radius' must not be negative, got {radius}")
            return ShapeRecord("sphere", radius=radius)
        if t in ("cylinder", "capsule", "drake:capsule"):
            return ShapeRecord("cylinder" if t == "cylinder" else "capsule",
                               radius=positive(s, "radius"), length=positive(s, "length"))
        if t == "drake:ellipsoid":
            return ShapeRecord("ellipsoid", radii=np.array([positive(s, "a"), positive(s, "b"),
                                                            positive(s, "c")]))
        if t == "mesh":
            filename = resolve_path(self.diag, s, self.required_attr(s, "filename"),
                                    self.package_map, self.root_dir)
            scale_text = get_attr(s, "scale")
            scale = np.ones(3)
            if scale_text is not None:
                vals = parse_vector(scale_text, self.diag, s, "attribute 'scale'")
                if vals.size == 1:
                    scale = np.full(3, vals[0])
                elif vals.size == 3:
                    scale = vals
                else:
                    self.diag.error(s, f"attribute 'scale': expected 1 or 3 numbers, got "
                                       f"{vals.size}")
            convex = child(s, "drake:declare_convex") is not None
            return ShapeRecord("mesh", filename=filename, scale=scale, convex=convex)
        self.diag.error(s, f"unknown geometry shape <{t}>; expected box, sphere, cylinder, "
                           f"capsule, drake:capsule, drake:ellipsoid or mesh")

    def positive(self, node, name: str) -> float:
        value = parse_float(self.required_attr(node, name), self.diag, node, f"attribute '{name}'")
        if value <= 0:
            self.diag.error(node, f"attribute '{name}' must be positive, got {value}")
        return value

