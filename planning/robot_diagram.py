"""RobotDiagramBuilder and RobotDiagram (pydrake.planning): a DiagramBuilder that starts with a MultibodyPlant named
'plant' and a SceneGraph named 'scene_graph' (AddMultibodyPlantSceneGraph) plus a Parser, and builds a Diagram that
keeps typed access to both. Unless the user renamed them, added systems or exported ports, Build() exports every
port of the two systems, as Drake's RobotDiagramBuilder does."""
from __future__ import annotations

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry import SceneGraph
from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
from mallard.parsers import Parser
from mallard.systems.framework import Context, Diagram, DiagramBuilder

__all__ = ["RobotDiagram", "RobotDiagramBuilder", "RobotDiagram_", "RobotDiagramBuilder_"]


class RobotDiagram(Diagram):
    """A Diagram whose first two subsystems are a MultibodyPlant and its SceneGraph (made by RobotDiagramBuilder)."""

    def __init__(self, builder: DiagramBuilder) -> None:
        super().__init__()
        systems = builder.GetSystems()
        self._plant, self._scene_graph = systems[0], systems[1]
        builder.BuildInto(self)

    def plant(self) -> MultibodyPlant:
        """The contained plant."""
        return self._plant

    def scene_graph(self) -> SceneGraph:
        """The contained scene graph."""
        return self._scene_graph

    def mutable_scene_graph(self) -> SceneGraph:
        """The contained scene graph (mutable)."""
        return self._scene_graph

    def _subcontext(self, system, root_context: Context, what: str) -> Context:
        if not root_context.is_root_context():
            raise RuntimeError(f"RobotDiagram.{what}: the context given is not a root context; pass the context of "
                               "the whole diagram (diagram.CreateDefaultContext())")
        return system.GetMyContextFromRoot(root_context)

    def plant_context(self, root_context: Context) -> Context:
        """The plant's context inside `root_context` (a context of this diagram)."""
        return self._subcontext(self._plant, root_context, "plant_context")

    def mutable_plant_context(self, root_context: Context) -> Context:
        """The plant's context inside `root_context` (mutable)."""
        return self._subcontext(self._plant, root_context, "mutable_plant_context")

    def scene_graph_context(self, root_context: Context) -> Context:
        """The scene graph's context inside `root_context`."""
        return self._subcontext(self._scene_graph, root_context, "scene_graph_context")

    def mutable_scene_graph_context(self, root_context: Context) -> Context:
        """The scene graph's context inside `root_context` (mutable)."""
        return self._subcontext(self._scene_graph, root_context, "mutable_scene_graph_context")


class RobotDiagramBuilder:
    """Builds a RobotDiagram: a DiagramBuilder holding a MultibodyPlant (time_step [s]; 0 = continuous) and its
    SceneGraph, with a Parser that loads models into them."""

    def __init__(self, time_step: float = 0.001) -> None:
        self._builder = DiagramBuilder()
        self._plant, self._scene_graph = AddMultibodyPlantSceneGraph(self._builder, time_step)
        self._parser = Parser(self._builder)

    def IsDiagramBuilt(self) -> bool:
        """True once Build() has been called."""
        if self._builder is None:
            return True
        if self._builder.already_built():
            raise RuntimeError("RobotDiagramBuilder: Do not call mutable_builder().Build() to create a Diagram; "
                               "instead, call Build() to create a RobotDiagram.")
        return False

    def _ThrowIfAlreadyBuiltOrCorrupted(self) -> None:
        if self.IsDiagramBuilt():
            raise RuntimeError("RobotDiagramBuilder: Build() has already been called to create a RobotDiagram; "
                               "this RobotDiagramBuilder may no longer be used.")
        systems = self._builder.GetSystems()
        if len(systems) < 2 or systems[0] is not self._plant or systems[1] is not self._scene_graph:
            raise RuntimeError("RobotDiagramBuilder: The underlying DiagramBuilder has become corrupted. You must "
                               "not remove the MultibodyPlant or SceneGraph.")

    def builder(self) -> DiagramBuilder:
        """The contained DiagramBuilder; call Build() on this object, not on it."""
        self._ThrowIfAlreadyBuiltOrCorrupted()
        return self._builder

    def plant(self) -> MultibodyPlant:
        """The contained plant (mutable)."""
        self._ThrowIfAlreadyBuiltOrCorrupted()
        return self._plant

    def scene_graph(self) -> SceneGraph:
        """The contained scene graph (mutable)."""
        self._ThrowIfAlreadyBuiltOrCorrupted()
        return self._scene_graph

    def parser(self) -> Parser:
        """The contained Parser (loads into the plant and scene graph)."""
        self._ThrowIfAlreadyBuiltOrCorrupted()
        return self._parser

    def _ShouldExportDefaultPorts(self) -> bool:
        b = self._builder
        return (self._plant.get_name() == "plant" and self._scene_graph.get_name() == "scene_graph"
                and len(b.GetSystems()) == 2 and b.num_input_ports() == 0 and b.num_output_ports() == 0)

    def _ExportDefaultPorts(self) -> None:
        b = self._builder
        for system in b.GetSystems():
            for i in range(system.num_input_ports()):
                port = system.get_input_port(i)
                if not b.IsConnectedOrExported(port):  # inputs fed inside the diagram stay internal
                    b.ExportInput(port)
            for i in range(system.num_output_ports()):
                b.ExportOutput(system.get_output_port(i))

    def Build(self) -> RobotDiagram:
        """Finalize the plant (unless it is already), export the default ports and build the RobotDiagram; this
        builder cannot be used afterwards."""
        self._ThrowIfAlreadyBuiltOrCorrupted()
        if not self._plant.is_finalized():
            self._plant.Finalize()
        if self._ShouldExportDefaultPorts():
            self._ExportDefaultPorts()
        diagram = RobotDiagram(self._builder)
        self._builder = None
        return diagram


RobotDiagram_ = ScalarTemplate("RobotDiagram_", RobotDiagram)
RobotDiagramBuilder_ = ScalarTemplate("RobotDiagramBuilder_", RobotDiagramBuilder)
