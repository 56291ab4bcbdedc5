"""Collect real pydrake scripts from a Drake git directory into the gitignored folder
benchmarks/pydrake_scripts/data/ (never committed), for run.py to word-swap and run on pydrake and on mallard.

Usage:
    python benchmarks/pydrake_scripts/fetch.py [--drake GITDIR] [--tag v1.51.1] [--out DIR]

What is collected (at the tag, which should match the drake wheel that serves as the oracle):
* Drake's tutorials and binding notebooks (tutorials/*.ipynb, bindings/pydrake/**/*.ipynb outside test/),
  turned into scripts: the code cells in order, IPython magics (`%...`, `!...`) dropped, and a cell's last
  bare expression printed with repr() as a notebook would show it (unless the line ends with `;`);
* Drake's Python examples: examples/**.py and bindings/pydrake/examples/**.py outside test/, and the
  bindings' stand-alone `*_example.py` programs, each with the other files of its folder (models, YAML) so
  relative paths work (library modules that another example imports come along but are not run).
Each script gets the command-line arguments that Drake's own test rule passes (`test_rule_args` in the
folder's BUILD.bazel), so that it stops after a short simulation as in Drake's CI.

* the notebooks of Russ Tedrake's manipulation course (https://github.com/RussTedrake/manipulation, book/**.ipynb,
  newest commit of a local git directory: --course, default $MANIPULATION_GIT, else
  /work/.mirror/RussTedrake+manipulation/repo; skipped when absent), with the course's `manipulation` package
  (code and models) next to them, since its notebooks import it; run.py swaps that package's code too, as a user
  porting the course would.
Besides the scripts, the data both sides read offline go to data/resource_root/ (run.py points
DRAKE_RESOURCE_ROOT there): `drake/` holds the drake wheel's resource files plus Drake's source-tree models
that the scripts load (examples/, multibody/benchmarks/, tutorials/, planning/test_utilities/), and
`drake_models/` holds https://github.com/RobotLocomotion/models at the commit the Drake tag pins (from a
models git directory: --models, default $DRAKE_MODELS_GIT, else /work/.mirror/RobotLocomotion+models/repo;
files absent from a partial snapshot are skipped and counted).

The GITDIR defaults to $DRAKE_GIT, else /work/.mirror/RobotLocomotion+drake/repo. Any clone of
https://github.com/RobotLocomotion/drake works (`git clone --bare ...`). The manifest (data/manifest.json)
lists each script with its source path, kind and arguments.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "data"
DEFAULT_GIT = "/work/.mirror/RobotLocomotion+drake/repo"
DEFAULT_COURSE_GIT = "/work/.mirror/RussTedrake+manipulation/repo"
DEFAULT_MODELS_GIT = "/work/.mirror/RobotLocomotion+models/repo"
RESOURCE_DIRS = ("examples/", "multibody/benchmarks/", "tutorials/", "planning/test_utilities/")
SOURCE_SUFFIXES = (".cc", ".h", ".bzl", ".bazel", ".py", ".ipynb", ".md", ".cmake")
# Required arguments of scripts whose Drake test passes them explicitly (not through test_rule_args);
# {root} is the resource root (data/resource_root) and {tmp} the run's temporary folder.
EXTRA_ARGS = {"examples/acrobot/spong_sim.py": ["--scenario", "{root}/drake/examples/acrobot/test/example_scenario.yaml",
                                                "--output", "{tmp}/output.yaml"]}
NOTEBOOK_DIRS = ("tutorials/", "bindings/pydrake/")
SCRIPT_DIRS = ("examples/", "bindings/pydrake/examples/")
DATA_SUFFIXES = (".py", ".yaml", ".yml", ".sdf", ".urdf", ".xml", ".obj", ".mtl", ".gltf", ".bin", ".png",
                 ".dmd.yaml", ".vtk", ".json", ".csv")


def _git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, check=True).stdout


def _is_test_path(path: str) -> bool:
    return "/test/" in path or path.startswith("test/") or path.startswith("tools/")


def notebook_to_script(nb_json: str) -> str:
    """The code cells of a notebook as one script; each cell's last bare expression is echoed like IPython."""
    cells = [c for c in json.loads(nb_json)["cells"] if c.get("cell_type") == "code"]
    parts = ["# Converted from a Jupyter notebook by benchmarks/pydrake_scripts/fetch.py.\n"
             "def _nb_echo(value):\n"
             "    if value is not None:\n"
             "        print(repr(value))\n"]
    for i, cell in enumerate(cells):
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        lines = [(ln[:len(ln) - len(ln.lstrip())] + "pass  # " + ln.strip()) if ln.lstrip().startswith(("%", "!"))
                 else ln for ln in src.splitlines()]
        src = "\n".join(lines)
        try:
            tree = ast.parse(src)
        except SyntaxError:
            tree = None
        if tree is not None and tree.body and isinstance(tree.body[-1], ast.Expr):
            last = tree.body[-1]
            code_lines = src.splitlines()
            tail = "\n".join(code_lines[last.lineno - 1:last.end_lineno]).rstrip()
            if not tail.endswith(";") and last.col_offset == 0:
                expr = ast.get_source_segment(src, last.value)
                head = "\n".join(code_lines[:last.lineno - 1])
                src = f"{head}\n_nb_echo(\n{expr}\n)"
        parts.append(f"# In[{i + 1}]:\n{src}\n")
    return "\n".join(parts)


def _build_args(gitdir: str, tag: str, folder: str) -> dict[str, list[str]]:
    """{source file name: test_rule_args} from the folder's BUILD.bazel (Drake's CI arguments)."""
    try:
        text = _git(gitdir, "show", f"{tag}:{folder}/BUILD.bazel").decode()
    except subprocess.CalledProcessError:
        return {}
    out = {}
    for block in re.split(r"\n(?=\w+\()", text):
        srcs = re.search(r"srcs\s*=\s*\[\s*\"([^\"]+\.py)\"", block)
        args = re.search(r"test_rule_args\s*=\s*\[(.*?)\]", block, re.S)
        if srcs and args:
            out[srcs.group(1)] = re.findall(r"\"([^\"]*)\"", args.group(1))
    return out


def collect(gitdir: str, tag: str, out: Path) -> list[dict]:
    files = _git(gitdir, "ls-tree", "-r", "--name-only", tag).decode().splitlines()
    entries: list[dict] = []
    src_root = out / "src"
    wanted_dirs: set[str] = set()
    programs: list[str] = []
    for path in files:
        if _is_test_path(path):
            continue
        if path.endswith(".ipynb") and path.startswith(NOTEBOOK_DIRS):
            nb_json = _git(gitdir, "show", f"{tag}:{path}").decode()
            if not any(c.get("cell_type") == "code" for c in json.loads(nb_json)["cells"]):
                continue  # a table of contents (tutorials/index.ipynb), nothing to run
            script = notebook_to_script(nb_json)
            dest = src_root / (path[:-len(".ipynb")] + ".py")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(script)
            entries.append(dict(name=path, script=str(dest.relative_to(out)), kind="notebook", args=[]))
            wanted_dirs.add(os.path.dirname(path))
        elif path.endswith(".py") and (path.startswith(SCRIPT_DIRS) or (
                path.startswith("bindings/pydrake/") and path.endswith("_example.py"))):
            if os.path.basename(path) != "__init__.py":
                programs.append(path)
    texts = {p: _git(gitdir, "show", f"{tag}:{p}").decode() for p in programs}
    for path in programs:
        stem = Path(path).stem
        imported = re.compile(rf"^\s*(?:from\s+[\w.]*\b{stem}\s+import|import\s+[\w.]*\b{stem}\b)", re.M)
        if any(imported.search(t) for p, t in texts.items() if p != path):
            continue  # a library module of an example (imported by its program), not a program itself
        folder = os.path.dirname(path)
        wanted_dirs.add(folder)
        args = EXTRA_ARGS.get(path) or _build_args(gitdir, tag, folder).get(os.path.basename(path), [])
        entries.append(dict(name=path, script=str(Path("src") / path), kind="script", args=args))
    # The scripts' folders with their data files (and the package __init__ files for `examples.x.y` imports).
    for path in files:
        folder = os.path.dirname(path)
        if _is_test_path(path) or not path.endswith(DATA_SUFFIXES):
            continue
        if folder in wanted_dirs or any(folder.startswith(d + "/") for d in wanted_dirs if d.startswith(SCRIPT_DIRS)):
            dest = src_root / path
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                dest.write_bytes(_git(gitdir, "show", f"{tag}:{path}"))
            except subprocess.CalledProcessError:
                print(f"skipped {path}: blob missing from this snapshot", file=sys.stderr)
    for entry in entries:
        parts = Path(entry["script"]).parts[1:-1]
        for k in range(1, len(parts) + 1):
            init = src_root.joinpath(*parts[:k], "__init__.py")
            if not init.exists():
                init.write_text("")
    return sorted(entries, key=lambda e: e["name"])


def collect_course(gitdir: str, out: Path) -> list[dict]:
    """The manipulation course's notebooks (as scripts, under src/course/) and its package (under src/)."""
    rev = _git(gitdir, "rev-parse", "HEAD").decode().strip()
    blobs = _blobs(gitdir, rev, ("manipulation/",))
    _write_blobs(gitdir, blobs, out / "src")
    entries = []
    for path, _ in _blobs(gitdir, rev, ("book/",)):
        if not path.endswith(".ipynb"):
            continue
        nb_json = _git(gitdir, "show", f"{rev}:{path}").decode()
        try:
            cells = json.loads(nb_json)["cells"]
        except (ValueError, KeyError):
            continue
        if not any(c.get("cell_type") == "code" for c in cells):
            continue
        dest = out / "src" / "course" / (path[:-len(".ipynb")] + ".py")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(notebook_to_script(nb_json))
        entries.append(dict(name=f"manipulation@{rev[:10]}:{path}", script=str(dest.relative_to(out)),
                            kind="notebook", args=[]))
    return entries


def _blobs(gitdir: str, rev: str, prefixes: tuple[str, ...] | None) -> list[tuple[str, str]]:
    """(path, blob id) of the files under `prefixes` (all files when None) at `rev`."""
    out = []
    for line in _git(gitdir, "ls-tree", "-r", rev).decode().splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and (prefixes is None or path.startswith(prefixes)):
            out.append((path, sha))
    return out


def _write_blobs(gitdir: str, blobs: list[tuple[str, str]], dest: Path) -> int:
    """Write the blobs under dest (one `git cat-file --batch` process); the number of blobs missing."""
    missing = 0
    p = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    for path, sha in blobs:
        p.stdin.write(f"{sha}\n".encode())
        p.stdin.flush()
        header = p.stdout.readline().decode().split()
        if len(header) < 3 or header[1] != "blob":
            missing += 1
            continue
        data = p.stdout.read(int(header[2]))
        p.stdout.read(1)
        out = dest / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    p.stdin.close()
    p.wait()
    return missing


def build_resource_root(gitdir: str, tag: str, models_git: str | None, out: Path) -> str:
    """data/resource_root/{drake,drake_models}: Drake's resources and the pinned drake_models (see the module doc)."""
    root = out / "resource_root"
    drake = root / "drake"
    try:
        import pydrake  # oracle only: its wheel holds the resource files Drake's install ships
        share = Path(pydrake.__file__).parent / "share" / "drake"
    except ImportError:
        share = None
    if share is not None and share.is_dir():
        for f in share.rglob("*"):
            if f.is_file():
                link = drake / f.relative_to(share)
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.exists():
                    link.symlink_to(f)
    else:  # no FindResource sentinel then: run.py refuses this root (pydrake would ignore it)
        print("fetch.py: the drake wheel is not importable here; run it in the venv that has drake", file=sys.stderr)
        _write_blobs(gitdir, [b for b in _blobs(gitdir, tag, None) if b[0] == "package.xml"], drake)
    blobs = [(p, s) for p, s in _blobs(gitdir, tag, RESOURCE_DIRS) if not p.endswith(SOURCE_SUFFIXES)]
    for p, _ in blobs:
        if (drake / p).is_symlink():
            (drake / p).unlink()
    _write_blobs(gitdir, blobs, drake)
    note = f"resource root: {len(blobs)} Drake source files"
    pin = re.search(r'commit\s*=\s*"([0-9a-f]{40})"',
                    _git(gitdir, "show", f"{tag}:tools/workspace/drake_models/repository.bzl").decode())
    if models_git and os.path.isdir(models_git) and pin:
        models = _blobs(models_git, pin.group(1), None)
        missing = _write_blobs(models_git, models, root / "drake_models")
        note += f"; drake_models @ {pin.group(1)[:10]}: {len(models) - missing} files ({missing} absent)"
    else:
        note += f"; no drake_models git at {models_git} (scripts that load package://drake_models fail on both sides)"
    return note


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drake", default=os.environ.get("DRAKE_GIT", DEFAULT_GIT), help="Drake git directory")
    ap.add_argument("--tag", default="v1.51.1")
    ap.add_argument("--models", default=os.environ.get("DRAKE_MODELS_GIT", DEFAULT_MODELS_GIT),
                    help="RobotLocomotion/models git directory")
    ap.add_argument("--course", default=os.environ.get("MANIPULATION_GIT", DEFAULT_COURSE_GIT),
                    help="RussTedrake/manipulation git directory (the course notebooks; skipped when absent)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if not os.path.isdir(args.drake):
        ap.error(f"no Drake git directory at {args.drake}; clone one with "
                 "`git clone --bare https://github.com/RobotLocomotion/drake` and pass --drake")
    args.out.mkdir(parents=True, exist_ok=True)
    entries = collect(args.drake, args.tag, args.out)
    if args.course and os.path.isdir(args.course):
        entries += collect_course(args.course, args.out)
    (args.out / "manifest.json").write_text(json.dumps(dict(tag=args.tag, scripts=entries), indent=1))
    note = build_resource_root(args.drake, args.tag, args.models, args.out)
    print(f"{len(entries)} scripts from {args.drake} @ {args.tag} -> {args.out}; {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
