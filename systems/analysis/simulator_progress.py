"""A tqdm progress bar for one `Simulator.AdvanceTo`: simulated time against the boundary, and the real-time rate.

The bar rides on the simulator's monitor for the length of the call (chaining the monitor the user set), so a
simulator without it pays nothing per step; with it a step costs one clock read, and the bar redraws at most
every `refresh_period` seconds of wall time. It writes to stderr and is left on screen when the call ends.
"""
from __future__ import annotations

import time

from .progress_bar import ProgressBar

__all__ = ["SimulatorProgress"]

_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| t = {n:.3f}/{total:.3f} s [{elapsed}<{remaining}{postfix}]"


class SimulatorProgress:
    """Context manager: `with SimulatorProgress(simulator, boundary_time): simulator.AdvanceTo(...)`."""

    def __init__(self, simulator, boundary_time: float, refresh_period: float = 0.2, file=None,
                 desc: str = "simulating") -> None:
        self._simulator = simulator
        self._boundary = float(boundary_time)
        self._period = float(refresh_period)
        self._file = file
        self._desc = desc
        self._bar = None
        self._user_monitor = None

    def __enter__(self) -> "SimulatorProgress":
        sim = self._simulator
        self._t0 = self._t_shown = sim.get_context().get_time()
        self._bar = ProgressBar(total=max(self._boundary - self._t0, 0.0), desc=self._desc, bar_format=_FORMAT,
                                file=self._file, leave=True, mininterval=0.0, smoothing=0.0, dynamic_ncols=True)
        self._wall0 = time.perf_counter()
        self._next_draw = self._wall0 + self._period
        self._user_monitor = sim.get_monitor()
        sim.set_monitor(self._monitor)
        return self

    def _monitor(self, context):
        status = self._user_monitor(context) if self._user_monitor is not None else None
        now = time.perf_counter()
        if now >= self._next_draw:
            self._draw(context.get_time(), now)
            self._next_draw = now + self._period
        return status

    def _draw(self, t: float, now: float) -> None:
        """Advance the bar to simulated time t (s); the postfix is simulated seconds per wall second."""
        wall = now - self._wall0
        rate = (t - self._t0) / wall if wall > 0 else 0.0
        self._bar.set_postfix_str(f"{rate:.3g}× real time", refresh=False)
        self._bar.update(min(t, self._boundary) - self._t_shown)
        self._t_shown = min(t, self._boundary)

    def __exit__(self, *exc) -> None:
        sim = self._simulator
        if self._user_monitor is None:
            sim.clear_monitor()
        else:
            sim.set_monitor(self._user_monitor)
        self._draw(sim.get_context().get_time(), time.perf_counter())
        self._bar.close()
