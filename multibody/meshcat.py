"""pydrake.multibody.meshcat's path: Meshcat helpers of a MultibodyPlant (JointSliders, ContactVisualizer)."""
from mallard.geometry.contact_visualizer import ContactVisualizer, ContactVisualizerParams
from mallard.common.scalar_template import ScalarTemplate
from mallard.visualization.joint_sliders import JointSliders, JointSliders_

ContactVisualizer_ = ScalarTemplate("ContactVisualizer_", ContactVisualizer)

__all__ = ["ContactVisualizer", "ContactVisualizerParams", "ContactVisualizer_", "JointSliders", "JointSliders_"]
