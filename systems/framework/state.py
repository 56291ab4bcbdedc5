"""State containers: ContinuousState, DiscreteValues, AbstractValues, State and Parameters.

They wrap vectors that usually view the root Context's flat arrays (DESIGN §3), so an update writes
straight into the one array the integrator works on.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .basic_vector import BasicVector, Supervector, VectorBase, _as_vector
from mallard.common.value import AbstractValue

__all__ = [
    "ContinuousState", "DiscreteValues", "AbstractValues", "State", "Parameters",
    "ContinuousStateIndex", "DiscreteStateIndex", "AbstractStateIndex", "NumericParameterIndex",
    "AbstractParameterIndex", "InputPortIndex", "OutputPortIndex", "SubsystemIndex", "CacheIndex",
    "SystemConstraintIndex",
]


class _TypedIndex(int):
    """An int with a distinct type, as pydrake's index types are."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"

    def is_valid(self) -> bool:
        """True for a non-negative index."""
        return int(self) >= 0


class ContinuousStateIndex(_TypedIndex): pass
class DiscreteStateIndex(_TypedIndex): pass
class AbstractStateIndex(_TypedIndex): pass
class NumericParameterIndex(_TypedIndex): pass
class AbstractParameterIndex(_TypedIndex): pass
class InputPortIndex(_TypedIndex): pass
class OutputPortIndex(_TypedIndex): pass
class SubsystemIndex(_TypedIndex): pass
class CacheIndex(_TypedIndex): pass
class SystemConstraintIndex(_TypedIndex): pass


class ContinuousState:
    """x = [q; v; z]: generalized positions, generalized velocities and miscellaneous continuous state."""

    __slots__ = ("_vector", "_nq", "_nv", "_nz", "_q_index", "_v_index", "_z_index")

    def __init__(self, state: Any = None, num_q: int | None = None, num_v: int | None = None,
                 num_z: int | None = None, *, q_index=None, v_index=None, z_index=None) -> None:
        if state is None:
            state = BasicVector(0)
        elif not isinstance(state, VectorBase):
            state = BasicVector(state)
        n = state.size()
        if num_q is None:
            num_q, num_v, num_z = 0, 0, n
        if num_q + num_v + num_z != n:
            raise ValueError(f"ContinuousState: num_q + num_v + num_z = {num_q + num_v + num_z} != size {n}")
        if num_v > num_q:
            raise ValueError(f"ContinuousState: num_v ({num_v}) must not exceed num_q ({num_q})")
        self._vector = state
        self._nq, self._nv, self._nz = num_q, num_v, num_z
        # Diagram states gather q (v, z) of every leaf: index arrays into the flat vector.
        self._q_index, self._v_index, self._z_index = q_index, v_index, z_index

    def size(self) -> int:
        return self._vector.size()

    def num_q(self) -> int:
        return self._nq

    def num_v(self) -> int:
        return self._nv

    def num_z(self) -> int:
        return self._nz

    def get_vector(self) -> VectorBase:
        return self._vector

    def get_mutable_vector(self) -> VectorBase:
        self._vector._notify()
        return self._vector

    def SetFromVector(self, value: Any) -> None:
        self._vector.SetFromVector(value)

    def CopyToVector(self) -> np.ndarray:
        return self._vector.CopyToVector()

    def SetFrom(self, other: "ContinuousState") -> None:
        self._vector.SetFromVector(other._vector._data)

    def Clone(self) -> "ContinuousState":
        return ContinuousState(BasicVector(self._vector.CopyToVector()), self._nq, self._nv, self._nz,
                               q_index=self._q_index, v_index=self._v_index, z_index=self._z_index)

    def _part(self, start: int, n: int, index) -> VectorBase:
        vec = self._vector
        if index is not None:
            return Supervector(vec._data, index, vec._owner, vec._kind)
        return VectorBase(vec._data[start:start + n], vec._owner, vec._kind)

    def get_generalized_position(self) -> VectorBase:
        return self._part(0, self._nq, self._q_index)

    def get_generalized_velocity(self) -> VectorBase:
        return self._part(self._nq, self._nv, self._v_index)

    def get_misc_continuous_state(self) -> VectorBase:
        return self._part(self._nq + self._nv, self._nz, self._z_index)

    def get_mutable_generalized_position(self) -> VectorBase:
        self._vector._notify()
        return self.get_generalized_position()

    def get_mutable_generalized_velocity(self) -> VectorBase:
        self._vector._notify()
        return self.get_generalized_velocity()

    def get_mutable_misc_continuous_state(self) -> VectorBase:
        self._vector._notify()
        return self.get_misc_continuous_state()

    def __getitem__(self, i):
        return self._vector[i]

    def __setitem__(self, i, value) -> None:
        self._vector[i] = value

    def __repr__(self) -> str:
        return f"ContinuousState(nq={self._nq}, nv={self._nv}, nz={self._nz}, x={self._vector._data.tolist()})"


class DiscreteValues:
    """The groups of discrete state (each a BasicVector), as handed to discrete-update handlers."""

    __slots__ = ("_groups",)

    def __init__(self, groups: Sequence[Any] | Any = (), *, data: Sequence[Any] | None = None,
                 datum: Any = None) -> None:
        """`DiscreteValues()`, `(data: list of vectors)` or `(datum: one vector)`; groups are held, not copied."""
        if data is not None:
            groups = data
        if datum is not None:
            groups = [datum]
        if isinstance(groups, (VectorBase, np.ndarray)):
            groups = [groups]
        self._groups = [g if isinstance(g, VectorBase) else BasicVector(g) for g in groups]

    def num_groups(self) -> int:
        return len(self._groups)

    def _group(self, index: int) -> VectorBase:
        try:
            return self._groups[index]
        except IndexError:
            raise IndexError(f"discrete state group {index} does not exist; there are {len(self._groups)}") from None

    def _only(self, what: str) -> VectorBase:
        if len(self._groups) != 1:
            raise RuntimeError(f"{what}: this DiscreteValues has {len(self._groups)} groups; pass a group index")
        return self._groups[0]

    def get_vector(self, index: int = 0) -> VectorBase:
        return self._group(index)

    def get_mutable_vector(self, index: int = 0) -> VectorBase:
        g = self._group(index)
        g._notify()
        return g

    def get_value(self, index: int = 0) -> np.ndarray:
        return self._group(index).get_value()

    def value(self, index: int = 0) -> np.ndarray:
        return self._group(index).get_value()

    def get_mutable_value(self, index: int = 0) -> np.ndarray:
        return self._group(index).get_mutable_value()

    def set_value(self, *args: Any, index: int | None = None, value: Any = None) -> None:
        """`set_value(value)` for a single group or `set_value(index, value)`."""
        if index is not None:
            args = (index,) + args
        if value is not None:
            args = args + (value,)
        if len(args) == 1:
            self._only("set_value").SetFromVector(args[0])
        else:
            self._group(int(args[0])).SetFromVector(args[1])

    def size(self) -> int:
        return self._only("size").size()

    def get_data(self) -> list:
        return list(self._groups)

    def SetFrom(self, other: "DiscreteValues") -> None:
        if other.num_groups() != self.num_groups():
            raise ValueError(f"DiscreteValues.SetFrom: {other.num_groups()} groups given, {self.num_groups()} expected")
        for mine, theirs in zip(self._groups, other._groups):
            mine.SetFromVector(theirs._data)

    def Clone(self) -> "DiscreteValues":
        return DiscreteValues([BasicVector(g.CopyToVector()) for g in self._groups])

    def __getitem__(self, index: int) -> float:
        return self._only("indexing")[index]

    def __setitem__(self, index: int, value: float) -> None:
        self._only("indexing")[index] = value

    def __repr__(self) -> str:
        return f"DiscreteValues({[g._data.tolist() for g in self._groups]})"


class AbstractValues:
    """The abstract state (or abstract parameters) of a context: a list of AbstractValue."""

    __slots__ = ("_values", "_owner", "_kind")

    def __init__(self, data: Sequence[AbstractValue] = (), owner: Any = None, kind: int = -1) -> None:
        self._values = list(data)
        self._owner = owner
        self._kind = kind

    def size(self) -> int:
        return len(self._values)

    def _at(self, index: int) -> AbstractValue:
        try:
            return self._values[index]
        except IndexError:
            raise IndexError(f"abstract value {index} does not exist; there are {len(self._values)}") from None

    def get_value(self, index: int) -> AbstractValue:
        return self._at(index)

    def get_mutable_value(self, index: int) -> AbstractValue:
        if self._owner is not None:
            self._owner._bump(self._kind)
        return self._at(index)

    def SetFrom(self, other: "AbstractValues") -> None:
        for mine, theirs in zip(self._values, other._values):
            mine.SetFrom(theirs)
        if self._owner is not None:
            self._owner._bump(self._kind)

    def Clone(self) -> "AbstractValues":
        """Independent copies of every value."""
        return AbstractValues([v.Clone() for v in self._values])


class State:
    """Continuous, discrete and abstract state together, as handed to unrestricted-update handlers."""

    __slots__ = ("_continuous", "_discrete", "_abstract")

    def __init__(self, continuous: ContinuousState | None = None, discrete: DiscreteValues | None = None,
                 abstract: AbstractValues | None = None) -> None:
        self._continuous = continuous if continuous is not None else ContinuousState()
        self._discrete = discrete if discrete is not None else DiscreteValues()
        self._abstract = abstract if abstract is not None else AbstractValues()

    def get_continuous_state(self) -> ContinuousState:
        return self._continuous

    def get_mutable_continuous_state(self) -> ContinuousState:
        self._continuous._vector._notify()
        return self._continuous

    def get_discrete_state(self, index: int | None = None):
        return self._discrete if index is None else self._discrete.get_vector(index)

    def get_mutable_discrete_state(self, index: int | None = None):
        if index is None:
            for g in self._discrete._groups:
                g._notify()
            return self._discrete
        return self._discrete.get_mutable_vector(index)

    def get_abstract_state(self, index: int | None = None):
        return self._abstract if index is None else self._abstract.get_value(index)

    def get_mutable_abstract_state(self, index: int | None = None):
        if index is None:
            if self._abstract._owner is not None:
                self._abstract._owner._bump(self._abstract._kind)
            return self._abstract
        return self._abstract.get_mutable_value(index)

    def SetFrom(self, other: "State") -> None:
        self._continuous.SetFrom(other._continuous)
        self._discrete.SetFrom(other._discrete)
        self._abstract.SetFrom(other._abstract)


class Parameters:
    """Numeric parameters (BasicVectors) and abstract parameters (AbstractValues) of a context."""

    __slots__ = ("_numeric", "_abstract")

    def __init__(self, numeric: Sequence[VectorBase] = (), abstract: AbstractValues | Sequence[AbstractValue] = (),
                 *, vec: VectorBase | None = None, value: AbstractValue | None = None) -> None:
        """`(numeric=[vectors], abstract=[values])`, or one parameter `(vec=vector)` / `(value=value)`."""
        if vec is not None:
            numeric = [vec]
        if value is not None:
            abstract = [value]
        self._numeric = list(numeric)
        self._abstract = abstract if isinstance(abstract, AbstractValues) else AbstractValues(abstract)

    def num_numeric_parameter_groups(self) -> int:
        return len(self._numeric)

    def num_abstract_parameters(self) -> int:
        return self._abstract.size()

    def get_numeric_parameter(self, index: int) -> VectorBase:
        try:
            return self._numeric[index]
        except IndexError:
            raise IndexError(f"numeric parameter {index} does not exist; there are {len(self._numeric)}") from None

    def get_mutable_numeric_parameter(self, index: int) -> VectorBase:
        p = self.get_numeric_parameter(index)
        p._notify()
        return p

    def get_abstract_parameter(self, index: int) -> AbstractValue:
        return self._abstract.get_value(index)

    def get_mutable_abstract_parameter(self, index: int) -> AbstractValue:
        return self._abstract.get_mutable_value(index)

    def get_numeric_parameters(self) -> DiscreteValues:
        """All numeric parameter groups (the vectors themselves, not copies)."""
        return DiscreteValues(self._numeric)

    def set_numeric_parameters(self, numeric_params: DiscreteValues) -> None:
        """Replaces the numeric parameter groups (earlier references stop tracking this object)."""
        self._numeric = list(numeric_params._groups)

    def get_abstract_parameters(self) -> AbstractValues:
        return self._abstract

    def set_abstract_parameters(self, abstract_params: AbstractValues) -> None:
        """Replaces the abstract parameters (earlier references stop tracking this object)."""
        self._abstract = abstract_params

    def Clone(self) -> "Parameters":
        return Parameters([BasicVector(p.CopyToVector()) for p in self._numeric], self._abstract.Clone())

    def SetFrom(self, other: "Parameters") -> None:
        for mine, theirs in zip(self._numeric, other._numeric):
            mine.SetFromVector(theirs._data)
        self._abstract.SetFrom(other._abstract)


def check_size(value: Any, expected: int, what: str) -> np.ndarray:
    """Converts to a float vector and checks its size, naming `what` in the error."""
    arr = _as_vector(value, what)
    if arr.shape[0] != expected:
        raise ValueError(f"{what}: expected a vector of size {expected}, got size {arr.shape[0]}")
    return arr
