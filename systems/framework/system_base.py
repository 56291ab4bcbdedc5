"""SystemBase: the scalar-independent part of a System (pydrake's split): names, port counts and dependency
tickets. System adds ports, contexts, evaluation and dynamics on top.
"""
from __future__ import annotations

import itertools
import secrets

from .dependency import ALL_KINDS, K_ACC, K_P, K_TIME, K_U, K_XA, K_XC, K_XD, DependencyTicket
from .graphviz import GraphvizFragment, GraphvizFragmentParams, leaf_fragment, make_params

__all__ = ["SystemBase"]

# System ids are unique across processes (a random 62-bit start per process, then counting), so a context
# pickled with its diagram still names that diagram's systems in a process that built others.
_ids = itertools.count(secrets.randbits(62) << 20)

_STATE = frozenset((K_XC, K_XD, K_XA))
_EVERYTHING = dict(kinds=ALL_KINDS, all_inputs=True)
_TICKETS = {
    "nothing_ticket": DependencyTicket((), name="nothing_ticket"),
    "time_ticket": DependencyTicket((K_TIME,), name="time_ticket"),
    "accuracy_ticket": DependencyTicket((K_ACC,), name="accuracy_ticket"),
    "q_ticket": DependencyTicket((K_XC,), name="q_ticket"),
    "v_ticket": DependencyTicket((K_XC,), name="v_ticket"),
    "z_ticket": DependencyTicket((K_XC,), name="z_ticket"),
    "xc_ticket": DependencyTicket((K_XC,), name="xc_ticket"),
    "xd_ticket": DependencyTicket((K_XD,), name="xd_ticket"),
    "xa_ticket": DependencyTicket((K_XA,), name="xa_ticket"),
    "all_state_ticket": DependencyTicket(_STATE, name="all_state_ticket"),
    "pn_ticket": DependencyTicket((K_P,), name="pn_ticket"),
    "pa_ticket": DependencyTicket((K_P,), name="pa_ticket"),
    "all_parameters_ticket": DependencyTicket((K_P,), name="all_parameters_ticket"),
    "all_input_ports_ticket": DependencyTicket((K_U,), all_inputs=True, name="all_input_ports_ticket"),
    "all_sources_except_input_ports_ticket": DependencyTicket(
        (K_TIME, K_ACC, K_XC, K_XD, K_XA, K_P), name="all_sources_except_input_ports_ticket"),
    # Computed quantities: they may depend on anything.
    **{name: DependencyTicket(name=name, **_EVERYTHING) for name in (
        "all_sources_ticket", "configuration_ticket", "kinematics_ticket", "xcdot_ticket", "pe_ticket",
        "ke_ticket", "pc_ticket", "pnc_ticket")},
}

# C++ namespaces of the pydrake classes mallard's systems mirror, by mallard package: GetSystemType() and the
# default names of unnamed subsystems spell them as pydrake does ("drake::systems::Adder<double>").
_CPP_NAMESPACES = (
    ("mallard.systems.controllers", "drake::systems::controllers"),
    ("mallard.systems", "drake::systems"),
    ("mallard.multibody", "drake::multibody"),
    ("mallard.geometry", "drake::geometry"),
    ("mallard.visualization", "drake::visualization"),
)


def _cpp_namespace(cls: type) -> str | None:
    module = cls.__module__
    for prefix, namespace in _CPP_NAMESPACES:
        if module == prefix or module.startswith(prefix + "."):
            return namespace
    return None


def _ticket_getter(name: str) -> staticmethod:
    """A static accessor returning the fixed ticket `name` (`LeafSystem.xc_ticket()`, `self.xc_ticket()`)."""
    ticket = _TICKETS[name]

    def getter() -> DependencyTicket:
        return ticket
    getter.__name__ = getter.__qualname__ = name
    getter.__doc__ = f"The dependency ticket `{name}` (for prerequisites_of_calc)."
    return staticmethod(getter)


class _SystemMeta(type):
    """Checks, once a system is constructed, that its __init__ ran the base class's (pydrake's TypeError)."""

    def __call__(cls, *args, **kwargs):
        system = super().__call__(*args, **kwargs)
        if "_system_id" not in system.__dict__:
            base = next((b.__name__ for b in cls.__mro__[1:] if b.__module__.startswith("mallard.")), "System")
            raise TypeError(f"{cls.__qualname__}.__init__ must call {base}.__init__(self) (or super().__init__()) "
                            "before the system is used")
        return system


class SystemBase(metaclass=_SystemMeta):
    """Names, port counts and dependency tickets of a system."""

    def __init__(self) -> None:
        self._system_id = next(_ids)
        self._system_name = ""

    # ----- names ---------------------------------------------------------------------------------
    def get_name(self) -> str:
        return self._system_name

    def set_name(self, name: str) -> None:
        if self._parent_diagram is not None:
            raise RuntimeError(f"set_name: {self.GetSystemPathname()} is already part of a built Diagram")
        self._system_name = str(name)

    def GetSystemName(self) -> str:
        return self._system_name if self._system_name else "_"

    def GetSystemPathname(self) -> str:
        parts = []
        system = self
        while system is not None:
            parts.append(system.GetSystemName())
            system = system._parent_diagram
        return "::" + "::".join(reversed(parts))

    def GetSystemType(self) -> str:
        """pydrake's type name: `drake::systems::Adder<double>` for a class pydrake binds from C++, the
        Python `module.QualName` for one written in Python."""
        cls = type(self)
        namespace = _cpp_namespace(cls)
        if namespace is None:
            return f"{cls.__module__}.{cls.__qualname__}"
        return f"{namespace}::{cls.__name__}<double>"

    def GetMemoryObjectName(self) -> str:
        """A unique name, `namespace/path/ClassName@address` (Drake's default name of an unnamed subsystem)."""
        cls = type(self)
        namespace = _cpp_namespace(cls)
        path = namespace.replace("::", "/") if namespace else cls.__module__.replace(".", "/")
        return f"{path}/{cls.__qualname__}@{id(self):016x}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.GetSystemPathname()}>"

    # ----- ports -----------------------------------------------------------------------------------
    def num_input_ports(self) -> int:
        return len(self._input_ports)

    def num_output_ports(self) -> int:
        return len(self._output_ports)

    def implicit_time_derivatives_residual_size(self) -> int:
        """Size of the implicit-dynamics residual: the number of continuous states."""
        return self.num_continuous_states()

    # ----- graphviz -------------------------------------------------------------------------------------
    GraphvizFragment = GraphvizFragment
    GraphvizFragmentParams = GraphvizFragmentParams

    def GetGraphvizString(self, max_depth: int | None = None, options: dict | None = None) -> str:
        """DOT text of this system (subdiagrams deeper than `max_depth` drawn as one block), as Drake draws it."""
        fragment = self.GetGraphvizFragment(max_depth, options or {})
        return f"digraph _{self._system_id} {{\nrankdir=LR\n{''.join(fragment.fragments)}}}\n"

    def GetGraphvizFragment(self, max_depth: int | None = None, options: dict | None = None) -> GraphvizFragment:
        """This system's DOT fragment and the DOT ids of its ports (what a parent diagram assembles)."""
        return self.DoGetGraphvizFragment(make_params(self, max_depth, options))

    def DoGetGraphvizFragment(self, params: GraphvizFragmentParams) -> GraphvizFragment:
        """Override to change the drawing (e.g. add `params.header_lines`), then call the base."""
        return leaf_fragment(self, params)

    # ----- tickets with an index -------------------------------------------------------------------
    def input_port_ticket(self, index: int) -> DependencyTicket:
        return self.get_input_port(index).ticket()

    def discrete_state_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["xd_ticket"]

    def abstract_state_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["xa_ticket"]

    def numeric_parameter_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["pn_ticket"]

    def abstract_parameter_ticket(self, index: int) -> DependencyTicket:
        return _TICKETS["pa_ticket"]

    def cache_entry_ticket(self, index: int) -> DependencyTicket:
        return DependencyTicket(cache_index=int(index), name=f"cache_entry_ticket({int(index)})")


for _name in _TICKETS:
    setattr(SystemBase, _name, _ticket_getter(_name))
del _name
