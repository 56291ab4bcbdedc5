"""`SharedPointerSystem`: a port-less system that keeps a Python object alive as long as the diagram holding
it (pydrake.systems.primitives)."""
from __future__ import annotations

from typing import Any

from mallard.systems.framework import LeafSystem

__all__ = ["SharedPointerSystem"]


class SharedPointerSystem(LeafSystem):
    """Holds `value_to_hold` (any object, None allowed); `get()` returns it."""

    def __init__(self, value_to_hold: Any) -> None:
        super().__init__()
        self._held = value_to_hold

    def get(self) -> Any:
        return self._held

    @staticmethod
    def AddToBuilder(builder, value_to_hold: Any) -> Any:
        """Adds a SharedPointerSystem holding `value_to_hold` to `builder`; returns the held object."""
        builder.AddSystem(SharedPointerSystem(value_to_hold))
        return value_to_hold

    def __deepcopy__(self, memo) -> "SharedPointerSystem":
        clone = SharedPointerSystem(self._held)  # the held object is shared, not copied, as in pydrake
        clone.set_name(self.get_name())
        return clone
