"""Random state of MultibodyPlant: per-joint and free-body distributions sampled by SetRandomState."""
from __future__ import annotations

import numpy as np


def _uniform_quaternion(generator) -> np.ndarray:
    """A rotation drawn uniformly from SO(3): a normalized 4-vector of standard normals (w ≥ 0)."""
    q = generator.standard_normal(4)
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def _wxyz(value) -> np.ndarray:
    q = np.asarray(value.wxyz() if hasattr(value, "wxyz") else value, dtype=float).reshape(-1)
    if q.size != 4:
        raise ValueError(f"a random rotation must be a quaternion [w, x, y, z], got {q.size} entries")
    return q / np.linalg.norm(q)


class _RandomStateMixin:
    """SetRandomState and the free-body random distributions.

    Distributions are callables `f(generator) -> value` taking a numpy Generator (the Python form of
    Drake's symbolic random-variable expressions).  Joints or bodies without one get their default.
    """

    def _free_body_distribution(self, body, what):
        j = self._free_joint(body, what)
        if j.num_positions() != 7:
            raise RuntimeError(f"{what}: body '{body.name()}' is not a quaternion floating body")
        return j

    def SetFreeBodyRandomPositionDistribution(self, body, position) -> None:
        """position: callable(generator) -> p_WB (3-vector)."""
        j = self._free_body_distribution(body, "SetFreeBodyRandomPositionDistribution")
        self._free_random.setdefault(int(j.index()), {})["p"] = position

    def SetFreeBodyRandomRotationDistribution(self, body, rotation) -> None:
        """rotation: callable(generator) -> quaternion [w, x, y, z] (or a Quaternion)."""
        j = self._free_body_distribution(body, "SetFreeBodyRandomRotationDistribution")
        self._free_random.setdefault(int(j.index()), {})["R"] = rotation

    def SetFreeBodyRandomRotationDistributionToUniform(self, body) -> None:
        """Draw the free body's orientation uniformly from SO(3)."""
        self.SetFreeBodyRandomRotationDistribution(body, _uniform_quaternion)

    def SetRandomState(self, context, state, generator) -> None:
        """Sample every joint's distribution (default positions where none is set); velocities are zero."""
        self._ThrowIfNotFinalized("SetRandomState")
        if generator is None or not hasattr(generator, "standard_normal"):
            raise ValueError("SetRandomState: generator must be a numpy random Generator (np.random.default_rng())")
        super().SetRandomState(context, state, generator)
        x = self._default_state_vector()
        for j in self._joints:
            qs, nq = j.position_start(), j.num_positions()
            q = j._sample_positions(generator)
            spec = self._free_random.get(int(j.index()))
            if spec:
                if "R" in spec:
                    q[:4] = _wxyz(spec["R"](generator))
                if "p" in spec:
                    q[4:] = np.asarray(spec["p"](generator), dtype=float).reshape(3)
            x[qs:qs + nq] = q
        self._mutable_qv_in_state(context, state)[:] = x
