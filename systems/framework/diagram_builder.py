"""DiagramBuilder: add systems, connect and export ports, and Build() a validated Diagram."""
from __future__ import annotations

from mallard.common.lazy_import import LazyModule

from .diagram import Diagram, SubsystemLookup
from .overloads import one_argument
from .ports import InputPort, OutputPort, PortDataType, UseDefaultName
from .state import InputPortIndex, OutputPortIndex
from .system import System

__all__ = ["DiagramBuilder"]

nx = LazyModule("networkx")  # port_graph's graph (Diagram's feedthrough queries); Build does not need it


def _port_text(port) -> str:
    kind = "InputPort" if isinstance(port, InputPort) else "OutputPort"
    return f"{port._system.GetSystemPathname()}/{port._name} ({kind}[{int(port._index)}])"


def port_edges(systems, connections) -> dict:
    """The port graph as adjacency lists {node: [(node, (port, port)), ...]} in port_graph's edge order: Build's
    algebraic-loop check walks it without networkx (whose import is a quarter of `import mallard.all`'s)."""
    edges: dict = {}
    for dest, src in connections.items():
        edges.setdefault(("y", id(src._system), int(src._index)), []).append(
            (("u", id(dest._system), int(dest._index)), (src, dest)))
    for system in systems:
        for i, u in enumerate(system._input_ports):
            for j, y in enumerate(system._output_ports):
                if system._feedthrough(i, j):
                    edges.setdefault(("u", id(system), i), []).append((("y", id(system), j), (u, y)))
    return edges


def find_cycle(edges: dict) -> list:
    """The edges (tail, head, ports) of a directed cycle of `edges` (port_edges), [] when there is none: depth-first
    from each node in order, the first edge that reaches a node on the current path closes the cycle."""
    done: set = set()
    for start in list(edges):
        if start in done:
            continue
        path, on_path = [], {start: 0}
        stack = [(start, iter(edges.get(start, ())))]
        while stack:
            node, successors = stack[-1]
            for head, ports in successors:
                if head in on_path:
                    return path[on_path[head]:] + [(node, head, ports)]
                if head not in done:
                    path.append((node, head, ports))
                    on_path[head] = len(path)
                    stack.append((head, iter(edges.get(head, ()))))
                    break
            else:
                stack.pop()
                done.add(node)
                del on_path[node]
                if path:
                    path.pop()
    return []


def port_graph(systems, connections) -> nx.DiGraph:
    """Directed graph over port nodes: output→input for connections, input→output for feedthrough."""
    graph = nx.DiGraph()
    for dest, src in connections.items():
        graph.add_edge(("y", id(src._system), int(src._index)), ("u", id(dest._system), int(dest._index)),
                       ports=(src, dest))
    for system in systems:
        for i, u in enumerate(system._input_ports):
            for j, y in enumerate(system._output_ports):
                if system._feedthrough(i, j):
                    graph.add_edge(("u", id(system), i), ("y", id(system), j), ports=(u, y))
    return graph


class DiagramBuilder(SubsystemLookup):
    """Collects systems and connections; `Build()` checks them and returns a Diagram."""

    def __init__(self) -> None:
        self._diagram_systems: list[System] = []
        self._diagram_connections: dict[InputPort, OutputPort] = {}
        self._input_exports: list[tuple[str, list[InputPort]]] = []
        self._output_exports: list[tuple[str, OutputPort]] = []
        self._diagram_built = False

    def _require_not_built(self, what: str) -> None:
        if self._diagram_built:
            raise RuntimeError(f"DiagramBuilder.{what}: this builder has already built its Diagram; "
                               "create a new DiagramBuilder")

    # ----- systems ---------------------------------------------------------------------------------------
    def AddSystem(self, system: System) -> System:
        self._require_not_built("AddSystem")
        if not isinstance(system, System):
            raise TypeError(f"AddSystem: expected a System, got {type(system).__name__}")
        if system._owner_builder is self:
            raise RuntimeError(f"AddSystem: {system.GetSystemName()} ({type(system).__name__}) was already added "
                               "to this builder")
        if system._owner_builder is not None or system._parent_diagram is not None:
            raise RuntimeError(f"AddSystem: {system.GetSystemPathname()} ({type(system).__name__}) already belongs "
                               "to another DiagramBuilder or Diagram; a system can be added only once")
        if not system.get_name():
            system._system_name = system.GetMemoryObjectName()
        system._owner_builder = self
        self._diagram_systems.append(system)
        return system

    def AddNamedSystem(self, name: str, system: System) -> System:
        system.set_name(name)
        return self.AddSystem(system)

    def RemoveSystem(self, system: System) -> None:
        self._require_not_built("RemoveSystem")
        self._check_owned(system, "RemoveSystem")
        self._diagram_connections = {d: s for d, s in self._diagram_connections.items()
                             if d._system is not system and s._system is not system}
        self._input_exports = [(n, [d for d in ds if d._system is not system]) for n, ds in self._input_exports]
        self._input_exports = [(n, ds) for n, ds in self._input_exports if ds]
        self._output_exports = [(n, s) for n, s in self._output_exports if s._system is not system]
        self._diagram_systems.remove(system)
        system._owner_builder = None

    def empty(self) -> bool:
        return not self._diagram_systems

    def already_built(self) -> bool:
        return self._diagram_built

    def num_input_ports(self) -> int:
        return len(self._input_exports)

    def num_output_ports(self) -> int:
        return len(self._output_exports)


    # ----- connections -----------------------------------------------------------------------------------
    def _check_owned(self, system: System, what: str) -> None:
        if system._owner_builder is not self:
            raise RuntimeError(f"DiagramBuilder.{what}: {system.GetSystemName()} ({type(system).__name__}) has not "
                               "been added to this DiagramBuilder; call AddSystem first")

    def IsConnectedOrExported(self, port: InputPort) -> bool:
        return port in self._diagram_connections or any(port in ds for _n, ds in self._input_exports)

    def _check_free(self, dest: InputPort, what: str) -> None:
        if dest in self._diagram_connections:
            raise RuntimeError(f"DiagramBuilder.{what}: input {_port_text(dest)} is already connected to "
                               f"{_port_text(self._diagram_connections[dest])}; an input takes one source "
                               "(use Disconnect first, or an Adder to combine signals)")
        for name, dests in self._input_exports:
            if dest in dests:
                raise RuntimeError(f"DiagramBuilder.{what}: input {_port_text(dest)} is already exported as "
                                   f"diagram input '{name}'")

    def Connect(self, src, dest) -> None:
        """`Connect(output_port, input_port)`, or `Connect(src_system, dest_system)` for single-port systems."""
        self._require_not_built("Connect")
        if isinstance(src, System) and isinstance(dest, System):
            src, dest = src.get_output_port(), dest.get_input_port()
        if not isinstance(src, OutputPort) or not isinstance(dest, InputPort):
            raise TypeError(f"Connect(output_port, input_port): got ({type(src).__name__}, {type(dest).__name__})")
        self._check_owned(src._system, "Connect")
        self._check_owned(dest._system, "Connect")
        self._check_free(dest, "Connect")
        if src._data_type != dest._data_type:
            raise ValueError(f"DiagramBuilder.Connect: {_port_text(src)} is "
                             f"{src._data_type.name[1:]} but {_port_text(dest)} is {dest._data_type.name[1:]}")
        if src._data_type == PortDataType.kVectorValued and src._size != dest._size:
            raise ValueError(f"DiagramBuilder.Connect: size mismatch: {_port_text(src)} has size {src._size} "
                             f"but {_port_text(dest)} has size {dest._size}")
        self._diagram_connections[dest] = src

    def ConnectToSame(self, exemplar: InputPort, dest: InputPort) -> None:
        if exemplar in self._diagram_connections:
            self.Connect(self._diagram_connections[exemplar], dest)
            return
        for name, _dests in self._input_exports:
            if exemplar in _dests:
                self.ConnectInput(name, dest)
                return
        raise RuntimeError(f"ConnectToSame: {_port_text(exemplar)} is neither connected nor exported")

    def Disconnect(self, source: OutputPort, dest: InputPort) -> None:
        self._require_not_built("Disconnect")
        if self._diagram_connections.get(dest) is not source:
            raise RuntimeError(f"Disconnect: {_port_text(source)} is not connected to {_port_text(dest)}")
        del self._diagram_connections[dest]

    def ExportInput(self, input: InputPort, name=None) -> InputPortIndex:
        """Makes `input` an input port of the built diagram (default name `<system>_<port>`)."""
        self._require_not_built("ExportInput")
        self._check_owned(input._system, "ExportInput")
        self._check_free(input, "ExportInput")
        if name is None or isinstance(name, UseDefaultName):
            name = f"{input._system.get_name()}_{input._name}"
        if any(n == name for n, _ in self._input_exports):
            raise ValueError(f"ExportInput: the diagram already has an input port named '{name}'")
        self._input_exports.append((name, [input]))
        return InputPortIndex(len(self._input_exports) - 1)

    def ConnectInput(self, *args, diagram_port_name: str | None = None, diagram_port_index: int | None = None,
                     input: InputPort | None = None) -> None:
        """Connects an already exported diagram input (by name or index) to another subsystem input."""
        if input is None and len(args) == 2:
            args, input = args[:1], args[1]
        diagram_port = one_argument("ConnectInput", args, diagram_port_name=diagram_port_name,
                                    diagram_port_index=diagram_port_index)
        self._require_not_built("ConnectInput")
        self._check_owned(input._system, "ConnectInput")
        self._check_free(input, "ConnectInput")
        if isinstance(diagram_port, str):
            matches = [k for k, (n, _d) in enumerate(self._input_exports) if n == diagram_port]
            if not matches:
                raise KeyError(f"ConnectInput: no exported input named '{diagram_port}'; the exported inputs are "
                               f"{[n for n, _d in self._input_exports]}")
            index = matches[0]
        else:
            index = int(diagram_port)
            if not 0 <= index < len(self._input_exports):
                raise IndexError(f"ConnectInput: no exported input {index}; there are {len(self._input_exports)}")
        first = self._input_exports[index][1][0]
        if first._data_type != input._data_type or first._size != input._size:
            raise ValueError(f"ConnectInput: {_port_text(input)} does not match the type/size of exported input "
                             f"'{self._input_exports[index][0]}'")
        self._input_exports[index][1].append(input)

    def ExportOutput(self, output: OutputPort, name=None) -> OutputPortIndex:
        """Makes `output` an output port of the built diagram (default name `<system>_<port>`)."""
        self._require_not_built("ExportOutput")
        self._check_owned(output._system, "ExportOutput")
        if name is None or isinstance(name, UseDefaultName):
            name = f"{output._system.get_name()}_{output._name}"
        if any(n == name for n, _ in self._output_exports):
            raise ValueError(f"ExportOutput: the diagram already has an output port named '{name}'")
        self._output_exports.append((name, output))
        return OutputPortIndex(len(self._output_exports) - 1)

    # ----- build -----------------------------------------------------------------------------------------
    def _validate(self) -> None:
        seen: dict[str, System] = {}
        for system in self._diagram_systems:
            name = system.get_name()
            if name in seen:
                raise RuntimeError(f"DiagramBuilder.Build: two subsystems are named '{name}' "
                                   f"({type(seen[name]).__name__} and {type(system).__name__}); names must be unique")
            seen[name] = system
        cycle = find_cycle(port_edges(self._diagram_systems, self._diagram_connections))
        if not cycle:
            return
        lines = []
        for a, _, (first, second) in cycle:
            if a[0] == "u":
                lines.append(f"  {_port_text(first)} is direct-feedthrough to {_port_text(second)}")
            else:
                lines.append(f"  {_port_text(first)} is connected to {_port_text(second)}")
        raise RuntimeError(
            "Reported algebraic loop detected in DiagramBuilder:\n" + "\n".join(lines) + "\n"
            "A LeafSystem output is direct-feedthrough (depends on its inputs) unless it is declared otherwise. "
            "To break the loop, declare outputs that do not read their inputs with prerequisites_of_calc, e.g. "
            "DeclareVectorOutputPort(name, size, calc, prerequisites_of_calc={self.xc_ticket()}) for an output "
            "computed from the continuous state, use DeclareStateOutputPort, or insert a state (ZeroOrderHold, "
            "Integrator) in the loop.")

    def Build(self) -> Diagram:
        self._require_not_built("Build")
        diagram = Diagram()
        self.BuildInto(diagram)
        return diagram

    def BuildInto(self, target: Diagram) -> None:
        self._require_not_built("BuildInto")
        if not self._diagram_systems:
            raise RuntimeError("DiagramBuilder.Build: the builder is empty; add at least one system")
        self._validate()
        target._initialize(self)
        self._diagram_built = True
