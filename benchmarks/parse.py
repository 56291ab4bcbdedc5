"""Model loading: parse + Finalize time of the MuJoCo humanoid (MJCF) and the iiwa14 (URDF), mallard against
MuJoCo's and pydrake's loading of the same files, in one run. Prints times and ratios (> 1: mallard faster).

Run: python benchmarks/parse.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "shared" / "models"
HUMANOID = MODELS / "mujoco" / "model" / "humanoid.xml"
IIWA = MODELS / "drake_models" / "iiwa_description" / "urdf" / "iiwa14_polytope_collision.urdf"
PACKAGE_XML = MODELS / "drake_models" / "package.xml"


def best_of(fn, repeat: int) -> float:
    """Smallest wall time of `repeat` calls of fn() [s] (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def mallard_load(path: Path) -> None:
    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.parsers import Parser
    from mallard.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant, _scene_graph = AddMultibodyPlantSceneGraph(builder, 0.002)
    parser = Parser(plant)
    parser.package_map().Remove("drake_models")  # a remote package by default, as in pydrake: use the local copy
    parser.package_map().AddPackageXml(str(PACKAGE_XML))
    parser.AddModels(str(path))
    plant.Finalize()


def drake_load(path: Path) -> None:
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder
    builder = DiagramBuilder()
    plant, _scene_graph = AddMultibodyPlantSceneGraph(builder, 0.002)
    parser = Parser(plant)
    if parser.package_map().Contains("drake_models"):
        parser.package_map().Remove("drake_models")
    parser.package_map().AddPackageXml(str(PACKAGE_XML))
    parser.AddModels(str(path))
    plant.Finalize()


def mujoco_load(path: Path) -> None:
    import mujoco
    mujoco.MjModel.from_xml_path(str(path))


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--repeat", type=int, default=5)
    repeat = args.parse_args().repeat
    warnings.simplefilter("ignore")  # unsupported-feature warnings are reported by the parser tests
    if not MODELS.is_dir():
        raise SystemExit(f"parse.py: the shared models were not found at {MODELS}")
    print(f"{'model':<34}{'mallard [ms]':>14}{'reference [ms]':>16}{'ref/mallard':>13}")
    rows = [("humanoid.xml vs MuJoCo", HUMANOID, mujoco_load), ("humanoid.xml vs pydrake", HUMANOID, drake_load),
            ("iiwa14 URDF vs pydrake", IIWA, drake_load)]
    for label, path, reference in rows:
        try:
            ref = best_of(lambda: reference(path), repeat)
        except ImportError as exc:
            print(f"{label:<34}  skipped: {exc}")
            continue
        ours = best_of(lambda: mallard_load(path), repeat)
        print(f"{label:<34}{ours * 1e3:>14.1f}{ref * 1e3:>16.1f}{ref / ours:>13.2f}")


if __name__ == "__main__":
    main()
