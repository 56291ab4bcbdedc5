"""LazyModule: `import mallard.all` leaves scipy and matplotlib unloaded (not even named in `sys.modules`) until
first use, as pydrake keeps them out of `import pydrake.all` (Drake's all_test::test_function_only_imports)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from mallard.common.lazy_import import LazyModule

# Drake's all_test::test_function_only_imports: no module whose name starts with one of these after the import.
FUNCTION_ONLY = ("cv2", "matplotlib.animation", "matplotlib.pyplot", "pydot", "scipy")


def test_import_all_leaves_function_only_modules_unloaded_until_used():
    """In a fresh process: after `import mallard.all` no module named as Drake's test lists is in sys.modules (numba's
    own import-time `import scipy` included), nor networkx after building a diagram; an LQR design (scipy.linalg)
    then loads scipy.linalg and gives pydrake's gain."""
    code = ("import sys, numpy as np\n"
            "import mallard.all as m\n"
            f"bad = lambda: sorted(n for n in sys.modules if n.startswith({FUNCTION_ONLY!r}))\n"
            "b = m.DiagramBuilder(); b.AddSystem(m.ConstantVectorSource([1.0])); b.Build()\n"
            "before = bad() + sorted(n for n in sys.modules if n.startswith('networkx'))\n"
            "K, S = m.LinearQuadraticRegulator(np.array([[0., 1.], [0., 0.]]), np.array([[0.], [1.]]),"
            " np.eye(2), np.eye(1))\n"
            "print(before, 'scipy.linalg' in sys.modules, K.round(6).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[0] == "[] True [[1.0, 1.732051]]", out


def test_lazy_module_is_the_module_once_used():
    """A module already imported comes back as is; a deferred one reads as the real module on first use and is
    only then imported."""
    assert LazyModule("numpy") is np
    code = ("import sys, numpy as np\n"
            "from mallard.common.lazy_import import LazyModule\n"
            "linalg = LazyModule('scipy.linalg')\n"
            "before = 'scipy.linalg' in sys.modules\n"
            "x = linalg.solve(2.0 * np.eye(2), np.ones(2))\n"
            "import scipy.linalg\n"
            "print(before, x.tolist(), linalg.solve is scipy.linalg.solve, 'lu_factor' in dir(linalg))\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[0] == "False [0.5, 0.5] True True", out


def test_lazy_module_of_a_missing_package_names_it():
    """A module that is not installed is reported at once, by name."""
    try:
        LazyModule("no_such_package_mallard.sub")
    except ModuleNotFoundError as error:
        assert "no_such_package_mallard.sub" in str(error)
    else:
        raise AssertionError("LazyModule accepted a package that is not installed")
