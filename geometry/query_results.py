"""Result types of proximity queries (pydrake.geometry): PenetrationAsPointPair, SignedDistancePair,
SignedDistanceToPoint, SortedPair, and ContactPointSet (mallard: MuJoCo-style multi-point contacts)."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from mallard.common.scalar_template import ScalarTemplate
from mallard.geometry.identifiers import GeometryId


def _zeros3() -> np.ndarray:
    return np.zeros(3)


class HydroelasticContactRepresentation(enum.IntEnum):
    """How a hydroelastic contact surface is meshed: triangles or polygons."""

    kTriangle = 0
    kPolygon = 1


@dataclass
class PenetrationAsPointPair:
    """Penetration of geometries A and B (id_A < id_B): p_WCa is A's point deepest inside B, p_WCb
    B's point deepest inside A (both in World, m), nhat_BA_W the unit normal pointing from B into A,
    depth = |p_WCa - p_WCb| projected on the normal (> 0)."""

    id_A: GeometryId = field(default_factory=GeometryId)
    id_B: GeometryId = field(default_factory=GeometryId)
    p_WCa: np.ndarray = field(default_factory=_zeros3)
    p_WCb: np.ndarray = field(default_factory=_zeros3)
    nhat_BA_W: np.ndarray = field(default_factory=_zeros3)
    depth: float = -1.0


@dataclass
class SignedDistancePair:
    """Signed distance between A and B (id_A < id_B): witness points p_ACa (on A, in A's frame) and
    p_BCb (on B, in B's frame), distance (m, < 0 when overlapping), nhat_BA_W the unit direction from
    B to A along which the distance grows fastest."""

    id_A: GeometryId = field(default_factory=GeometryId)
    id_B: GeometryId = field(default_factory=GeometryId)
    p_ACa: np.ndarray = field(default_factory=_zeros3)
    p_BCb: np.ndarray = field(default_factory=_zeros3)
    distance: float = 0.0
    nhat_BA_W: np.ndarray = field(default_factory=_zeros3)


@dataclass
class SignedDistanceToPoint:
    """Signed distance from a query point Q to geometry G: p_GN the nearest point on G's surface
    (in G's frame), distance (m, < 0 inside), grad_W the gradient of the distance w.r.t. Q in World."""

    id_G: GeometryId = field(default_factory=GeometryId)
    p_GN: np.ndarray = field(default_factory=_zeros3)
    distance: float = 0.0
    grad_W: np.ndarray = field(default_factory=_zeros3)


class SortedPair(tuple):
    """A pair stored in increasing order: first() <= second()."""

    def __new__(cls, a, b):
        return super().__new__(cls, (a, b) if a <= b else (b, a))

    def first(self):
        return self[0]

    def second(self):
        return self[1]


@dataclass
class ContactPointSet:
    """MuJoCo-style contacts from ``QueryObject.ComputeContactPoints`` (one row per contact point).

    For contact k: geometry ids ``id_1[k]``/``id_2[k]`` (geom1 has MuJoCo's lower type code),
    ``dist[k]`` (m, < 0 penetrating), ``pos_W[k]`` (midway between the surfaces), ``frame_W[k]``
    (3x3, rows = unit normal from geom1 to geom2, then two tangents: MuJoCo's contact frame),
    ``margin[k]`` (sum of the geometries' mujoco margins; MuJoCo 4 makes the contact active, i.e. gives it
    constraint rows, when dist < margin), ``gap[k]``, and ``index_1[k]``/``index_2[k]`` (rows in the query's
    geometry tables).
    """

    id_1: list = field(default_factory=list)
    id_2: list = field(default_factory=list)
    index_1: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    index_2: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    dist: np.ndarray = field(default_factory=lambda: np.zeros(0))
    pos_W: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    frame_W: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    margin: np.ndarray = field(default_factory=lambda: np.zeros(0))
    gap: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def size(self) -> int:
        return int(self.dist.shape[0])

    def Subset(self, index: np.ndarray) -> "ContactPointSet":
        """The contacts `index` (an integer array into this set), in that order."""
        index = np.asarray(index, np.int64)
        ks = index.tolist()
        return ContactPointSet(id_1=[self.id_1[k] for k in ks], id_2=[self.id_2[k] for k in ks],
                               index_1=self.index_1[index], index_2=self.index_2[index], dist=self.dist[index],
                               pos_W=self.pos_W[index], frame_W=self.frame_W[index], margin=self.margin[index],
                               gap=self.gap[index])

    def normal_W(self) -> np.ndarray:
        """Unit normals (K, 3) from geom1 to geom2."""
        return self.frame_W[:, 0, :].copy()


PenetrationAsPointPair_ = ScalarTemplate("PenetrationAsPointPair_", PenetrationAsPointPair)
SignedDistancePair_ = ScalarTemplate("SignedDistancePair_", SignedDistancePair)
SignedDistanceToPoint_ = ScalarTemplate("SignedDistanceToPoint_", SignedDistanceToPoint)
