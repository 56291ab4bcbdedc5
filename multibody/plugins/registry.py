"""The global plugin registry (mjp_registerPlugin / mjp_getPlugin) and per-model plugin data memo."""
from __future__ import annotations

import re
import threading
import weakref
from typing import Any, Sequence

import numpy as np

from .plugin import Capability, ConfigAttribute, Plugin, PluginInstance

__all__ = ["RegisterPlugin", "GetPlugin", "RegisteredPlugins", "UnregisterPlugin", "PluginDataCache"]

_LOCK = threading.Lock()
_PLUGINS: dict[str, Plugin] = {}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def _overrides(plugin: Plugin, method: str) -> bool:
    return getattr(type(plugin), method) is not getattr(Plugin, method)


def _validate(plugin: Plugin) -> None:
    cls = type(plugin).__name__
    if not isinstance(plugin.name, str) or not _NAME.match(plugin.name):
        raise ValueError(f"plugin class {cls}: name {plugin.name!r} must be a non-empty dotted identifier "
                         f"(e.g. 'mylab.actuator.motor')")
    caps = plugin.capabilities
    if not isinstance(caps, Capability) or caps == Capability.NONE:
        raise ValueError(f"plugin '{plugin.name}': capabilities must be a non-empty Capability flag set "
                         f"(ACTUATOR, SENSOR, PASSIVE, SDF), got {caps!r}")
    attrs = plugin.attributes
    if not isinstance(attrs, (tuple, list)) or not all(isinstance(a, ConfigAttribute) for a in attrs):
        raise ValueError(f"plugin '{plugin.name}': attributes must be a tuple of ConfigAttribute")
    names = [a.name for a in attrs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"plugin '{plugin.name}': config attribute '{dup[0]}' is declared twice")
    for a in attrs:
        if a.default is not None:
            a.convert(a.default, plugin.name)  # a bad default is a plugin bug: report it at registration
    if plugin.needstage not in ("pos", "vel", "acc"):
        raise ValueError(f"plugin '{plugin.name}': needstage must be 'pos', 'vel' or 'acc', got {plugin.needstage!r}")
    for method in ("nstate", "actdim", "nsensordata", "init", "reset", "compute", "advance", "destroy",
                   "sdf_distance", "sdf_gradient", "sdf_staticdistance", "sdf_aabb"):
        if not callable(getattr(plugin, method, None)):
            raise ValueError(f"plugin '{plugin.name}': callback '{method}' must be callable")
    if caps & (Capability.ACTUATOR | Capability.SENSOR | Capability.PASSIVE) and not _overrides(plugin, "compute"):
        raise ValueError(f"plugin '{plugin.name}': actuator, sensor and passive plugins must implement compute()")
    if caps & Capability.SENSOR and not _overrides(plugin, "nsensordata"):
        raise ValueError(f"plugin '{plugin.name}': sensor plugins must implement nsensordata()")
    if caps & Capability.SDF:
        missing = [m for m in ("sdf_distance", "sdf_gradient", "sdf_staticdistance", "sdf_aabb")
                   if not _overrides(plugin, m)]
        if missing:
            raise ValueError(f"plugin '{plugin.name}': SDF plugins must implement {', '.join(missing)}")


def RegisterPlugin(plugin: Plugin | type[Plugin]) -> int:
    """Register a plugin (a `Plugin` subclass or instance) globally; returns its slot (>= 0).

    Registering the same plugin class under the same name again returns the existing slot; a
    different plugin with a registered name is rejected. Raises TypeError / ValueError naming the
    plugin and the offending declaration.
    """
    if isinstance(plugin, type):
        if not issubclass(plugin, Plugin):
            raise TypeError(f"RegisterPlugin expects a Plugin subclass or instance, got class {plugin.__name__}")
        plugin = plugin()
    if not isinstance(plugin, Plugin):
        raise TypeError(f"RegisterPlugin expects a Plugin subclass or instance, got {type(plugin).__name__}")
    _validate(plugin)
    with _LOCK:
        existing = _PLUGINS.get(plugin.name)
        if existing is not None:
            if type(existing) is type(plugin):
                return list(_PLUGINS).index(plugin.name)
            raise ValueError(f"a different plugin is already registered as '{plugin.name}' "
                             f"({type(existing).__name__}); plugin names must be unique")
        _PLUGINS[plugin.name] = plugin
        return len(_PLUGINS) - 1


def GetPlugin(name: str) -> Plugin:
    """The registered plugin called `name`; KeyError listing the registered names otherwise."""
    with _LOCK:
        if name in _PLUGINS:
            return _PLUGINS[name]
        known = ", ".join(sorted(_PLUGINS)) or "none"
    raise KeyError(f"no plugin registered as '{name}' (registered: {known}); register it with RegisterPlugin")


def RegisteredPlugins() -> tuple[str, ...]:
    """Names of all registered plugins, in registration (slot) order."""
    with _LOCK:
        return tuple(_PLUGINS)


def UnregisterPlugin(name: str) -> None:
    """Remove a plugin from the registry (models already compiled keep working only if it is re-registered)."""
    with _LOCK:
        if name not in _PLUGINS:
            known = ", ".join(sorted(_PLUGINS)) or "none"
            raise KeyError(f"no plugin registered as '{name}' (registered: {known})")
        del _PLUGINS[name]


def _destroy_all(instances: list, data: dict) -> None:
    """The plugins' `destroy` on every memoized plugin data (skipping plugins no longer registered)."""
    for i, d in list(data.items()):
        plugin = _PLUGINS.get(instances[i].plugin)
        if plugin is not None:
            plugin.destroy(d)
    data.clear()


class PluginDataCache:
    """Memoized plugin data of a model's instances, rebuilt lazily from config + state.

    Never copied or pickled: `__getstate__` drops the memo, so a cloned or unpickled Context holding
    this object rebuilds each instance's data on first use (MuJoCo's plugin data semantics). The
    plugins' `destroy` runs on `Clear` and when the cache is garbage-collected (mj_deleteData).
    """

    def __init__(self, instances: Sequence[PluginInstance]):
        self.instances = list(instances)
        self._data: dict[int, Any] = {}
        self._track()

    def _track(self) -> None:
        finalizer = weakref.finalize(self, _destroy_all, self.instances, self._data)
        finalizer.atexit = False  # no plugin callbacks during interpreter shutdown

    def Get(self, index: int, plugin_state: np.ndarray) -> Any:
        """Plugin data of instance `index`, built by the plugin's `init` on first use."""
        if index not in self._data:
            inst = self.instances[index]
            state = plugin_state[inst.stateadr:inst.stateadr + inst.nstate]
            self._data[index] = GetPlugin(inst.plugin).init(inst, state)
        return self._data[index]

    def Reset(self, plugin_state: np.ndarray) -> None:
        """Fill `plugin_state` with every instance's initial state (the plugins' `reset`)."""
        for i, inst in enumerate(self.instances):
            state = plugin_state[inst.stateadr:inst.stateadr + inst.nstate]
            GetPlugin(inst.plugin).reset(inst, state, self.Get(i, plugin_state))

    def Clear(self) -> None:
        """Destroy all plugin data (the plugins' `destroy`); it is rebuilt on the next `Get`."""
        _destroy_all(self.instances, self._data)

    def __getstate__(self) -> dict:
        return {"instances": self.instances}

    def __setstate__(self, st: dict) -> None:
        self.instances = st["instances"]
        self._data = {}
        self._track()

    def __deepcopy__(self, memo) -> "PluginDataCache":
        import copy

        return PluginDataCache(copy.deepcopy(self.instances, memo))
