"""common/numba_loading.py: a cached function's bitcode is parsed on first need, with numba's answers unchanged.

Each check runs in fresh processes over a module of cached kernels written to a temporary folder: the first process
compiles and saves them, the second loads them from numba's cache with the loader installed (as `import mallard`
does) and checks that the load parsed no bitcode, that the loaded functions compute what they did, that the engine
lists their symbols as numba's loader would, and that a new compilation linking a loaded function works.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

KERNELS = textwrap.dedent('''
    import numpy as np
    from numba import njit

    @njit(cache=True)
    def inner(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * x[i]
        return s

    @njit(cache=True)
    def outer(x, k):
        return inner(x) * k + np.sqrt(float(x.shape[0]))

    @njit(cache=True)
    def library(x, key):
        # numba's own implementations (numpy's sort and cumsum, a dict keyed by strings: their hashing) compiled
        # into the cached library
        table = {"a": 1.0, "bb": 2.0}
        return np.sort(x)[-1] + np.cumsum(x)[-1] + table[key]
''')

PROBE = textwrap.dedent('''
    import json, sys
    import numpy as np
    import mallard.multibody  # installs the loader
    from mallard.common import numba_loading
    from numba import njit
    from numba.core.registry import cpu_target
    import tempfile
    probes = []
    _temporary_file = tempfile.TemporaryFile
    tempfile.TemporaryFile = lambda *a, **k: probes.append(k.get("dir")) or _temporary_file(*a, **k)
    import kernels
    tempfile.TemporaryFile = _temporary_file
    x = np.arange(5.0)
    out = {"installed": numba_loading.installed(), "value": kernels.outer(x, 3)}
    out["pending_after_load"] = numba_loading.pending_libraries()
    sig = next(iter(kernels.outer.overloads))
    cres = kernels.outer.overloads[sig]
    out["hits"] = sum(kernels.outer.stats.cache_hits.values())
    engine = cpu_target.target_context.codegen()._engine
    out["wrapper_defined"] = engine.is_symbol_defined(cres.fndesc.llvm_cpython_wrapper_name)
    out["function_defined"] = engine.is_symbol_defined(cres.fndesc.llvm_func_name)
    out["pending_after_lookup"] = numba_loading.pending_libraries()
    out["library"] = kernels.library(x[::-1].copy(), "bb")
    out["lazy_refresh"] = numba_loading.lazy_refresh()
    out["probes"] = len(probes)  # writability probes of the cache folder while declaring the module's 3 kernels
    out["modules_after_load"] = sorted(n for n in ("numba.np.arraymath", "numba.np.linalg", "scipy")
                                       if n in sys.modules)

    @njit
    def caller(x):  # compiled now: links the loaded library of `outer`
        return kernels.outer(x, 2) + 1.0
    out["linked"] = caller(x)

    @njit
    def new_code(x):  # compiled now: numba's registries load for it
        return np.sort(x)[0] + np.linalg.norm(x)
    out["new_code"] = new_code(x)
    print(json.dumps(out))
''')


def _run(folder, env):
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def kernel_folder(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    return tmp_path, env


def test_cached_functions_load_without_numba_registries_and_compute_and_compile_as_before(kernel_folder):
    """The second process loads a cached function compiled with numba's own implementations (numpy's sort and
    cumsum, a string-keyed dict) without importing numba's registries or scipy, computes the same, and compiles new
    code using them afterwards; declaring the module's kernels probes their cache folder once."""
    folder, env = kernel_folder
    first = _run(folder, env)
    second = _run(folder, env)
    assert first["lazy_refresh"] and second["lazy_refresh"]
    assert first["library"] == second["library"] == 4.0 + 10.0 + 2.0
    assert first["modules_after_load"] == ["numba.np.arraymath", "numba.np.linalg", "scipy"]  # compiled here
    assert second["modules_after_load"] == []
    assert first["new_code"] == second["new_code"] == 30 ** 0.5
    assert first["probes"] == second["probes"] == 1  # numba alone: one per kernel


def test_cached_functions_load_without_parsing_bitcode_and_compute_and_link_as_before(kernel_folder):
    folder, env = kernel_folder
    first = _run(folder, env)   # compiles and saves the cache
    second = _run(folder, env)  # loads it
    expected = 3 * (0 + 1 + 4 + 9 + 16) + 5 ** 0.5
    assert first["installed"] and second["installed"]
    assert first["hits"] == 0 and second["hits"] == 1
    assert first["value"] == second["value"] == expected
    assert first["pending_after_load"] == 0 and second["pending_after_load"] >= 1
    # numba's answers about the loaded library's symbols (its wrapper, its function) are unchanged; asking about a
    # name the loader does not know by construction parses the pending bitcode first
    assert second["wrapper_defined"] and second["function_defined"]
    assert second["pending_after_lookup"] == 0
    assert first["linked"] == second["linked"] == 2 * (0 + 1 + 4 + 9 + 16) + 5 ** 0.5 + 1.0
