"""Resource providers: custom URI schemes for model files and assets (MuJoCo's mjpResourceProvider).

A provider is registered for a scheme (`prefix`); any resource name of the form `prefix:rest`
(scheme compared case-insensitively) is then opened, read and closed through its callbacks by the
parsers and mesh loaders. Names without a registered scheme are files on the file system. A
built-in provider serves RFC 2397 `data:` URIs (base64 or percent-encoded, with a media type), so a
whole model with its meshes can live in one string.

Callbacks (all receive the `Resource` being loaded; `resource.provider_data` is the provider's
constant `data`, `resource.data` is free for the callbacks to use):

* ``open(resource) -> bool``: check the resource exists and prepare it; False on failure.
* ``read(resource) -> bytes | None``: the resource's bytes; None on failure.
* ``close(resource) -> None``: release what `open` prepared.
* ``getdir(resource) -> str`` (optional): the "directory" part of the name, used to resolve
  relative names found inside the resource (e.g. ``mem:robots/arm.xml`` -> ``mem:robots/``).
* ``modified(resource, timestamp) -> int`` (optional): > 0 modified since `timestamp`, 0 not
  modified, < 0 unknown.
"""
from __future__ import annotations

import base64
import binascii
import os
import re
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote_to_bytes

__all__ = [
    "Resource", "ResourceProvider", "RegisterResourceProvider", "UnregisterResourceProvider",
    "GetResourceProvider", "CheckScheme", "OpenResource", "ReadResource", "ResourceDirectory", "JoinResourceName",
    "ParseDataUri", "ReadFileBounded",
]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")
_MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class ResourceProvider:
    """A registered provider: its scheme (lower case), callbacks and constant user data."""

    prefix: str
    open: Callable[["Resource"], bool]
    read: Callable[["Resource"], bytes | None]
    close: Callable[["Resource"], None]
    getdir: Callable[["Resource"], str] | None = None
    modified: Callable[["Resource", str], int] | None = None
    data: Any = None


@dataclass
class Resource:
    """An opened resource: its name, the provider serving it (None = file system) and its bytes.

    `content_type` is the media type when the provider knows it (`data:` URIs), else None.
    """

    name: str
    provider: ResourceProvider | None = None
    data: Any = None
    content_type: str | None = None
    _bytes: bytes | None = field(default=None, repr=False)
    _closed: bool = field(default=False, repr=False)

    @property
    def provider_data(self) -> Any:
        """The constant `data` the provider was registered with."""
        return None if self.provider is None else self.provider.data

    def read(self) -> bytes:
        """The resource's bytes (read once, then cached). Raises OSError if the read fails."""
        if self._bytes is not None:
            return self._bytes
        if self._closed:
            raise RuntimeError(f"resource '{_short(self.name)}' is closed; open it again with OpenResource")
        if self.provider is None:
            self._bytes = _read_file(self.name)
            return self._bytes
        try:
            out = self.provider.read(self)
        except (OSError, ValueError) as exc:
            raise OSError(f"resource provider '{self.provider.prefix}' failed to read "
                          f"'{_short(self.name)}': {exc}") from None
        if out is None or isinstance(out, int):
            raise OSError(f"resource provider '{self.provider.prefix}' failed to read '{_short(self.name)}' "
                          f"(its read callback reported failure)")
        if isinstance(out, str):
            raise ValueError(f"resource provider '{self.provider.prefix}': read callback must return bytes, "
                             f"got str for '{_short(self.name)}'")
        self._bytes = bytes(out)
        return self._bytes

    def getdir(self) -> str:
        """The directory part of the name, for resolving relative names found inside the resource."""
        if self.provider is None:
            return str(Path(self.name).parent)
        if self.provider.getdir is None:
            return ""
        return str(self.provider.getdir(self))

    def modified(self, timestamp: str) -> int:
        """> 0 if modified since `timestamp`, 0 if not, < 0 if unknown (no `modified` callback)."""
        if self.provider is None or self.provider.modified is None:
            return -1
        return int(self.provider.modified(self, timestamp))

    def close(self) -> None:
        """Release the provider's per-resource data (idempotent)."""
        if not self._closed and self.provider is not None:
            self.provider.close(self)
        self._closed = True

    def __enter__(self) -> "Resource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_LOCK = threading.Lock()
_PROVIDERS: dict[str, ResourceProvider] = {}
_BUILTIN = {"data"}


def _short(name: str, n: int = 80) -> str:
    return name if len(name) <= n else name[:n] + "..."


def RegisterResourceProvider(prefix: str, open: Callable[[Resource], bool], read: Callable[[Resource], bytes | None],
                             close: Callable[[Resource], None], getdir: Callable[[Resource], str] | None = None,
                             modified: Callable[[Resource, str], int] | None = None, data: Any = None) -> int:
    """Register a provider for URI scheme `prefix` (case-insensitive); returns its slot number (>= 1).

    As in MuJoCo, the prefix must be a valid URI scheme and must not be a prefix of (or have as a
    prefix) an already registered scheme. Registering the identical provider again returns its slot.
    Raises ValueError for an invalid or conflicting prefix, TypeError for non-callable callbacks.
    """
    if not isinstance(prefix, str) or not _SCHEME.match(prefix):
        raise ValueError(f"resource provider prefix {prefix!r} is not a valid URI scheme (a letter followed by "
                         f"letters, digits, '+', '-' or '.', e.g. 'http' or 'mem')")
    for name, cb in (("open", open), ("read", read), ("close", close)):
        if not callable(cb):
            raise TypeError(f"resource provider '{prefix}': callback '{name}' must be callable, got {cb!r}")
    for name, cb in (("getdir", getdir), ("modified", modified)):
        if cb is not None and not callable(cb):
            raise TypeError(f"resource provider '{prefix}': callback '{name}' must be callable or None")
    key = prefix.lower()
    new = ResourceProvider(key, open, read, close, getdir, modified, data)
    with _LOCK:
        existing = _PROVIDERS.get(key)
        if existing is not None:
            if existing == new:
                return list(_PROVIDERS).index(key) + 1
            raise ValueError(f"a different resource provider is already registered for scheme '{key}'; "
                             f"unregister it first with UnregisterResourceProvider('{key}')")
        for other in _PROVIDERS:
            if other.startswith(key) or key.startswith(other):
                raise ValueError(f"resource provider prefix '{prefix}' conflicts with the registered prefix "
                                 f"'{other}' (one is a prefix of the other)")
        _PROVIDERS[key] = new
        return len(_PROVIDERS)


def UnregisterResourceProvider(prefix: str) -> None:
    """Remove the provider registered for `prefix`. The built-in `data` provider cannot be removed."""
    key = prefix.lower() if isinstance(prefix, str) else prefix
    with _LOCK:
        if key in _BUILTIN:
            raise ValueError(f"the built-in resource provider '{key}' cannot be unregistered")
        if key not in _PROVIDERS:
            raise KeyError(f"no resource provider registered for scheme '{prefix}' "
                           f"(registered: {', '.join(sorted(_PROVIDERS))})")
        del _PROVIDERS[key]


def _scheme_of(name: str) -> str | None:
    i = name.find(":")
    if i <= 0:
        return None
    scheme = name[:i]
    return scheme if _SCHEME.match(scheme) else None


def GetResourceProvider(name: str) -> ResourceProvider | None:
    """The provider whose scheme matches resource `name` (`scheme:rest`, case-insensitive), or None."""
    scheme = _scheme_of(name)
    if scheme is None:
        return None
    with _LOCK:
        return _PROVIDERS.get(scheme.lower())


def CheckScheme(name: str) -> None:
    """Raise ValueError if `name` looks like `scheme:rest` (scheme longer than a drive letter) with an
    unregistered scheme; used to explain why a missing resource could not be found."""
    scheme = _scheme_of(os.fspath(name))
    if scheme is not None and len(scheme) > 1 and GetResourceProvider(os.fspath(name)) is None:
        raise ValueError(f"unknown resource scheme '{scheme}' in '{_short(os.fspath(name))}' (registered schemes: "
                         f"{', '.join(sorted(_PROVIDERS))}); register one with RegisterResourceProvider")


def ReadFileBounded(path: str | os.PathLike, max_bytes: int = _MAX_BYTES) -> bytes:
    """The bytes of the regular file `path`, read with a size bound.

    Raises OSError (FileNotFoundError when missing) for anything else: a device such as /dev/zero, a pipe
    or a folder (which could be read forever), or a file longer than `max_bytes` (checked while reading,
    so a file that grows or lies about its size cannot exhaust memory either)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"'{_short(os.fspath(path))}' is not a regular file (a device, pipe or folder); model "
                          "files and assets must be regular files")
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise FileNotFoundError(f"file '{_short(os.fspath(path))}' not found") from None
    except OSError as exc:
        raise OSError(exc.strerror and f"cannot read file '{_short(os.fspath(path))}': {exc.strerror}"
                      or str(exc)) from None
    if len(data) > max_bytes:
        raise OSError(f"file '{_short(os.fspath(path))}' is larger than {max_bytes} bytes")
    return data


def _read_file(path: str) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"resource '{_short(path)}' not found: no such file, and its name has no registered "
                                f"scheme (registered: {', '.join(sorted(_PROVIDERS))})")
    return ReadFileBounded(p)


def OpenResource(name: str | os.PathLike, base: str | os.PathLike | None = None) -> Resource:
    """Open resource `name` (relative names are resolved against `base` first, see JoinResourceName).

    Names with a registered scheme go to that provider; others are files. Raises ValueError for a
    `scheme:` name whose scheme is not registered and which is not an existing file, and OSError
    (FileNotFoundError for missing files) when the provider or the file system cannot open it.
    """
    name = JoinResourceName(base, name) if base is not None else os.fspath(name)
    if not isinstance(name, str) or not name:
        raise ValueError(f"resource name must be a non-empty string, got {name!r}")
    provider = GetResourceProvider(name)
    if provider is None:
        if not Path(name).exists():
            CheckScheme(name)
        res = Resource(name)
        res.read()  # fail early with a clear file error
        return res
    res = Resource(name, provider)
    try:
        ok = provider.open(res)
    except OSError as exc:
        raise OSError(f"resource provider '{provider.prefix}' cannot open '{_short(name)}': {exc}") from None
    except ValueError as exc:
        raise ValueError(f"resource provider '{provider.prefix}' cannot open '{_short(name)}': {exc}") from None
    if not ok:
        raise OSError(f"resource provider '{provider.prefix}' cannot open '{_short(name)}' "
                      f"(its open callback reported failure)")
    return res


def ReadResource(name: str | os.PathLike, base: str | os.PathLike | None = None) -> bytes:
    """Open, read and close resource `name` in one call; returns its bytes."""
    with OpenResource(name, base) as res:
        return res.read()


def ResourceDirectory(name: str | os.PathLike) -> str | Path:
    """The base against which names inside resource `name` resolve: the provider's getdir or the file's folder."""
    name = os.fspath(name)
    provider = GetResourceProvider(name)
    if provider is None:
        return Path(name).resolve().parent
    if provider.getdir is None:
        return ""
    res = Resource(name, provider)
    return str(provider.getdir(res))


def JoinResourceName(base: str | os.PathLike | None, name: str | os.PathLike) -> str:
    """Resolve `name` against `base` as MuJoCo does: names with a registered scheme and absolute paths
    are kept; others are appended to `base` (a folder, or a provider directory such as ``mem:dir/``)."""
    name = os.fspath(name)
    if GetResourceProvider(name) is not None or os.path.isabs(name) or base is None:
        return name
    base_s = os.fspath(base)
    if not base_s:
        return name
    if GetResourceProvider(base_s) is not None:
        return base_s + name
    return str(Path(base_s) / name)


# ---- the built-in data: provider (RFC 2397) ---------------------------------------------------------

_MEDIA = re.compile(r"^[A-Za-z0-9!#$&^_.+\-]+/[A-Za-z0-9!#$&^_.+\-]+$")


def ParseDataUri(uri: str) -> tuple[str, bytes]:
    """Decode a `data:[<mediatype>][;base64],<data>` URI into (media type, bytes).

    The media type defaults to ``text/plain;charset=US-ASCII``; parameters are kept in it. Raises
    ValueError naming the problem (no comma, bad media type, invalid base64).
    """
    if _scheme_of(uri) is None or uri[:5].lower() != "data:":
        raise ValueError(f"'{_short(uri)}' is not a data: URI")
    head, comma, payload = uri[5:].partition(",")
    if not comma:
        raise ValueError(f"data URI '{_short(uri)}' has no ',' separating the media type from the data")
    parts = [p.strip() for p in head.split(";")] if head else [""]
    is_b64 = len(parts) > 1 and parts[-1].lower() == "base64"
    if is_b64:
        parts = parts[:-1]
    mtype = parts[0] or "text/plain"
    if not _MEDIA.match(mtype):
        raise ValueError(f"data URI '{_short(uri)}': invalid media type '{mtype}' (expected type/subtype)")
    for p in parts[1:]:
        if "=" not in p:
            raise ValueError(f"data URI '{_short(uri)}': invalid parameter '{p}' (expected name=value, or "
                             f"';base64' as the last parameter)")
    params = parts[1:] if (parts[0] or len(parts) > 1) else ["charset=US-ASCII"]
    media = ";".join([mtype.lower()] + params)
    if is_b64:
        text = "".join(unquote_to_bytes(payload).decode("ascii", "replace").split())
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"data URI '{_short(uri)}': invalid base64 data ({exc})") from None
    else:
        data = unquote_to_bytes(payload)
    return media, data


def _data_open(res: Resource) -> bool:
    media, data = ParseDataUri(res.name)
    res.data = data
    res.content_type = media.split(";")[0]
    return True


def _data_read(res: Resource) -> bytes | None:
    return res.data


def _data_close(res: Resource) -> None:
    res.data = None


_PROVIDERS["data"] = ResourceProvider("data", _data_open, _data_read, _data_close)
