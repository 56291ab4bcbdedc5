"""PyPlotVisualizer (pydrake.systems.pyplot_visualizer): the base of matplotlib visualizers. A subclass
declares its input ports and implements ``draw(context)``; this base owns the figure (``fig``) and axes
(``ax``), redraws every ``draw_period`` (default 1/32 s, exact in binary) and records frames for replay.

``show`` (default: whether matplotlib's backend is interactive) pops the figure up and refreshes it at each
publish; headless (Agg) figures are still drawn, so they can be saved or animated.
"""
from __future__ import annotations

import math

import numpy as np

from mallard.common.lazy_import import LazyModule
from mallard.systems.framework import LeafSystem

matplotlib = LazyModule("matplotlib")  # loaded on first use (import time)

__all__ = ["PyPlotVisualizer"]

_NON_INTERACTIVE = ("agg", "template", "pdf", "ps", "svg", "cairo", "pgf")


class PyPlotVisualizer(LeafSystem):
    """Base class of planar visualizers drawn with pyplot (see the module doc)."""

    def __init__(self, draw_period: float | None = None, facecolor=(1, 1, 1), figsize=None, ax=None,
                 show: bool | None = None):
        super().__init__()
        period = 1.0 / 32 if draw_period is None else float(draw_period)
        if not math.isfinite(period) or period <= 0:
            raise ValueError(f"{type(self).__name__}: draw_period must be finite and > 0 s; given {draw_period!r}")
        self.set_name("pyplot_visualization")
        self.time_step = period
        if show is None:
            show = matplotlib.get_backend().lower() not in _NON_INTERACTIVE
        self._show = bool(show)
        if ax is not None:
            self.ax = ax
            self.fig = ax.get_figure()
        elif self._show:
            import matplotlib.pyplot as plt

            self.fig = plt.figure(facecolor=facecolor, figsize=figsize)
            self.ax = self.fig.add_subplot()
        else:  # headless: a figure outside pyplot (nothing to close, nothing leaks)
            from matplotlib.figure import Figure

            self.fig = Figure(facecolor=facecolor, figsize=figsize)
            self.ax = self.fig.add_subplot()
        self.ax.axis("equal")
        self.ax.axis("off")
        self._is_recording = False
        self._recorded_contexts: list = []
        self.DeclareForcedPublishEvent(self._on_any_publish)
        self.DeclarePeriodicPublishEvent(self.time_step, 0.0, self._on_any_publish)
        self.DeclareInitializationPublishEvent(self._on_initialize)
        self.DeclareInitializationPublishEvent(self._on_any_publish)

    def _on_initialize(self, context) -> None:
        if self._show:
            self.fig.show()

    def _on_any_publish(self, context) -> None:
        self.draw(context)
        if self._show:
            import matplotlib.pyplot as plt

            self.fig.canvas.draw()
            plt.pause(1e-10)
        if self._is_recording:
            self._recorded_contexts.append(self._snapshot(context))

    def _snapshot(self, context):
        """A standalone copy of ``context`` with its inputs fixed to their current values, which ``draw``
        can redraw later."""
        snapshot = self.AllocateContext()
        snapshot.SetTimeStateAndParametersFrom(context)
        self.FixInputPortsFrom(self, context, snapshot)
        return snapshot

    def draw(self, context) -> None:
        """Draw one frame of ``context`` (or, for visualizers of a state vector, of a raw vector)."""
        raise TypeError(f"{type(self).__name__} must implement draw(context)")

    # ----- recording -----------------------------------------------------------------------------------
    def start_recording(self) -> None:
        """Keep a snapshot of every published frame from now on."""
        self._is_recording = True

    def stop_recording(self) -> None:
        self._is_recording = False

    def reset_recording(self) -> None:
        self._recorded_contexts = []

    def _draw_recorded_frame(self, i: int):
        return self.draw(self._recorded_contexts[i])

    def get_recording_as_animation(self, **kwargs):
        """A matplotlib FuncAnimation replaying the recorded frames (kwargs go to FuncAnimation)."""
        import matplotlib.animation as animation

        if not self._recorded_contexts:
            raise RuntimeError(f"{type(self).__name__}: no frames recorded; call start_recording() before "
                               "simulating and stop_recording() after")
        return animation.FuncAnimation(fig=self.fig, func=self._draw_recorded_frame,
                                       frames=len(self._recorded_contexts), interval=1000 * self.time_step,
                                       **kwargs)

    def animate(self, log, resample: bool = True, **kwargs):
        """A FuncAnimation drawing the states of ``log`` (a VectorLog, or a Trajectory sampled every
        draw_period); with ``resample`` the log is first interpolated onto a draw_period grid."""
        if hasattr(log, "sample_times") and hasattr(log, "data"):
            t, x = np.asarray(log.sample_times()), np.asarray(log.data())
            if resample and len(t) > 1:
                grid = np.arange(t[0], t[-1] + 0.5 * self.time_step, self.time_step)
                x = np.vstack([np.interp(grid, t, row) for row in x])
                t = grid
        elif hasattr(log, "start_time") and hasattr(log, "value"):
            t = np.arange(log.start_time(), log.end_time(), self.time_step)
            x = np.hstack([np.asarray(log.value(time)).reshape(-1, 1) for time in t])
        else:
            raise TypeError(f"animate: log must be a VectorLog or a Trajectory; given {type(log).__name__}")
        import matplotlib.animation as animation

        return animation.FuncAnimation(fig=self.fig, func=lambda i: self.draw(x[:, i]), frames=t.shape[0],
                                       interval=1000 * self.time_step, **kwargs)
