"""PackageMap: package name → folder, and resolution of `package://`, `model://`, `file://` URLs.

Mirrors pydrake.multibody.parsing.PackageMap. A package is a folder holding a ROS-style `package.xml`
whose `<name>` names it, or a remote archive fetched on first use (`AddRemote`, see remote_package).
`PackageMap()` knows Drake's two packages as pydrake's does: `drake` (Drake's resource files, found
through DRAKE_RESOURCE_ROOT or an installed drake wheel; see mallard.common.find_resource) and
`drake_models` (https://github.com/RobotLocomotion/models at Drake v1.51.1's pinned commit, downloaded
on first use, or taken from `$DRAKE_RESOURCE_ROOT/drake_models` when that folder exists).
"""
from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import Optional

from lxml import etree

from mallard.common.find_resource import DRAKE_RESOURCE_ROOT, GetDrakeResourceRoot

from .remote_package import RemoteParams, fetch_remote_package

__all__ = ["PackageMap", "UnknownPackageError"]

# Drake v1.51.1's pin of drake_models (drake/multibody/parsing/drake_models.json), used when no Drake resource
# root provides that file.
_DRAKE_MODELS_COMMIT = "deee02d4d79937e112cb428e638e7ee44d51305f"
_DRAKE_MODELS = dict(
    urls=[f"https://github.com/RobotLocomotion/models/archive/{_DRAKE_MODELS_COMMIT}.tar.gz",
          f"https://drake-mirror.csail.mit.edu/github/RobotLocomotion/models/{_DRAKE_MODELS_COMMIT}.tar.gz",
          f"https://s3.amazonaws.com/drake-mirror/github/RobotLocomotion/models/{_DRAKE_MODELS_COMMIT}.tar.gz"],
    sha256="9f5bc1b923e4de584a030d17c1fcfedfc1ca29e805c453156cab297e6bb89054",
    strip_prefix=f"models-{_DRAKE_MODELS_COMMIT}")


class UnknownPackageError(KeyError, RuntimeError):
    """A package name that is not in the PackageMap. The message lists the known packages.

    A KeyError (a failed lookup) and a RuntimeError, which pydrake raises for the same condition.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _normalize_dir(path: str) -> str:
    return os.path.join(os.path.abspath(os.path.expanduser(str(path))), "")


def _read_package_name(filename: str) -> str:
    """The `<name>` of a package.xml; ValueError if it has none or is not XML."""
    try:
        root = etree.parse(str(filename), etree.XMLParser(resolve_entities=False, no_network=True))
    except (OSError, etree.XMLSyntaxError) as exc:
        raise ValueError(f"cannot read package manifest '{filename}': {exc}") from None
    name_el = root.getroot().find("name")
    if name_el is None or not (name_el.text or "").strip():
        raise ValueError(f"package manifest '{filename}' has no <name> element")
    return name_el.text.strip()


@dataclass
class _Package:
    """One entry: a local folder, a remote archive (fetched into `path` on first use), or a package that is
    known but unavailable here (`missing` says why and what to do)."""

    path: Optional[str] = None
    remote: Optional[RemoteParams] = None
    missing: Optional[str] = None


def _drake_models_params(root: Optional[str]) -> RemoteParams:
    if root is not None:
        pin = os.path.join(root, "drake", "multibody", "parsing", "drake_models.json")
        if os.path.isfile(pin):
            with open(pin, encoding="utf-8") as f:
                data = json.load(f)
            return RemoteParams(urls=data["urls"], sha256=data["sha256"], strip_prefix=data.get("strip_prefix"))
    return RemoteParams(**_DRAKE_MODELS)


class PackageMap:
    """Maps ROS-style package names to folders on disk (pydrake's PackageMap API)."""

    RemoteParams = RemoteParams

    def __init__(self, other: Optional["PackageMap"] = None) -> None:
        self._packages: dict[str, _Package] = {}
        if other is not None:
            self._packages = {n: _Package(p.path, p.remote, p.missing) for n, p in other._packages.items()}
            return
        root = GetDrakeResourceRoot()
        if root is not None and os.path.isfile(os.path.join(root, "drake", "package.xml")):
            self._packages["drake"] = _Package(path=os.path.join(root, "drake"))
        else:
            self._packages["drake"] = _Package(missing=(
                f"package 'drake' holds Drake's resource files, which mallard does not ship, and no Drake resource "
                f"root was found. Set {DRAKE_RESOURCE_ROOT} to a folder that contains Drake's 'drake/' folder (the "
                "parent of a Drake source checkout, or the 'share' folder of an installed Drake), or install the "
                "drake wheel"))
        local_models = None if root is None else os.path.join(root, "drake_models")
        if local_models is not None and os.path.isfile(os.path.join(local_models, "package.xml")):
            self._packages["drake_models"] = _Package(path=local_models)
        else:
            self._packages["drake_models"] = _Package(remote=_drake_models_params(root))

    @staticmethod
    def MakeEmpty() -> "PackageMap":
        """A map with no packages."""
        return PackageMap._empty()

    @classmethod
    def _empty(cls) -> "PackageMap":
        pm = cls.__new__(cls)
        pm._packages = {}
        return pm

    def __copy__(self) -> "PackageMap":
        return PackageMap(other=self)

    def __deepcopy__(self, memo) -> "PackageMap":
        return PackageMap(other=self)

    def __repr__(self) -> str:
        return f"PackageMap({sorted(self._packages)})"

    def size(self) -> int:
        """Number of packages."""
        return len(self._packages)

    def Contains(self, package_name: str) -> bool:
        """Whether `package_name` is known."""
        return package_name in self._packages

    def GetPackageNames(self) -> list[str]:
        """The known package names, sorted."""
        return sorted(self._packages)

    def _unknown(self, package_name: str, context: str = "") -> UnknownPackageError:
        known = ", ".join(f"'{n}'" for n in sorted(self._packages)) or "none"
        return UnknownPackageError(
            f"{context}unknown package '{package_name}'; known packages: {known}. Add it with "
            f"PackageMap.Add(name, path), AddPackageXml(path/to/package.xml) or PopulateFromFolder.")

    def GetPath(self, package_name: str) -> str:
        """The folder of `package_name`, as it was added; a remote package is downloaded first if needed."""
        entry = self._packages.get(package_name)
        if entry is None:
            raise self._unknown(package_name)
        if entry.missing is not None:
            raise RuntimeError(f"PackageMap: {entry.missing}.")
        if entry.path is None:
            try:
                entry.path = str(fetch_remote_package(package_name, entry.remote))
            except RuntimeError as exc:
                hint = ""
                if package_name == "drake_models":
                    hint = (f"\nTo work offline, put a copy of https://github.com/RobotLocomotion/models in "
                            f"${DRAKE_RESOURCE_ROOT}/drake_models, or Remove('drake_models') and add a local copy "
                            "with AddPackageXml.")
                raise RuntimeError(f"{exc}{hint}") from None
        return entry.path

    def _same_local(self, package_name: str, path: str) -> bool:
        entry = self._packages[package_name]
        return entry.remote is None and entry.path is not None and \
            os.path.realpath(entry.path) == os.path.realpath(path)

    def _describe(self, package_name: str) -> str:
        entry = self._packages[package_name]
        if entry.remote is not None:
            return f"a remote package from {entry.remote.urls[0]}"
        return entry.path if entry.path is not None else "unavailable here"

    def _emplace(self, package_name: str, entry: _Package) -> None:
        old = self._packages.get(package_name)
        if old is not None:
            same = (old.remote is not None and old.remote == entry.remote) or (
                old.path is not None and entry.path is not None and old.remote is None and entry.remote is None
                and os.path.realpath(old.path) == os.path.realpath(entry.path)) or (
                old.missing is not None and old.missing == entry.missing)
            if not same:
                def describe(e):
                    return e.path if e.remote is None and e.path else (e.remote.urls if e.remote else "unavailable")
                raise ValueError(f"PackageMap already contains package '{package_name}' ({describe(old)}); it cannot "
                                 f"be added again as {describe(entry)} (the paths are not equivalent). Remove it "
                                 "first to replace it.")
            return
        self._packages[package_name] = entry

    def Add(self, package_name: str, package_path: str) -> None:
        """Add a local package folder (kept as given). Re-adding the same name with an equivalent path is
        allowed; a different path raises ValueError, as does a folder that does not exist."""
        if not package_name or "/" in package_name:
            raise ValueError(f"PackageMap.Add: invalid package name {package_name!r}")
        path = os.fspath(package_path)
        if not os.path.isdir(path):
            raise ValueError(f"PackageMap.Add cannot add '{package_name}' because directory "
                             f"'{package_path}' does not exist")
        self._emplace(package_name, _Package(path=path))

    def AddRemote(self, package_name: str, params: RemoteParams) -> None:
        """Add a package that is downloaded from `params.urls` (checksum `params.sha256`) on first use."""
        if not package_name or "/" in package_name:
            raise ValueError(f"PackageMap.AddRemote: invalid package name {package_name!r}")
        if not params.urls:
            raise ValueError(f"PackageMap.AddRemote: package '{package_name}' needs at least one URL")
        for url in params.urls:
            if not url.startswith(("http://", "https://", "file://")):
                raise ValueError(f"PackageMap.AddRemote: package '{package_name}': unsupported URL '{url}' "
                                 "(use http://, https:// or file://)")
        if len(params.sha256) != 64 or any(c not in "0123456789abcdef" for c in params.sha256):
            raise ValueError(f"PackageMap.AddRemote: package '{package_name}': sha256 must be 64 lower-case hex "
                             f"digits, got {params.sha256!r}")
        self._emplace(package_name, _Package(remote=params.model_copy(deep=True)))

    def AddMap(self, other_map: "PackageMap") -> None:
        """Add every package of `other_map` (same conflict rules as Add)."""
        for name, entry in other_map._packages.items():
            self._emplace(name, _Package(entry.path if entry.remote is None else None, entry.remote, entry.missing))

    def AddPackageXml(self, filename: str) -> None:
        """Add the package described by the manifest `filename` (its folder is the package)."""
        name = _read_package_name(filename)
        self.Add(name, os.path.dirname(os.fspath(filename)) or ".")

    def _is_remote(self, package_name: str) -> bool:
        """True when `package_name` is a remote package (fetched on first use) rather than a local folder."""
        entry = self._packages.get(package_name)
        return entry is not None and entry.remote is not None

    @staticmethod
    def _package_name_of(manifest: str) -> str:
        return _read_package_name(manifest)

    def Remove(self, package_name: str) -> None:
        """Remove a package; unknown names raise UnknownPackageError."""
        if package_name not in self._packages:
            raise self._unknown(package_name, "PackageMap.Remove: ")
        del self._packages[package_name]

    def PopulateFromFolder(self, path: str) -> None:
        """Add every package found (by its package.xml) under folder `path`, recursively.
        A name found twice keeps its first folder (in sorted walk order)."""
        root = os.path.abspath(str(path))
        if not os.path.isdir(root):
            raise ValueError(f"PackageMap.PopulateFromFolder: '{path}' is not a directory")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            if "package.xml" in filenames:
                name = _read_package_name(os.path.join(dirpath, "package.xml"))
                if name not in self._packages:
                    self.Add(name, _normalize_dir(dirpath))
                elif not self._same_local(name, dirpath):
                    warnings.warn(f"PackageMap is ignoring newly-found path '{_normalize_dir(dirpath)}' for package "
                                  f"'{name}': the map already has it ({self._describe(name)}). Remove it first to use "
                                  "the new folder.", stacklevel=2)

    def PopulateFromEnvironment(self, environment_variable: str) -> None:
        """PopulateFromFolder for each folder in the `os.pathsep`-separated variable's value
        (unset or empty variables add nothing; missing folders are skipped)."""
        if environment_variable == "ROS_PACKAGE_PATH":
            raise ValueError("PopulateFromEnvironment: use PopulateFromRosPackagePath for "
                             "ROS_PACKAGE_PATH")
        value = os.environ.get(environment_variable, "")
        for folder in value.split(os.pathsep):
            if folder and os.path.isdir(folder):
                self.PopulateFromFolder(folder)

    def PopulateFromRosPackagePath(self) -> None:
        """PopulateFromFolder for each folder in ROS_PACKAGE_PATH."""
        for folder in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
            if folder and os.path.isdir(folder):
                self.PopulateFromFolder(folder)

    def ResolveUrl(self, url: str, root_dir: Optional[str] = None) -> str:
        """Resolve `package://pkg/rel`, `model://pkg/rel`, `file:///abs` to an existing file path.

        Plain paths are taken relative to `root_dir` (or the working directory). Unknown
        packages raise UnknownPackageError; unsupported schemes and missing files ValueError.
        """
        url = str(url)
        if url.startswith("package://") or url.startswith("model://"):
            rest = url.split("://", 1)[1]
            package, _, relative = rest.partition("/")
            if not package:
                raise ValueError(f"URI '{url}' names no package")
            if package not in self._packages:
                raise self._unknown(package, f"URI '{url}' refers to an ")
            if not relative:
                raise ValueError(f"URI '{url}' names a package but no file inside it")
            path = os.path.join(self.GetPath(package), relative)
        elif url.startswith("file://"):
            path = url[len("file://"):]
            if not path.startswith("/"):
                raise ValueError(f"URI '{url}' must use an absolute path: file:///path/to/file")
        elif "://" in url:
            raise ValueError(f"URI '{url}' specifies an unsupported scheme; supported schemes are "
                             f"'file://', 'model://', and 'package://'.")
        else:
            path = url if os.path.isabs(url) else os.path.join(root_dir or os.getcwd(), url)
        path = os.path.normpath(path)
        if not os.path.exists(path):
            raise ValueError(f"URI '{url}' resolved to '{path}' which does not exist.")
        return path
