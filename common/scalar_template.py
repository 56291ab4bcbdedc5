"""pydrake's scalar-type template names (`LeafSystem_[T]`, `MultibodyPlant_[T]`, `RigidTransform_[T]`, ...) for double-precision mallard.

pydrake scripts write systems as templates so they can be converted to AutoDiffXd for linearization; mallard
linearizes any system by finite differences, so every template instantiates to the one float class and asking
for another scalar type is a clear error rather than an AttributeError.
"""
from __future__ import annotations

from typing import Any

__all__ = ["ScalarTemplate", "check_scalar_type"]


def check_scalar_type(name: str, T: Any) -> None:
    """Accepts float / None (the default scalar); anything else raises TypeError explaining why."""
    if T is None or T is float:
        return
    raise TypeError(f"{name}[{getattr(T, '__name__', T)}]: mallard computes in double precision only. Linearize, "
                    f"FirstOrderTaylorApproximation and LinearQuadraticRegulator work on {name}[float] systems by "
                    "finite differences, so no AutoDiffXd or symbolic instantiation is needed")


class ScalarTemplate:
    """`Name_[T]` → the float class; `Name_[None]` is the default instantiation, as in pydrake."""

    def __init__(self, name: str, cls: type) -> None:
        self._name = name
        self._cls = cls

    def __getitem__(self, T: Any) -> type:
        check_scalar_type(self._name, T)
        return self._cls

    def get_instantiation(self, param: Any = None) -> tuple[type, tuple]:
        return self[param], (float,)

    def __repr__(self) -> str:
        return f"<ScalarTemplate {self._name}>"
