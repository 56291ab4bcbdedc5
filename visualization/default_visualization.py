"""AddDefaultVisualization: the usual visualizers for a diagram with a SceneGraph
(pydrake.visualization.AddDefaultVisualization)."""
from __future__ import annotations

from mallard.geometry import Rgba, Role, SceneGraph
from mallard.geometry.meshcat import Meshcat, StartMeshcat
from mallard.geometry.meshcat_visualizer import MeshcatVisualizer, MeshcatVisualizerParams


def _find_scene_graph(builder) -> SceneGraph:
    graphs = [s for s in builder.GetSystems() if isinstance(s, SceneGraph)]
    if len(graphs) != 1:
        names = [s.get_name() for s in graphs]
        raise RuntimeError(f"AddDefaultVisualization: the builder must hold exactly one SceneGraph; it holds "
                           f"{len(graphs)} {names}. Add one (e.g. with AddMultibodyPlantSceneGraph) before calling it.")
    return graphs[0]


def AddDefaultVisualization(builder, meshcat: Meshcat | None = None, publish_period: float | None = None,
                            ) -> list[MeshcatVisualizer]:
    """Add Meshcat visualizers of the builder's SceneGraph: illustration geometry (shown) and proximity
    geometry (under 'proximity', hidden until made visible in the viewer's controls). Starts a
    Meshcat when none is given. Returns the visualizers added."""
    scene_graph = _find_scene_graph(builder)
    if meshcat is None:
        meshcat = StartMeshcat()
    extra = {} if publish_period is None else {"publish_period": publish_period}
    illustration = MeshcatVisualizer.AddToBuilder(
        builder, scene_graph, meshcat, MeshcatVisualizerParams(role=Role.kIllustration, **extra))
    proximity = MeshcatVisualizer.AddToBuilder(
        builder, scene_graph, meshcat,
        MeshcatVisualizerParams(role=Role.kProximity, default_color=Rgba(1.0, 0.35, 0.1, 0.5),
                                visible_by_default=False, **extra))
    return [illustration, proximity]
