"""mallard: a pure-Python, Drake-style simulator.

The repository root is this package. `mallard.all` re-exports the public API, as `pydrake.all` does.
"""
import importlib
import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"

# numba's own import runs `import scipy` only to check that its version is at least 1.0 (numba/__init__.py,
# _ensure_critical_deps; its LAPACK bindings import scipy when a kernel first needs them). mallard requires a
# newer scipy, so the check is skipped here: `import mallard.all` then leaves every scipy module unloaded, as
# `import pydrake.all` does (Drake's all_test::test_function_only_imports), and scipy loads on first use.
if "numba" not in sys.modules and "scipy" not in sys.modules:
    sys.modules["scipy"] = None  # makes numba's `import scipy` raise ImportError, which it ignores
    try:
        import numba  # noqa: F401
    finally:
        del sys.modules["scipy"]

from mallard.common.numba_loading import install as _install_numba_loading  # noqa: E402

_install_numba_loading()  # before any kernel is declared: faster declarations and cache loads (see the module)

# pydrake module paths whose code lives elsewhere in mallard and whose own name cannot be a folder of this
# repository: a `math/` folder at the repository root would shadow the standard library's `math` for any
# script started from the root. `import mallard.math` loads the module below under that name.
_MODULE_ALIASES = {"mallard.math": "mallard.multibody.math.math_module"}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self._target = target

    def create_module(self, spec):
        module = importlib.import_module(self._target)
        self._target_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        """The target is already executed by create_module; keep its own spec (the import set the alias's)."""
        module.__spec__ = self._target_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in _MODULE_ALIASES:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(_MODULE_ALIASES[fullname]))
        return None


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())

from mallard.common.out_of_scope import OutOfScopeModuleFinder as _OutOfScopeModuleFinder  # noqa: E402

# last: a `mallard.X` that no finder has and whose `pydrake.X` is out of scope fails with an error saying so
if not any(isinstance(f, _OutOfScopeModuleFinder) for f in sys.meta_path):
    sys.meta_path.append(_OutOfScopeModuleFinder())


def __getattr__(name: str):
    """`mallard.math` as an attribute (as `import mallard; mallard.math` works after `import mallard.math`)."""
    if f"mallard.{name}" in _MODULE_ALIASES:
        return importlib.import_module(f"mallard.{name}")
    raise AttributeError(f"module 'mallard' has no attribute {name!r}")
