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

import ctypes
import functools
import threading
from typing import Callable, TypeVar

__all__ = ["single_threaded_blas", "with_single_threaded_blas", "begin_single_threaded_blas", "end_single_threaded_blas",
           "blas_already_single_threaded"]

F = TypeVar("F", bound=Callable)

_lock = threading.Lock()
_depth = 0
_saved: list = []
_libraries: list | None = None  # [(controller, zero-argument thread count getter)] of the loaded BLAS libraries
_getters: tuple = ()  # their thread count getters


def _thread_count_getter(lib) -> Callable:
    """A zero-argument callable returning `lib`'s thread count. For OpenBLAS without OpenMP, OpenBLAS's own C getter
    (one of the symbol names threadpoolctl probes, `check_symbols`), called through ctypes: ~0.2 µs against ~0.7 µs
    through the controller, which an entry point like Simulator.AdvanceTo(t + h) pays twice per call. It is called
    as a Python-API function (ctypes.PYFUNCTYPE), which keeps the GIL: a plain ctypes call releases it, and in a
    process with another thread waiting for the GIL (a Dask worker's event loop) every release hands it over.
    Otherwise, or when the C getter disagrees with the controller, the controller's get_num_threads."""
    if getattr(lib, "internal_api", None) == "openblas" and getattr(lib, "threading_layer", None) != "openmp":
        dynlib = getattr(lib, "dynlib", None)
        for name in getattr(lib, "check_symbols", ()):
            symbol = getattr(dynlib, name, None)
            if symbol is not None:
                getter = ctypes.PYFUNCTYPE(ctypes.c_int)(ctypes.cast(symbol, ctypes.c_void_p).value)
                if getter() == lib.get_num_threads():
                    return getter
                break
    return lib.get_num_threads


def _blas_libraries() -> list:
    """[(threadpoolctl controller, thread count getter)] of the loaded BLAS libraries (found once; scipy's is loaded
    first)."""
    global _libraries, _getters
    if _libraries is None:
        import scipy.linalg  # noqa: F401 - loads scipy's BLAS/LAPACK (numba's np.linalg calls it) before the scan
        from threadpoolctl import ThreadpoolController
        _libraries = [(lib, _thread_count_getter(lib))
                      for lib in ThreadpoolController().select(user_api="blas").lib_controllers]
        _getters = tuple(get for _lib, get in _libraries)
    return _libraries


def blas_already_single_threaded() -> bool:
    """Whether no entry is inside the limit and every BLAS library already runs one thread (or reports none): then
    entering and leaving the limit would set and put back nothing, and an entry point called in a loop
    (Simulator.AdvanceTo(t + h)) may skip both (~0.3 µs instead of ~0.85 µs of locking and counting). An entry
    nested in one that skipped enters the limit itself, as a first entry would."""
    if _depth:
        return False
    if _libraries is None:
        _blas_libraries()
    for get in _getters:
        n = get()
        if n is not None and n > 1:
            return False
    return True


def begin_single_threaded_blas() -> None:
    """Enter the limit (pair with end_single_threaded_blas in a `finally`; single_threaded_blas() does both). The
    outermost entry sets each library running more than one thread to one, and remembers its count."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            libraries = _libraries if _libraries is not None else _blas_libraries()
            for _lib, get in libraries:
                n = get()
                if n is not None and n > 1:  # (else nothing to set or remember: the usual case allocates nothing)
                    _saved = _limit(libraries)
                    break
        _depth += 1


def _limit(libraries: list) -> list:
    """Set each library running more than one thread to one; returns [(library, its thread count)] of those."""
    saved = []
    for lib, get in libraries:
        n = get()
        if n is not None and n > 1:
            lib.set_num_threads(1)
            saved.append((lib, n))
    return saved


def end_single_threaded_blas() -> None:
    """Leave the limit. The outermost exit puts back the thread counts the outermost entry changed."""
    global _depth, _saved
    with _lock:
        _depth -= 1
        if _depth == 0 and _saved:
            for lib, n in _saved:
                lib.set_num_threads(n)
            _saved = []


class single_threaded_blas:
    """Context manager: BLAS libraries run single-threaded inside, the previous thread counts after."""

    def __enter__(self) -> "single_threaded_blas":
        begin_single_threaded_blas()
        return self

    def __exit__(self, *exc) -> None:
        end_single_threaded_blas()


def with_single_threaded_blas(func: F) -> F:
    """Decorator: `func` runs inside `single_threaded_blas()` (for the package's entry points)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        begin_single_threaded_blas()
        try:
            return func(*args, **kwargs)
        finally:
            end_single_threaded_blas()

    return wrapper  # type: ignore[return-value]
