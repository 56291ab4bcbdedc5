"""A MultibodyPlant + SceneGraph diagram loaded from one MJCF model: the set-up shared by the MJCF contact tests."""
from __future__ import annotations

import warnings

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.parsers import Parser
from mallard.parsers.mjcf import MjcfUnsupportedWarning
from mallard.systems.framework import DiagramBuilder


def build_mjcf_scene(text: str | None = None, path=None, time_step: float = 0.002, unsupported: str = "ignore"):
    """(plant, scene_graph, root context, plant context) of a finalized plant + SceneGraph diagram with the MJCF
    model `text` (or the file `path`); `unsupported` is the warnings filter action for MjcfUnsupportedWarning
    ("error" to assert the model is fully supported), other warnings are ignored."""
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter(unsupported, MjcfUnsupportedWarning)
        if path is not None:
            Parser(builder).AddModels(str(path))
        else:
            Parser(builder).AddModelsFromString(text, "xml")
    plant.Finalize()
    root = builder.Build().CreateDefaultContext()
    return plant, scene_graph, root, plant.GetMyContextFromRoot(root)
