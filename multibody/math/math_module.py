"""`mallard.math`: the names of `pydrake.math` (rotations and transforms, math functions on floats,
interpolation meshes, B-spline bases, matrix and quaternion utilities, Riccati and Lyapunov solvers).

The code lives in `mallard.multibody.math`; `mallard/__init__.py` serves this module as `mallard.math`.
"""
from mallard.common.scalar_template import ScalarTemplate
from mallard.multibody.math import (RigidTransform, RigidTransform_, RollPitchYaw, RollPitchYaw_, RotationMatrix,
                                    RotationMatrix_, VectorToSkewSymmetric, wrap_to)
from mallard.multibody.math.barycentric_mesh import BarycentricMesh
from mallard.multibody.math.bspline_basis import BsplineBasis, KnotVectorType
from mallard.multibody.math.matrix_functions import (BalanceQuadraticForms, DecomposePositiveQuadraticForm,
                                                     DecomposePSDmatrixIntoXtransposeTimesX,
                                                     ExtractPrincipalSubmatrix, IsPositiveDefinite, IsSymmetric,
                                                     SoftOverMax, SoftOverMin, SoftUnderMax, SoftUnderMin,
                                                     ToLowerTriangularColumnsFromMatrix,
                                                     ToSymmetricMatrixFromLowerTriangularColumns)
from mallard.multibody.math.quaternion_functions import (AreQuaternionsEqualForOrientation,
                                                         CalculateAngularVelocityExpressedInBFromQuaternionDt,
                                                         CalculateQuaternionDtConstraintViolation,
                                                         CalculateQuaternionDtFromAngularVelocityExpressedInB,
                                                         ClosestQuaternion, IsBothQuaternionAndQuaternionDtOK,
                                                         IsQuaternionValid, QuaternionToCanonicalForm,
                                                         UniformlyRandomAngleAxis, UniformlyRandomQuaternion,
                                                         UniformlyRandomRPY, UniformlyRandomRotationMatrix,
                                                         is_quaternion_in_canonical_form)
from mallard.multibody.math.riccati_lyapunov import (ComputeNumericalGradient, ContinuousAlgebraicRiccatiEquation,
                                                     DiscreteAlgebraicRiccatiEquation, NumericalGradientMethod,
                                                     NumericalGradientOption, RealContinuousLyapunovEquation,
                                                     RealDiscreteLyapunovEquation)
from mallard.multibody.math.scalar_functions import (abs, acos, arccos, arcsin, arctan, arctan2, asin, atan, atan2,
                                                     ceil, cos, cosh, eq, exp, floor, ge, gt, inv, isnan, le, log, lt,
                                                     matmul, max, min, ne, pow, sin, sinh, sqrt, tan, tanh)

BsplineBasis_ = ScalarTemplate("BsplineBasis_", BsplineBasis)
# Pickles written by Drake <= v1.12 name the float classes "Foo_[float]": keep them loadable.
for _cls in (RigidTransform, RotationMatrix, RollPitchYaw, BsplineBasis):
    globals()[f"{_cls.__name__}_[float]"] = _cls
del _cls

__all__ = [
    "AreQuaternionsEqualForOrientation", "BalanceQuadraticForms", "BarycentricMesh", "BsplineBasis", "BsplineBasis_",
    "CalculateAngularVelocityExpressedInBFromQuaternionDt", "CalculateQuaternionDtConstraintViolation",
    "CalculateQuaternionDtFromAngularVelocityExpressedInB", "ClosestQuaternion", "ComputeNumericalGradient",
    "ContinuousAlgebraicRiccatiEquation", "DecomposePSDmatrixIntoXtransposeTimesX", "DecomposePositiveQuadraticForm",
    "DiscreteAlgebraicRiccatiEquation", "ExtractPrincipalSubmatrix", "IsBothQuaternionAndQuaternionDtOK",
    "IsPositiveDefinite", "IsQuaternionValid", "IsSymmetric", "KnotVectorType", "NumericalGradientMethod",
    "NumericalGradientOption", "QuaternionToCanonicalForm", "RealContinuousLyapunovEquation",
    "RealDiscreteLyapunovEquation", "RigidTransform", "RigidTransform_", "RollPitchYaw", "RollPitchYaw_",
    "RotationMatrix", "RotationMatrix_", "SoftOverMax", "SoftOverMin", "SoftUnderMax", "SoftUnderMin",
    "ToLowerTriangularColumnsFromMatrix", "ToSymmetricMatrixFromLowerTriangularColumns", "UniformlyRandomAngleAxis",
    "UniformlyRandomQuaternion", "UniformlyRandomRPY", "UniformlyRandomRotationMatrix", "VectorToSkewSymmetric",
    "abs", "acos", "arccos", "arcsin", "arctan", "arctan2", "asin", "atan", "atan2", "ceil", "cos", "cosh", "eq",
    "exp", "floor", "ge", "gt", "inv", "is_quaternion_in_canonical_form", "isnan", "le", "log", "lt", "matmul", "max",
    "min", "ne", "pow", "sin", "sinh", "sqrt", "tan", "tanh", "wrap_to",
]
