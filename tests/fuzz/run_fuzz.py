"""Long fuzzing run over mutated models (the generator of tests/parsers/test_load_fuzz.py, many more cases).

    python tests/fuzz/run_fuzz.py --cases 3000 --seed 1 [--fast] [--keep DIR]

Prints the counts of outcomes by kind and format and every forbidden outcome (another exception type, an
error without a place, a non-finite model, a hang) with its case; --keep saves those files. Address space is
capped (--memory-gb) so a runaway allocation shows up as a MemoryError instead of the machine's OOM killer.
Not collected by pytest (no test_ prefix).
"""
from __future__ import annotations

import argparse
import collections
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: conftest (MODELS) and fuzz.model_mutations

from conftest import MODELS  # noqa: E402
from fuzz.model_mutations import BAD, EXTENSIONS, Case, bases, mutate, random_case, run_case  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fast", action="store_true", help="leave out the slow bases (as the CI test does)")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds before a case counts as a hang")
    ap.add_argument("--memory-gb", type=float, default=6.0)
    ap.add_argument("--keep", type=Path, default=None, help="folder to save the files of forbidden outcomes")
    args = ap.parse_args()
    limit = int(args.memory_gb * 2 ** 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    pool = bases(MODELS, include_slow=not args.fast)
    package_xml = MODELS / "drake_models" / "package.xml"
    rng = random.Random(args.seed)
    counts: collections.Counter = collections.Counter()
    by_format: dict = collections.defaultdict(collections.Counter)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        for base in pool:  # warm-up (kernels compile outside the per-case time limit); the bases must load
            for h in (0.0, 0.001):
                outcome = run_case(Case(base, [], h), folder, package_xml, limit_s=1e6)
                if outcome.kind != "loaded":
                    print(f"base {base.path.name} h={h} does not load: {outcome.detail[:300]}", flush=True)
        print(f"{len(pool)} base models, warm-up {time.perf_counter() - t0:.0f} s", flush=True)
        t0 = time.perf_counter()
        for k in range(args.cases):
            case = random_case(rng, pool)
            outcome = run_case(case, folder, package_xml, args.limit)
            counts[outcome.kind] += 1
            by_format[case.base.kind][outcome.kind] += 1
            if outcome.kind in BAD:
                bad.append((k, case, outcome))
                print(f"[{k}] {outcome.kind}: {case.describe()}\n    {outcome.detail[:400]}", flush=True)
                if args.keep is not None:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    (args.keep / f"case{k}.{EXTENSIONS[case.base.kind]}").write_bytes(mutate(case))
            if (k + 1) % 250 == 0:
                print(f"... {k + 1} cases, {time.perf_counter() - t0:.0f} s: {dict(counts)}", flush=True)
    wall = time.perf_counter() - t0
    print(f"\n{args.cases} mutated files from {len(pool)} base models (seed {args.seed}), {wall:.0f} s")
    for kind, c in sorted(counts.items()):
        print(f"  {kind:16s} {c}")
    for fmt, c in sorted(by_format.items()):
        print(f"  {fmt}: {dict(sorted(c.items()))}")
    print(f"forbidden outcomes: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
