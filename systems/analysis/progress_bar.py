"""ProgressBar: tqdm without its monitor thread, for mallard's progress bars (sweeps and Simulator.AdvanceTo).

tqdm starts a monitor thread with its first bar and keeps it for the life of the process. mallard forks the
process for its local workers (parallel_map), and a fork is safest from a process without other threads: a lock
another thread holds at the fork stays held in the child, and Python 3.12+ warns when it forks a multi-threaded
process. The monitor only forces a redraw of a bar whose updates stall; mallard's bars update as they go.
"""
from __future__ import annotations

from tqdm import tqdm

__all__ = ["ProgressBar"]


class ProgressBar(tqdm):
    """A tqdm bar that starts no monitor thread."""

    monitor_interval = 0
