"""Reading MJCF text into a validated element tree: lxml with line numbers, `include` splicing, schema check.

The result is a tree of `Element` records whose attributes are already type-checked and converted
(numbers, arrays, keywords), each remembering the file and line it came from so later compiler
errors can name them.
"""
from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from .. import resources
from ..errors import describe_non_xml
from .errors import MjcfError, MjcfUnsupportedWarning, Where, error_at
from .schema import AttrSpec, attributes, children

_MAX_BYTES = 64 * 1024 * 1024


@dataclass
class Element:
    """One MJCF element after validation: tag, schema key, explicitly given attributes, children."""

    tag: str
    key: str
    attrs: dict[str, object]
    where: Where
    children: list["Element"] = field(default_factory=list)

    def get(self, name: str, default=None):
        """The explicitly given value of attribute `name`, or `default`."""
        return self.attrs.get(name, default)

    def find_all(self, tag: str) -> list["Element"]:
        """Direct children with the given tag, in document order."""
        return [c for c in self.children if c.tag == tag]


@dataclass
class _Raw:
    tag: str
    attrs: dict[str, str]
    where: Where
    children: list["_Raw"]


def _parser() -> etree.XMLParser:
    return etree.XMLParser(remove_comments=True, remove_pis=True, resolve_entities=False, no_network=True,
                           huge_tree=False, load_dtd=False)


def _to_raw(el, file: str) -> _Raw:
    kids = [_to_raw(c, file) for c in el if isinstance(c.tag, str)]
    attrs = {}
    for k, v in el.attrib.items():
        if not isinstance(k, str) or k.startswith("{"):
            raise error_at(Where(file, el.sourceline or 0, str(el.tag)), f"namespaced attribute '{k}' is not MJCF")
        attrs[k] = v
    tag = el.tag
    if not isinstance(tag, str) or tag.startswith("{"):
        raise error_at(Where(file, el.sourceline or 0, str(tag)), "namespaced elements are not MJCF")
    return _Raw(tag, attrs, Where(file, el.sourceline or 0, tag), kids)


def _parse_xml_text(text: bytes, file: str) -> _Raw:
    try:
        root = etree.fromstring(text, _parser())
    except etree.XMLSyntaxError as exc:
        line = getattr(exc, "lineno", 0) or 0
        detail = describe_non_xml(text) or f"malformed XML: {exc.msg}"
        raise MjcfError(f"{file}:{line}: <xml>: {detail}") from None
    return _to_raw(root, file)


def _read_file(path: Path, where: Where | None) -> bytes:
    try:
        return resources.ReadFileBounded(path, _MAX_BYTES)
    except OSError as exc:
        raise error_at(where, str(exc)) from None


def _label(name: str) -> str:
    """A short file label for error messages (data: URIs can be megabytes long)."""
    return name if len(name) <= 60 else name[:57] + "..."


def read_resource(name: str, where: Where | None, what: str = "file") -> bytes:
    """Bytes of a resource given by a provider URI (`scheme:rest`) or a file path; errors become MjcfError."""
    try:
        data = resources.ReadResource(name)
    except (OSError, ValueError, RuntimeError) as exc:
        raise error_at(where, f"cannot read {what} '{_label(name)}': {exc}") from None
    if len(data) > _MAX_BYTES:
        raise error_at(where, f"{what} '{_label(name)}' is larger than {_MAX_BYTES} bytes")
    return data


def _expand_includes(node: _Raw, base_dir: Path | str, seen: set[str], stack: list[str]) -> None:
    """Replace every <include file=...> under `node` by the children of the included file's root.

    File names may be resource-provider URIs (`scheme:rest`, e.g. `data:` URIs); relative names are
    resolved against `base_dir` (a folder or a provider directory).
    """
    out: list[_Raw] = []
    for child in node.children:
        if child.tag != "include":
            _expand_includes(child, base_dir, seen, stack)
            out.append(child)
            continue
        extra = set(child.attrs) - {"file"}
        if extra:
            raise error_at(child.where, f"unknown attribute '{sorted(extra)[0]}' (valid: file)")
        if "file" not in child.attrs or not child.attrs["file"].strip():
            raise error_at(child.where, "required attribute 'file' is missing")
        fname = child.attrs["file"]
        name = resources.JoinResourceName(base_dir, fname)
        is_uri = resources.GetResourceProvider(name) is not None
        key = name if is_uri else os.path.normpath(str(Path(name).resolve()))
        if key in stack:
            raise error_at(child.where, f"include cycle: '{_label(fname)}' includes itself "
                                        f"(chain: {' -> '.join(_label(k) for k in stack + [key])})")
        if key in seen:
            raise error_at(child.where, f"file '{_label(fname)}' is included more than once")
        if not is_uri and not Path(name).is_file():
            try:
                resources.CheckScheme(fname)
            except ValueError as exc:  # a scheme nobody registered
                raise error_at(child.where, f"included file '{_label(fname)}': {exc}") from None
            raise error_at(child.where, f"included file '{fname}' not found (looked for {name})")
        seen.add(key)
        if is_uri:
            sub = _parse_xml_text(read_resource(name, child.where, "included file"), _label(name))
        else:
            sub = _parse_xml_text(_read_file(Path(name), child.where), name)
        _expand_includes(sub, base_dir, seen, stack + [key])
        if not sub.children:
            raise error_at(child.where, f"included file '{_label(fname)}' has no elements to insert")
        out.extend(sub.children)
    node.children = out


def _number(token: str, kind: str, where: Where, name: str):
    try:
        if kind == "i":
            return int(token)
        value = float(token)
    except ValueError:
        what = "an integer" if kind == "i" else "a number"
        raise error_at(where, f"attribute '{name}': '{token}' is not {what}") from None
    if math.isnan(value):
        raise error_at(where, f"attribute '{name}': NaN is not allowed")
    return value


def convert(spec: AttrSpec, text: str, where: Where):
    """Convert the XML text of one attribute according to its spec, raising MjcfError on bad input."""
    name = spec.name
    if spec.kind == "s":
        return text
    if spec.kind in ("kw", "b", "t", "f"):
        valid = {"kw": spec.keywords, "b": ("false", "true"), "t": ("false", "true", "auto"),
                 "f": ("disable", "enable")}[spec.kind]
        value = text.strip()
        if value not in valid:
            raise error_at(where, f"attribute '{name}': invalid value '{text}' (valid: {', '.join(valid)})")
        return value
    tokens = text.split()
    values = tuple(_number(t, spec.kind, where, name) for t in tokens)
    if spec.length == -1:
        return values
    if len(values) > spec.length or (len(values) < spec.length and not spec.fewer_ok) or not values:
        need = f"up to {spec.length}" if spec.fewer_ok else f"{spec.length}"
        raise error_at(where, f"attribute '{name}': expected {need} value(s), got {len(values)}")
    if spec.length == 1 and not spec.fewer_ok:
        return values[0]
    return values


#: MuJoCo 4 elements and attributes mallard reads but cannot simulate yet: a clear error instead of "unknown"
_UNSUPPORTED_ELEMENTS = {("sensor", "contact"): "contact sensors", ("sensor", "tactile"): "tactile sensors", ("actuator", "dcmotor"): "DC motor actuators",
                         ("actuator", "pid"): "PID actuators", ("default", "dcmotor"): "DC motor actuators",
                         ("default", "pid"): "PID actuators"}
_UNSUPPORTED_ATTRIBUTES = {("geom", "surfacevel"): "geom surface velocities (conveyors)",
                           ("mesh", "builtin"): "built-in meshes", ("mesh", "params"): "built-in meshes"}
#: MuJoCo 4 attributes whose default (0) mallard simulates but whose nonzero values it cannot yet
_UNSUPPORTED_NONZERO = {("geom", "adhesion"): "contact adhesion", ("pair", "adhesion"): "contact adhesion"}
_POLYNOMIAL = {("joint", "stiffness"), ("joint", "damping"), ("tendon", "stiffness"), ("tendon", "damping"),
               ("spatial", "stiffness"), ("spatial", "damping"), ("fixed", "stiffness"), ("fixed", "damping")}


def _unsupported(where: Where, what: str) -> MjcfError:
    return error_at(where, f"{what}: a MuJoCo 4 feature mallard does not support yet; remove it to load the "
                           f"model")


class _Validator:
    def __init__(self, strict: bool):
        self.strict = strict
        self.warned: set[str] = set()

    def warn(self, where: Where, message: str, kind: str) -> None:
        if self.strict:
            raise error_at(where, message + " (strict mode)")
        if kind not in self.warned:
            self.warned.add(kind)
            warnings.warn(f"{where}: {message}", MjcfUnsupportedWarning, stacklevel=4)

    def build(self, raw: _Raw, key: str) -> Element:
        if key == "t3":
            self.warn(raw.where, f"<{raw.tag}> is not supported (tier 3); element kept but ignored",
                      f"t3:{raw.tag}")
            kids = [self.build(c, "t3") for c in raw.children]
            return Element(raw.tag, key, dict(raw.attrs), raw.where, kids)
        if key == "eq_distance":
            raise error_at(raw.where, "equality/distance was removed in MuJoCo 2.2.2; use a tendon "
                                      "equality or a connect constraint instead")
        table = attributes(key)
        assert table is not None
        attrs: dict[str, object] = {}
        for name, text in raw.attrs.items():
            spec = table.get(name)
            if (raw.tag, name) in _UNSUPPORTED_ATTRIBUTES:
                raise _unsupported(raw.where, f"attribute '{name}': {_UNSUPPORTED_ATTRIBUTES[raw.tag, name]}")
            if (raw.tag, name) in _UNSUPPORTED_NONZERO and any(float(t) != 0.0 for t in text.split()):
                raise _unsupported(raw.where, f"attribute '{name}': {_UNSUPPORTED_NONZERO[raw.tag, name]}")
            if (raw.tag, name) in _POLYNOMIAL and len(text.split()) > 1:
                raise _unsupported(raw.where, f"attribute '{name}': polynomial {name} ({len(text.split())} "
                                              f"coefficients)")
            if spec is None:
                valid = ", ".join(sorted(table)) or "none"
                raise error_at(raw.where, f"unknown attribute '{name}' (valid: {valid})")
            if spec.kind in ("i", "r") and not text.strip():
                continue  # MuJoCo reads an empty numeric attribute (rgba="") as not given
            attrs[name] = convert(spec, text, raw.where)
        for spec in table.values():
            if spec.required and spec.name not in attrs:
                raise error_at(raw.where, f"required attribute '{spec.name}' is missing")
        allowed = children(key)
        kids = []
        for c in raw.children:
            ckey = allowed.get(c.tag)
            if ckey is None and (raw.tag, c.tag) in _UNSUPPORTED_ELEMENTS:
                raise _unsupported(c.where, f"<{raw.tag}><{c.tag}>: {_UNSUPPORTED_ELEMENTS[raw.tag, c.tag]}")
            if ckey is None:
                valid = ", ".join(sorted(allowed)) or "none"
                raise error_at(c.where, f"unknown element <{c.tag}> inside <{raw.tag}> (valid: {valid})")
            kids.append(self.build(c, ckey))
        return Element(raw.tag, key, attrs, raw.where, kids)


_SINGLE = {"inertial", "flag", "lengthrange", "el_plugin", "v_global", "v_quality", "v_headlight", "v_map", "v_scale",
           "v_rgba", "layer"}


def _check_multiplicity(el: Element) -> None:
    counts: dict[str, int] = {}
    for c in el.children:
        counts[c.key] = counts.get(c.key, 0) + 1
        if c.key in _SINGLE and counts[c.key] > 1:
            raise error_at(c.where, f"element <{c.tag}> may appear at most once inside <{el.tag}>")
        _check_multiplicity(c)


def read_mjcf(source: str | os.PathLike, *, strict: bool = False, base_dir: str | os.PathLike | None = None
              ) -> tuple[Element, Path | str]:
    """Parse an MJCF file path, XML string or resource URI (e.g. a `data:` URI) into a validated `Element` tree.

    Returns the root `<mujoco>` element and the model directory (used for includes and assets).
    Raises MjcfError naming file, line and element for any malformed input.
    """
    text_source = isinstance(source, str) and source.lstrip().startswith("<")
    uri_source = (isinstance(source, str) and not text_source
                  and resources.GetResourceProvider(source) is not None)
    if text_source:
        file = "<string>"
        model_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        raw = _parse_xml_text(source.encode("utf-8"), file)
        seen: set[str] = set()
        stack: list[str] = []
    elif uri_source:
        file = _label(source)
        text = read_resource(source, Where(file, 0, "mujoco"), "MJCF model")
        if base_dir is not None:
            model_dir = Path(base_dir)
        else:
            model_dir = resources.ResourceDirectory(source) or Path.cwd()
        raw = _parse_xml_text(text, file)
        seen, stack = {source}, [source]
    else:
        path = Path(source)
        if not path.is_file():
            if isinstance(source, str) and ":" in source[2:]:
                try:
                    resources.CheckScheme(source)
                except ValueError as exc:
                    raise MjcfError(f"{_label(source)}:0: <mujoco>: {exc}") from None
            raise MjcfError(f"{path}:0: <mujoco>: MJCF file not found")
        file = str(path)
        model_dir = Path(base_dir) if base_dir is not None else path.resolve().parent
        raw = _parse_xml_text(_read_file(path, Where(file, 0, "mujoco")), file)
        key = os.path.normpath(str(path.resolve()))
        seen, stack = {key}, [key]
    if raw.tag != "mujoco":
        hint = " (a <robot> root is URDF: use the URDF parser)" if raw.tag == "robot" else ""
        raise error_at(raw.where, f"root element must be <mujoco>, got <{raw.tag}>{hint}")
    _expand_includes(raw, model_dir, seen, stack)
    root = _Validator(strict).build(raw, "mujoco")
    _check_multiplicity(root)
    return root, model_dir


def parse_fragment(text: str, key: str, file: str, strict: bool = False) -> Element:
    """Parse and validate an XML fragment whose root has schema key `key` (used by `attach`)."""
    raw = _parse_xml_text(text.encode("utf-8"), file)
    return _Validator(strict).build(raw, key)
