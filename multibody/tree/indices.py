"""Typed integer indices of multibody elements, as pydrake's TypeSafeIndex types."""
from __future__ import annotations

import enum


class _Index(int):
    """An int that remembers which kind of element it indexes; -1-free, compare as ints."""

    def is_valid(self) -> bool:
        """True: mallard never creates an invalid index."""
        return int(self) >= 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"


class ModelInstanceIndex(_Index):
    """Index of a model instance (0 = world, 1 = default, ≥ 2 user/parser instances)."""


class BodyIndex(_Index):
    """Index of a rigid body (0 = world)."""


class FrameIndex(_Index):
    """Index of a frame (0 = world frame)."""


class JointIndex(_Index):
    """Index of a joint."""


class JointActuatorIndex(_Index):
    """Index of a joint actuator (also the actuator's slot in the actuation vector u)."""


class ForceElementIndex(_Index):
    """Index of a force element (0 = the uniform gravity field)."""


class ConstraintIndex(_Index):
    """Index of a constraint (coupler, distance, ball, weld)."""


class MultibodyConstraintId(ConstraintIndex):
    """The identifier of a constraint (coupler, distance, ball, weld) in its plant (pydrake's
    MultibodyConstraintId): the order in which the plant's constraints were added, kept when one is removed."""

    _next_new_id = 1_000_000  # get_new_id() values, apart from the ones plants hand out

    @classmethod
    def get_new_id(cls) -> "MultibodyConstraintId":
        """A fresh identifier not used by any plant's constraint."""
        cls._next_new_id += 1
        return cls(cls._next_new_id)

    def get_value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"<MultibodyConstraintId value={int(self)}>"


class JacobianWrtVariable(enum.Enum):
    """Which speeds a Jacobian is taken with respect to: q̇ (kQDot) or v (kV)."""
    kQDot = 0
    kV = 1


def world_model_instance() -> ModelInstanceIndex:
    """The world model instance, index 0."""
    return ModelInstanceIndex(0)


def default_model_instance() -> ModelInstanceIndex:
    """The default model instance, index 1."""
    return ModelInstanceIndex(1)


def world_index() -> BodyIndex:
    """The world body's index, 0."""
    return BodyIndex(0)


def world_frame_index() -> FrameIndex:
    """The world frame's index, 0."""
    return FrameIndex(0)
