"""Diagram: a system built from subsystems and the connections between their ports."""
from __future__ import annotations

import numpy as np

from .basic_vector import BasicVector
from .context import DiagramContext
from .graphviz import diagram_fragment
from .ports import DiagramOutputPort, InputPort, OutputPort
from .state import ContinuousState, OutputPortIndex
from .system import System

__all__ = ["Diagram"]


class SubsystemLookup:
    """Subsystem queries shared by Diagram and DiagramBuilder (both keep `_systems` in insertion order)."""

    def _owner_text(self) -> str:
        return self.GetSystemPathname() if isinstance(self, System) else "this DiagramBuilder"

    def GetSystems(self) -> list[System]:
        return list(self._diagram_systems)

    def GetMutableSystems(self) -> list[System]:
        return list(self._diagram_systems)

    def HasSubsystemNamed(self, name: str) -> bool:
        return any(s.get_name() == name for s in self._diagram_systems)

    def GetSubsystemByName(self, name: str) -> System:
        for system in self._diagram_systems:
            if system.get_name() == name:
                return system
        raise KeyError(f"GetSubsystemByName: {self._owner_text()} has no subsystem named '{name}'; "
                       f"its subsystems are {[s.get_name() for s in self._diagram_systems]}")

    def GetMutableSubsystemByName(self, name: str) -> System:
        return self.GetSubsystemByName(name)

    def connection_map(self) -> dict:
        """{(dest system, input index): (source system, output index)} for every internal connection."""
        return {(d._system, int(d._index)): (s._system, int(s._index)) for d, s in self._diagram_connections.items()}


class Diagram(SubsystemLookup, System):
    """A system made of subsystems (built by `DiagramBuilder.Build()` or `BuildInto`)."""

    def __init__(self) -> None:
        super().__init__()
        self._diagram_systems: list[System] = []
        self._diagram_input_sources: dict = {}
        self._diagram_connections: dict = {}
        self._diagram_exported_inputs: list = []
        self._diagram_leaves: list = []
        self._diagram_built = False

    # ----- construction (called by DiagramBuilder) -------------------------------------------------------
    def _initialize(self, builder) -> None:
        if self._diagram_built:
            raise RuntimeError(f"{self.GetSystemPathname()} was already built")
        self._diagram_systems = list(builder._diagram_systems)
        index_of = {id(s): k for k, s in enumerate(self._diagram_systems)}
        for k, system in enumerate(self._diagram_systems):
            system._parent_diagram = self
            system._index_in_parent = k
            system._owner_builder = None
        for dest, src in builder._diagram_connections.items():
            key = (index_of[id(dest._system)], int(dest._index))
            self._diagram_input_sources[key] = (1, index_of[id(src._system)], int(src._index))
            self._diagram_connections[dest] = src
        for name, dests in builder._input_exports:
            port = self._new_input_port(name, dests[0]._data_type, dests[0]._size, dests[0]._model,
                                        required=any(d._required for d in dests))
            self._diagram_exported_inputs.append(list(dests))
            for dest in dests:
                self._diagram_input_sources[(index_of[id(dest._system)], int(dest._index))] = (0, int(port._index))
        for name, src in builder._output_exports:
            index = OutputPortIndex(len(self._output_ports))
            self._unique_port_name(name, self._output_ports, "output")
            self._output_ports.append(DiagramOutputPort(self, index, name, index_of[id(src._system)], src))
        self._diagram_leaves = [leaf for s in self._diagram_systems for leaf in s._leaf_systems()]
        self._diagram_built = True

    # ----- subsystems (lookups in SubsystemLookup) -----------------------------------------------------
    def GetInputPortLocators(self, port_index: int) -> list:
        return [(d._system, int(d._index)) for d in self._diagram_exported_inputs[int(port_index)]]

    def get_output_port_locator(self, port_index: int) -> tuple:
        src = self.get_output_port(port_index)._source
        return (src._system, int(src._index))

    def AreConnected(self, output: OutputPort, input: InputPort) -> bool:
        return self._diagram_connections.get(input) is output

    def DoGetGraphvizFragment(self, params):
        """The diagram as a cluster of its subsystems' fragments and their connections (Drake's layout)."""
        return diagram_fragment(self, params)

    def Accept(self, v) -> None:
        """Calls `v.VisitDiagram(self)` (the visitor recurses with `child.Accept(v)` if it wants)."""
        v.VisitDiagram(self)

    def GetMutableSubsystemState(self, subsystem: System, context):
        return self.GetSubsystemContext(subsystem, context).get_mutable_state()

    def GetSubsystemState(self, subsystem: System, context):
        return self.GetSubsystemContext(subsystem, context).get_state()

    # ----- System internals --------------------------------------------------------------------------------
    def _require_built(self) -> None:
        if not self._diagram_built:
            raise RuntimeError(f"{self.GetSystemPathname()}: this Diagram was never built; call "
                               "DiagramBuilder.BuildInto(diagram) in its constructor")

    def _allocate_context_tree(self) -> DiagramContext:
        self._require_built()
        children = [s._allocate_context_tree() for s in self._diagram_systems]
        return DiagramContext(self._system_id, self.GetSystemPathname(), len(self._input_ports),
                              len(self._output_ports), children)

    def _leaf_systems(self) -> list:
        return self._diagram_leaves

    def _collect_leaf_pairs(self, context, pairs: list) -> None:
        for system, child in zip(self._diagram_systems, context._children):
            system._collect_leaf_pairs(child, pairs)

    def _count_continuous(self) -> tuple[int, int, int, int]:
        n = nq = nv = nz = 0
        for system in self._diagram_systems:
            a, b, c, d = system._count_continuous()
            n, nq, nv, nz = n + a, nq + b, nv + c, nz + d
        return n, nq, nv, nz

    def AllocateTimeDerivatives(self) -> ContinuousState:
        context = self._allocate_context_tree()
        context._make_root()
        cs = context._continuous
        return ContinuousState(BasicVector(cs.size()), cs.num_q(), cs.num_v(), cs.num_z(),
                               q_index=cs._q_index, v_index=cs._v_index, z_index=cs._z_index)

    def _derivative_views(self, context) -> list:
        """Per leaf with continuous state: (leaf, leaf context, derivative ContinuousState viewing one buffer)."""
        views = getattr(context, "_deriv_views", None)
        if views is None:
            pairs = self._leaf_pairs(context)
            total = context.num_continuous_states()
            buffer = np.zeros(total)
            views, offset = [], 0
            for leaf, leaf_context in pairs:
                n, nq, nv, nz = leaf._count_continuous()
                if n:
                    views.append((leaf, leaf_context,
                                  ContinuousState(BasicVector._wrap(buffer[offset:offset + n]), nq, nv, nz)))
                offset += n
            views = context._deriv_views = (views, buffer)
        return views

    def _calc_derivatives_into(self, context, out: np.ndarray) -> None:
        views, buffer = self._derivative_views(context)
        for leaf, leaf_context, derivatives in views:
            leaf.DoCalcTimeDerivatives(leaf_context, derivatives)
        out[:] = buffer

    def _map_v_to_qdot(self, context, v: np.ndarray) -> np.ndarray:
        parts, offset = [], 0
        for leaf, leaf_context in self._leaf_pairs(context):
            nv = leaf._count_continuous()[2]
            if leaf._count_continuous()[1]:
                parts.append(leaf._map_v_to_qdot(leaf_context, v[offset:offset + nv]))
            offset += nv
        return np.concatenate(parts) if parts else np.zeros(0)

    def _map_qdot_to_v(self, context, qdot: np.ndarray) -> np.ndarray:
        parts, offset = [], 0
        for leaf, leaf_context in self._leaf_pairs(context):
            nq = leaf._count_continuous()[1]
            if nq:
                parts.append(leaf._map_qdot_to_v(leaf_context, qdot[offset:offset + nq]))
            offset += nq
        return np.concatenate(parts) if parts else np.zeros(0)

    def _feedthrough(self, input_index: int, output_index: int) -> bool:
        from .diagram_builder import port_graph
        import networkx as nx
        graph = port_graph(self._diagram_systems, self._diagram_connections)
        out = self.get_output_port(output_index)._source
        target = ("y", id(out._system), int(out._index))
        for dest in self._diagram_exported_inputs[int(self.get_input_port(input_index)._index)]:
            node = ("u", id(dest._system), int(dest._index))
            if node in graph and target in graph and nx.has_path(graph, node, target):
                return True
        return False
