"""mallard.multibody.plugins: engine plugins (MuJoCo's mjpPlugin) — registry, base class, first-party plugins.

Importing this package registers the first-party plugins: `mallard.actuator.dcmotor` (DC motor with a
temperature sensor), `mujoco.pid` (MuJoCo's PID actuator), `mujoco.sdf.bowl` and `mujoco.sdf.torus`
(SDF shapes, as MuJoCo's).
"""
from .dcmotor import DcMotor
from .pid import Pid
from .plugin import Capability, ConfigAttribute, Plugin, PluginFrame, PluginInstance
from .registry import GetPlugin, PluginDataCache, RegisteredPlugins, RegisterPlugin, UnregisterPlugin
from .runtime import ActuatorLayout, PluginRuntime, PluginSdfFunction, ResolvePlugin
from .sdf_shapes import BowlSdf, TorusSdf

for _p in (DcMotor, Pid, BowlSdf, TorusSdf):
    RegisterPlugin(_p)

__all__ = [
    "Capability", "ConfigAttribute", "Plugin", "PluginFrame", "PluginInstance", "RegisterPlugin", "GetPlugin",
    "RegisteredPlugins", "UnregisterPlugin", "PluginDataCache", "DcMotor", "Pid", "BowlSdf", "TorusSdf", "ActuatorLayout",
    "PluginRuntime", "PluginSdfFunction", "ResolvePlugin",
]
