"""FramePoseVector: the poses X_PF a geometry source reports for its frames, and GeometryConfigurationVector:
the vertex positions of (deformable) geometries (pydrake.geometry)."""
from __future__ import annotations

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry._poses import as_Rp, make_transform
from mallard.geometry.identifiers import FrameId, GeometryId, GeometryLookupError


class FramePoseVector:
    """A map FrameId -> pose of the frame in its parent frame (the world for frames registered
    to it). Sources write one per evaluation of their pose output port.

    Poses set in one SetFromArrays call are kept as that call's arrays (the block) until a per-frame
    access needs the map, so SceneGraph can read a whole source's poses with one gather."""

    def __init__(self):
        self._R: dict[FrameId, np.ndarray] = {}
        self._p: dict[FrameId, np.ndarray] = {}
        self._block = None  # (ids list, R (n, 3, 3), p (n, 3)) when it holds all the poses

    def _map(self) -> dict:
        """The per-frame map (moves a pending block into it)."""
        if self._block is not None:
            ids, R, p = self._block
            self._block = None
            for k, fid in enumerate(ids):
                self._R[fid] = R[k]
                self._p[fid] = p[k]
        return self._R

    def set_value(self, id: FrameId, value) -> None:
        """Set the pose of frame ``id`` (a RigidTransform or 4x4 matrix)."""
        if not isinstance(id, FrameId):
            raise ValueError(f"FramePoseVector.set_value needs a FrameId; given {type(id).__name__}")
        R, p = as_Rp(value, f"pose of frame {id!r}")
        self._map()[id] = R
        self._p[id] = p

    def SetFromArrays(self, ids, R: np.ndarray, p: np.ndarray) -> None:
        """(mallard) Set many poses at once: ids (n), R (n, 3, 3), p (n, 3) — the fast path for sources
        such as MultibodyPlant."""
        R = np.asarray(R, dtype=float)
        p = np.asarray(p, dtype=float)
        if R.shape != (len(ids), 3, 3) or p.shape != (len(ids), 3):
            raise ValueError(f"FramePoseVector.SetFromArrays: need R (n, 3, 3) and p (n, 3) for n={len(ids)} ids; "
                             f"given {R.shape} and {p.shape}")
        ids = list(ids)
        if not self._R and (self._block is None or self._block[0] == ids):
            self._block = (ids, R, p)  # replaces the same frames' poses: no per-frame work
            return
        self._map()
        for k, fid in enumerate(ids):
            self._R[fid] = R[k]
            self._p[fid] = p[k]

    def _Block(self):
        """(ids, R, p) when the poses are exactly one SetFromArrays block, else None."""
        return self._block if not self._R else None

    def value(self, id: FrameId):
        """The pose of frame ``id`` as a RigidTransform."""
        if id not in self._map():
            raise GeometryLookupError(f"FramePoseVector has no pose for {id!r}; it has {len(self._R)} frames")
        return make_transform(self._R[id], self._p[id])

    def _Rp(self, id: FrameId):
        self._map()
        return self._R[id], self._p[id]

    def has_id(self, id: FrameId) -> bool:
        return id in self._map()

    def ids(self) -> list:
        return list(self._map())

    def size(self) -> int:
        return len(self._map())

    def clear(self) -> None:
        self._block = None
        self._R.clear()
        self._p.clear()

    def __repr__(self) -> str:
        return f"FramePoseVector(size={self.size()})"


class GeometryConfigurationVector:
    """A map GeometryId -> configuration vector (the flat vertex positions q_WG of a deformable geometry);
    SceneGraph's ``<source>_configuration`` input carries one. Values are stored and returned as copies."""

    def __init__(self):
        self._q: dict[GeometryId, np.ndarray] = {}

    def set_value(self, id: GeometryId, value) -> None:
        if not isinstance(id, GeometryId):
            raise ValueError(f"GeometryConfigurationVector.set_value needs a GeometryId; given {type(id).__name__}")
        self._q[id] = np.array(value, dtype=float).reshape(-1)

    def value(self, id: GeometryId) -> np.ndarray:
        if id not in self._q:
            raise GeometryLookupError(f"GeometryConfigurationVector has no value for {id!r}; it has "
                                      f"{len(self._q)} geometries")
        return self._q[id].copy()

    def has_id(self, id: GeometryId) -> bool:
        return id in self._q

    def ids(self) -> list:
        return list(self._q)

    def size(self) -> int:
        return len(self._q)

    def clear(self) -> None:
        self._q.clear()

    def __repr__(self) -> str:
        return f"GeometryConfigurationVector(size={self.size()})"


FramePoseVector_ = ScalarTemplate("FramePoseVector_", FramePoseVector)
GeometryConfigurationVector_ = ScalarTemplate("GeometryConfigurationVector_", GeometryConfigurationVector)
