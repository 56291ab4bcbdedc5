"""mallard.common.eigen_geometry: Quaternion, AngleAxis and Isometry3 (pydrake.common.eigen_geometry).

The classes live in `mallard.multibody.math.eigen_geometry`; the `Foo_[float]` template spellings give them.
"""
from mallard.common.scalar_template import ScalarTemplate
from mallard.multibody.math.eigen_geometry import AngleAxis, Isometry3, Quaternion

AngleAxis_ = ScalarTemplate("AngleAxis_", AngleAxis)
Isometry3_ = ScalarTemplate("Isometry3_", Isometry3)
Quaternion_ = ScalarTemplate("Quaternion_", Quaternion)

__all__ = ["AngleAxis", "AngleAxis_", "Isometry3", "Isometry3_", "Quaternion", "Quaternion_"]
