"""Sha256 and MemoryFile.sha256() as pydrake.common's (Drake's module_test::test_sha256 / test_memory_file), with
pydrake as the oracle for the digests."""
from __future__ import annotations

import copy
import pickle

import pytest

from mallard.common import MemoryFile, Sha256
from mallard.common.compatibility import maybe_patch_numpy_formatters


def test_sha256_value_semantics():
    empty, some = Sha256(), Sha256.Checksum("Some string")
    assert empty.to_string() == "0" * 64
    assert not empty == some and empty != some and empty < some and not some < empty
    assert Sha256.Parse(some.to_string()) == some and Sha256.Parse(some.to_string().upper()) == some
    assert Sha256.Parse("xyz") is None and Sha256.Parse("g" * 64) is None
    assert pickle.loads(pickle.dumps(some)) == some and copy.copy(some) == some and copy.deepcopy(some) == some
    assert {some: 1}[Sha256.Checksum(b"Some string")] == 1  # a str is hashed as its UTF-8 bytes


def test_memory_file_sha256_is_the_checksum_of_its_contents():
    file = MemoryFile(b"Some string", ".bob", "hint")
    assert file.sha256() == Sha256.Checksum(b"Some string")
    assert file.sha256().to_string() == "2beaf0548e770c4c392196e0ec8e7d6d81cc9280ac9c7f3323e4c6abc231e95a"


def test_digests_match_pydrake():
    common = pytest.importorskip("pydrake.common", reason="the pydrake oracle (the dev extra) is not installed")
    for text in ("", "Some string", "ünïcödé"):
        assert Sha256.Checksum(text).to_string() == common.Sha256.Checksum(text).to_string()
    assert MemoryFile(b"\x00\x01", ".obj", "h").sha256().to_string() == \
        common.MemoryFile(b"\x00\x01", ".obj", "h").sha256().to_string()


def test_maybe_patch_numpy_formatters_is_pydrakes_no_op_on_current_numpy():
    assert maybe_patch_numpy_formatters() is None
