"""The engine-plugin base class: capabilities, validated configuration attributes and callbacks.

A plugin is pure logic (MuJoCo's mjpPlugin): it keeps no per-instance state on itself. Each
*instance* (an `<instance>` in MJCF, or an implicit one on an element) has a validated `config`,
a slice of floats in the Context state (`plugin state`, size `nstate(config)`; actuator plugins
may also own activation slots `actdim(config)` that the integrator advances from `act_dot`), and
*plugin data*: an arbitrary memoized object built by `init` from config + state, never cloned or
pickled (it is rebuilt on demand).
"""
from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

__all__ = ["Capability", "ConfigAttribute", "Plugin", "PluginInstance", "PluginFrame"]


class Capability(enum.Flag):
    """What a plugin computes (mjtPluginCapabilityBit)."""

    NONE = 0
    ACTUATOR = enum.auto()  #: actuator forces (and optionally activation dynamics act_dot)
    SENSOR = enum.auto()  #: sensor outputs (sensordata)
    PASSIVE = enum.auto()  #: generalized passive forces (qfrc_passive)
    SDF = enum.auto()  #: a signed distance field shape for geom type="sdf"


_KINDS = ("real", "int", "string", "reals", "bool")


@dataclass(frozen=True)
class ConfigAttribute:
    """One configuration key a plugin accepts, with its type and allowed range.

    `kind`: "real", "int", "bool", "string" or "reals" (a whitespace-separated list, `size` values
    if `size` > 0). `low`/`high` bound numeric values (inclusive unless `open_low`). `default` is
    used when the key is absent; None with `required=False` means "absent stays absent".
    """

    name: str
    kind: str = "real"
    default: Any = None
    required: bool = False
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    size: int = 0
    choices: tuple[str, ...] = ()
    doc: str = ""

    def __post_init__(self):
        if not isinstance(self.name, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_.\-]*$", self.name):
            raise ValueError(f"config attribute name {self.name!r} must be an identifier-like string")
        if self.kind not in _KINDS:
            raise ValueError(f"config attribute '{self.name}': kind must be one of {', '.join(_KINDS)}, "
                             f"got {self.kind!r}")

    def convert(self, value: Any, plugin: str) -> Any:
        """Parse (from MJCF text) and validate one value; ValueError names the plugin and attribute."""
        where = f"plugin '{plugin}': config attribute '{self.name}'"
        if self.kind == "string":
            text = str(value)
            if self.choices and text not in self.choices:
                raise ValueError(f"{where}: '{text}' is not one of {', '.join(self.choices)}")
            return text
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text not in ("true", "false", "1", "0"):
                raise ValueError(f"{where}: '{value}' is not a boolean (true/false)")
            return text in ("true", "1")
        if self.kind == "reals":
            items = value.split() if isinstance(value, str) else list(np.atleast_1d(value))
            out = np.array([self._number(v, where, float) for v in items], dtype=float)
            if self.size and len(out) != self.size:
                raise ValueError(f"{where}: expected {self.size} values, got {len(out)}")
            for v in out:
                self._check_range(v, where)
            return out
        num = self._number(value, where, int if self.kind == "int" else float)
        self._check_range(num, where)
        return num

    def _number(self, value: Any, where: str, cast: Callable):
        try:
            if isinstance(value, str):
                value = value.strip()
                num = int(value) if cast is int else float(value)
            elif isinstance(value, bool):
                raise TypeError
            else:
                num = cast(value)
                if cast is int and num != value:
                    raise TypeError
        except (TypeError, ValueError):
            what = "an integer" if cast is int else "a number"
            raise ValueError(f"{where}: '{value}' is not {what}") from None
        if isinstance(num, float) and not math.isfinite(num):
            raise ValueError(f"{where}: {value!r} is not finite")
        return num

    def _check_range(self, v: float, where: str) -> None:
        if self.low is not None and (v < self.low or (self.open_low and v == self.low)):
            op = ">" if self.open_low else ">="
            raise ValueError(f"{where}: value {v:g} must be {op} {self.low:g}")
        if self.high is not None and v > self.high:
            raise ValueError(f"{where}: value {v:g} must be <= {self.high:g}")


@dataclass
class PluginInstance:
    """One plugin instance of a compiled model (an mjOBJ_PLUGIN element).

    `config` is validated; `stateadr`/`nstate` locate its plugin state in the model's plugin state
    vector; `actadr`/`actdim` its plugin activation slots in `act` (-1/0 when none). The element
    lists say which actuators, sensors, bodies and geoms (ids into the compiled model) use it.
    """

    name: str
    plugin: str
    config: dict[str, Any]
    stateadr: int = 0
    nstate: int = 0
    actuators: list[int] = field(default_factory=list)
    sensors: list[int] = field(default_factory=list)
    bodies: list[int] = field(default_factory=list)
    geoms: list[int] = field(default_factory=list)
    meshes: list[int] = field(default_factory=list)
    explicit: bool = False  #: declared with <instance> (True) or created implicitly on an element
    where: Any = None  #: source location (file, line, element) for error messages


@dataclass
class PluginFrame:
    """What one `compute` / `advance` call reads and writes for one instance (filled by the plant).

    Inputs are the instance's slices of the plant quantities; outputs (`actuator_force`, `act_dot`,
    `sensordata`, `qfrc_passive`) are preallocated arrays the plugin writes into. Units are SI;
    actuator quantities are scalar (along the transmission), one entry per actuator of the
    instance in `PluginInstance.actuators` order; `sensordata` concatenates its sensors' outputs.
    `ctrl` is each actuator's input: its ctrl, or its dyntype activation when it has a dyntype (the
    next-step one for an `actearly` actuator, as MuJoCo's built-in actuators use); `ctrl_now` the input
    at the current activation, `ctrl_dot` the dyntype activation's rate (0 without dyntype). `act`
    holds the plugin's own activation slots; an actearly plugin should compute its force from
    `NextActivation(k, act_dot[k])` of its slots (as MuJoCo's plugins do with mj_nextActivation).
    """

    time: float = 0.0
    timestep: float = 0.0  #: the step h (also in compute: the look-ahead of actearly)
    state: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ctrl: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ctrl_now: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ctrl_dot: np.ndarray = field(default_factory=lambda: np.zeros(0))
    actearly: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  #: per actuator
    act: np.ndarray = field(default_factory=lambda: np.zeros(0))  #: the plugin's own activation slots
    act_range: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  #: per slot [lo, hi] (±inf: none)
    act_exact_tau: np.ndarray = field(default_factory=lambda: np.zeros(0))  #: per slot: filterexact tau or 0
    actuator_length: np.ndarray = field(default_factory=lambda: np.zeros(0))
    actuator_velocity: np.ndarray = field(default_factory=lambda: np.zeros(0))
    actuator_force: np.ndarray = field(default_factory=lambda: np.zeros(0))
    act_dot: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sensordata: np.ndarray = field(default_factory=lambda: np.zeros(0))
    qpos: np.ndarray = field(default_factory=lambda: np.zeros(0))
    qvel: np.ndarray = field(default_factory=lambda: np.zeros(0))
    qfrc_passive: np.ndarray = field(default_factory=lambda: np.zeros(0))
    extra: dict = field(default_factory=dict)  #: anything else a plant exposes (e.g. body poses)

    def __post_init__(self):
        n = len(self.ctrl)
        if len(self.ctrl_now) != n:  # a frame built with ctrl only: no actearly look-ahead
            self.ctrl_now = np.array(self.ctrl, float)
        if len(self.ctrl_dot) != n:
            self.ctrl_dot = np.zeros(n)
        if len(self.actearly) != n:
            self.actearly = np.zeros(n, bool)

    def NextActivation(self, k: int, act_dot: float) -> float:
        """Slot `k`'s activation after one step `timestep` (MuJoCo's mj_nextActivation): act + h·act_dot, or
        the exact first-order step when the actuator's dyntype is filterexact, clamped to actrange."""
        a, h = float(self.act[k]), self.timestep
        tau = float(self.act_exact_tau[k]) if len(self.act_exact_tau) else 0.0
        nxt = a + act_dot * tau * (1.0 - math.exp(-h / tau)) if tau > 0 else a + h * act_dot
        if len(self.act_range):
            nxt = min(max(nxt, self.act_range[k, 0]), self.act_range[k, 1])
        return nxt


class Plugin:
    """Base class of engine plugins. Subclasses set the class attributes and override callbacks.

    Class attributes: `name` (globally unique, e.g. "mallard.actuator.dcmotor"), `capabilities`
    (a `Capability` flag set), `attributes` (the accepted `ConfigAttribute`s), `needstage` for
    sensors ("pos", "vel" or "acc": the pipeline stage whose results the sensor reads).
    Callbacks take the instance record, its state slice and its plugin data; see each method.
    """

    name: ClassVar[str] = ""
    capabilities: ClassVar[Capability] = Capability.NONE
    attributes: ClassVar[tuple[ConfigAttribute, ...]] = ()
    needstage: ClassVar[str] = "acc"

    # ---- configuration and sizes ------------------------------------------------------------
    def ValidateConfig(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Config with every declared attribute parsed, range-checked and defaulted.

        Raises ValueError naming the attribute for unknown keys, bad values or missing required keys.
        """
        table = {a.name: a for a in self.attributes}
        for key in config:
            if key not in table:
                valid = ", ".join(table) or "none"
                raise ValueError(f"plugin '{self.name}': unknown config attribute '{key}' (valid: {valid})")
        out: dict[str, Any] = {}
        for a in self.attributes:
            if a.name in config:
                out[a.name] = a.convert(config[a.name], self.name)
            elif a.required:
                raise ValueError(f"plugin '{self.name}': required config attribute '{a.name}' is missing")
            elif a.default is not None:
                out[a.name] = a.convert(a.default, self.name)
        self.CheckConfig(out)
        return out

    def CheckConfig(self, config: dict[str, Any]) -> None:
        """Cross-attribute checks after per-attribute validation; raise ValueError naming the attribute."""

    def CheckInstance(self, instance: PluginInstance) -> None:
        """Checks once the model is compiled (which elements use the instance); raise ValueError."""

    def nstate(self, config: Mapping[str, Any]) -> int:
        """Number of plugin state floats of an instance with this config (part of the Context state)."""
        return 0

    def actdim(self, config: Mapping[str, Any]) -> int:
        """Activation slots per actuator of this instance, advanced by the integrator from `act_dot`."""
        return 0

    def nsensordata(self, config: Mapping[str, Any], sensor_index: int) -> int:
        """Output size of the `sensor_index`-th sensor (in declaration order) bound to an instance."""
        return 0

    # ---- lifecycle --------------------------------------------------------------------------
    def init(self, instance: PluginInstance, state: np.ndarray) -> Any:
        """Build and return the plugin data (memoized; rebuilt from config + state after clone/unpickle)."""
        return None

    def reset(self, instance: PluginInstance, state: np.ndarray, data: Any) -> None:
        """Write the initial plugin state into `state` (a view of this instance's slice)."""
        state[:] = 0.0

    def compute(self, capability: Capability, instance: PluginInstance, data: Any, frame: PluginFrame) -> None:
        """Compute one capability's outputs into `frame` (forces, act_dot, sensordata, qfrc_passive)."""

    def advance(self, instance: PluginInstance, data: Any, frame: PluginFrame) -> None:
        """Once per step of `frame.timestep` (a discrete plant's step; every `<option timestep>` on a
        continuous plant), `frame.time` being the step's end: update `frame.state` (and may overwrite
        `frame.act`)."""

    def destroy(self, data: Any) -> None:
        """Release what `init` created (on `PluginDataCache.Clear` and when the plant's plugin data is
        garbage-collected, MuJoCo's mj_deleteData)."""

    # ---- SDF capability ---------------------------------------------------------------------
    def sdf_distance(self, p: np.ndarray, data: Any) -> float:
        """Signed distance [m] of point `p` (SDF frame) to the surface: negative inside."""
        raise TypeError(f"plugin '{self.name}' has no SDF capability")

    def sdf_gradient(self, p: np.ndarray, data: Any) -> np.ndarray:
        """Gradient of the signed distance at `p` (SDF frame)."""
        raise TypeError(f"plugin '{self.name}' has no SDF capability")

    def sdf_staticdistance(self, p: np.ndarray, config: Mapping[str, Any]) -> float:
        """Signed distance from the config alone (used at compile time, before plugin data exists)."""
        raise TypeError(f"plugin '{self.name}' has no SDF capability")

    def sdf_aabb(self, config: Mapping[str, Any]) -> np.ndarray:
        """Bounding box in the SDF frame as (center x, y, z, half-size x, y, z) [m]."""
        raise TypeError(f"plugin '{self.name}' has no SDF capability")

    def sdf_kernel(self, config: Mapping[str, Any]) -> tuple[int, np.ndarray] | None:
        """(kernel id, parameters) of a compiled first-party SDF (fast numba path), or None."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} plugin '{self.name}' ({self.capabilities})>"
