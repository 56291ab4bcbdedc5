"""mallard.systems.primitives — mirrors `pydrake.systems.primitives` (sources, math blocks, routing, holds,
linear systems, logging, Linearize and controllability/observability tests)."""
from .affine_system import AffineSystem, LinearSystem, MatrixGain
from .continuous_blocks import FirstOrderLowPassFilter, Integrator
from .discrete_blocks import DiscreteDerivative, StateInterpolatorWithDiscreteDerivative, ZeroOrderHold
from .linear_system_analysis import (ControllabilityMatrix, IsControllable, IsDetectable, IsObservable,
                                     IsStabilizable, ObservabilityMatrix)
from .linearize import FirstOrderTaylorApproximation, Linearize
from .math_blocks import Adder, Gain, Saturation, WrapToSystem
from .random_source import RandomDistribution, RandomSource
from .routing import Demultiplexer, Multiplexer, PassThrough
from .sources import ConstantValueSource, ConstantVectorSource, Sine, TrajectorySource
from .vector_log import VectorLog
from .vector_log_sink import LogVectorOutput, VectorLogSink

__all__ = [
    "Adder", "AffineSystem", "ConstantValueSource", "ConstantVectorSource", "ControllabilityMatrix", "Demultiplexer",
    "DiscreteDerivative", "FirstOrderLowPassFilter", "FirstOrderTaylorApproximation", "Gain", "Integrator",
    "IsControllable", "IsDetectable", "IsObservable", "IsStabilizable", "LinearSystem", "Linearize",
    "LogVectorOutput", "MatrixGain", "Multiplexer", "ObservabilityMatrix", "PassThrough", "RandomDistribution",
    "RandomSource", "Saturation", "Sine", "StateInterpolatorWithDiscreteDerivative", "TrajectorySource",
    "VectorLog", "VectorLogSink", "WrapToSystem", "ZeroOrderHold",
]
