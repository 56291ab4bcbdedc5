"""YAML load and dump as pydrake.common.yaml: untyped (dicts, lists, scalars; a `!Tag` on a mapping becomes a `_tag`
key) and typed against a dataclass schema (Drake's YamlLoad rules: sequences overwrite, maps merge into the
defaults, `Optional` fields may be absent, a `Union` picks its alternative by tag or takes the first).

PyYAML is the parser and emitter (already a dependency of dask[distributed] and of mallard's model directives).
"""
from __future__ import annotations

import copy
import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .scalar_template import pretty_class_name

__all__ = ["yaml_dump", "yaml_dump_typed", "yaml_load", "yaml_load_data", "yaml_load_file", "yaml_load_typed"]

_SCALARS = (bool, int, float, str, bytes)


class _TaggedLoader(yaml.SafeLoader):
    """SafeLoader that reads any `!Tag` mapping as a dict with an extra `_tag` entry (Drake's variant spelling)."""


def _construct_tagged(loader: _TaggedLoader, tag: str, node: yaml.Node) -> dict:
    result = loader.construct_mapping(node)
    result["_tag"] = tag
    return result


_TaggedLoader.add_multi_constructor("", _construct_tagged)


class _TaggedDumper(yaml.SafeDumper):
    """SafeDumper that writes a dict's `_tag` entry back as the mapping's tag, and refuses mallard objects."""


def _represent_dict(dumper: _TaggedDumper, data: dict) -> yaml.Node:
    if "_tag" in data:
        rest = {k: v for k, v in data.items() if k != "_tag"}
        return dumper.represent_mapping(data["_tag"], rest)
    return dumper.represent_dict(data)


def _represent_other(dumper: _TaggedDumper, data: Any) -> yaml.Node:
    if getattr(type(data), "__module__", "").startswith("mallard"):
        raise yaml.representer.RepresenterError(
            "yaml_dump does not operate on mallard objects; use yaml_dump_typed instead", data)
    return dumper.represent_undefined(data)


_TaggedDumper.add_representer(dict, _represent_dict)
_TaggedDumper.add_representer(None, _represent_other)


def yaml_load_data(data: Any, *, private: bool = False) -> Any:
    """The YAML document in the str (or stream) `data` as plain Python data; root keys starting with `_` (anchors,
    templates) are dropped unless `private`."""
    result = yaml.load(data, Loader=_TaggedLoader)
    if not private and isinstance(result, dict):
        for key in [k for k in result if isinstance(k, str) and k.startswith("_")]:
            del result[key]
    return result


def yaml_load_file(filename: str | Path, *, private: bool = False) -> Any:
    """yaml_load_data on the contents of the file `filename`."""
    with open(filename, "r") as stream:
        return yaml_load_data(stream, private=private)


def _one_source(data: Any, filename: Any) -> None:
    if (data is None) == (filename is None):
        which = "both were non-None" if data is not None else "both were None"
        raise RuntimeError(f"Exactly one of `data=...` or `filename=...` must be provided, but {which}")


def yaml_load(*, data: Any = None, filename: str | Path | None = None, private: bool = False) -> Any:
    """The YAML of exactly one of `data` (a str) or `filename` as plain Python data (no schema, no defaults)."""
    _one_source(data, filename)
    return yaml_load_data(data, private=private) if data is not None else yaml_load_file(filename, private=private)


def yaml_dump(data: Any, *, filename: str | Path | None = None) -> str | None:
    """`data` (plain Python data, `_tag` keys written as tags) as a YAML str, or written to `filename`."""
    if filename is None:
        return yaml.dump(data, Dumper=_TaggedDumper, default_flow_style=None)
    with open(filename, "w") as stream:
        yaml.dump(data, stream, Dumper=_TaggedDumper, default_flow_style=None)
    return None


# ---- typed loading ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Options:
    allow_yaml_with_no_schema: bool
    allow_schema_with_no_yaml: bool
    retain_map_defaults: bool


def _fields(schema: type) -> dict[str, Any]:
    """{name: type} of a schema class (a dataclass, or a class with Drake's `__fields__`)."""
    if dataclasses.is_dataclass(schema):
        hints = typing.get_type_hints(schema)
        return {f.name: hints.get(f.name, f.type) for f in dataclasses.fields(schema)}
    fields = getattr(schema, "__fields__", None)
    if fields is not None and not isinstance(fields, Mapping):
        return {f.name: f.type for f in fields}
    raise TypeError(f"yaml schema {schema!r} is not a dataclass; declare it with @dataclasses.dataclass")


def _is_union(schema: Any) -> bool:
    return typing.get_origin(schema) in (typing.Union, types.UnionType)


def _optional_of(schema: Any) -> Any:
    """T when schema is Optional[T], else None."""
    args = typing.get_args(schema) if _is_union(schema) else ()
    return args[0] if len(args) == 2 and args[1] is type(None) else None


def _new_of(schema: Any, yaml_value: Any) -> Any:
    """A default instance of schema to merge yaml_value into (None for a Union, a NaN array for an ndarray)."""
    if _is_union(schema):
        return None
    if schema is np.ndarray:
        return np.full(len(yaml_value), math.nan)
    return (typing.get_origin(schema) or schema)()


def _scalar(value: Any, schema: type, name: str) -> Any:
    """value converted to the scalar type schema without losing what the document wrote, else an error."""
    if isinstance(value, (list, dict)):
        raise RuntimeError(f"Expected a {schema} value for '{name}' but instead got non-scalar yaml data of type "
                           f"{type(value)}")
    kind = type(value)
    if kind is schema:
        return value
    if kind is int and schema is float:
        return float(value)
    if kind is float and schema is int and value.is_integer():
        return int(value)
    if kind is str and schema in (int, float):
        return schema(value)
    if kind is str and schema is bool and value in ("true", "false"):
        return value == "true"
    raise RuntimeError(f"Expected a {schema} value for '{name}' but instead got yaml data of type {kind} ({value!r})")


def _parse(options: _Options, name: str, value: Any, old: Any, schema: Any) -> Any:
    """The value of type schema that the yaml `value` gives when merged over the current `old`."""
    if schema in _SCALARS:
        return _scalar(value, schema, name)
    inner = _optional_of(schema)
    if inner is not None:
        if value is None:
            return None
        return _parse(options, name, value, _new_of(inner, value) if old is None else old, inner)
    if schema is Path:
        if not isinstance(value, str):
            raise RuntimeError(f"Expected a !!str value for '{name}: Path' but instead got yaml data of type "
                               f"{type(value)}")
        return Path(value)
    if schema is np.ndarray:
        return np.array(value, dtype=float)
    origin, args = typing.get_origin(schema), typing.get_args(schema)
    if origin in (list, typing.List):
        return [_parse(options, "_", item, _new_of(args[0], item), args[0]) for item in value]
    if origin in (dict, Mapping):
        result = copy.deepcopy(old) if options.retain_map_defaults and old is not None else {}
        for key, item in value.items():
            result[key] = _parse(options, key, item, result[key] if key in result else _new_of(args[1], item),
                                 args[1])
        return result
    if _is_union(schema):
        return _parse_union(options, name, value, old, args)
    if origin is not None:
        raise TypeError(f"yaml schema type {schema} of '{name}' is not supported (lists, dicts, Optional, Union, "
                        "numpy arrays, scalars and dataclasses are)")
    target = copy.deepcopy(old)
    _merge(options, value, target, schema)
    return target


def _parse_union(options: _Options, name: str, value: Any, old: Any, args: tuple) -> Any:
    """A Union field: a scalar of one of its types, else the alternative its `!Tag` names (default: the first)."""
    if value is None or type(value) in _SCALARS:
        if type(value) in args:
            return value
        first = args[0]
        try:
            return _scalar(value, first, name) if first in _SCALARS else first(value)
        except Exception:
            raise RuntimeError(f"The schema sum type for '{name}' cannot accept a yaml value '{value}' of type "
                               f"{type(value)}; only one of {args} are acceptable") from None
    chosen, body = args[0], value
    if "_tag" in value:
        body = dict(value)
        tag = body.pop("_tag").lstrip("!")
        names = {pretty_class_name(a).split("[", 1)[0]: a for a in args}
        if tag not in names:
            raise RuntimeError(f"The yaml type tag value '{tag}' did not match any of the allowed type options for "
                               f"'{name}' ({args})")
        chosen = names[tag]
    base = typing.get_origin(chosen) or chosen
    if not isinstance(old, base):
        old = _new_of(base, body)
    return _parse(options, name, body, old, chosen)


def _merge(options: _Options, yaml_dict: Any, target: Any, schema: type) -> None:
    """Sets the fields of target (an instance of schema) from yaml_dict, checking unknown and missing keys."""
    if not isinstance(yaml_dict, Mapping):
        raise RuntimeError(f"Expected a mapping for {pretty_class_name(schema)} but instead got yaml data "
                           f"{yaml_dict!r}")
    fields = _fields(schema)
    optional = {n for n, t in fields.items() if _optional_of(t) is not None}
    extra = [n for n in yaml_dict if n not in fields]
    missing = [n for n in fields if n not in yaml_dict and n not in optional]
    if extra and not options.allow_yaml_with_no_schema:
        raise RuntimeError(f"The fields {extra} were unknown to the schema")
    if missing and not options.allow_schema_with_no_yaml:
        raise RuntimeError(f"The fields {missing} were missing in the yaml data")
    get, put = ((target.__getitem__, target.__setitem__) if isinstance(target, Mapping)
                else (lambda n: getattr(target, n), lambda n, v: setattr(target, n, v)))
    for name, field_type in fields.items():
        if name in yaml_dict:
            value = yaml_dict[name]
        elif name in optional and not options.allow_schema_with_no_yaml:
            value = None
        else:
            continue
        put(name, _parse(options, name, value, get(name), field_type))


def yaml_load_typed(*, schema: type | None = None, data: str | None = None, filename: str | Path | None = None,
                    child_name: str | None = None, defaults: Any = None, allow_yaml_with_no_schema: bool = False,
                    allow_schema_with_no_yaml: bool = True, retain_map_defaults: bool = True) -> Any:
    """An instance of the dataclass `schema` (or of type(defaults)) read from the YAML of `data` xor `filename`
    (its `child_name` entry when given), merged over `defaults` (default: schema()) by Drake's YamlLoad rules."""
    _one_source(data, filename)
    if schema is None and defaults is None:
        raise ValueError("At least one of schema= and defaults= must be provided")
    schema = type(defaults) if schema is None else schema
    document = yaml_load(data=data, filename=filename)
    if child_name is not None:
        document = document[child_name]
    if not isinstance(document, Mapping):
        raise RuntimeError(f"YAML root was a {type(document)} but should have been a dict")
    options = _Options(allow_yaml_with_no_schema, allow_schema_with_no_yaml, retain_map_defaults)
    result = copy.deepcopy(defaults) if defaults is not None else schema()
    _merge(options, document, result, schema)
    return result


# ---- typed dumping ------------------------------------------------------------------------------------------------

class _ExplicitScalar(typing.NamedTuple):
    """A scalar written with its tag (`!!int 3`): a Union member other than the first that is a plain scalar."""
    value: Any
    schema: type


class _TypedDumper(_TaggedDumper):
    """Drake's "flow" style (yaml_write_archive.cc): a sequence of scalars on one line, a map on one line only
    when empty; explicit scalars keep their `!!type` tag (under a private tag prefix written as `!!`, so the
    emitter quotes the value as Drake's writer does: `!!int '3'`)."""

    EXPLICIT = "tag:mallard/explicit:"
    DEFAULT_TAG_PREFIXES = {**yaml.SafeDumper.DEFAULT_TAG_PREFIXES, EXPLICIT: "!!"}

    def serialize_node(self, node: yaml.Node, parent: Any, index: Any) -> None:
        if isinstance(node, yaml.MappingNode):
            node.flow_style = not node.value
        return super().serialize_node(node, parent, index)


def _represent_explicit(dumper: _TypedDumper, scalar: _ExplicitScalar) -> yaml.Node:
    node = dumper.represent_data(scalar.value)
    node.tag = _TypedDumper.EXPLICIT + scalar.schema.__name__
    return node


_TypedDumper.add_representer(_ExplicitScalar, _represent_explicit)


def _plain(value: Any, schema: Any) -> Any:
    """value (of type schema) as plain YAML data: dataclasses as maps in field order (absent Optionals left out),
    dict keys sorted, arrays as nested lists, a Union member other than the first tagged."""
    if schema in _SCALARS:
        return schema(value)
    origin, args = typing.get_origin(schema), typing.get_args(schema)
    if origin in (list, typing.List):
        return [_plain(v, args[0]) for v in value]
    if origin in (dict, Mapping):
        if args[0] is not str:
            raise RuntimeError(f"Dict keys must be strings, not {args[0]}")
        return {k: _plain(value[k], args[1]) for k in sorted(value)}
    inner = _optional_of(schema)
    if inner is not None:
        return None if value is None else _plain(value, inner)
    if _is_union(schema):
        if value is None:
            if type(None) in args:
                return None
            raise RuntimeError(f"The {schema} does not allow None as a value")
        index = next((i for i, a in enumerate(args) if isinstance(value, typing.get_origin(a) or a)), None)
        if index is None:
            raise RuntimeError(f"A value of type {type(value)} did not match any {schema}")
        out = _plain(value, args[index])
        if index and args[index] in (bool, int, float, str):
            out = _ExplicitScalar(out, args[index])
        elif index and isinstance(out, dict):
            out["_tag"] = "!" + pretty_class_name(args[index]).split("[", 1)[0]
        return out
    if schema is Path:
        return str(value)
    if schema is np.ndarray:
        return np.asarray(value, dtype=float).tolist()
    out = {}
    for name, field_type in _fields(schema).items():
        item = _plain(getattr(value, name), field_type)
        if item is not None or _optional_of(field_type) is None:
            out[name] = item
    return out


def _erase_defaults(node: dict, defaults: dict) -> None:
    """Removes from node the entries equal to defaults', recursing into maps of the same tag."""
    for key in [k for k in node if k in defaults]:
        mine, theirs = node[key], defaults[key]
        if mine == theirs:
            del node[key]
        elif isinstance(mine, dict) and isinstance(theirs, dict) and mine.get("_tag") == theirs.get("_tag"):
            _erase_defaults(mine, theirs)


def yaml_dump_typed(data: Any, *, filename: str | Path | None = None, schema: type | None = None,
                    child_name: str | None = None, defaults: Any = None) -> str | None:
    """The instance `data` of a dataclass `schema` (default type(data)) as YAML, as a str or written to
    `filename`, under `child_name` when given; with `defaults`, only what differs from them is written."""
    if data is None:
        raise RuntimeError("yaml_dump_typed needs data (got None)")
    schema = type(data) if schema is None else schema
    root = _plain(data, schema)
    if defaults is not None:
        _erase_defaults(root, _plain(defaults, schema))
    if child_name is not None:
        root = {child_name: root}
    if not isinstance(root, Mapping):
        raise RuntimeError(f"YAML root was a {type(root)} but should have been a dict")
    if filename is None:
        return yaml.dump(root, Dumper=_TypedDumper, default_flow_style=None, sort_keys=False)
    with open(filename, "w", encoding="utf-8") as stream:
        yaml.dump(root, stream, Dumper=_TypedDumper, default_flow_style=None, sort_keys=False)
    return None
