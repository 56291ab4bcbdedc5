"""Plumbing shared by the example scripts: where the shared robot models are, saving a plot, the command line."""
from __future__ import annotations

import argparse
from pathlib import Path

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
