"""`SystemVisitor`: the double-dispatch visitor of a system tree (`system.Accept(visitor)`)."""
from __future__ import annotations

__all__ = ["SystemVisitor"]


class SystemVisitor:
    """Subclass and override `VisitSystem(system)` (leaf systems) and `VisitDiagram(diagram)`; call
    `system.Accept(visitor)`. A diagram's visit does not recurse on its own: VisitDiagram decides."""

    def VisitSystem(self, system) -> None:
        raise TypeError(f"{type(self).__name__} must override VisitSystem(system)")

    def VisitDiagram(self, diagram) -> None:
        raise TypeError(f"{type(self).__name__} must override VisitDiagram(diagram)")
