"""Run real pydrake scripts (collected by fetch.py) on pydrake and, after the word swap `pydrake` -> `mallard`,
on mallard, and compare the numbers they print. This measures mallard's first promise on code nobody here
wrote.

Usage:
    python benchmarks/pydrake_scripts/fetch.py                 # once: collect the scripts into data/
    python benchmarks/pydrake_scripts/run.py [--only WORD ...] [--jobs N] [--timeout S] [--mode both|mallard]

Each script runs as in Drake's CI: in a fresh temporary folder that is also $TEST_TMPDIR, with the arguments of
Drake's test rule, MPLBACKEND=Agg, TEST_SRCDIR set (the tutorials' "test mode": ModelVisualizer loops once),
DRAKE_RESOURCE_ROOT at fetch.py's data/resource_root, and a download cache ($TEST_TMPDIR/.cache, Drake's rule)
in which the remote `drake_models` package is already present (a symlink to data/resource_root/drake_models),
so neither side needs the network. Scripts that import a module outside
mallard's scope (solvers, symbolic, autodiff, rendering, LCM, IK, deformables, and Drake modules that mallard
does not mirror), themselves or through the local modules they import, are listed as out of scope and not run.

Outcomes: `match` (both run, same printed numbers within --rtol/--atol), `runs` (both run to the end and print
no numbers), `mismatch` (both run, numbers
differ: the first difference is shown), `mallard error` (the last line of mallard's traceback and the
script line it came from), `timeout`, `pydrake fails` (the baseline itself fails here: not counted), and
`out of scope`. The table goes to data/RESULTS.md and the raw records to data/results.json; the pydrake
runs are kept in data/baseline.json and reused by --mode mallard while the script is unchanged.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SWAP = re.compile(r"\bpydrake\b")

# Modules (after `pydrake.`) outside mallard's scope (issue 13), with the reason reported. Drake modules that
# mallard does not mirror but that are not declared out of scope (pydrake.examples, pydrake.common.yaml,
# pydrake.manipulation, ...) are run: their import error is a blocker to route.
OUT_OF_SCOPE = {
    "solvers": "solvers", "symbolic": "symbolic", "autodiffutils": "autodiff", "forwarddiff": "autodiff",
    "polynomial": "symbolic", "lcm": "LCM", "systems.lcm": "LCM", "systems.sensors": "rendering",
    "perception": "rendering", "multibody.inverse_kinematics": "IK", "multibody.optimization": "IK",
    "geometry.optimization": "solvers", "multibody.fem": "deformables",
}
# Names imported from in-scope modules that belong to an out-of-scope feature.
OUT_OF_SCOPE_NAMES = {
    r"\bRenderEngine\w*|\bMakeRenderEngine\w*|\b\w*RenderCamera\b|\bRenderLabel\b|\bCameraInfo\b": "rendering",
    r"\bDeformableBodyConfig\b|\bRegisterDeformableGeometry\b": "deformables",
}

# mallard's error for a conversion to another scalar type (common/scalar_template.py): AutoDiffXd and symbolic
# scalars are out of scope, so a script that only fails there counts as out of scope (after running up to it).
DOUBLE_ONLY = "mallard computes in double precision only"
# mallard's error for a name of `mallard.all` or a module path outside its scope (common/out_of_scope.py).
NOT_PROVIDED = "is not provided by mallard:"

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\b(?:nan|inf)\b", re.I)
NOISE = [re.compile(p) for p in (r"https?://\S+", r"0x[0-9a-fA-F]+", r"(?:/[\w.\-]+){2,}",
                                 r"robotlocomotion_drake_\w+", r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[.\d]*")]


def _oos_module(module: str) -> str | None:
    """The out-of-scope feature of a pydrake module path (without the `pydrake.` prefix), or None."""
    for prefix, why in OUT_OF_SCOPE.items():
        if module == prefix or module.startswith(prefix + "."):
            return f"{why} (pydrake.{module})"
    return None


def _all_name_modules(names: set[str]) -> dict[str, str]:
    """{name: defining pydrake module} for the names that pydrake.all exports (the oracle tells where each lives)."""
    try:
        import pydrake.all as everything  # oracle only
    except ImportError:
        return {}
    out = {}
    for name in names:
        module = getattr(getattr(everything, name, None), "__module__", None) or ""
        if module.startswith("pydrake."):
            out[name] = module[len("pydrake."):]
    return out


def scope_of(text: str) -> str | None:
    """The out-of-scope feature a pydrake script needs (from its imports), or None. Names taken from pydrake.all
    (listed, or used as `Name(` after a star import) count by the module that defines them."""
    for mod in re.findall(r"^\s*(?:from|import)\s+pydrake\.([\w.]+)", text, re.M):
        if mod != "all" and _oos_module(mod):
            return _oos_module(mod)
    names: set[str] = set()
    for block in re.findall(r"from\s+pydrake\.all\s+import\s+(\([^)]*\)|[^\n]*)", text):
        if block.strip() == "*":
            names |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))
        else:
            names |= set(re.findall(r"\b[A-Za-z_]\w*\b", re.sub(r"#[^\n]*", "", block)))
    for name, module in sorted(_all_name_modules(names).items()):
        if _oos_module(module):
            return f"{_oos_module(module)[:-1]}.{name})"
    for pattern, why in OUT_OF_SCOPE_NAMES.items():
        m = re.search(pattern, text)
        if m:
            return f"{why} ({m.group(0)})"
    return None


def local_modules(text: str, root: Path, here: Path | None = None, seen: set[Path] | None = None) -> list[Path]:
    """The files under root (the collected sources) that a script imports, directly or through each other
    (`here` is the importing file, for relative imports)."""
    seen = set() if seen is None else seen
    targets: list[Path] = []
    pattern = r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[\w \t,]*)|import[ \t]+([\w.]+))"
    for dots, a, names, b in re.findall(pattern, text, re.M):
        if dots and here is not None:
            base = here.parent
            for _ in range(len(dots) - 1):
                base = base.parent
            pkg = base.joinpath(*a.split(".")) if a else base
            targets += [pkg] + [pkg / n for n in re.findall(r"\w+", names)]
        elif not dots:
            parts = (a or b).split(".")
            targets += [root.joinpath(*parts[:k]) for k in range(1, len(parts) + 1)]
    for base in targets:
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file() and candidate not in seen:
                seen.add(candidate)
                local_modules(candidate.read_text(errors="replace"), root, candidate, seen)
    return sorted(seen)


def numbers(stdout: str) -> list[float]:
    """The numbers a run printed, ignoring addresses, URLs, paths and time stamps."""
    for pattern in NOISE:
        stdout = pattern.sub(" ", stdout)
    return [float(x) for x in NUMBER.findall(stdout)]


def compare(a: list[float], b: list[float], rtol: float, atol: float) -> str | None:
    """None when the two lists of printed numbers agree, else a description of the first difference."""
    if len(a) != len(b):
        return f"pydrake printed {len(a)} numbers, mallard {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if math.isnan(x) and math.isnan(y):
            continue
        if not (abs(x - y) <= atol + rtol * abs(x)):
            return f"number #{i}: pydrake {x!r}, mallard {y!r}"
    return None


def _drake_models_key() -> str | None:
    """Drake's download-cache folder name of its pinned drake_models package (<sha256>-<sha256(strip_prefix)>)."""
    try:
        import pydrake  # noqa: F401  (oracle only: finds the wheel's pin file)
    except ImportError:
        return None
    pin = Path(pydrake.__file__).parent / "share/drake/multibody/parsing/drake_models.json"
    params = json.loads(pin.read_text())
    return f"{params['sha256']}-{hashlib.sha256(params['strip_prefix'].encode()).hexdigest()}"


def prepare_env() -> dict[str, str]:
    """The environment of every run: Drake's resources offline, test mode, Agg (see run_one for the cache)."""
    runfiles = DATA / "runfiles"
    runfiles.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, DRAKE_RESOURCE_ROOT=str(DATA / "resource_root"), TEST_SRCDIR=str(runfiles),
               MPLBACKEND="Agg", BROWSER="true", PYTHONUNBUFFERED="1")
    env.pop("XDG_CACHE_HOME", None)
    return env


def _offline_cache(tmp: str) -> None:
    """$TEST_TMPDIR/.cache/drake/package_map/<key> -> data/resource_root/drake_models: the download cache of both
    sides (Drake's rule for the cache folder under a test) already holds the pinned drake_models."""
    key = _drake_models_key()
    models = DATA / "resource_root" / "drake_models"
    if models.is_dir() and key is not None:
        link = Path(tmp) / ".cache" / "drake" / "package_map" / key
        link.parent.mkdir(parents=True)
        link.symlink_to(models.resolve())


def swapped_tree() -> Path:
    """data/swapped/: the collected sources with the word `pydrake` replaced by `mallard` (the whole port)."""
    src, dst = DATA / "src", DATA / "swapped"
    if dst.exists():
        shutil.rmtree(dst)
    for path in src.rglob("*"):
        out = dst / path.relative_to(src)
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
        elif path.suffix == ".py":
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(SWAP.sub("mallard", path.read_text()))
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, out)
    return dst


def run_one(root: Path, entry: dict, env: dict, timeout: float) -> dict:
    """Run one script (under root, which holds src/ or swapped/) in a fresh folder; its outcome and output."""
    script = root / Path(entry["script"]).relative_to("src")
    with tempfile.TemporaryDirectory(prefix="pydrake_script_") as cwd:
        _offline_cache(cwd)
        run_env = dict(env, PYTHONPATH=os.pathsep.join([str(root), env.get("PYTHONPATH", "")]), TEST_TMPDIR=cwd)
        t0 = time.time()
        try:
            argv = [a.format(root=DATA / "resource_root", tmp=cwd) for a in entry["args"]]
            p = subprocess.run([sys.executable, str(script), *argv], cwd=cwd, env=run_env,
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            return dict(rc=None, stdout=out, stderr="", seconds=timeout, error=f"timeout after {timeout:.0f} s")
    return dict(rc=p.returncode, stdout=p.stdout, stderr=p.stderr[-20000:], seconds=round(time.time() - t0, 1),
                error=None if p.returncode == 0 else last_error(p.stderr, script.name))


def last_error(stderr: str, script_name: str) -> str:
    """The exception line of a traceback and the last frame of the script itself."""
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    exc = next((ln for ln in reversed(lines) if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt)\b", ln)),
               lines[-1] if lines else "(no output)")
    frames = [i for i, ln in enumerate(lines) if ln.strip().startswith("File ") and script_name in ln]
    where = ""
    if frames:
        i = frames[-1]
        lineno = re.search(r"line (\d+)", lines[i])
        code = lines[i + 1].strip() if i + 1 < len(lines) else ""
        where = f" [at {script_name}:{lineno.group(1) if lineno else '?'}: {code}]"
    return exc.strip()[:400] + where


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", default=[], help="run only scripts whose path contains a word")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per script and side")
    ap.add_argument("--mode", choices=["both", "mallard"], default="both",
                    help="mallard: reuse the saved pydrake runs of unchanged scripts")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-8)
    args = ap.parse_args(argv)
    manifest = DATA / "manifest.json"
    if not manifest.exists():
        ap.error(f"{manifest} is missing: run benchmarks/pydrake_scripts/fetch.py first")
    sentinel = DATA / "resource_root" / "drake" / ".drake-find_resource-sentinel"
    if not sentinel.exists():  # pydrake then ignores DRAKE_RESOURCE_ROOT and its runs fail on missing files
        ap.error(f"{sentinel} is missing (fetch.py ran without the drake wheel importable): run "
                 "benchmarks/pydrake_scripts/fetch.py again in the venv that has drake")
    entries = [e for e in json.loads(manifest.read_text())["scripts"]
               if not args.only or any(w in e["name"] for w in args.only)]
    env = prepare_env()
    swapped = swapped_tree()
    baseline_file = DATA / "baseline.json"
    baseline = json.loads(baseline_file.read_text()) if baseline_file.exists() else {}
    results_file = DATA / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}

    def job(entry: dict) -> dict:
        text = (DATA / entry["script"]).read_text()
        oos = scope_of(text)
        for module in ([] if oos else local_modules(text, DATA / "src")):
            why = scope_of(module.read_text(errors="replace"))
            if why:
                oos = f"{why} via {module.relative_to(DATA / 'src')}"
                break
        rec = dict(name=entry["name"], kind=entry["kind"])
        if oos:
            return dict(rec, outcome="out of scope", detail=oos)
        digest = hashlib.sha256((text + json.dumps(entry["args"])).encode()).hexdigest()
        base = baseline.get(entry["name"])
        if args.mode == "both" or base is None or base.get("digest") != digest:
            base = dict(run_one(DATA / "src", entry, env, args.timeout), digest=digest)
            baseline[entry["name"]] = base
        if base["rc"] != 0:
            return dict(rec, outcome="pydrake fails", detail=base["error"])
        mine = run_one(swapped, entry, env, args.timeout)
        rec.update(seconds_pydrake=base["seconds"], seconds_mallard=mine["seconds"], stdout=mine["stdout"][-4000:],
                   stderr=mine["stderr"][-4000:])
        if mine["rc"] is None:
            return dict(rec, outcome="timeout", detail=mine["error"])
        if mine["rc"] != 0 and DOUBLE_ONLY in mine["stderr"]:  # e.g. diagram.ToAutoDiffXd(): issue 13 scopes it out
            return dict(rec, outcome="out of scope", detail=f"autodiff / symbolic scalar conversion at run time, "
                                                            f"after running up to it: {mine['error']}")
        if mine["rc"] != 0 and NOT_PROVIDED in mine["stderr"]:  # e.g. MathematicalProgram from `mallard.all`
            return dict(rec, outcome="out of scope", detail=f"an out-of-scope pydrake name, after running up to it: "
                                                            f"{mine['error']}")
        if mine["rc"] != 0:
            return dict(rec, outcome="mallard error", detail=mine["error"])
        a, b = numbers(base["stdout"]), numbers(mine["stdout"])
        diff = compare(a, b, args.rtol, args.atol)
        if diff:
            return dict(rec, outcome="mismatch", detail=diff, numbers=len(a))
        return dict(rec, outcome="match" if a else "runs", numbers=len(a),
                    detail=f"{len(a)} numbers" if a else "runs to the end; prints no numbers on either side")

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for rec in pool.map(job, entries):
            results[rec["name"]] = rec
            print(f"{rec['outcome']:14s} {rec['name']}  {rec.get('detail', '')[:200]}", flush=True)
    baseline_file.write_text(json.dumps(baseline, indent=1))
    results_file.write_text(json.dumps(results, indent=1))
    report = write_report(results, args)
    print(report.split("\n\n")[1])
    return 0


def write_report(results: dict, args: argparse.Namespace) -> str:
    """data/RESULTS.md: the summary and one row per script."""
    recs = sorted(results.values(), key=lambda r: (r["outcome"], r["name"]))
    count = {o: sum(r["outcome"] == o for r in recs) for o in
             ("match", "runs", "mismatch", "mallard error", "timeout", "pydrake fails", "out of scope")}
    ran = count["match"] + count["runs"] + count["mismatch"] + count["mallard error"] + count["timeout"]
    runs = count["match"] + count["runs"] + count["mismatch"]
    summary = (f"{len(recs)} scripts: {count['out of scope']} out of scope, {count['pydrake fails']} fail on pydrake "
               f"here; of the {ran} in scope that run on pydrake, {runs} run to the end on mallard after the word "
               f"swap: {count['match']} print the same numbers (rtol {args.rtol:g}, atol {args.atol:g}), "
               f"{count['runs']} print no numbers, {count['mismatch']} print different numbers; "
               f"{count['mallard error']} stop with an error, {count['timeout']} time out.")
    rows = "\n".join(f"| {r['name']} | {r['outcome']} | {r.get('detail', '').replace('|', '/')[:300]} |"
                     for r in recs)
    text = (f"# Real pydrake scripts on mallard (word swap)\n\n{summary}\n\n"
            f"| script | outcome | detail |\n|---|---|---|\n{rows}\n")
    (DATA / "RESULTS.md").write_text(text)
    return text


if __name__ == "__main__":
    sys.exit(main())
