"""One-call matplotlib plot of a VectorLog (logged signals against time)."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np


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
