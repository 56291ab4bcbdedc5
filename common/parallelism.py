"""Parallelism: a requested degree of parallelism (pydrake.common.Parallelism)."""
from __future__ import annotations

import operator
import os

__all__ = ["Parallelism"]


def _hardware_concurrency() -> int:
    """Drake's rule: the CPU count, lowered by DRAKE_NUM_THREADS (else OMP_NUM_THREADS) when set to a smaller
    positive integer."""
    hardware = os.cpu_count() or 1
    for name in ("DRAKE_NUM_THREADS", "OMP_NUM_THREADS"):
        text = os.environ.get(name)
        if text is not None:
            try:
                value = int(text)
            except ValueError:
                return hardware  # pydrake ignores a malformed value (e.g. a comma list for OpenMP)
            return value if 0 < value < hardware else hardware
    return hardware


class Parallelism:
    """`Parallelism()` (none), `Parallelism(parallelize: bool)` (none or Max()), `Parallelism(num_threads: int)`
    (>= 1)."""

    __slots__ = ("_num_threads",)

    def __init__(self, arg: bool | int = False, *, parallelize: bool | None = None,
                 num_threads: int | None = None) -> None:
        if parallelize is not None or num_threads is not None:
            if arg is not False or (parallelize is not None and num_threads is not None):
                raise TypeError("Parallelism takes one of: parallelize (bool) or num_threads (int)")
            arg = bool(parallelize) if parallelize is not None else num_threads
        if isinstance(arg, bool):
            self._num_threads = _hardware_concurrency() if arg else 1
            return
        try:
            num_threads = operator.index(arg)
        except TypeError:
            raise TypeError(f"Parallelism: expected a bool or a number of threads, got {arg!r}") from None
        if num_threads < 1:
            raise ValueError(f"Parallelism: num_threads must be >= 1, got {num_threads}")
        self._num_threads = num_threads

    @staticmethod
    def Max() -> "Parallelism":
        """The hardware concurrency (see DRAKE_NUM_THREADS / OMP_NUM_THREADS)."""
        return Parallelism(True)

    def num_threads(self) -> int:
        return self._num_threads

    def __eq__(self, other) -> bool:
        return isinstance(other, Parallelism) and other._num_threads == self._num_threads

    def __hash__(self) -> int:
        return hash(("Parallelism", self._num_threads))

    def __getstate__(self) -> int:
        return self._num_threads

    def __setstate__(self, state: int) -> None:
        self._num_threads = state

    def __repr__(self) -> str:
        return f"Parallelism(num_threads={self._num_threads})"
