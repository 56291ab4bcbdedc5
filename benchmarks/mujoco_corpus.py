"""MJCF corpus against the MuJoCo oracle: every scene of MuJoCo Menagerie and every file of MuJoCo's own model/
and test/engine/testdata/ that MuJoCo loads is loaded in mallard (Parser on a discrete MultibodyPlant at the
model's timestep, wired to a SceneGraph) and compared: structure (nq, nv, nu, total mass and the eigenvalues of
M at the initial state, 1e-9 relative), qpos after 1/10/100/500 steps from keyframe 0 (else qpos0) with the
keyframe's ctrl (Simulator.AdvanceTo vs mj_step), MuJoCo against itself started 1e-12 away in qpos (a model whose
own spread passes the tolerances is chaotic: it is judged against that spread, and the table says so),
contact counts and speed (mallard steps/s ÷ MuJoCo steps/s, both timed in thread CPU time in one process, so
other processes on a shared machine disturb them less; still noisy).

Get the data first: `python benchmarks/corpus/fetch.py` (see its docstring). Then
    python benchmarks/mujoco_corpus.py [-j 2] [--only NAME] [--corpus menagerie|mujoco|all] [--timeout S]
prints the table and totals and writes benchmarks/corpus/results/{corpus}.md and .json (gitignored), and each row
as it completes to {corpus}.jsonl (a run stopped early keeps the rows done).
Each model runs in its own subprocess with a timeout, so a crash or a hang costs one row.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("MALLARD_CORPUS_DATA", HERE / "corpus" / "data"))
RESULTS = HERE / "corpus" / "results"
CHECKPOINTS = (1, 10, 100, 500)
RTOL_STRUCT = 1e-9
PERTURB = 1e-12  # qpos perturbation of MuJoCo's own second run (chaos check)


# ---- the cases ---------------------------------------------------------------------------------------------
def MenagerieCases(root: Path) -> list[tuple[str, Path]]:
    """(name, path) per Menagerie robot scene: each robot folder's scene*.xml, else its top-level xml files."""
    cases = []
    for robot in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        xmls = sorted(robot.glob("*.xml"))
        scenes = [p for p in xmls if p.name.startswith("scene")]
        for p in scenes or xmls:
            cases.append((f"{robot.name}/{p.stem}", p))
    return cases


def MujocoCases(root: Path) -> list[tuple[str, Path]]:
    """(name, path) of every xml under MuJoCo's model/ and test/engine/testdata/."""
    return [(p.relative_to(root).as_posix(), p) for p in sorted(root.rglob("*.xml"))]


def Cases(corpus: str) -> list[tuple[str, str, Path]]:
    out = []
    if corpus in ("menagerie", "all"):
        out += [("menagerie", n, p) for n, p in MenagerieCases(DATA / "menagerie")]
    if corpus in ("mujoco", "all"):
        out += [("mujoco", n, p) for n, p in MujocoCases(DATA / "mujoco")]
    return out


# ---- one model (runs in a worker subprocess) ---------------------------------------------------------------
#: a clear error names file:line:<element> and says the feature is unsupported (not a malformed-model message)
_UNSUPPORTED = re.compile(r"does not support|not supported|is not registered|unsupported")
_FLEX = re.compile(r"<\s*(flex|flexcomp|composite|skin)\b")


def _rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-300))) if a.size else 0.0


def _mujoco_run(mujoco, mm, steps: int, perturb: float = 0.0):
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    md.qpos[:] += perturb
    mujoco.mj_forward(mm, md)
    ncon0, ctrl = int(md.ncon), md.ctrl.copy()
    M = np.zeros((mm.nv, mm.nv))
    mujoco.mj_fullM(mm, md, M)
    qpos, t_start = {}, None
    for k in range(1, steps + 1):
        if k == 2:
            t_start = time.thread_time()
        mujoco.mj_step(mm, md)
        if k in CHECKPOINTS:
            qpos[k] = md.qpos.copy()
    elapsed = time.thread_time() - t_start if t_start is not None else float("nan")
    mujoco.mj_forward(mm, md)
    return dict(qpos=qpos, ncon0=ncon0, ncon_end=int(md.ncon), ctrl=ctrl, M=M, sps=(steps - 1) / elapsed)


def RunOne(path: str, steps: int = 500) -> dict:
    """Compare one MJCF file against MuJoCo; returns a JSON-able row."""
    import mujoco
    row: dict = {"path": path}
    text = Path(path).read_text(errors="replace")
    try:
        mm = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # noqa: BLE001 - MuJoCo's own refusal: the case is skipped
        row.update(status="mujoco-fails", error=str(e).strip().splitlines()[0][:200])
        return row
    row["flex"] = bool(_FLEX.search(text)) or mm.nflex > 0 or mm.nskin > 0
    row["mj"] = dict(nq=mm.nq, nv=mm.nv, nu=mm.nu, mass=float(mm.body_mass.sum()), nkey=mm.nkey,
                     timestep=float(mm.opt.timestep))
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.multibody.mjcf.state import CalcMujocoVelocityMap, GetMjcfPlantMap, GetMujocoState
    from mallard.multibody.mjcf.keyframes import SetMujocoKeyframe
    from mallard.parsers import Parser
    from mallard.parsers.errors import ParseError
    from mallard.parsers.mjcf import MjcfError, MjcfUnsupportedWarning
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            builder = DiagramBuilder()
            plant, _ = AddMultibodyPlantSceneGraph(builder, float(mm.opt.timestep))
            Parser(builder).AddModels(path)
            plant.Finalize()
            diagram = builder.Build()
        row["unsupported"] = sorted({str(w.message)[:160] for w in caught
                                     if issubclass(w.category, MjcfUnsupportedWarning)})
    except Exception as e:  # noqa: BLE001 - reported in the table
        msg = f"{type(e).__name__}: {e}".strip().splitlines()[0][:300]
        clear = (isinstance(e, (MjcfError, ParseError)) and re.search(r":\d+: <[\w:]+>", str(e)) is not None
                 and _UNSUPPORTED.search(str(e)) is not None)
        row.update(status="clear-error" if clear else "load-error", error=msg)
        return row
    row["load_s"] = time.perf_counter() - t0
    if steps <= 0:  # load-only: the parse, Finalize and Build above are the check
        row["status"] = "loaded"
        return row
    ref = _mujoco_run(mujoco, mm, steps)
    # MuJoCo against itself with qpos moved by PERTURB: how far round-off grows in this model (chaos)
    own = _mujoco_run(mujoco, mm, steps, PERTURB)
    row["mj_self"] = {str(k): float(np.max(np.abs(own["qpos"][k] - ref["qpos"][k]))) if mm.nq else 0.0
                      for k in ref["qpos"]}
    row["mj"].update(ncon0=ref["ncon0"], ncon_end=ref["ncon_end"], sps=ref["sps"])
    pm = GetMjcfPlantMap(plant)
    k = 0
    nu = plant._mjcf_actuation.ctrl_slices[k].stop - plant._mjcf_actuation.ctrl_slices[k].start
    mass = sum(plant.get_body(b).default_mass() for b in plant.GetBodyIndices(pm.instance))
    row["ml"] = dict(nq=plant.num_positions(), nv=plant.num_velocities(), nu=int(nu), mass=float(mass))
    sim = Simulator(diagram)
    root = sim.get_mutable_context()
    ctx = plant.GetMyMutableContextFromRoot(root)
    try:
        if mm.nkey:
            SetMujocoKeyframe(plant, ctx, 0, set_ctrl=nu > 0)
            root.SetTime(0.0)
        elif nu:
            plant._mjcf_actuation.ports[0].FixValue(ctx, np.zeros(nu))
        T = CalcMujocoVelocityMap(plant, ctx)
        M = T.T @ plant.CalcMassMatrix(ctx) @ T
        ev_ml, ev_mj = np.linalg.eigvalsh(M), np.linalg.eigvalsh(ref["M"])
        row["eig_rel"] = _rel(ev_ml, ev_mj) if ev_ml.shape == ev_mj.shape else float("inf")
        row["mass_rel"] = _rel(row["ml"]["mass"], row["mj"]["mass"])
        row["structure"] = bool(row["ml"]["nq"] == mm.nq and row["ml"]["nv"] == mm.nv and row["ml"]["nu"] == mm.nu
                                and row["mass_rel"] <= RTOL_STRUCT and row["eig_rel"] <= RTOL_STRUCT)
        cr = plant.get_contact_results_output_port()
        sim.Initialize()
        h = float(mm.opt.timestep)
        diffs, t_start = {}, None
        for n in range(1, steps + 1):
            if n == 2:
                t_start = time.thread_time()
            sim.AdvanceTo(n * h)
            if n == 1:  # the sampled contact results of step 1: the contacts at the initial state
                row["ml"]["ncon0"] = (int(cr.Eval(ctx).num_point_pair_contacts())
                                      if plant.num_collision_geometries() else 0)
            if n in CHECKPOINTS:
                q, _ = GetMujocoState(plant, ctx)
                if q.shape != ref["qpos"][n].shape:  # an ignored element (flex) left out coordinates
                    diffs[n] = float("inf")
                else:
                    diffs[n] = float(np.max(np.abs(q - ref["qpos"][n]))) if q.size else 0.0
                if not np.all(np.isfinite(q)):
                    diffs[n] = float("inf")
                    row["nonfinite"] = n  # the first checkpoint with a NaN or infinite coordinate
                    break
        elapsed = time.thread_time() - t_start if t_start is not None else float("nan")
        row["ml"]["sps"] = (n - 1) / elapsed if elapsed > 0 else float("nan")
        row["ml"]["ncon_end"] = (int(cr.Eval(ctx).num_point_pair_contacts())
                                 if plant.num_collision_geometries() else 0)
        row["diff"] = {str(k): v for k, v in diffs.items()}
        row["status"] = "ok"
    except Exception as e:  # noqa: BLE001 - reported in the table
        row.update(status="sim-error", error=f"{type(e).__name__}: {e}".strip().splitlines()[0][:300])
    return row


# ---- the driver --------------------------------------------------------------------------------------------
def _run_case(case, timeout: float, steps: int) -> dict:
    corpus, name, path = case
    cmd = [sys.executable, __file__, "--worker", str(path), "--steps", str(steps)]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        row = json.loads(lines[-1]) if lines else dict(
            status="crash", error=(out.stderr.strip().splitlines() or ["no output"])[-1][:300])
    except subprocess.TimeoutExpired:
        row = dict(status="timeout", error=f"no result within {timeout:.0f} s")
    row.update(corpus=corpus, name=name, wall_s=time.perf_counter() - t0)
    return row


def _fmt(x, spec=".1e"):
    return "-" if x is None else (f"{x:{spec}}" if isinstance(x, float) else str(x))


def Table(rows: list[dict]) -> str:
    head = ("| model | loads | structure | diff@1 | diff@10 | diff@100 | diff@500 | MuJoCo self@100/500 | "
            "contacts mj/ml (0, end) | speed ratio | note |")
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        if r["status"] == "mujoco-fails":
            continue
        d = r.get("diff", {})
        mj, ml = r.get("mj", {}), r.get("ml", {})
        struct = "-" if "structure" not in r else ("yes" if r["structure"] else
                                                   f"no (nq {ml['nq']}/{mj['nq']} nv {ml['nv']}/{mj['nv']} nu {ml['nu']}/{mj['nu']} "
                                                   f"mass {r['mass_rel']:.0e} eig {r['eig_rel']:.0e})")
        con = f"{mj.get('ncon0', '-')}/{ml.get('ncon0', '-')}, {mj.get('ncon_end', '-')}/{ml.get('ncon_end', '-')}"
        speed = ml["sps"] / mj["sps"] if ml.get("sps") and mj.get("sps") else None
        note = r.get("error", "") or "; ".join(r.get("unsupported", []))[:120]
        if r.get("nonfinite"):
            note = f"non-finite qpos by step {r['nonfinite']}; " + note
        loads = {"ok": "yes", "sim-error": "yes", "loaded": "yes"}.get(r["status"], r["status"])
        own = r.get("mj_self", {})
        chaos = f"{_fmt(own.get('100'))}/{_fmt(own.get('500'))}" + (" chaotic" if _chaotic(r) else "")
        lines.append(f"| {r['name']} | {loads} | {struct} | " + " | ".join(_fmt(d.get(str(k))) for k in CHECKPOINTS)
                     + f" | {chaos} | {con} | {_fmt(speed, '.2g')} | {note.replace('|', '/')} |")
    return "\n".join(lines)


def _chaotic(r: dict) -> bool:
    """MuJoCo itself, started PERTURB away, leaves the checkpoint tolerances (1e-6 at 100, 1e-3 at 500 steps)."""
    own = r.get("mj_self", {})
    return own.get("100", 0.0) > 1e-6 or own.get("500", 0.0) > 1e-3


def Totals(rows: list[dict]) -> dict:
    """Counts over the cases MuJoCo loads. `*_or_chaotic`: within the tolerance or within MuJoCo's own spread
    (its run started PERTURB away) at that checkpoint, the accepted bound for a chaotic model."""
    live = [r for r in rows if r["status"] != "mujoco-fails"]
    n = len(live)

    # issue #15's speed measure: Menagerie scenes and MuJoCo's model/ folder that load and step
    speeds = {r["name"]: r["ml"]["sps"] / r["mj"]["sps"] for r in live
              if r.get("ml", {}).get("sps") and r.get("mj", {}).get("sps") and r["ml"]["nv"] == r["mj"]["nv"]
              and (r.get("corpus") == "menagerie" or r["name"].startswith("model/"))}

    def within(k, tol, chaos=False):
        return sum(1 for r in live if r.get("diff", {}).get(str(k), np.inf)
                   <= max(tol, r.get("mj_self", {}).get(str(k), 0.0) if chaos else tol))
    return dict(
        cases=len(rows), mujoco_loads=n, skipped_mujoco_fails=len(rows) - n,
        loads=sum(1 for r in live if r["status"] in ("ok", "sim-error", "loaded")),
        clear_errors=sum(1 for r in live if r["status"] == "clear-error"),
        # failures, by kind: a load error that names no unsupported element, a worker that died or hung, an
        # exception while stepping, a state that left the finite numbers
        load_errors=sum(1 for r in live if r["status"] == "load-error"),
        crashes=sum(1 for r in live if r["status"] in ("crash", "timeout")),
        sim_errors=sum(1 for r in live if r["status"] == "sim-error"),
        nonfinite=sum(1 for r in live if r.get("nonfinite")),
        structure=sum(1 for r in live if r.get("structure")),
        diff100_1e6=within(100, 1e-6), diff500_1e3=within(500, 1e-3),
        chaotic=sum(1 for r in live if _chaotic(r)),
        diff100_1e6_or_chaotic=within(100, 1e-6, True), diff500_1e3_or_chaotic=within(500, 1e-3, True),
        failures_without_flex=sum(1 for r in live if r["status"] not in ("ok", "loaded", "clear-error")
                                  and not r.get("flex")),
        speed_models=len(speeds), speed_median=float(np.median(list(speeds.values()))) if speeds else None,
        speed_below_0_05=sorted(f"{k} {v:.3f}" for k, v in speeds.items() if v < 0.05))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="menagerie", choices=["menagerie", "mujoco", "all"])
    ap.add_argument("--only", action="append", help="run cases whose name contains this (repeatable)")
    ap.add_argument("-j", type=int, default=1, help="parallel worker processes")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per model")
    ap.add_argument("--steps", type=int, default=500, help="steps per model; 0: load only (parse, Finalize, Build)")
    ap.add_argument("--out", default=None, help="output stem (default benchmarks/corpus/results/<corpus>)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(RunOne(args.worker, args.steps), default=float))
        return 0
    if not DATA.is_dir():
        print(f"no corpus data in {DATA}: run `python benchmarks/corpus/fetch.py` first", file=sys.stderr)
        return 2
    cases = Cases(args.corpus)
    if args.only:
        cases = [c for c in cases if any(o in c[1] for o in args.only)]
    rows = []
    stem = Path(args.out) if args.out else RESULTS / args.corpus
    stem.parent.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, args.j)) as pool, \
            stem.with_suffix(".jsonl").open("w") as partial:
        for row in pool.map(lambda c: _run_case(c, args.timeout, args.steps), cases):
            rows.append(row)
            partial.write(json.dumps(row, default=float) + "\n")
            partial.flush()
            d = row.get("diff", {})
            print(f"{row['name']:<48} {row['status']:<13} struct={row.get('structure', '-')!s:<5} "
                  f"d100={_fmt(d.get('100'))} d500={_fmt(d.get('500'))} {row.get('error', '')[:110]}", flush=True)
    totals = Totals(rows)
    table = Table(rows)
    print(table)
    print(json.dumps(totals, indent=1))
    stem.with_suffix(".md").write_text(table + "\n\n" + "\n".join(f"- {k}: {v}" for k, v in totals.items()) + "\n")
    stem.with_suffix(".json").write_text(json.dumps(dict(totals=totals, rows=rows), indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
