"""The README's main job, as written: its first command line runs examples/quickstart.py, which prints a one-screen
summary (the box pushed, tracking errors, timings, the files), saves a labelled plot and a self-contained HTML
replay; headless Chromium draws the iiwa and the box from that replay."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

from mallard.visualization.html_screenshot import FindBrowser, ScreenshotHtml
from meshcat_html import html_commands

REPO = Path(__file__).resolve().parents[2]
COMMANDS = ('pip install -e ".[dev]"', "python examples/quickstart.py")


def readme_first_command() -> str:
    """The first line of the README's first shell block, without its comment."""
    block = (REPO / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    return block.splitlines()[0].split("#", 1)[0].strip()


@pytest.fixture(scope="module")
def quickstart(models_dir):
    """Runs the README's main job from the repository root, as a newcomer does; (process, plot, replay)."""
    assert readme_first_command() == " && ".join(COMMANDS)
    assert f"pip install -e {COMMANDS[0].split()[-1]}" in (REPO / ".ci" / "run").read_text()  # CI: same install
    plot, html = REPO / "quickstart.png", REPO / "quickstart.html"
    for path in (plot, html):
        path.unlink(missing_ok=True)
    command = COMMANDS[1].split()
    proc = subprocess.run([sys.executable, *command[1:]], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, plot, html


def test_summary_plot_and_replay(quickstart):
    proc, plot, html = quickstart
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "mallard quick start: an iiwa arm pushes a box, in closed loop (3.6 s simulated)"
    assert len(lines) <= 12 and max(map(len, lines)) <= 120  # one screen
    text = proc.stdout
    pushed = float(re.search(r"box pushed ([\d.]+) cm", text).group(1))
    assert 20.0 < pushed < 60.0
    final_error = float(re.search(r"([\d.]+) rad at the end", text).group(1))
    assert final_error < 0.01
    assert re.search(r"simulation [\d.]+ s \(\d{4} steps, [\d.]+× real time\)", text)
    assert f"  plot        {plot}" in text and f"  replay      {html}  (open it in a browser)" in text
    assert "simulating: 100%" in proc.stderr  # the progress bar
    image = matplotlib.image.imread(str(plot))
    assert image.shape[:2] == (720, 810) and np.std(image[..., :3]) > 0.05
    page = html.read_text()
    assert len(page) > 1_000_000  # the viewer and the iiwa's meshes are inlined: no server, no files beside it
    animation = [c for c in html_commands(page) if c["type"] == "set_animation"]
    assert len(animation) == 1 and animation[0]["options"]["play"]
    paths = {track["path"] for track in animation[0]["animations"]}
    assert {"/drake/visualizer/iiwa14/iiwa_link_7", "/drake/visualizer/box/box"} <= paths  # pydrake's default prefix


def test_replay_draws_the_robot_in_headless_chromium(quickstart, tmp_path):
    if FindBrowser() is None:
        pytest.skip("no headless browser: install Debian's chromium (apt-get install -y chromium)")
    _, _, html = quickstart
    image = matplotlib.image.imread(ScreenshotHtml(html, tmp_path / "still.png", width=800, height=450,
                                                   replay_time=1.6))[..., :3]
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    orange = (r > 0.75) & (g < 0.4) & (b < 0.3)     # the iiwa's orange links
    black = image.max(axis=2) < 0.25                  # its black links
    blue = (b > 0.7) & (r < 0.3) & (g > 0.3) & (g < 0.6)  # the box
    brown = (r > 0.4) & (r < 0.7) & (g > 0.3) & (g < 0.5) & (b < 0.35)  # the table
    assert orange.sum() > 200 and black[40:].sum() > 1000, "the iiwa is not drawn"
    assert blue.sum() > 50 and brown.sum() > 5000, "the box or the table is not drawn"
    ys, xs = np.nonzero(orange)
    assert 100 < ys.mean() < 350 and 250 < xs.mean() < 550  # in the middle of the view, not off screen
