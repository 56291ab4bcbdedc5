"""Names of the elements of a vector port, for labelling plots of logged signals.

A logged port's elements get names and panel groups (positions / velocities / efforts / ...) from "namers":
functions `namer(port) -> SignalNames | None` registered with `RegisterSignalNamer` by the packages that know
what a port means (mallard.multibody.plant registers one for MultibodyPlant ports, giving pydrake's state names
such as `iiwa_joint_1_q`). Ports no namer knows are traced upstream through diagram outputs and through
blocks that pass their input through unchanged in meaning (ZeroOrderHold, Saturation, PassThrough, low-pass
filters), so a held or saturated torque keeps the actuator names of what feeds it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from mallard.systems.framework.ports import DiagramOutputPort

__all__ = ["SignalGroup", "SignalNames", "RegisterSignalNamer", "port_signal_names", "logged_signal_names"]


@dataclass(frozen=True)
class SignalGroup:
    """A panel of a plot: its title (e.g. "positions q"), the y-axis unit text and the element indices it shows."""

    label: str
    unit: str
    indices: tuple[int, ...]


@dataclass(frozen=True)
class SignalNames:
    """One name per element of a vector signal, and the groups (panels) the elements fall in."""

    names: tuple[str, ...]
    groups: tuple[SignalGroup, ...]

    @staticmethod
    def Ungrouped(names: Sequence[str], label: str = "signals", unit: str = "") -> "SignalNames":
        """All elements in one group."""
        return SignalNames(tuple(names), (SignalGroup(label, unit, tuple(range(len(names)))),))


_NAMERS: list[Callable] = []
# Blocks whose output means what their (single, same-size) input means.
_PASS_THROUGH = ("ZeroOrderHold", "PassThrough", "Saturation", "FirstOrderLowPassFilter")


def RegisterSignalNamer(namer: Callable) -> None:
    """Add `namer(output_or_input_port) -> SignalNames | None` to the namers `port_signal_names` consults."""
    if namer not in _NAMERS:
        _NAMERS.append(namer)


def _source_of(input_port):
    """The output port feeding `input_port` inside its diagram, or None (unconnected, fixed or exported)."""
    system = input_port.get_system()
    diagram = getattr(system, "_parent_diagram", None)
    if diagram is None:
        return None
    source = diagram.connection_map().get((system, int(input_port.get_index())))
    return None if source is None else source[0].get_output_port(source[1])


def port_signal_names(port, _depth: int = 0) -> Optional[SignalNames]:
    """The element names and groups of the vector output port `port`, or None when nothing names them."""
    for namer in _NAMERS:
        names = namer(port)
        if names is not None:
            if len(names.names) != port.size():
                raise RuntimeError(f"signal namer {namer!r} gave {len(names.names)} names for "
                                   f"{port.GetFullDescription()} of size {port.size()}")
            return names
    if _depth > 32:
        return None
    if isinstance(port, DiagramOutputPort):  # what the diagram exports
        return port_signal_names(port._source, _depth + 1)
    system = port.get_system()
    if type(system).__name__ in _PASS_THROUGH and system.num_input_ports() == 1:
        upstream = _source_of(system.get_input_port(0))
        if upstream is not None and upstream.size() == port.size():
            return port_signal_names(upstream, _depth + 1)
    return None


def logged_signal_names(logger) -> Optional[SignalNames]:
    """The names of what the VectorLogSink `logger` records (the port connected to its input), or None."""
    source = _source_of(logger.get_input_port(0))
    return None if source is None else port_signal_names(source)
