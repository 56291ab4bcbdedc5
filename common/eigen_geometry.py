"""`mallard.common.eigen_geometry`: pydrake's path for Eigen's geometry types (Quaternion, AngleAxis), whose
code lives in `mallard.multibody.math.eigen_geometry`."""
from mallard.multibody.math.eigen_geometry import AngleAxis, Quaternion

from .scalar_template import define_scalar_templates

__all__ = ["AngleAxis", "Quaternion"]
__all__ += define_scalar_templates(globals(), ["AngleAxis", "Quaternion"])
