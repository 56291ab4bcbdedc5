"""`pydrake.common.value` names: AbstractValue and Value."""
from mallard.systems.framework.value import AbstractValue, Value

__all__ = ["AbstractValue", "Value"]
