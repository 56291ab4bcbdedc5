"""PackageMap: package name → folder, and resolution of `package://`, `model://`, `file://` URLs.

Mirrors pydrake.multibody.parsing.PackageMap (without remote packages: nothing is downloaded).
A package is a folder holding a ROS-style `package.xml` whose `<name>` names it.
"""
from __future__ import annotations

import os
from typing import Optional

from lxml import etree

__all__ = ["PackageMap", "UnknownPackageError"]


class UnknownPackageError(KeyError):
    """A package name that is not in the PackageMap. The message lists the known packages."""

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


class PackageMap:
    """Maps ROS-style package names to folders on disk (pydrake's PackageMap API)."""

    def __init__(self) -> None:
        self._paths: dict[str, str] = {}

    @staticmethod
    def MakeEmpty() -> "PackageMap":
        """A map with no packages."""
        return PackageMap()

    def __repr__(self) -> str:
        return f"PackageMap({sorted(self._paths)})"

    def size(self) -> int:
        """Number of packages."""
        return len(self._paths)

    def Contains(self, package_name: str) -> bool:
        """Whether `package_name` is known."""
        return package_name in self._paths

    def GetPackageNames(self) -> list[str]:
        """The known package names."""
        return list(self._paths)

    def _unknown(self, package_name: str, context: str = "") -> UnknownPackageError:
        known = ", ".join(f"'{n}'" for n in sorted(self._paths)) or "none"
        return UnknownPackageError(
            f"{context}unknown package '{package_name}'; known packages: {known}. Add it with "
            f"PackageMap.Add(name, path), AddPackageXml(path/to/package.xml) or PopulateFromFolder.")

    def GetPath(self, package_name: str) -> str:
        """The folder of `package_name` (ending with a path separator)."""
        if package_name not in self._paths:
            raise self._unknown(package_name)
        return self._paths[package_name]

    def Add(self, package_name: str, package_path: str) -> None:
        """Add a package. Re-adding the same name with an equivalent path is allowed; a
        different path raises ValueError, as does a folder that does not exist."""
        if not package_name or "/" in package_name:
            raise ValueError(f"PackageMap.Add: invalid package name {package_name!r}")
        path = _normalize_dir(package_path)
        if not os.path.isdir(path):
            raise ValueError(f"PackageMap.Add cannot add '{package_name}' because directory "
                             f"'{package_path}' does not exist")
        old = self._paths.get(package_name)
        if old is not None and os.path.realpath(old) != os.path.realpath(path):
            raise ValueError(f"PackageMap.Add cannot add '{package_name}' because the paths are not "
                             f"equivalent ('{old}' vs '{path}')")
        self._paths[package_name] = path

    def AddMap(self, other_map: "PackageMap") -> None:
        """Add every package of `other_map` (same conflict rules as Add)."""
        for name, path in other_map._paths.items():
            self.Add(name, path)

    def AddPackageXml(self, filename: str) -> None:
        """Add the package described by the manifest `filename` (its folder is the package)."""
        name = _read_package_name(filename)
        self.Add(name, os.path.dirname(os.path.abspath(str(filename))))

    def Remove(self, package_name: str) -> None:
        """Remove a package; unknown names raise UnknownPackageError."""
        if package_name not in self._paths:
            raise self._unknown(package_name, "PackageMap.Remove: ")
        del self._paths[package_name]

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
                if name not in self._paths:
                    self.Add(name, dirpath)

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
            if package not in self._paths:
                raise self._unknown(package, f"URI '{url}' refers to an ")
            if not relative:
                raise ValueError(f"URI '{url}' names a package but no file inside it")
            path = os.path.join(self._paths[package], relative)
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
