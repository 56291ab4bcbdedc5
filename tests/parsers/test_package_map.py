"""PackageMap: pydrake's API and URL resolution, checked against pydrake's PackageMap."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from oracles import require_pydrake

from mallard.parsers import PackageMap, UnknownPackageError

DATA = Path(__file__).resolve().parent / "data"
TEST_PACKAGE = DATA / "test_pkg"


def _pydrake_map():
    require_pydrake()
    from pydrake.multibody.parsing import PackageMap as DrakePackageMap
    return DrakePackageMap.MakeEmpty()


def test_add_get_contains_remove(models_dir: Path) -> None:
    pm = PackageMap.MakeEmpty()
    assert pm.size() == 0 and pm.GetPackageNames() == []
    pm.AddPackageXml(str(models_dir / "drake_models" / "package.xml"))
    assert pm.Contains("drake_models") and pm.size() == 1
    assert pm.GetPath("drake_models") == str(models_dir / "drake_models")  # as given, as pydrake
    pm.Add("drake_models", str(models_dir / "drake_models"))  # equivalent path: allowed
    with pytest.raises(ValueError, match="not equivalent"):
        pm.Add("drake_models", str(models_dir))
    with pytest.raises(ValueError, match="does not exist"):
        pm.Add("ghost", "/no/such/folder")
    pm.Remove("drake_models")
    assert not pm.Contains("drake_models")
    with pytest.raises(UnknownPackageError, match="unknown package 'drake_models'"):
        pm.Remove("drake_models")


def test_unknown_package_lists_known_ones() -> None:
    pm = PackageMap.MakeEmpty()
    pm.PopulateFromFolder(str(DATA))
    with pytest.raises(KeyError) as info:
        pm.GetPath("nope")
    message = str(info.value)
    assert "unknown package 'nope'" in message and "'mallard_test_models'" in message
    with pytest.raises(UnknownPackageError, match="known packages: 'mallard_test_models'"):
        pm.ResolveUrl("package://nope/x.sdf")


def test_populate_and_add_map_match_pydrake(models_dir: Path) -> None:
    ours = PackageMap.MakeEmpty()
    ours.PopulateFromFolder(str(models_dir))
    ours.PopulateFromFolder(str(DATA))
    theirs = _pydrake_map()
    theirs.PopulateFromFolder(str(models_dir))
    theirs.PopulateFromFolder(str(DATA))
    assert sorted(ours.GetPackageNames()) == sorted(theirs.GetPackageNames())
    for name in ours.GetPackageNames():
        assert ours.GetPath(name) == theirs.GetPath(name)
    combined = PackageMap.MakeEmpty()
    combined.AddMap(ours)
    assert sorted(combined.GetPackageNames()) == sorted(ours.GetPackageNames())


def test_populate_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLARD_TEST_PACKAGES", os.pathsep.join([str(DATA), "/no/such/dir"]))
    pm = PackageMap.MakeEmpty()
    pm.PopulateFromEnvironment("MALLARD_TEST_PACKAGES")
    assert pm.GetPackageNames() == ["mallard_test_models"]
    monkeypatch.delenv("MALLARD_TEST_PACKAGES")
    empty = PackageMap.MakeEmpty()
    empty.PopulateFromEnvironment("MALLARD_TEST_PACKAGES")
    assert empty.size() == 0


@pytest.mark.parametrize("url", [
    "package://mallard_test_models/models/arm/arm.sdf",
    "model://mallard_test_models/models/arm/arm.sdf",
    "package://mallard_test_models/urdf/finger.urdf",
    f"file://{TEST_PACKAGE}/urdf/finger.urdf",
])
def test_resolve_url_matches_pydrake(url: str) -> None:
    ours = PackageMap.MakeEmpty()
    ours.AddPackageXml(str(TEST_PACKAGE / "package.xml"))
    theirs = _pydrake_map()
    theirs.AddPackageXml(str(TEST_PACKAGE / "package.xml"))
    assert ours.ResolveUrl(url) == theirs.ResolveUrl(url)


@pytest.mark.parametrize("url, error, match", [
    ("package://mallard_test_models/missing.sdf", ValueError, "does not exist"),
    ("http://example.com/robot.urdf", ValueError, "unsupported scheme"),
    ("file://relative/path.urdf", ValueError, "absolute path"),
    ("package://mallard_test_models", ValueError, "no file"),
    ("package://other/robot.urdf", KeyError, "unknown package 'other'"),
])
def test_resolve_url_errors(url: str, error: type, match: str) -> None:
    pm = PackageMap.MakeEmpty()
    pm.AddPackageXml(str(TEST_PACKAGE / "package.xml"))
    with pytest.raises(error, match=match):
        pm.ResolveUrl(url)


def test_bad_manifest(tmp_path: Path) -> None:
    (tmp_path / "package.xml").write_text("<package><version>1</version></package>")
    with pytest.raises(ValueError, match="no <name>"):
        PackageMap().AddPackageXml(str(tmp_path / "package.xml"))
    (tmp_path / "package.xml").write_text("<package><name>x</package>")
    with pytest.raises(ValueError, match="cannot read package manifest"):
        PackageMap().PopulateFromFolder(str(tmp_path))
