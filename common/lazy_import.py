"""Heavy third-party modules loaded on first use, so `import mallard.all` stays fast and leaves them out of
`sys.modules`.

`LazyModule("scipy.linalg")` returns a stand-in module at once; the first attribute read imports the real module
and the stand-in takes over its namespace, so every later read is a plain attribute lookup. Nothing is registered
in `sys.modules` before that first use: pydrake keeps scipy and matplotlib out of `import pydrake.all` (Drake's
all_test::test_function_only_imports checks that no `scipy*` name is in `sys.modules`), because they cost about a
second to import and most scripts never call the few functions that need them.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType

__all__ = ["LazyModule"]

_lock = threading.Lock()


class _Deferred(ModuleType):
    """A module's stand-in until its first attribute read, which imports the module and copies its namespace."""

    def __getattr__(self, attribute: str):
        with _lock:
            target = self.__dict__.get("_mallard_target")
            if target is None:
                target = importlib.import_module(self.__name__)
                namespace = dict(vars(target))
                namespace["_mallard_target"] = target
                self.__dict__.update(namespace)
        try:
            return getattr(target, attribute)
        except AttributeError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r}") from None

    def __dir__(self):
        return dir(importlib.import_module(self.__name__))


def LazyModule(name: str) -> ModuleType:
    """The module `name` if already imported, else a stand-in that imports it on the first attribute read."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    if importlib.util.find_spec(name.partition(".")[0]) is None:
        raise ModuleNotFoundError(f"No module named {name!r} (a dependency of mallard: reinstall mallard)",
                                  name=name)
    return _Deferred(name)
