"""mallard.systems.trajectories — mirrors `pydrake.trajectories`."""
from .trajectory import Trajectory
from .piecewise_polynomial import PiecewisePolynomial
from .piecewise_quaternion import PiecewiseQuaternionSlerp
from .piecewise_pose import PiecewisePose

__all__ = ["Trajectory", "PiecewisePolynomial", "PiecewiseQuaternionSlerp", "PiecewisePose"]
