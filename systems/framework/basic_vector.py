"""Numeric vectors of the systems framework: `VectorBase` and `BasicVector` (pydrake semantics).

A vector may be a view into a Context's flat state array; writes through it notify the owning root
context so that cached values computed from the old numbers are recomputed.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

__all__ = ["VectorBase", "BasicVector", "Subvector", "Supervector"]


def _as_vector(value: Any, what: str = "vector") -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    elif arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D vector, got an array of shape {arr.shape}")
    return arr


class VectorBase:
    """A vector of floats. `get_value()` is a read-only view, `get_mutable_value()` a writable view."""

    __slots__ = ("_data", "_owner", "_kind")

    def __init__(self, data: np.ndarray, owner: Any = None, kind: int = -1) -> None:
        self._data = data
        self._owner = owner  # the root Context whose version counter `kind` moves on writes
        self._kind = kind

    def _notify(self) -> None:
        owner = self._owner
        if owner is not None:
            owner._bump(self._kind)

    def size(self) -> int:
        return self._data.shape[0]

    def __len__(self) -> int:
        return self._data.shape[0]

    def get_value(self) -> np.ndarray:
        """A read-only view of the numbers."""
        view = self._data.view()
        view.flags.writeable = False
        return view

    def value(self) -> np.ndarray:
        return self.get_value()

    def get_mutable_value(self) -> np.ndarray:
        """A writable view of the numbers (the owning context is notified)."""
        self._notify()
        return self._data

    def CopyToVector(self) -> np.ndarray:
        return self._data.copy()

    def _get_value_copy(self) -> np.ndarray:
        """A copy of the numbers (pydrake's name used by its own tests for non-double vectors)."""
        return self.CopyToVector()

    def SetFromVector(self, value: Any) -> None:
        arr = _as_vector(value, "SetFromVector")
        if arr.shape[0] != self._data.shape[0]:
            raise ValueError(f"SetFromVector: expected a vector of size {self._data.shape[0]}, got size {arr.shape[0]}")
        self._notify()
        self._data[:] = arr

    def set_value(self, value: Any) -> None:
        self.SetFromVector(value)

    def SetFrom(self, value: "VectorBase") -> None:
        self.SetFromVector(value.CopyToVector())

    def SetAtIndex(self, index: int, value: float) -> None:
        self._notify()
        self._data[index] = value

    def GetAtIndex(self, index: int) -> float:
        return float(self._data[index])

    def SetZero(self) -> None:
        self._notify()
        self._data[:] = 0.0

    def PlusEqScaled(self, scale: float, rhs: "VectorBase | np.ndarray") -> "VectorBase":
        """self += scale * rhs; returns self."""
        other = rhs.CopyToVector() if isinstance(rhs, VectorBase) else _as_vector(rhs)
        self._notify()
        self._data += scale * other
        return self

    def __getitem__(self, index):
        return self._data[index]

    def __setitem__(self, index, value) -> None:
        self._notify()
        self._data[index] = value

    def __iter__(self) -> Iterable[float]:
        return iter(self._data.tolist())

    def __str__(self) -> str:
        return str(self.CopyToVector().tolist())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.CopyToVector().tolist()})"

    def __getstate__(self):
        return {"data": self._data.copy()}

    def __setstate__(self, state):
        self._data = state["data"]
        self._owner = None
        self._kind = -1


class BasicVector(VectorBase):
    """`BasicVector(size)` (zeros) or `BasicVector(data)`; owns or views its storage."""

    __slots__ = ()

    def __init__(self, data: Any = None, *, size: int | None = None) -> None:
        """`BasicVector(data)` copies a vector; `BasicVector(size)` (an int) is zeros of that size."""
        if size is not None:
            data = int(size)
        if data is None:
            arr = np.zeros(0)
        elif isinstance(data, (int, np.integer)) and not isinstance(data, bool):
            if data < 0:
                raise ValueError(f"BasicVector: size must be non-negative, got {data}")
            arr = np.zeros(int(data))
        else:
            arr = _as_vector(data, "BasicVector").copy()
        super().__init__(arr, None, -1)

    @classmethod
    def _wrap(cls, array: np.ndarray, owner: Any = None, kind: int = -1) -> "BasicVector":
        """A BasicVector viewing `array` (no copy); writes notify `owner`'s counter `kind`."""
        vec = object.__new__(cls)
        VectorBase.__init__(vec, array, owner, kind)
        return vec

    def Clone(self) -> "BasicVector":
        return type(self)(self._data.copy()) if type(self) is BasicVector else _clone_subclass(self)


def _clone_subclass(vec: BasicVector) -> BasicVector:
    clone = object.__new__(type(vec))
    VectorBase.__init__(clone, vec._data.copy())
    return clone


class Subvector(VectorBase):
    """A contiguous window of another vector (shares storage)."""

    __slots__ = ()

    def __init__(self, vector: VectorBase, first_element: int, num_elements: int) -> None:
        super().__init__(vector._data[first_element:first_element + num_elements], vector._owner, vector._kind)


class Supervector(VectorBase):
    """A vector made of several (possibly non-adjacent) windows of one storage array, selected by index."""

    __slots__ = ("_base", "_index")

    def __init__(self, base: np.ndarray, index: np.ndarray, owner: Any = None, kind: int = -1) -> None:
        self._base = base
        self._index = index
        super().__init__(base[index], owner, kind)  # `_data` is refreshed on every read

    def _refresh(self) -> np.ndarray:
        self._data = self._base[self._index]
        return self._data

    def get_value(self) -> np.ndarray:
        view = self._refresh()
        view.flags.writeable = False
        return view

    def CopyToVector(self) -> np.ndarray:
        return self._refresh().copy()

    def GetAtIndex(self, index: int) -> float:
        return float(self._base[self._index[index]])

    def __getitem__(self, index):
        return self._refresh()[index]

    def get_mutable_value(self) -> np.ndarray:
        raise RuntimeError("this vector gathers non-adjacent entries; use SetFromVector / SetAtIndex to write it")

    def SetFromVector(self, value: Any) -> None:
        arr = _as_vector(value, "SetFromVector")
        if arr.shape[0] != self._index.shape[0]:
            raise ValueError(f"SetFromVector: expected a vector of size {self._index.shape[0]}, got size {arr.shape[0]}")
        self._notify()
        self._base[self._index] = arr

    def SetAtIndex(self, index: int, value: float) -> None:
        self._notify()
        self._base[self._index[index]] = value

    def __setitem__(self, index, value) -> None:
        self._notify()
        self._base[self._index[index]] = value

    def SetZero(self) -> None:
        self._notify()
        self._base[self._index] = 0.0

    def PlusEqScaled(self, scale, rhs):
        other = rhs.CopyToVector() if isinstance(rhs, VectorBase) else _as_vector(rhs)
        self._notify()
        self._base[self._index] += scale * other
        return self
