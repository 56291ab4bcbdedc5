"""mallard.systems.primitives — mirrors `pydrake.systems.primitives` (sources, math blocks, routing, holds,
linear systems, logging, Linearize and controllability/observability tests)."""
from mallard.common.scalar_template import define_scalar_templates

from .affine_system import AffineSystem, LinearSystem, MatrixGain
from .barycentric_mesh_system import BarycentricMeshSystem
from .bus import BusCreator, BusSelector
from .continuous_blocks import FirstOrderLowPassFilter, Integrator
from .discrete_blocks import (DiscreteDerivative, DiscreteTimeDelay, DiscreteTimeIntegrator,
                              StateInterpolatorWithDiscreteDerivative, ZeroOrderHold)
from .linear_system_analysis import (ControllabilityMatrix, IsControllable, IsDetectable, IsObservable,
                                     IsStabilizable, ObservabilityMatrix)
from .linear_transform_density import LinearTransformDensity
from .linearize import FirstOrderTaylorApproximation, Linearize
from .math_blocks import Adder, Gain, Saturation, WrapToSystem
from .multilayer_perceptron import MultilayerPerceptron, PerceptronActivationType
from .port_switch import PortSwitch
from .random_source import AddRandomInputs, RandomDistribution, RandomSource
from .routing import Demultiplexer, Multiplexer, PassThrough
from .selector import Selector, SelectorParams
from .shared_pointer_system import SharedPointerSystem
from .sources import ConstantValueSource, ConstantVectorSource, Sine, TrajectorySource
from .sparse_matrix_gain import SparseMatrixGain
from .time_varying_affine_system import TimeVaryingAffineSystem
from .trajectory_affine_system import TrajectoryAffineSystem, TrajectoryLinearSystem
from .vector_log import VectorLog
from .vector_log_sink import LogVectorOutput, VectorLogSink

__all__ = [
    "AddRandomInputs", "Adder", "AffineSystem", "BarycentricMeshSystem", "BusCreator", "BusSelector",
    "ConstantValueSource",
    "ConstantVectorSource", "ControllabilityMatrix", "Demultiplexer", "DiscreteDerivative", "DiscreteTimeDelay",
    "DiscreteTimeIntegrator", "FirstOrderLowPassFilter", "FirstOrderTaylorApproximation", "Gain", "Integrator",
    "IsControllable", "IsDetectable", "IsObservable", "IsStabilizable", "LinearSystem", "LinearTransformDensity",
    "Linearize", "LogVectorOutput", "MatrixGain", "MultilayerPerceptron", "Multiplexer", "ObservabilityMatrix",
    "PassThrough", "PerceptronActivationType", "PortSwitch", "RandomDistribution", "RandomSource", "Saturation",
    "Selector", "SelectorParams", "SharedPointerSystem", "Sine", "SparseMatrixGain",
    "StateInterpolatorWithDiscreteDerivative", "TimeVaryingAffineSystem", "TrajectoryAffineSystem",
    "TrajectoryLinearSystem", "TrajectorySource", "VectorLog", "VectorLogSink", "WrapToSystem", "ZeroOrderHold",
]
# pydrake's scalar-template spellings (`PassThrough_[float]`, ...): every one instantiates the float class.
__all__ += define_scalar_templates(globals(), [
    "Adder", "AffineSystem", "BarycentricMeshSystem", "BusCreator", "BusSelector", "ConstantValueSource",
    "ConstantVectorSource", "Demultiplexer", "DiscreteDerivative", "DiscreteTimeDelay", "DiscreteTimeIntegrator",
    "FirstOrderLowPassFilter",
    "Gain", "Integrator", "LinearSystem", "LinearTransformDensity", "MatrixGain", "MultilayerPerceptron",
    "Multiplexer", "PassThrough", "PortSwitch", "Saturation", "Selector", "SharedPointerSystem", "Sine",
    "SparseMatrixGain", "StateInterpolatorWithDiscreteDerivative", "TimeVaryingAffineSystem",
    "TrajectoryAffineSystem", "TrajectoryLinearSystem", "TrajectorySource", "VectorLog", "VectorLogSink",
    "WrapToSystem", "ZeroOrderHold",
])
