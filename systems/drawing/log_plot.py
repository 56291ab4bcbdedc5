"""One-call matplotlib plots of logged signals: a VectorLog's rows against time (`plot_vector_log`), and whole
loggers in labelled panels (`plot_logged_signals`: pydrake state names, positions / velocities / efforts
apart, a legend that stays readable for 30+ signals)."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .signal_names import SignalNames, logged_signal_names

__all__ = ["plot_vector_log", "plot_logged_signals"]

# matplotlib's tab20 palette: distinct colours when a panel lists more than 10 traces.
_TAB20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728", "#ff9896", "#9467bd",
          "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d",
          "#17becf", "#9edae5")


def plot_vector_log(log, names: Optional[Sequence[str]] = None, ax=None,
                    indices: Optional[Sequence[int]] = None, **plot_kwargs):
    """Plot each row of `log.data()` against `log.sample_times()` (seconds) and return the Axes.

    `names` labels the rows (e.g. `plant.GetStateNames(False)`); without it rows are `x[i]`. `indices`
    selects a subset of rows. Extra keyword arguments go to `Axes.plot`.
    """
    import matplotlib.pyplot as plt

    t = np.asarray(log.sample_times())
    data = np.asarray(log.data())
    n = data.shape[0]
    if names is not None and len(names) != n:
        raise ValueError(f"plot_vector_log: {len(names)} names for a log with {n} rows; give one name per row")
    rows = list(range(n)) if indices is None else [int(i) for i in indices]
    for i in rows:
        if not 0 <= i < n:
            raise ValueError(f"plot_vector_log: row index {i} is outside the log's {n} rows")
    if ax is None:
        _, ax = plt.subplots()
    for i in rows:
        ax.plot(t, data[i], label=names[i] if names is not None else f"x[{i}]", **plot_kwargs)
    ax.set_xlabel("time (s)")
    if rows and len(rows) <= 20:
        ax.legend(loc="best", fontsize="small")
    ax.grid(True, alpha=0.3)
    return ax


def _panels(logs, context, names) -> list[tuple[str, str, np.ndarray, np.ndarray, list[str]]]:
    """(title, unit, times, rows, row names) for every signal group of every log."""
    panels = []
    for k, entry in enumerate(logs):
        signal = None
        if hasattr(entry, "FindLog"):  # a VectorLogSink: read its log, name what it records
            if context is None:
                raise ValueError(f"plot_logged_signals: {entry.GetSystemPathname()} is a logger; pass the root "
                                 "context it logged into (simulator.get_context()) as `context`")
            log = entry.FindLog(context)
            signal = logged_signal_names(entry)
        elif hasattr(entry, "sample_times") and hasattr(entry, "data"):
            log = entry
        else:
            raise TypeError(f"plot_logged_signals: item {k} is a {type(entry).__name__}; give VectorLogs or "
                            "VectorLogSinks (what LogVectorOutput returns)")
        data = np.asarray(log.data())
        if names is not None:
            signal = names if isinstance(names, SignalNames) else SignalNames.Ungrouped(list(names))
        if signal is None:
            signal = SignalNames.Ungrouped([f"x[{i}]" for i in range(data.shape[0])])
        if len(signal.names) != data.shape[0]:
            raise ValueError(f"plot_logged_signals: {len(signal.names)} names for a log with {data.shape[0]} rows; "
                             "give one name per row")
        times = np.asarray(log.sample_times())
        for group in signal.groups:
            if group.indices:
                rows = data[list(group.indices)]
                panels.append((group.label, group.unit, times, rows, [signal.names[i] for i in group.indices]))
    return panels


def _draw_panel(ax, times, rows, labels, legend_entries: int, plot_kwargs: dict) -> None:
    """The rows with the widest range coloured and in the legend; beyond `legend_entries`, the rest thin grey."""
    n = len(labels)
    spread = np.nan_to_num(np.ptp(rows, axis=1), nan=0.0) if rows.shape[1] else np.zeros(n)
    shown = set(np.argsort(-spread, kind="stable")[:legend_entries].tolist()) if n > legend_entries else set(range(n))
    colors = [f"C{i}" for i in range(10)] if len(shown) <= 10 else list(_TAB20)
    k = 0
    for i in range(n):
        if i in shown:
            ax.plot(times, rows[i], label=labels[i], color=colors[k % len(colors)], **plot_kwargs)
            k += 1
        else:
            ax.plot(times, rows[i], color="0.65", lw=0.7, alpha=0.7, zorder=1, **plot_kwargs)
    note = f"+{n - len(shown)} more (smaller range, grey)" if n > len(shown) else None
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small", title=note,
              title_fontsize="x-small", ncols=1 if len(shown) <= 12 else 2, frameon=False)
    ax.grid(True, alpha=0.3)


def plot_logged_signals(logs, context=None, *, names=None, panels: Optional[Sequence[str]] = None,
                        title: Optional[str] = None,
                        legend_entries: int = 10, figsize: Optional[tuple[float, float]] = None,
                        **plot_kwargs):
    """One figure of logged signals with a panel per signal group, returned as a matplotlib Figure.

    `logs` is a VectorLog, a VectorLogSink (what `LogVectorOutput` returns; pass the root `context`) or a list
    of them (panels stacked on one time axis). A logger's traces are named after the port it records
    (a MultibodyPlant's state gives pydrake's `iiwa_joint_1_q`, ..., with positions and velocities in separate
    panels; actuation and controller outputs give efforts); `names` (one per row, or a SignalNames) overrides
    that for a single log. `panels` keeps only the groups with these titles (e.g. ["iiwa14 positions q",
    "efforts (actuation)"]), in the logs' order. A panel with more than `legend_entries` traces colours and lists the ones with the
    widest range and draws the others thin and grey, saying how many. Extra keyword arguments go to `Axes.plot`.
    """
    entries = list(logs) if isinstance(logs, (list, tuple)) else [logs]
    if names is not None and len(entries) != 1:
        raise ValueError("plot_logged_signals: `names` labels a single log; name several logs through their ports")
    if int(legend_entries) < 1:
        raise ValueError(f"plot_logged_signals: legend_entries must be >= 1, got {legend_entries}")
    found = _panels(entries, context, names)
    if panels is not None:
        unknown = sorted(set(panels) - {p[0] for p in found})
        if unknown:
            raise ValueError(f"plot_logged_signals: no panel titled {unknown}; the logs have "
                             f"{[p[0] for p in found]}")
        found = [p for p in found if p[0] in set(panels)]
    panels = found
    if not panels:
        raise ValueError("plot_logged_signals: the logs have no rows to plot")
    from matplotlib.figure import Figure  # matplotlib loads on first plot, not with mallard

    fig = Figure(figsize=figsize or (9.0, 0.8 + 2.4 * len(panels)), layout="constrained")
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (label, unit, times, rows, row_names) in zip(axes, panels):
        _draw_panel(ax, times, rows, row_names, int(legend_entries), plot_kwargs)
        ax.set_title(label, loc="left", fontsize="medium")
        if unit:
            ax.set_ylabel(unit)
    axes[-1].set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    return fig
