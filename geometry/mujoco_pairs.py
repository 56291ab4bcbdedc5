"""(mallard) MuJoCo explicit contact pairs (MJCF ``<contact><pair>``) as a proximity-property extension.

An explicit pair is stored on the ProximityProperties of its first geometry, group "mujoco_pair", property
"pairs": a tuple of MujocoExplicitPair naming the partner geometry and carrying ALL the pair's contact
parameters. SceneGraph stays generic: its contact query (ComputeContactPoints) collides such pairs even when
collision filters or contype/conaffinity would skip them, collides a geometry pair that is both explicit and
dynamic once (with the pair's margin and gap), and the plant takes the pair's parameters instead of mixing
the geometries' own.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MUJOCO_PAIR_GROUP = "mujoco_pair"
MUJOCO_PAIR_PROPERTY = "pairs"


@dataclass(frozen=True, eq=False)
class MujocoExplicitPair:
    """One explicit pair, seen from its first geometry: partner GeometryId, condim (1, 3, 4, 6), friction (5:
    tangent1, tangent2, spin, roll1, roll2), solref (2), solreffriction (2; (0, 0) = use solref), solimp (5),
    margin (m; contacts are active while dist < margin), gap (m; detection reaches margin + gap) and order (the
    pair's index in MuJoCo's compiled pair list, which orders the pairs' contacts)."""

    partner: object
    condim: int
    friction: np.ndarray
    solref: np.ndarray
    solreffriction: np.ndarray
    solimp: np.ndarray
    margin: float
    gap: float
    order: int = 0

    def __post_init__(self):
        if int(self.condim) not in (1, 3, 4, 6):
            raise ValueError(f"explicit contact pair: condim {self.condim} is invalid; use 1, 3, 4 or 6")
        for name, size in (("friction", 5), ("solref", 2), ("solreffriction", 2), ("solimp", 5)):
            v = np.asarray(getattr(self, name), float).reshape(-1)
            if v.shape[0] != size or not np.all(np.isfinite(v)):
                raise ValueError(f"explicit contact pair: {name} must hold {size} finite numbers, got {v.tolist()}")
            object.__setattr__(self, name, v)
        for name in ("margin", "gap"):
            v = float(getattr(self, name))
            if not np.isfinite(v):  # MuJoCo accepts negative values (a negative margin shrinks detection)
                raise ValueError(f"explicit contact pair: {name} must be finite, got {v}")
            object.__setattr__(self, name, v)
        object.__setattr__(self, "condim", int(self.condim))


def GetMujocoExplicitPairs(properties) -> tuple:
    """The MujocoExplicitPair records of a geometry's ProximityProperties (empty when it has none)."""
    if properties is None or not properties.HasProperty(MUJOCO_PAIR_GROUP, MUJOCO_PAIR_PROPERTY):
        return ()
    pairs = properties.GetProperty(MUJOCO_PAIR_GROUP, MUJOCO_PAIR_PROPERTY)
    if not all(isinstance(p, MujocoExplicitPair) for p in pairs):
        raise ValueError(f"('{MUJOCO_PAIR_GROUP}', '{MUJOCO_PAIR_PROPERTY}') must be a tuple of MujocoExplicitPair")
    return tuple(pairs)


def AddMujocoExplicitPair(properties, pair: MujocoExplicitPair) -> None:
    """Append an explicit pair to a geometry's ProximityProperties (the geometry is the pair's first one)."""
    if not isinstance(pair, MujocoExplicitPair):
        raise ValueError(f"AddMujocoExplicitPair needs a MujocoExplicitPair, given {type(pair).__name__}")
    pairs = GetMujocoExplicitPairs(properties) + (pair,)
    properties.UpdateProperty(MUJOCO_PAIR_GROUP, MUJOCO_PAIR_PROPERTY, pairs)
