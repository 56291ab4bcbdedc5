"""Every scalar-template spelling `Foo_` of pydrake.geometry exists in mallard.geometry and instantiates the float
class (`Foo_[float] is Foo`, also `Foo_[None]`), while `Foo_[AutoDiffXd]` is the clear double-only error."""
from __future__ import annotations

import importlib

import pytest

from oracles import require_pydrake

LEFT_OUT = {"DrakeVisualizer_": "LCM and Drake Visualizer messages are out of scope (issue 13)"}


def _pydrake_templates() -> list[str]:
    try:
        geometry = importlib.import_module("pydrake.geometry")
    except ImportError:
        return []
    return sorted(n for n in dir(geometry) if n.endswith("_") and not n.startswith("_") and n not in LEFT_OUT)


def test_pydrake_geometry_has_scalar_templates():
    require_pydrake()
    assert {"PolygonSurfaceMesh_", "TriangleSurfaceMesh_", "VolumeMesh_", "Plane_", "SceneGraph_"} <= set(
        _pydrake_templates())


@pytest.mark.parametrize("name", _pydrake_templates())
def test_template_instantiates_the_float_class(name):
    import mallard.geometry as geometry
    template = getattr(geometry, name)
    float_class = getattr(geometry, name[:-1])
    assert template[float] is float_class and template[None] is float_class
    with pytest.raises(TypeError, match="double precision only"):
        template["AutoDiffXd"]
