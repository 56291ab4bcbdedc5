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
