"""pydrake names and modules outside mallard's scope: every one of `pydrake.all` is bound in `mallard.all` and
refused with a clear error on use, and `import mallard.<out-of-scope module>` says why it fails.

`python -m mallard.tests.common.test_out_of_scope > common/pydrake_out_of_scope_names.py` regenerates the table
from the installed pydrake (the oracle); test_table_matches_pydrake says when it is due.
"""
from __future__ import annotations

import importlib
import inspect
import pickle
import textwrap

import pytest

import mallard.all as mall
from mallard.common.out_of_scope import (MODULE_TOPICS, OutOfScopeError, OutOfScopeName, module_topic,
                                         out_of_scope_names)
from mallard.common.pydrake_out_of_scope_names import OUT_OF_SCOPE_NAMES

# Names of pydrake.all whose module mallard mirrors but whose subject it does not have.
NAME_TOPICS = {
    **{name: "rendering" for name in (
        "ClippingRange", "ColorRenderCamera", "DepthRange", "DepthRenderCamera", "EnvironmentMap",
        "EquirectangularMap", "GltfExtension", "LightParameter", "MakeRenderEngineGl", "MakeRenderEngineGltfClient",
        "MakeRenderEngineVtk", "NullTexture", "RenderCameraCore", "RenderEngine", "RenderEngineGlParams",
        "RenderEngineGltfClientParams", "RenderEngineVtkParams", "RenderLabel", "SsaoParameter")},
    **{name: "lcm" for name in ("DrakeVisualizer", "DrakeVisualizerParams", "DrakeVisualizer_",
                                "ConnectContactResultsToDrakeVisualizer", "ContactResultsToLcmSystem")},
    **{name: "deformable" for name in ("DeformableBody", "DeformableBodyId", "DeformableBodyIndex",
                                       "DeformableContactInfo", "DeformableContactInfo_", "DeformableModel",
                                       "PhysicalModel")},
    **{name: "solvers" for name in ("RegionOfAttraction", "RegionOfAttractionOptions")},
    **{name: "scalars" for name in ("SymbolicVectorSystem", "SymbolicVectorSystem_", "ToSymbolic")},
    **{name: "cpp" for name in ("use_native_cpp_logging", "trigger_an_assertion_failure")},
}


def pydrake_table() -> dict[tuple[str, str], tuple[str, ...]]:
    """{(pydrake module, topic): names} of the callables and templates of `pydrake.all` that mallard.all lacks
    (its own names aside) and whose module or name is out of scope; raises on any other missing callable."""
    pydrake_all = pytest.importorskip("pydrake.all", reason="the pydrake oracle (the dev extra) is not installed")
    from pydrake.common.cpp_template import TemplateBase
    own = {name for name, value in vars(mall).items() if not isinstance(value, OutOfScopeName)}
    table: dict[tuple[str, str], list[str]] = {}
    for name, value in vars(pydrake_all).items():
        if name.startswith("_") or "𝓣" in name or inspect.ismodule(value) or name in own:
            continue  # (𝓣: pydrake's spelled-out instantiations, reached as Foo_[T])
        if not (callable(value) or isinstance(value, TemplateBase)):
            continue  # constants (kIiwaArmNumJoints, ...)
        module = value.get_module_name() if isinstance(value, TemplateBase) else getattr(value, "__module__", "")
        if not str(module).startswith("pydrake"):
            continue  # what pydrake.all imports from elsewhere (functools.partial, IPython's display, ...)
        topic = module_topic(module) or NAME_TOPICS.get(name)
        if topic is not None:
            table.setdefault((module, topic), []).append(name)
    return {key: tuple(sorted(names)) for key, names in sorted(table.items())}


def render(table: dict) -> str:
    from importlib.metadata import version
    lines = ['"""The names of `pydrake.all` outside mallard\'s scope, by pydrake module and topic (see out_of_scope.py).',
             "",
             f"Generated from drake {version('drake')} by `python -m mallard.tests.common.test_out_of_scope`; "
             "do not edit.", '"""', "", "OUT_OF_SCOPE_NAMES = {"]
    for (module, topic), names in table.items():
        lines.append(f"    ({module!r}, {topic!r}): (")
        body = ", ".join(repr(n) for n in names) + ","
        lines += textwrap.wrap(body, 116, initial_indent="        ", subsequent_indent="        ",
                               break_on_hyphens=False)
        lines[-1] += "),"
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_table_matches_pydrake():
    """Every out-of-scope callable of pydrake.all is in the table, under its module and topic, and nothing else."""
    assert OUT_OF_SCOPE_NAMES == pydrake_table(), \
        "regenerate: python -m mallard.tests.common.test_out_of_scope > common/pydrake_out_of_scope_names.py"


def test_drake_symbols_subset_are_all_bound():
    """Drake's all_test::test_symbols_subset, out-of-scope symbols included (one per pydrake sub-module)."""
    expected = ("getDrakePath", "AutoDiffXd", "RandomDistribution", "maybe_patch_numpy_formatters", "EqualToDict",
                "Isometry3", "Quaternion", "jacobian", "sin", "cos", "SceneGraph", "yaml_load_data",
                "ToDistributionVector", "DrakeLcm", "Variable", "Expression", "DoDifferentialInverseKinematics",
                "MakeAcrobotPlant", "IcfSolverParameters", "InverseKinematics", "SpatialVelocity", "JointSliders",
                "Parser", "PackageMap", "MultibodyPlant", "MultibodyForces", "PointCloud", "RobotDiagram",
                "MathematicalProgram", "SnoptSolver", "BasicVector", "LeafSystem", "Simulator", "InverseDynamics",
                "PySerializer", "Adder", "TemplateSystem", "Image", "AddDefaultVisualization", "Meldis",
                "ModelVisualizer", "plot_sublevelset_quadratic")
    assert [name for name in expected if name not in vars(mall)] == []


def test_every_use_of_an_out_of_scope_name_says_what_and_why():
    names = out_of_scope_names()
    assert isinstance(mall.MathematicalProgram, OutOfScopeName) and "MathematicalProgram" in mall.__all__
    namespace: dict = {}
    exec("from mallard.all import *", namespace)
    assert isinstance(namespace["Variable"], OutOfScopeName)
    message = r"pydrake\.solvers\.MathematicalProgram is not provided by mallard: mathematical programs"
    with pytest.raises(OutOfScopeError, match=message):
        mall.MathematicalProgram()
    with pytest.raises(NotImplementedError, match=r"pydrake\.symbolic\.Variable .* double precision only"):
        mall.Variable("x")
    with pytest.raises(OutOfScopeError, match="LuenbergerObserver_"):
        mall.LuenbergerObserver_[float]
    with pytest.raises(OutOfScopeError, match=r"pydrake\.geometry\.RenderEngineVtkParams .* rendering engines"):
        exec("class Params(mall.RenderEngineVtkParams): pass", {"mall": mall})
    with pytest.raises(AttributeError, match=r"pydrake\.lcm\.DrakeLcm .* LCM messaging"):
        mall.DrakeLcm.Publish
    assert not hasattr(mall.DrakeLcm, "__wrapped__")  # introspection (pytest, inspect) sees a plain object
    with pytest.raises(OutOfScopeError):
        mall.DrakeLcm.x = 1
    again = pickle.loads(pickle.dumps(mall.PointCloud))
    assert isinstance(again, OutOfScopeName) and "pydrake.perception.PointCloud" in repr(again)
    assert len(names) == sum(len(v) for v in OUT_OF_SCOPE_NAMES.values())


def test_no_out_of_scope_name_shadows_a_mallard_name():
    """A name mallard provides itself (from its sub-packages) is never replaced by a marker."""
    for package in mall._SUBPACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            assert getattr(mall, name) is getattr(module, name), f"{package}.{name}"


@pytest.mark.parametrize("module, what", [("mallard.solvers", r"pydrake\.solvers is not provided by mallard"),
                                          ("mallard.symbolic", "double precision only"),
                                          ("mallard.systems.sensors", "cameras"),
                                          ("mallard.multibody.inverse_kinematics", "mathematical programs"),
                                          ("mallard.geometry.optimization", "optimization-based planning")])
def test_importing_an_out_of_scope_module_says_why(module, what):
    with pytest.raises(ModuleNotFoundError, match=what) as error:
        importlib.import_module(module)
    assert error.value.name == module


def test_other_missing_modules_keep_python_error():
    with pytest.raises(ModuleNotFoundError, match="No module named 'mallard.no_such_module'"):
        importlib.import_module("mallard.no_such_module")
    assert module_topic("pydrake.multibody.plant") is None and module_topic("pydrake.solvers.mosek") == "solvers"
    assert set(MODULE_TOPICS.values()) <= {"scalars", "solvers", "lcm", "rendering", "deformable", "manipulation",
                                           "estimators", "contact_solvers", "cpp"}


if __name__ == "__main__":
    print(render(pydrake_table()), end="")
