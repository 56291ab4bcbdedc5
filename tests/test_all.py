"""`mallard.all` re-exports the public API, one object per name, like `pydrake.all`."""
import importlib

import mallard.all as mall

CORE = ["DiagramBuilder", "LeafSystem", "Diagram", "Context", "BasicVector", "AbstractValue", "Value", "EventStatus",
        "Simulator", "SimulatorConfig", "ApplySimulatorConfig", "ResetIntegratorFromFlags", "RungeKutta3Integrator",
        "LogVectorOutput", "VectorLogSink", "ConstantVectorSource", "Adder", "Gain", "ZeroOrderHold", "Linearize",
        "FirstOrderTaylorApproximation", "AffineSystem", "LinearSystem", "TrajectorySource", "PiecewisePolynomial",
        "RigidTransform", "RotationMatrix", "RollPitchYaw", "SpatialVelocity", "SpatialForce", "SpatialInertia",
        "UnitInertia", "RotationalInertia", "PackageMap", "plot_system_graphviz"]


def test_core_names_are_exported():
    missing = [name for name in CORE if name not in mall.__all__]
    assert not missing, f"mallard.all lacks {missing}"


def test_every_export_is_the_subpackage_object():
    for package in mall._SUBPACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            assert hasattr(mall, name), f"{package}.{name} missing from mallard.all"


def test_star_import_matches_pydrake_spelling():
    namespace: dict = {}
    exec("from mallard.all import *", namespace)
    assert namespace["DiagramBuilder"] is mall.DiagramBuilder
    assert callable(namespace["Simulator"])


def test_pydrake_all_modules_are_loaded_and_exported():
    """As `import pydrake.all`: pydrake.math's functions (sin preferred from math), the parsing module as an
    attribute of mallard.multibody, and RobotDiagramBuilder from planning."""
    import mallard
    import mallard.math
    assert mall.sin is mallard.math.sin and mall.BsplineBasis is mallard.math.BsplineBasis
    assert mallard.multibody.parsing.Parser is mall.Parser
    assert mall.RobotDiagramBuilder is mallard.planning.RobotDiagramBuilder


def test_autodiffxd_is_exported_and_every_use_is_the_double_only_error():
    """pydrake.all exports AutoDiffXd; mallard's names it so that a ported `Foo_[AutoDiffXd]` raises the clear
    double-only error (issue #13) instead of a NameError, and nothing can hold one."""
    import pytest

    assert "AutoDiffXd" in mall.__all__
    uses = [lambda: mall.AutoDiffXd(1.0, [1.0, 0.0]), lambda: mall.MultibodyPlant_[mall.AutoDiffXd](0.0),
            lambda: mall.RigidTransform_[mall.AutoDiffXd](), lambda: mall.Adder(2, 1).ToScalarType[mall.AutoDiffXd](),
            lambda: mall.RigidTransform().cast[mall.AutoDiffXd](), lambda: type("Sub", (mall.AutoDiffXd,), {})]
    for use in uses:
        with pytest.raises(TypeError, match="mallard computes in double precision only"):
            use()
