"""A still of a web page, e.g. a Meshcat StaticHtml replay, taken by headless Chromium: for README images and for
tests that check what a recording draws. Needs a Chromium or Chrome binary (Debian: apt-get install chromium)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

__all__ = ["BROWSERS", "FindBrowser", "ScreenshotHtml"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--enable-unsafe-swiftshader", "--hide-scrollbars"]


def FindBrowser() -> str | None:
    """The path of the first Chromium / Chrome binary on PATH, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _paused_copy(html_file: str, t: float, folder: str) -> str:
    """A copy of a StaticHtml page (which names its viewer `window.viewer`) whose replay is paused at t (s)."""
    with open(html_file, encoding="utf-8") as f:
        html = f.read()
    if "window.viewer" not in html or "</body>" not in html:
        raise ValueError(f"ScreenshotHtml: {html_file} is not a Meshcat StaticHtml page; replay_time needs one")
    pause = (f"<script>window.viewer.animator.pause(); window.viewer.animator.seek({t!r});</script>\n</body>")
    path = os.path.join(folder, "paused.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", pause, 1))
    return path


def ScreenshotHtml(page: str | os.PathLike, png: str | os.PathLike, width: int = 800, height: int = 600,
                   replay_time: float | None = None, virtual_time_ms: int | None = None,
                   browser: str | None = None, timeout: float = 120.0) -> str:
    """Write a `width` × `height` PNG of `page` (an HTML file, or an http:// URL) to `png`; returns its path.

    `replay_time` (s) shows a Meshcat StaticHtml replay paused at that time of its animation (without it a
    replay is caught wherever its playback is when the page has loaded). `virtual_time_ms` lets the page run
    that long in the browser's virtual time first, e.g. for a live page to connect and draw. Raises
    FileNotFoundError without a browser and RuntimeError, with Chromium's message, when no screenshot was written.
    """
    browser = browser or FindBrowser()
    if browser is None:
        raise FileNotFoundError(f"no headless browser found (looked for {', '.join(BROWSERS)}); install Chromium, "
                                "e.g. apt-get install -y chromium")
    target = os.fspath(page)
    is_url = target.startswith(("http://", "https://", "file://"))
    if replay_time is not None and is_url:
        raise ValueError("ScreenshotHtml: replay_time needs an HTML file (a Meshcat StaticHtml replay), not a URL")
    png = os.path.abspath(os.fspath(png))
    if os.path.exists(png):
        os.remove(png)
    extra = [f"--virtual-time-budget={int(virtual_time_ms)}"] if virtual_time_ms else []
    with tempfile.TemporaryDirectory(prefix="mallard-chromium-") as profile:
        url = target if is_url else f"file://{os.path.abspath(target)}"
        if replay_time is not None:
            url = f"file://{_paused_copy(target, float(replay_time), profile)}"
        result = subprocess.run([browser, *_FLAGS, f"--window-size={int(width)},{int(height)}", *extra,
                                 f"--user-data-dir={profile}", f"--screenshot={png}", url],
                                capture_output=True, text=True, timeout=timeout)
    if not os.path.isfile(png):
        raise RuntimeError(f"{browser} wrote no screenshot of {url} (exit {result.returncode}): "
                           f"{result.stderr[-2000:]}")
    return png
