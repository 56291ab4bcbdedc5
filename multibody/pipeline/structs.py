"""numba struct types of the compiled pipeline: the Model's parts and the Data are numba StructRefs, so one compiled
step receives the whole model and its scratch as two arguments (about 1 µs per call, whatever the number of
arrays), reads fields by name (`m.tree.ji`, `d.qacc`) and stays in numba's on-disk cache.

Each part is declared where its stage lives: a `types.StructRef` subclass registered with numba, a Python proxy
class, the field list (names and numba types below) and a cached constructor `new_<part>(...)` taking the fields
in declaration order. Arrays passed to a constructor must match the field type exactly (C-contiguous, dtype);
`contiguous` and friends below make them so.
"""
from __future__ import annotations

import hashlib

import numpy as np
from numba.core import types
from numba.experimental import structref

#: Field types: float64 / int64 / bool arrays (C-contiguous) of 1–3 dimensions and scalars.
F1, F2, F3 = types.float64[::1], types.float64[:, ::1], types.float64[:, :, ::1]
I1, I2 = types.int64[::1], types.int64[:, ::1]
B1, B2 = types.boolean[::1], types.boolean[:, ::1]
INT, FLOAT, BOOL = types.int64, types.float64, types.boolean


def _mangling_args(self) -> tuple:
    """The struct's name in compiled symbols: its class name and a digest of its fields. numba's default spells every
    field's type (~2-10 kB per struct), in the mangled name of every function taking the struct: 4.7 MB of the step
    library's 7.6 MB of object code were symbol names, read, relocated and listed each time a process loads it."""
    return f"{self._typename}_{hashlib.sha1(self.name.encode()).hexdigest()[:20]}", ()


def declare(type_class: type, proxy_class: type, fields: list) -> types.StructRef:
    """The numba type of a struct with `fields` [(name, numba type)], boxed to Python as `proxy_class`."""
    structref.define_boxing(type_class, proxy_class)
    type_class.mangling_args = property(_mangling_args)
    return type_class(list(fields))


def floats(a, shape: tuple | None = None) -> np.ndarray:
    """`a` as a C-contiguous float64 array (reshaped to `shape` when given)."""
    out = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    return out.reshape(shape) if shape is not None else out


def ints(a, shape: tuple | None = None) -> np.ndarray:
    """`a` as a C-contiguous int64 array (reshaped to `shape` when given)."""
    out = np.ascontiguousarray(np.asarray(a, dtype=np.int64))
    return out.reshape(shape) if shape is not None else out


def bools(a) -> np.ndarray:
    """`a` as a C-contiguous bool array."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.bool_))
