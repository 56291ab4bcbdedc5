"""mallard does not depend on OPENBLAS_NUM_THREADS=1: its entry points run BLAS single-threaded and give the user's
thread count back (tested in a fresh process without the variable, with BLAS set to two threads)."""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap

import pytest

from mallard.common import blas_threads
from mallard.common.blas_threads import blas_already_single_threaded, single_threaded_blas, with_single_threaded_blas

threadpoolctl = pytest.importorskip("threadpoolctl")

PROBE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import scipy.linalg  # noqa: F401 - both BLAS libraries loaded before the limit is taken
    from threadpoolctl import threadpool_info, threadpool_limits
    threadpool_limits(2, user_api="blas")  # what an unconfigured OpenBLAS does on a 2-core machine

    def blas_threads():
        return sorted({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})

    from mallard.multibody.plant import AddMultibodyPlantSceneGraph
    from mallard.multibody.tree import SpatialInertia
    from mallard.parsers import Parser
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder, LeafSystem

    seen = {}

    class Probe(LeafSystem):
        def __init__(self):
            super().__init__()
            self.DeclareContinuousState(1)

        def DoCalcTimeDerivatives(self, context, derivatives):
            seen["simulating"] = blas_threads()
            derivatives.get_mutable_vector().SetAtIndex(0, 1.0)

    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.001)
    Parser(plant).AddModelsFromString(
        '<mujoco><worldbody><body><joint type="hinge"/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>',
        "xml")
    original = plant._FinalizeContact
    def finalize_contact():
        seen["finalizing"] = blas_threads()
        original()
    plant._FinalizeContact = finalize_contact
    plant.Finalize()
    builder.AddSystem(Probe())
    Simulator(builder.Build()).AdvanceTo(0.01)
    seen["after"] = blas_threads()
    print(json.dumps(seen))
""")


def test_entry_points_limit_blas_threads_without_the_environment_variable() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                              "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"finalizing": [1], "simulating": [1], "after": [2]}, seen


def test_nested_limits_restore_once() -> None:
    threadpool_info, threadpool_limits = threadpoolctl.threadpool_info, threadpoolctl.threadpool_limits
    scipy_linalg = pytest.importorskip("scipy.linalg")
    scipy_linalg.get_blas_funcs("gemm")  # scipy's BLAS loaded before the limits are taken (mallard loads it lazily)

    def threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    @with_single_threaded_blas
    def inner():
        return threads()

    with threadpool_limits(2, user_api="blas"):
        if threads() != {2}:
            pytest.skip("this BLAS cannot run two threads here")
        assert not blas_already_single_threaded()  # (Simulator.AdvanceTo then enters the limit)
        with single_threaded_blas():
            assert threads() == {1}
            assert not blas_already_single_threaded()  # inside an entry: nested entries count
            assert inner() == {1}
            assert threads() == {1}  # the inner exit did not restore early
        assert threads() == {2}
    with threadpool_limits(1, user_api="blas"):
        assert blas_already_single_threaded()  # nothing to set or put back: AdvanceTo skips the limit


def test_c_thread_count_getters_keep_the_gil() -> None:
    """An OpenBLAS C getter is called as a Python-API function (no GIL release, which in a Dask worker would hand
    the GIL to the event loop on every AdvanceTo) and agrees with threadpoolctl's count."""
    getters = [(lib, get) for lib, get in blas_threads._blas_libraries() if isinstance(get, ctypes._CFuncPtr)]
    if not getters:
        pytest.skip("no OpenBLAS without OpenMP here: the thread counts come from threadpoolctl's controllers")
    for lib, get in getters:
        assert get._flags_ & ctypes._FUNCFLAG_PYTHONAPI, lib.internal_api
        assert get() == lib.get_num_threads()
