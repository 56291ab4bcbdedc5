"""Heavy third-party modules loaded on first use, so `import mallard.all` stays fast.

`LazyModule("scipy.linalg")` returns the module object at once and runs its code the first time an attribute is
read (the standard library's `importlib.util.LazyLoader`). pydrake keeps scipy and matplotlib out of
`import pydrake.all` for the same reason (its all_test checks it): they cost about a second to import, and most
scripts never call the few functions that need them.
"""
from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

__all__ = ["LazyModule"]

_lock = threading.Lock()


def LazyModule(name: str) -> ModuleType:
    """The module `name` (already imported, or registered in sys.modules to load on first attribute access)."""
    with _lock:
        module = sys.modules.get(name)
        if module is not None:
            return module
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r} (a dependency of mallard: reinstall mallard)",
                                      name=name)
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
        return module
