"""LazyModule: `import mallard.all` leaves scipy's heavy subpackages and matplotlib unloaded until first use, as
pydrake keeps them out of `import pydrake.all` (Drake's all_test::test_function_only_imports)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from mallard.common.lazy_import import LazyModule

HEAVY = ("matplotlib", "scipy.linalg", "scipy.optimize", "scipy.sparse")


def test_import_all_leaves_heavy_modules_unloaded_until_used():
    """In a fresh process: after `import mallard.all` the heavy modules are registered but not executed; an LQR
    design (scipy.linalg) then loads scipy.linalg, and only it."""
    code = ("import sys, importlib.util, numpy as np\n"
            "import mallard.all as m\n"
            f"heavy = {HEAVY!r}\n"
            "lazy = lambda n: isinstance(sys.modules.get(n), importlib.util._LazyModule)\n"
            "before = [lazy(n) for n in heavy]\n"
            "K, S = m.LinearQuadraticRegulator(np.array([[0., 1.], [0., 0.]]), np.array([[0.], [1.]]),"
            " np.eye(2), np.eye(1))\n"
            "print(before, [lazy(n) for n in heavy], K.round(6).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[0] == "[True, True, True, True] [True, False, True, True] [[1.0, 1.732051]]", out


def test_lazy_module_is_the_module_once_used():
    """A module already imported comes back as is; a lazy one behaves as the real module on first use."""
    assert LazyModule("numpy") is np
    linalg = LazyModule("scipy.linalg")
    assert np.allclose(linalg.solve(2.0 * np.eye(2), np.ones(2)), 0.5)
    import scipy.linalg
    assert scipy.linalg is linalg
