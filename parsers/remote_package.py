"""Remote packages of a PackageMap: RemoteParams and the download-verify-extract step (pydrake's AddRemote).

A remote package is an archive at one of several URLs with a known SHA-256. It is fetched on first use
into a per-user cache, `<cache>/mallard/package_map/<sha256>-<sha256(strip_prefix)>` (Drake's layout, under
mallard's folder), where <cache> is $TEST_TMPDIR/.cache, $XDG_CACHE_HOME or ~/.cache as for Drake. A copy
that Drake already fetched (`<cache>/drake/package_map/...`, same key) is used as is. Only the standard
library is used: urllib for http(s)/file URLs, hashlib for the checksum, shutil to unpack. The network
policy variable DRAKE_ALLOW_NETWORK is honoured as Drake does ("none" or a list without "package_map" keeps
only file:// URLs).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, field_validator

__all__ = ["RemoteParams", "cached_package_dir", "fetch_remote_package"]


class RemoteParams(BaseModel):
    """Where a remote package comes from: candidate `urls`, the archive's `sha256`, and optionally its
    `archive_type` ("zip", "tar", "gztar", ... as shutil names them; default: from the URL) and the
    `strip_prefix` folder inside the archive that is the package."""

    model_config = ConfigDict(validate_assignment=True, extra="forbid")

    urls: list[str] = []
    sha256: str = ""
    archive_type: Optional[str] = None
    strip_prefix: Optional[str] = None

    @field_validator("urls", mode="before")
    @classmethod
    def _url_list(cls, value):
        return [str(u) for u in value]

    def ToJson(self) -> str:
        """The parameters as compact JSON with sorted keys (unset optional fields omitted), as Drake writes them."""
        data = {k: v for k, v in self.model_dump().items() if v is not None}
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def __repr__(self) -> str:
        return (f"RemoteParams(urls={self.urls!r}, sha256={self.sha256!r}, archive_type={self.archive_type!r}, "
                f"strip_prefix={self.strip_prefix!r})")

    __str__ = __repr__


def _cache_root() -> Path:
    """Drake's rule for ~/.cache: $TEST_TMPDIR/.cache, else $XDG_CACHE_HOME, else ~/.cache."""
    if os.environ.get("TEST_TMPDIR"):
        return Path(os.environ["TEST_TMPDIR"]) / ".cache"
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"])
    return Path.home() / ".cache"


def _cache_key(params: RemoteParams) -> str:
    prefix_hash = hashlib.sha256((params.strip_prefix or "").encode()).hexdigest()
    return f"{params.sha256}-{prefix_hash}"


def cached_package_dir(params: RemoteParams) -> Optional[Path]:
    """The already-fetched copy of the package (mallard's cache, else Drake's), or None."""
    root, key = _cache_root(), _cache_key(params)
    for tool in ("mallard", "drake"):
        folder = root / tool / "package_map" / key
        if folder.is_dir():
            return folder
    return None


def _network_allowed() -> bool:
    value = os.environ.get("DRAKE_ALLOW_NETWORK")
    if not value:
        return True
    parts = value.split(":")
    return "none" not in parts and "package_map" in parts


def _archive_format(params: RemoteParams, url: str) -> Optional[str]:
    if params.archive_type:
        aliases = {"tar.gz": "gztar", "tgz": "gztar", "tar.bz2": "bztar", "tar.xz": "xztar"}
        return aliases.get(params.archive_type, params.archive_type)
    return None  # shutil infers it from the file name


def fetch_remote_package(package_name: str, params: RemoteParams) -> Path:
    """Download (first URL that works and matches the checksum), verify, extract and cache the package.

    Returns its folder. Raises RuntimeError naming the package, every URL tried and why it failed.
    """
    cached = cached_package_dir(params)
    if cached is not None:
        return cached
    urls = params.urls if _network_allowed() else [u for u in params.urls if u.startswith("file://")]
    cache = _cache_root() / "mallard" / "package_map"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RuntimeError(f"PackageMap: when downloading '{package_name}', could not create the cache folder "
                           f"'{cache}': {exc}") from None
    output = cache / _cache_key(params)
    errors = []
    with tempfile.TemporaryDirectory(dir=cache, prefix=f"temp.{output.name}.") as tmp:
        archive = None
        for url in urls:
            name = urllib.parse.urlparse(url).path.split("/")[-1] or "archive"
            candidate = Path(tmp) / name
            hasher = hashlib.sha256()
            try:
                with urllib.request.urlopen(url, timeout=30) as response, open(candidate, "wb") as f:
                    while chunk := response.read(1 << 16):
                        hasher.update(chunk)
                        f.write(chunk)
            except (OSError, ValueError) as exc:
                errors.append(f"{url}: {exc}")
                continue
            if hasher.hexdigest() != params.sha256:
                errors.append(f"{url}: checksum mismatch; was {hasher.hexdigest()} but wanted {params.sha256}")
                continue
            archive = (candidate, url)
            break
        if archive is None:
            tried = "\n  ".join(errors) if errors else "(no URL allowed: DRAKE_ALLOW_NETWORK keeps only file:// URLs)"
            raise RuntimeError(f"PackageMap: could not download package '{package_name}'. Tried:\n  {tried}")
        unpack = Path(tmp) / "unpack"
        try:
            shutil.unpack_archive(str(archive[0]), str(unpack), format=_archive_format(params, archive[1]))
        except (ValueError, shutil.ReadError, OSError) as exc:
            raise RuntimeError(f"PackageMap: could not unpack package '{package_name}' downloaded from "
                               f"{archive[1]}: {exc}") from None
        package_dir = unpack / (params.strip_prefix or "")
        if not package_dir.is_dir():
            raise RuntimeError(f"PackageMap: the strip_prefix='{params.strip_prefix}' of package '{package_name}' "
                               f"does not exist within {archive[1]}")
        staged = Path(tmp) / "incoming"
        shutil.move(str(package_dir), str(staged))
        try:
            staged.rename(output)
        except OSError:
            if not output.is_dir():  # another process may have finished the same download first
                raise
        (cache / f"{output.name}.README").write_text(
            f"Our sibling folder ./{output.name} contains package://{package_name}.\n\nIt was downloaded by mallard "
            "from one of these URLs:\n" + "".join(f" {u}\n" for u in params.urls))
    return output
