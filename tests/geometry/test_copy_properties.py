"""GeometryState's fast properties copy (used when SceneGraph registers a geometry) equals copy.deepcopy:
equal values, same class, no shared mutable values, aliasing inside the table preserved."""
from __future__ import annotations

import copy

import numpy as np

from mallard.geometry import IllustrationProperties, ProximityProperties, Rgba
from mallard.geometry.properties import copy_properties
from mallard.geometry.properties import CoulombFriction


def test_copy_equals_deepcopy_and_shares_nothing_mutable():
    p = ProximityProperties()
    p.AddProperty("material", "coulomb_friction", CoulombFriction(0.8, 0.5))
    p.AddProperty("mujoco", "solref", (0.02, 1.0))
    p.AddProperty("mujoco", "condim", 3)
    arr = np.array([1.0, 2.0, 3.0])
    p.AddProperty("extra", "a", arr)
    p.AddProperty("extra", "b", arr)  # one array under two names
    p.AddProperty("extra", "nested", {"k": [1, 2]})
    q = copy_properties(p)
    d = copy.deepcopy(p)
    assert type(q) is ProximityProperties and q == p and q == d
    assert q._groups is not p._groups and q._groups["extra"] is not p._groups["extra"]
    assert q.GetProperty("extra", "a") is not arr and q.GetProperty("extra", "a") is q.GetProperty("extra", "b")
    assert q.GetProperty("material", "coulomb_friction") is not p.GetProperty("material", "coulomb_friction")
    assert q.GetProperty("material", "coulomb_friction") == CoulombFriction(0.8, 0.5)
    arr[0] = 9.0
    p.GetProperty("extra", "nested")["k"].append(3)
    assert q.GetProperty("extra", "a")[0] == 1.0 and q.GetProperty("extra", "nested") == {"k": [1, 2]}


def test_rgba_copy_is_independent():
    p = IllustrationProperties()
    color = Rgba(0.1, 0.2, 0.3, 0.4)
    p.AddProperty("phong", "diffuse", color)
    q = copy_properties(p)
    assert q == p
    color.set(1.0, 1.0, 1.0, 1.0)
    assert q.GetProperty("phong", "diffuse") == Rgba(0.1, 0.2, 0.3, 0.4)


class _Custom(ProximityProperties):
    def __deepcopy__(self, memo):
        out = ProximityProperties.__new__(_Custom)
        out._groups = {"copied": {"by": "deepcopy"}}
        return out


def test_class_with_its_own_deepcopy_is_honoured():
    q = copy_properties(_Custom())
    assert q.GetProperty("copied", "by") == "deepcopy"
