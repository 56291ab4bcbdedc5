"""RotationalInertia.CouldBePhysicallyValid's eigvalsh fast path gives exactly the verdict of the exact
(Drake-convention principal moments) test, including inertias within round-off of the triangle and
positivity boundaries; SpatialInertia.IsPhysicallyValid keeps rejecting NaN, infinity and negative mass."""
from __future__ import annotations

import math

import numpy as np

from mallard.multibody.tree import RotationalInertia, SpatialInertia
import mallard.multibody.tree.rotational_inertia as ri


def _exact(I: RotationalInertia) -> bool:
    eps = 16.0 * ri._EPS * max(1.0, I.CalcMaximumPossibleMomentOfInertia())
    return ri._near_positive_and_triangle(I.CalcPrincipalMomentsOfInertia(), eps)


def test_fast_path_matches_exact_test_near_boundaries():
    rng = np.random.default_rng(7)
    verdicts = []
    for _ in range(3000):
        a, b = rng.uniform(0.0, 2.0, 2)
        c = (a + b) * (1.0 + rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-18, -1))
        lam = np.array([a, b, c]) * 10.0 ** rng.uniform(-6, 3)
        if rng.random() < 0.2:
            lam[0] = -10.0 ** rng.uniform(-20, -2)
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        M = Q @ np.diag(lam) @ Q.T
        M = 0.5 * (M + M.T)
        I = RotationalInertia(M[0, 0], M[1, 1], M[2, 2], M[0, 1], M[0, 2], M[1, 2])
        fast = I.CouldBePhysicallyValid()
        assert fast == _exact(I), lam
        verdicts.append(fast)
    assert any(verdicts) and not all(verdicts)  # both outcomes were exercised


def test_boundary_cases_and_invalid_inputs():
    assert RotationalInertia(1.0, 1.0, 2.0).CouldBePhysicallyValid()  # triangle equality holds
    assert not RotationalInertia(1.0, 1.0, 2.1).CouldBePhysicallyValid()
    assert RotationalInertia(0.0, 0.0, 0.0).CouldBePhysicallyValid()
    assert not RotationalInertia(-1e-3, 1.0, 1.0).CouldBePhysicallyValid()
    assert RotationalInertia(-1e-17, 1.0, 1.0).CouldBePhysicallyValid()  # within 16 eps
    assert SpatialInertia.Zero().IsPhysicallyValid()
    assert not SpatialInertia.NaN().IsPhysicallyValid()
    M = SpatialInertia.MakeFromCentralInertia(2.0, np.array([0.1, 0.0, 0.2]),
                                              RotationalInertia(0.1, 0.2, 0.25, 0.01, 0.0, 0.02))
    assert M.IsPhysicallyValid()
    M._m = -1.0
    assert not M.IsPhysicallyValid()
    M._m = math.inf
    assert not M.IsPhysicallyValid()
    M._m, M._p = 2.0, np.array([0.0, np.nan, 0.0])
    assert not M.IsPhysicallyValid()
