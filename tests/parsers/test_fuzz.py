"""Fuzz: mutated URDF/SDFormat files either parse or raise ParseError naming file, line and
element — never another exception, never a hang."""
from __future__ import annotations

import copy
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from conftest import MODELS

from mallard.parsers import PackageMap, ParseError, ReadModelsFromString

DATA = Path(__file__).resolve().parent / "data"

BASES = [
    ("urdf", MODELS / "drake_examples" / "Acrobot.urdf"),
    ("urdf", MODELS / "drake_models" / "iiwa_description" / "urdf" /
     "iiwa14_primitive_collision.urdf"),
    ("urdf", DATA / "test_pkg" / "urdf" / "finger.urdf"),
    ("sdf", MODELS / "drake_examples" / "Acrobot.sdf"),
    ("sdf", MODELS / "drake_examples" / "cart_pole.sdf"),
    ("sdf", DATA / "nested_world.sdf"),
    ("sdf", DATA / "test_pkg" / "models" / "arm" / "arm.sdf"),
]
JUNK = ["", " ", "abc", "1 2", "nan", "-1", "0", "1e400", "inf", "world", "a::b", "__model__",
        "1 2 3 4 5 6 7", "package://nope/x.obj", "model://mallard_test_models/none",
        "0 0 0", "link_0", "base_link", "1.5\"", "true", "revolute2"]
TAGS = ["joint", "link", "pose", "foo", "inertial", "frame", "model", "axis", "limit", "geometry"]


def _package_map() -> PackageMap:
    pm = PackageMap.MakeEmpty()
    pm.AddPackageXml(str(MODELS / "drake_models" / "package.xml"))
    pm.PopulateFromFolder(str(DATA))
    return pm


PACKAGE_MAP = None


def _texts() -> list:
    out = []
    for kind, path in BASES:
        text = path.read_text().replace("meshes/box.obj", str(DATA / "meshes" / "box.obj"))
        out.append((kind, text))
    return out


@st.composite
def mutations(draw):
    base = draw(st.integers(0, len(BASES) - 1))
    ops = draw(st.lists(st.tuples(
        st.sampled_from(["attr_value", "attr_delete", "text", "delete", "rename", "duplicate"]),
        st.integers(0, 10 ** 6), st.sampled_from(JUNK), st.sampled_from(TAGS)),
        min_size=1, max_size=3))
    truncate = draw(st.one_of(st.none(), st.floats(0.05, 0.999)))
    return base, ops, truncate


def _apply(text: str, ops: list, truncate) -> str:
    root = etree.fromstring(text.encode())
    for kind, seed, junk, new_tag in ops:
        elements = [e for e in root.iter() if isinstance(e.tag, str)]
        e = elements[seed % len(elements)]
        if kind in ("attr_value", "attr_delete"):
            with_attrs = [x for x in elements if x.attrib]
            if not with_attrs:
                continue
            e = with_attrs[seed % len(with_attrs)]
            key = list(e.attrib)[seed % len(e.attrib)]
            if kind == "attr_value":
                e.set(key, junk)
            else:
                del e.attrib[key]
        elif kind == "text":
            leaves = [x for x in elements if len(x) == 0]
            leaves[seed % len(leaves)].text = junk
        elif e is not root and kind == "delete":
            e.getparent().remove(e)
        elif e is not root and kind == "rename":
            e.tag = new_tag
        elif e is not root and kind == "duplicate":
            e.addnext(copy.deepcopy(e))
    out = etree.tostring(root, pretty_print=True).decode()
    if truncate is not None:
        start = out.index(">") + 1
        out = out[: start + int((len(out) - start) * truncate)]
    return out


@settings(max_examples=700, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=mutations(), strict=st.booleans())
def test_mutated_files_parse_or_raise_located_parse_error(case, strict: bool) -> None:
    global PACKAGE_MAP
    if PACKAGE_MAP is None:
        if not MODELS.is_dir():
            pytest.skip("shared models not found")
        PACKAGE_MAP = _package_map()
    base, ops, truncate = case
    kind, text = _texts()[base]
    mutated = _apply(text, ops, truncate)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            models = ReadModelsFromString(mutated, kind, package_map=PACKAGE_MAP, strict=strict)
    except ParseError as err:
        assert err.filename, str(err)
        assert isinstance(err.line, int) and err.line >= 1, str(err)
        assert err.element, str(err)
        assert str(err).startswith(f"{err.filename}:{err.line}: <{err.element}>")
    else:
        assert models
        for m in models:
            assert _has_links(m, models), f"model '{m.name}' has no links, not even in a nested model"


def _has_links(model, models: list) -> bool:
    """A model must own a link or nest (at any depth) a model that does: SDFormat allows a model
    whose only contents are nested models (e.g. a `<world>` renamed `<model>`)."""
    prefix = model.name + "::"
    return bool(model.links) or any(m.links for m in models if m.name.startswith(prefix))


def test_has_links_check() -> None:
    from mallard.parsers import LinkRecord, ModelRecord
    outer, inner, empty = ModelRecord("a"), ModelRecord("a::b", links=[LinkRecord("x")]), ModelRecord("c")
    assert _has_links(outer, [outer, inner]) and _has_links(inner, [outer, inner])
    assert not _has_links(outer, [outer]) and not _has_links(empty, [outer, inner, empty])
    assert not _has_links(ModelRecord("a:"), [ModelRecord("a:"), inner])
