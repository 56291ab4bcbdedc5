"""Format dispatch (file, string, URL) and the pose walk over records."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mallard.parsers import (CalcLinkPosesInWorld, PackageMap, ParseError, ReadModels,
                             ReadModelsFromString, ReadModelsFromUrl)

DATA = Path(__file__).resolve().parent / "data"


def _package_map() -> PackageMap:
    pm = PackageMap()
    pm.PopulateFromFolder(str(DATA))
    return pm


def test_read_from_url_matches_read_from_file() -> None:
    pm = _package_map()
    by_url = ReadModelsFromUrl("package://mallard_test_models/urdf/finger.urdf", pm)
    by_file = ReadModels(str(DATA / "test_pkg" / "urdf" / "finger.urdf"), pm)
    assert [lk.name for lk in by_url[0].links] == [lk.name for lk in by_file[0].links] == \
        ["palm", "tip"]
    assert by_url[0].filename == str(DATA / "test_pkg" / "urdf" / "finger.urdf")
    with pytest.raises(ParseError, match="unknown package 'nope'") as info:
        ReadModelsFromUrl("package://nope/robot.urdf", pm)
    assert info.value.filename == "package://nope/robot.urdf"


def test_read_from_string_dispatch() -> None:
    urdf = '<robot name="r"><link name="a"/></robot>'
    sdf = '<sdf version="1.9"><model name="s"><link name="a"/></model></sdf>'
    assert ReadModelsFromString(urdf, "urdf")[0].format == "urdf"
    assert ReadModelsFromString(sdf, ".sdf")[0].format == "sdf"
    with pytest.raises(ValueError, match="file_type 'xml' is not recognized"):
        ReadModelsFromString(sdf, "xml")
    with pytest.raises(ParseError, match="root element must be <robot>"):
        ReadModelsFromString(sdf, "urdf")


def test_world_link_geometry_and_mass_defaults() -> None:
    urdf = ('<robot name="r"><link name="world"><visual><geometry><box size="1 1 1"/>'
            '</geometry></visual></link><link name="a"/>'
            '<joint name="j" type="fixed"><parent link="world"/><child link="a"/>'
            '<origin xyz="0 0 2"/></joint></robot>')
    (m,) = ReadModelsFromString(urdf, "urdf")
    assert [lk.name for lk in m.links] == ["a"]
    (g,) = m.world_geometries
    np.testing.assert_array_equal(g.shape.size, [1, 1, 1])
    assert m.links[0].inertial.mass == 0.0  # URDF: a link without <inertial> is massless
    X = CalcLinkPosesInWorld([m])[("r", "a")]
    np.testing.assert_array_equal(X[:3, 3], [0, 0, 2])


def test_pose_walk_rejects_loops() -> None:
    sdf = ('<sdf version="1.9"><model name="m"><link name="a"/><link name="b"/>'
           '<joint name="j1" type="fixed"><parent>a</parent><child>b</child></joint>'
           '<joint name="j2" type="fixed"><parent>world</parent><child>b</child></joint>'
           '</model></sdf>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = ReadModelsFromString(sdf, "sdf")
    with pytest.raises(ValueError, match="child of two joints"):
        CalcLinkPosesInWorld(models)
