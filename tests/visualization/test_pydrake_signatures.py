"""Every public class, function and method of pydrake.geometry, pydrake.visualization, pydrake.multibody.meshcat
and the pydrake.systems planar/pyplot visualizer modules exists in mallard under the same path and accepts
pydrake's keyword names, overload by overload. The list is read from the installed pydrake (its pybind11
docstrings and Python signatures); what mallard leaves out of scope is listed below with the reason."""
from __future__ import annotations

import pytest

from oracles import require_pydrake
from pydrake_api import surface_gaps

_RENDERING = "rendering (render engines, cameras, lights, images) is outside mallard's scope"
_LCM = "LCM (drake_visualizer / Meldis) is outside mallard's scope"
_DEFORMABLE = "deformable geometry is outside mallard's scope"
_HYDRO = "hydroelastic contact surfaces are their own issue (mallard raises a clear error until they land)"

EXCLUDED = {
    **{name: _RENDERING for name in (
        "ClippingRange", "ColorRenderCamera", "DepthRange", "DepthRenderCamera", "EnvironmentMap",
        "EquirectangularMap", "GltfExtension", "LightParameter", "MakeRenderEngineGl", "MakeRenderEngineGltfClient",
        "MakeRenderEngineVtk", "NullTexture", "RenderCameraCore", "RenderEngine", "RenderEngineGlParams",
        "RenderEngineGltfClientParams", "RenderEngineVtkParams", "RenderLabel", "SsaoParameter",
        "QueryObject.RenderColorImage", "QueryObject.RenderDepthImage", "QueryObject.RenderLabelImage",
        "SceneGraph.AddRenderer", "SceneGraph.GetRendererParameterYaml", "SceneGraph.GetRendererTypeName",
        "SceneGraph.RemoveRenderer")},
    **{name: _LCM for name in ("DrakeVisualizer", "DrakeVisualizerParams", "Meldis")},
    **{name: _DEFORMABLE for name in ("SceneGraph.RegisterDeformableGeometry", "SceneGraph.get_source_configuration_port",
                                      "SceneGraphInspector.GetReferenceMesh")},
    **{name: _HYDRO for name in ("ContactSurface", "PolygonSurfaceMeshFieldLinear", "TriangleSurfaceMeshFieldLinear")},
}

MODULES = [
    ("pydrake.geometry", "mallard.geometry", ("_MakeConvexHull",)),
    ("pydrake.visualization", "mallard.visualization", ()),
    ("pydrake.multibody.meshcat", "mallard.multibody.meshcat", ()),
    ("pydrake.systems.planar_scenegraph_visualizer", "mallard.systems.planar_scenegraph_visualizer", ()),
    ("pydrake.systems.pyplot_visualizer", "mallard.systems.pyplot_visualizer", ()),
]


@pytest.mark.parametrize("pydrake_module, mallard_module, private", MODULES, ids=[m[0] for m in MODULES])
def test_mallard_accepts_pydrakes_api(pydrake_module, mallard_module, private):
    require_pydrake()
    assert surface_gaps(pydrake_module, mallard_module, EXCLUDED, private) == []


def test_the_check_catches_what_mallard_lacks():
    """The comparison itself: a missing method and a keyword mallard does not take are both reported."""
    require_pydrake()
    import types

    import mallard.geometry as mg

    fake = types.ModuleType("fake_geometry")
    fake.Rgba = type("Rgba", (), {"r": mg.Rgba.r, "g": mg.Rgba.g, "b": mg.Rgba.b, "a": mg.Rgba.a,
                                  "scale_rgb": lambda self, factor: None, "set": mg.Rgba.set,
                                  "update": mg.Rgba.update})
    import sys

    sys.modules["fake_geometry"] = fake
    try:
        gaps = surface_gaps("pydrake.geometry", "fake_geometry", {k: "" for k in dir(__import__("pydrake.geometry",
                                                                                            fromlist=["x"]))
                                                                 if k != "Rgba"})
    finally:
        del sys.modules["fake_geometry"]
    assert "Rgba.scale_rgb['scale']: keywords not accepted" in gaps
    assert "Rgba.rgba: missing" in gaps


PATHS = ["geometry", "visualization", "visualization.model_visualizer", "visualization._model_visualizer",
         "multibody.meshcat", "systems.planar_scenegraph_visualizer", "systems.pyplot_visualizer"]


@pytest.mark.parametrize("path", PATHS)
def test_pydrake_module_paths_import_under_mallard(path):
    """The word swap is the whole port: `pydrake.<path>` is `mallard.<path>` (no oracle needed)."""
    import importlib

    module = importlib.import_module(f"mallard.{path}")
    assert module.__name__ == f"mallard.{path}"
