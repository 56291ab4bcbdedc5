"""Plumbing shared by the example scripts (where the shared robot models are, saving a plot, the command line),
and the command that regenerates the README's gallery from the scripts:

    python examples/gallery.py [NAME ...]

runs each example (all of them by default) with its default duration, writes its plot to docs/gallery/NAME.png,
and for the quick start also a still of its HTML replay (headless Chromium) to docs/gallery/quickstart_replay.png.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = ("quickstart", "pendulum_swingup_lqr", "acrobot_lqr", "cart_pole_lqr", "iiwa_inverse_dynamics",
            "discrete_pd_leafsystem", "contact_box_pile", "mjcf_ctrl", "plugins_dcmotor_bowl")
GALLERY = Path(__file__).resolve().parents[1] / "docs" / "gallery"
REPLAY_STILL_TIME = 1.6  # s: the quick start's wrist meets the box


def models_dir() -> Path:
    """The `shared/models` folder that sits beside the repository checkout (or beside a folder holding it)."""
    repo = Path(__file__).resolve().parents[1]
    path = next((folder / "shared" / "models" for folder in repo.parents if (folder / "shared" / "models").is_dir()),
                repo.parent / "shared" / "models")
    if not path.is_dir():
        raise FileNotFoundError(f"the shared robot models were not found at {path}; the examples expect the "
                                "`shared/` folder next to the mallard checkout")
    return path


def save_plot(fig, out, summary: dict, dpi: int = 90) -> dict:
    """Saves `fig` as the PNG `out`, closes it, and records the file in `summary` (which is returned)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(out, dpi=dpi)
    plt.close(fig)
    summary["plot"] = str(out)
    return summary


def parse_args(doc: str, duration: float, out: str, duration_help: str = "simulated time in seconds",
               extra: tuple = ()) -> argparse.Namespace:
    """The examples' command line: --duration SECONDS and --out PNG (plus `extra` (args, kwargs) options)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=duration, help=f"{duration_help} (default {duration:g})")
    parser.add_argument("--out", default=out, help="PNG file for the plot")
    for names, options in extra:
        parser.add_argument(*names, **options)
    return parser.parse_args()


def regenerate(names=EXAMPLES, folder: Path = GALLERY) -> list[Path]:
    """Run each named example with its defaults and write its gallery images into `folder`; returns the files."""
    from mallard.visualization.html_screenshot import ScreenshotHtml

    unknown = sorted(set(names) - set(EXAMPLES))
    if unknown:
        raise ValueError(f"unknown examples {unknown}; the gallery has {list(EXAMPLES)}")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        start = time.perf_counter()
        module = importlib.import_module(name)
        plot = folder / f"{name}.png"
        if name == "quickstart":
            with tempfile.TemporaryDirectory() as tmp:
                html = Path(tmp) / "quickstart.html"
                module.run(out=plot, html=html)
                still = folder / "quickstart_replay.png"
                ScreenshotHtml(html, still, width=800, height=450, replay_time=REPLAY_STILL_TIME)
                written.append(still)
        else:
            module.run(out=plot)
        written.append(plot)
        print(f"{name}: {time.perf_counter() - start:.1f} s -> {plot}", flush=True)
    return written


if __name__ == "__main__":
    regenerate(tuple(sys.argv[1:]) or EXAMPLES)
