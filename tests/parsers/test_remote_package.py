"""PackageMap's Drake packages and remote packages, and FindResourceOrThrow: pydrake's behaviour without Drake.

Remote packages are served by a local HTTP server on the loopback interface (no network access needed)."""
from __future__ import annotations

import hashlib
import http.server
import io
import os
import threading
import zipfile
from pathlib import Path

import pytest

from oracles import require_pydrake

from mallard.common import FindResourceOrThrow
from mallard.multibody.parsing import PackageMap


def _zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("pkg_prefix/package.xml", "<package format='2'><name>remote_pkg</name></package>")
        z.writestr("pkg_prefix/README", "This package is remote.\n")
    return buf.getvalue()


@pytest.fixture()
def http_server(tmp_path):
    """A loopback HTTP server over tmp_path/www; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()
    (www / "pkg.zip").write_bytes(_zip_bytes())

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(www), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_TMPDIR", str(tmp_path / "tmpdir"))
    monkeypatch.delenv("DRAKE_ALLOW_NETWORK", raising=False)
    return tmp_path / "tmpdir" / ".cache"


def test_add_remote_downloads_verifies_and_caches(http_server, cache):
    sha = hashlib.sha256(_zip_bytes()).hexdigest()
    params = PackageMap.RemoteParams(urls=[f"{http_server}/missing.zip", f"{http_server}/pkg.zip"], sha256=sha,
                                     strip_prefix="pkg_prefix")
    assert '"strip_prefix":"pkg_prefix"' in params.ToJson() and '"archive_type"' not in params.ToJson()
    dut = PackageMap.MakeEmpty()
    dut.AddRemote(package_name="remote_pkg", params=params)
    assert dut.Contains("remote_pkg") and dut.size() == 1
    path = Path(dut.GetPath("remote_pkg"))
    assert (path / "README").read_text() == "This package is remote.\n"
    assert cache in path.parents
    assert dut.ResolveUrl("package://remote_pkg/README") == str(path / "README")
    # A second map finds the cached copy without the server.
    again = PackageMap.MakeEmpty()
    again.AddRemote("remote_pkg", PackageMap.RemoteParams(urls=["http://127.0.0.1:9/gone.zip"], sha256=sha,
                                                          strip_prefix="pkg_prefix"))
    assert again.GetPath("remote_pkg") == str(path)


def test_add_remote_rejects_a_wrong_checksum_and_names_every_url(http_server, cache):
    dut = PackageMap.MakeEmpty()
    dut.AddRemote("remote_pkg", PackageMap.RemoteParams(urls=[f"{http_server}/pkg.zip"], sha256="0" * 64))
    with pytest.raises(RuntimeError, match=r"(?s)could not download package 'remote_pkg'.*checksum mismatch"):
        dut.GetPath("remote_pkg")
    with pytest.raises(ValueError, match="sha256 must be 64"):
        dut.AddRemote("other", PackageMap.RemoteParams(urls=[f"{http_server}/pkg.zip"], sha256="abc"))


def test_network_policy_keeps_only_file_urls(http_server, cache, monkeypatch, tmp_path):
    monkeypatch.setenv("DRAKE_ALLOW_NETWORK", "none")
    local = tmp_path / "pkg.zip"
    local.write_bytes(_zip_bytes())
    sha = hashlib.sha256(_zip_bytes()).hexdigest()
    dut = PackageMap.MakeEmpty()
    dut.AddRemote("remote_pkg", PackageMap.RemoteParams(urls=[f"{http_server}/pkg.zip"], sha256=sha,
                                                        strip_prefix="pkg_prefix"))
    with pytest.raises(RuntimeError, match="DRAKE_ALLOW_NETWORK"):
        dut.GetPath("remote_pkg")
    dut2 = PackageMap.MakeEmpty()
    dut2.AddRemote("remote_pkg", PackageMap.RemoteParams(urls=[f"{http_server}/pkg.zip", f"file://{local}"],
                                                         sha256=sha, strip_prefix="pkg_prefix"))
    assert (Path(dut2.GetPath("remote_pkg")) / "README").is_file()


def test_default_map_knows_drake_and_drake_models_as_pydrake(monkeypatch, tmp_path):
    require_pydrake()
    from pydrake.multibody.parsing import PackageMap as DrakePackageMap
    assert PackageMap().GetPackageNames() == DrakePackageMap().GetPackageNames() == ["drake", "drake_models"]
    assert PackageMap().size() == 2
    # A Drake resource root from the environment: package://drake/ resolves inside it.
    root = tmp_path / "root"
    (root / "drake" / "examples").mkdir(parents=True)
    (root / "drake" / "package.xml").write_text("<package format='2'><name>drake</name></package>")
    (root / "drake" / "examples" / "x.urdf").write_text("<robot name='x'/>")
    monkeypatch.setenv("DRAKE_RESOURCE_ROOT", str(root))
    assert PackageMap().ResolveUrl("package://drake/examples/x.urdf") == str(root / "drake" / "examples" / "x.urdf")
    assert FindResourceOrThrow("drake/examples/x.urdf") == str(root / "drake" / "examples" / "x.urdf")


def test_missing_drake_resources_are_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("DRAKE_RESOURCE_ROOT", str(tmp_path / "nowhere"))
    pm = PackageMap()
    assert pm.Contains("drake")
    with pytest.raises(RuntimeError, match=r"package 'drake'.*DRAKE_RESOURCE_ROOT"):
        pm.ResolveUrl("package://drake/examples/acrobot/Acrobot.urdf")
    with pytest.raises(RuntimeError, match="DRAKE_RESOURCE_ROOT"):
        FindResourceOrThrow("drake/examples/acrobot/Acrobot.urdf")
    with pytest.raises(RuntimeError, match="does not start with drake/"):
        FindResourceOrThrow("examples/acrobot/Acrobot.urdf")


def test_offline_drake_models_error_names_package_url_and_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("TEST_TMPDIR", str(tmp_path))
    monkeypatch.setenv("DRAKE_ALLOW_NETWORK", "none")
    monkeypatch.setenv("DRAKE_RESOURCE_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(RuntimeError) as info:
        PackageMap().GetPath("drake_models")
    message = str(info.value)
    assert "drake_models" in message and "github.com/RobotLocomotion/models" in message
    assert "DRAKE_RESOURCE_ROOT" in message


def test_find_resource_matches_pydrake(monkeypatch):
    pydrake = require_pydrake()
    from pydrake.common import FindResourceOrThrow as DrakeFind
    monkeypatch.delenv("DRAKE_RESOURCE_ROOT", raising=False)
    assert os.path.samefile(FindResourceOrThrow("drake/package.xml"), DrakeFind("drake/package.xml"))
    assert pydrake is not None
