"""Extract the MJCF model corpus (MuJoCo Menagerie, MuJoCo's own model/ and test/engine/testdata/) from local
bare git dirs into the gitignored folder benchmarks/corpus/data/ (never committed).

Usage:
    python benchmarks/corpus/fetch.py [--menagerie GITDIR] [--mujoco GITDIR] [--out DIR]

The git dirs default to the env vars MENAGERIE_GIT and MUJOCO_GIT. When a git dir is missing, get one with
    git clone --bare https://github.com/google-deepmind/mujoco_menagerie  menagerie.git
    git clone --bare https://github.com/google-deepmind/mujoco            mujoco.git
(any clone works: a work tree's .git too). Blobs absent from a partial snapshot (e.g. files >= 4 MiB left out of
a mirror) are skipped and counted; MuJoCo itself then cannot load the models that need them, and the corpus
runner skips those.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "data"
MIRRORS = {"menagerie": "/work/.mirror/kevinzakka+mujoco_menagerie/repo",
           "mujoco": "/work/.mirror/google-deepmind+mujoco/repo"}
SUBTREES = {"menagerie": [""], "mujoco": ["model", "test/engine/testdata"]}


def _git(gitdir: str, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], input=input, capture_output=True, check=True).stdout


def Extract(gitdir: str, subtrees: list[str], out: Path, rev: str = "HEAD") -> tuple[int, int]:
    """Write every blob under `subtrees` of `rev` in `gitdir` below `out`; returns (written, missing)."""
    listing = _git(gitdir, "ls-tree", "-r", "-z", rev, "--", *[s for s in subtrees if s]).split(b"\0")
    entries = []
    for line in listing:
        if not line:
            continue
        meta, path = line.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((sha.decode(), path.decode()))
    # one `git cat-file --batch` process for all blobs
    proc = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    written = missing = 0
    for sha, path in entries:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # trailing newline
        dest = out / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        written += 1
    proc.stdin.close()
    proc.wait()
    return written, missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--menagerie", default=os.environ.get("MENAGERIE_GIT", MIRRORS["menagerie"]))
    ap.add_argument("--mujoco", default=os.environ.get("MUJOCO_GIT", MIRRORS["mujoco"]))
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--rev", default="HEAD")
    args = ap.parse_args(argv)
    out = Path(args.out)
    status = 0
    for name in ("menagerie", "mujoco"):
        gitdir = getattr(args, name)
        if not Path(gitdir).is_dir():
            print(f"[{name}] git dir '{gitdir}' not found: clone it (see this script's docstring) and pass "
                  f"--{name} DIR or set {name.upper()}_GIT", file=sys.stderr)
            status = 1
            continue
        written, missing = Extract(gitdir, SUBTREES[name], out / name, args.rev)
        print(f"[{name}] {written} files -> {out / name}" + (f" ({missing} blobs absent from the snapshot)" if missing else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
