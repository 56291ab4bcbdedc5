"""`VectorLog`: a growable (n, N) record of vector samples and their times (pydrake.systems.primitives)."""
from __future__ import annotations

import numpy as np


class VectorLog:
    """Samples of an n-vector signal: `sample_times()` (N,) in seconds and `data()` (n, N).

    Storage grows geometrically, so `AddData` is amortized O(n); the accessors return read-only views.
    """

    kDefaultCapacity = 1000

    def __init__(self, input_size: int):
        if int(input_size) < 0:
            raise ValueError(f"VectorLog: input_size must be >= 0, got {input_size}")
        self._n = int(input_size)
        self._num = 0
        self._times = np.empty(self.kDefaultCapacity)
        self._data = np.empty((self._n, self.kDefaultCapacity))

    def get_input_size(self) -> int:
        """The dimension n of each sample."""
        return self._n

    def num_samples(self) -> int:
        """Number of samples N recorded so far."""
        return self._num

    def sample_times(self) -> np.ndarray:
        """The (N,) sample times in seconds (read-only view)."""
        v = self._times[: self._num]
        v.flags.writeable = False
        return v

    def data(self) -> np.ndarray:
        """The (n, N) samples, one column per sample time (read-only view)."""
        v = self._data[:, : self._num]
        v.flags.writeable = False
        return v

    def Clear(self) -> None:
        """Forget all samples (capacity is kept)."""
        self._num = 0

    def Reserve(self, capacity: int) -> None:
        """Make room for at least `capacity` samples without reallocating."""
        capacity = int(capacity)
        if capacity < 0:
            raise ValueError(f"VectorLog.Reserve: capacity must be >= 0, got {capacity}")
        if capacity > self._times.shape[0]:
            self._grow(capacity)

    def _grow(self, capacity: int) -> None:
        times = np.empty(capacity)
        data = np.empty((self._n, capacity))
        times[: self._num] = self._times[: self._num]
        data[:, : self._num] = self._data[:, : self._num]
        self._times, self._data = times, data

    def AddData(self, time: float, sample) -> None:
        """Append one sample (an n-vector) taken at `time` seconds."""
        x = np.asarray(sample, dtype=float).reshape(-1)
        if x.shape[0] != self._n:
            raise ValueError(f"VectorLog.AddData: sample has size {x.shape[0]}, the log stores size {self._n}")
        k = self._num
        if k == self._times.shape[0]:
            self._grow(max(2 * k, 1))
        self._times[k] = time
        self._data[:, k] = x
        self._num = k + 1

    def __copy__(self) -> "VectorLog":
        c = VectorLog.__new__(VectorLog)
        c._n, c._num = self._n, self._num
        c._times, c._data = self._times.copy(), self._data.copy()
        return c

    def __deepcopy__(self, memo) -> "VectorLog":
        return self.__copy__()

    def __repr__(self) -> str:
        return f"VectorLog(input_size={self._n}, num_samples={self._num})"
