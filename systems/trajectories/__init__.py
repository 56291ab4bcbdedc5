"""mallard.systems.trajectories — mirrors `pydrake.trajectories` (also importable as `mallard.trajectories`)."""
from mallard.common.scalar_template import define_scalar_templates

from .bezier_curve import BezierCurve
from .bspline_trajectory import BsplineTrajectory
from .composite_trajectory import CompositeTrajectory
from .derivative_trajectory import DerivativeTrajectory
from .discrete_time_trajectory import DiscreteTimeTrajectory
from .exponential_plus_piecewise_polynomial import ExponentialPlusPiecewisePolynomial
from .function_handle_trajectory import FunctionHandleTrajectory
from .path_parameterized_trajectory import PathParameterizedTrajectory
from .piecewise_polynomial import PiecewisePolynomial
from .piecewise_pose import PiecewisePose
from .piecewise_quaternion import PiecewiseQuaternionSlerp
from .piecewise_trajectory import PiecewiseTrajectory
from .stacked_trajectory import StackedTrajectory
from .trajectory import Trajectory
from .wrapped_trajectory import _WrappedTrajectory

__all__ = [
    "BezierCurve", "BsplineTrajectory", "CompositeTrajectory", "DerivativeTrajectory", "DiscreteTimeTrajectory",
    "ExponentialPlusPiecewisePolynomial", "FunctionHandleTrajectory", "PathParameterizedTrajectory",
    "PiecewisePolynomial", "PiecewisePose", "PiecewiseQuaternionSlerp", "PiecewiseTrajectory", "StackedTrajectory",
    "Trajectory", "_WrappedTrajectory",
]
# Classes report pydrake's public path (`mallard.trajectories.PiecewisePolynomial`) in reprs and pickles.
for _name in __all__:
    globals()[_name].__module__ = "mallard.trajectories"
del _name
__all__ += define_scalar_templates(globals(), [name for name in __all__])
