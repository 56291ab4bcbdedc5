"""mallard.planning: pydrake.planning's robot diagram (RobotDiagramBuilder, RobotDiagram)."""
from .robot_diagram import RobotDiagram, RobotDiagram_, RobotDiagramBuilder, RobotDiagramBuilder_

__all__ = ["RobotDiagram", "RobotDiagram_", "RobotDiagramBuilder", "RobotDiagramBuilder_"]
