"""MuJoCo's fluid forces (MJCF `<option density viscosity wind>`, mj_fluid) as a force element: the inertia-box
and ellipsoid models of kernels/fluid.py on the bodies of one MJCF model. The MJCF parser builds the items
(parsers/mjcf/fluid.py); the compiled pipeline reads them (pipeline/fluid.py); continuous plants and the discrete
Python path evaluate them through `_CalcAndAddForceContribution`."""
from __future__ import annotations

import numpy as np

from ..kernels.fluid import FluidBodyForces
from .force_element import ForceElement


class FluidForces(ForceElement):
    """Fluid wrenches on `bodies` (one plant Body per item), item i in frame O (R_BO[i], p_BO[i]) of its body:
    kind[i] 0 inertia box, 1 ellipsoid geom; params (n × 15) and medium (n × 5: density [kg/m³], viscosity [Pa s],
    wind (3) [m/s]) as in kernels/fluid.py."""

    def __init__(self, bodies: list, kind, R_BO, p_BO, params, medium, model_instance=None):
        super().__init__(model_instance, "mjcf_fluid")
        n = len(bodies)
        self._bodies = list(bodies)
        self.kind = np.ascontiguousarray(np.asarray(kind, np.int64).reshape(n))
        self.R_BO = np.ascontiguousarray(np.asarray(R_BO, float).reshape(n, 3, 3))
        self.p_BO = np.ascontiguousarray(np.asarray(p_BO, float).reshape(n, 3))
        self.params = np.ascontiguousarray(np.asarray(params, float).reshape(n, 15))
        self.medium = np.ascontiguousarray(np.asarray(medium, float).reshape(n, 5))
        self._body = None  # plant body indices, resolved after Finalize

    def num_items(self) -> int:
        """Number of inertia boxes and fluid ellipsoids acted on."""
        return len(self._bodies)

    def body_indices(self) -> np.ndarray:
        """The plant body index of every item (valid after Finalize)."""
        if self._body is None:
            self._body = np.array([int(b.index()) for b in self._bodies], np.int64)
        return self._body

    def _CalcAndAddForceContribution(self, context, kin, q, v, F_Bo_W, tau) -> None:
        if self._bodies:
            FluidBodyForces(self.body_indices(), self.kind, self.R_BO, self.p_BO, self.params, self.medium,
                            kin.R_WB, kin.p_WB, kin.V, F_Bo_W)

    def _CalcNonConservativePower(self, context, kin, q, v) -> float:
        F = np.zeros((kin.V.shape[0], 6))
        self._CalcAndAddForceContribution(context, kin, q, v, F, None)
        # F at Bo; power = Σ τ·w + f·v_Bo
        v_Bo = kin.V[:, 3:] + np.cross(kin.V[:, :3], kin.p_WB)
        return float(np.sum(F[:, :3] * kin.V[:, :3]) + np.sum(F[:, 3:] * v_Bo))
