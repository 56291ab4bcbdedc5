"""FramePoseVector: the poses X_PF a geometry source reports for its frames (pydrake.geometry)."""
from __future__ import annotations

import numpy as np

from mallard.geometry._poses import as_Rp, make_transform
from mallard.geometry.identifiers import FrameId, GeometryLookupError


class FramePoseVector:
    """A map FrameId -> pose of the frame in its parent frame (the world for frames registered
    to it). Sources write one per evaluation of their pose output port."""

    def __init__(self):
        self._R: dict[FrameId, np.ndarray] = {}
        self._p: dict[FrameId, np.ndarray] = {}

    def set_value(self, id: FrameId, value) -> None:
        """Set the pose of frame ``id`` (a RigidTransform or 4x4 matrix)."""
        if not isinstance(id, FrameId):
            raise ValueError(f"FramePoseVector.set_value needs a FrameId; given {type(id).__name__}")
        R, p = as_Rp(value, f"pose of frame {id!r}")
        self._R[id] = R
        self._p[id] = p

    def SetFromArrays(self, ids, R: np.ndarray, p: np.ndarray) -> None:
        """(mallard) Set many poses at once: ids (n), R (n, 3, 3), p (n, 3) — the fast path for sources
        such as MultibodyPlant."""
        R = np.asarray(R, dtype=float)
        p = np.asarray(p, dtype=float)
        if R.shape != (len(ids), 3, 3) or p.shape != (len(ids), 3):
            raise ValueError(f"FramePoseVector.SetFromArrays: need R (n, 3, 3) and p (n, 3) for n={len(ids)} ids; "
                             f"given {R.shape} and {p.shape}")
        for k, fid in enumerate(ids):
            self._R[fid] = R[k]
            self._p[fid] = p[k]

    def value(self, id: FrameId):
        """The pose of frame ``id`` as a RigidTransform."""
        if id not in self._R:
            raise GeometryLookupError(f"FramePoseVector has no pose for {id!r}; it has {len(self._R)} frames")
        return make_transform(self._R[id], self._p[id])

    def _Rp(self, id: FrameId):
        return self._R[id], self._p[id]

    def has_id(self, id: FrameId) -> bool:
        return id in self._R

    def ids(self) -> list:
        return list(self._R)

    def size(self) -> int:
        return len(self._R)

    def clear(self) -> None:
        self._R.clear()
        self._p.clear()

    def __repr__(self) -> str:
        return f"FramePoseVector(size={len(self._R)})"
