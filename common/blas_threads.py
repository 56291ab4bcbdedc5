"""Single-threaded BLAS around mallard's own work (model loading, Finalize, simulation).

mallard's dense linear algebra is small (mass matrices, constraint Jacobians of tens to a few hundred
rows), where a threaded BLAS spends more time waking and synchronizing threads than computing: with
OpenBLAS's default threading one 162x162 Cholesky took 50-120 ms on a busy 2-core machine instead of ~1 ms.
So the package's entry points run with every BLAS library (numpy's and scipy's, which numba's compiled
LAPACK calls use) limited to one thread, and restore the user's setting when they return; users need not
set OPENBLAS_NUM_THREADS=1. Nested and concurrent entries share one limit (a process-wide count), since
BLAS thread counts are process-wide.
"""
from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

__all__ = ["single_threaded_blas", "with_single_threaded_blas"]

F = TypeVar("F", bound=Callable)

_lock = threading.Lock()
_depth = 0
_saved: list = []
_libraries: list | None = None


def _blas_libraries() -> list:
    """threadpoolctl controllers of the loaded BLAS libraries (found once; scipy's is loaded first)."""
    global _libraries
    if _libraries is None:
        import scipy.linalg  # noqa: F401 - loads scipy's BLAS/LAPACK (numba's np.linalg calls it) before the scan
        from threadpoolctl import ThreadpoolController
        _libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _libraries


class single_threaded_blas:
    """Context manager: BLAS libraries run single-threaded inside, the previous thread counts after."""

    def __enter__(self) -> "single_threaded_blas":
        global _depth, _saved
        with _lock:
            if _depth == 0:
                saved = []
                for lib in _blas_libraries():
                    n = lib.get_num_threads()
                    if n is not None and n > 1:
                        lib.set_num_threads(1)
                        saved.append((lib, n))
                _saved = saved
            _depth += 1
        return self

    def __exit__(self, *exc) -> None:
        global _depth, _saved
        with _lock:
            _depth -= 1
            if _depth == 0:
                for lib, n in _saved:
                    lib.set_num_threads(n)
                _saved = []


def with_single_threaded_blas(func: F) -> F:
    """Decorator: `func` runs inside `single_threaded_blas()` (for the package's entry points)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with single_threaded_blas():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
