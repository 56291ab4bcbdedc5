"""MJCF tendon armature in the plant's dynamics: MuJoCo adds a·JᵀJ to M (mj_tendonArmature, only at the entries
of its tree-sparse inertia) and a·J·(J̇·v) to the bias (mj_tendonBias), J = ∂L/∂v the tendon's moment arm.

`MjcfTendonInertia` is installed on the plant at Finalize (plant._tendon_inertia, None without tendon armature)
and called by CalcMassMatrix, CalcBiasTerm, inverse / forward dynamics and the discrete step.
"""
from __future__ import annotations

import numpy as np

from ..kernels.kinematics import calc_accelerations
from ..kernels.tendon_kernels import add_tendon_armature_mass
from .tendons import HasWrappingGeoms, TendonPaths
from ..kernels import pipeline as pl

__all__ = ["MjcfTendonInertia", "FinalizeMjcfTendonArmature"]


def _tree_pattern(ji: np.ndarray, nv: int) -> np.ndarray:
    """pattern[i, k]: dofs i and k lie on one root-to-leaf path (where M has structural entries)."""
    pattern = np.zeros((nv, nv), bool)
    for b in range(1, ji.shape[0]):
        mine = range(ji[b, 4], ji[b, 4] + ji[b, 5])
        if not len(mine):
            continue
        a = b
        while a > 0:
            for k in range(ji[a, 4], ji[a, 4] + ji[a, 5]):
                for i in mine:
                    pattern[i, k] = pattern[k, i] = True
            a = ji[a, 0]
    return pattern


class MjcfTendonInertia:
    """The armature terms of the MJCF tendons with armature > 0 (fixed and spatial through sites / pulleys)."""

    def __init__(self, plant, items: list, armature: np.ndarray):
        m = plant._model
        self.paths = TendonPaths(items)
        self.armature = np.ascontiguousarray(armature, float)
        self.ji, self.order = m.ji, m.order
        self.pattern = _tree_pattern(m.ji, m.nv)
        self.fixed_only = all(pm.model.tendons[t].kind == "fixed" for pm, t in items)

    def _Moments(self, kin) -> np.ndarray:
        return self.paths.CalcLengthsMoments(kin, self.ji)[1]

    def CalcMassMatrix(self, kin) -> np.ndarray:
        """Σ a·JᵀJ restricted to M's tree pattern (nv × nv)."""
        nv = kin.S.shape[0]
        out = np.zeros((nv, nv))
        add_tendon_armature_mass(self._Moments(kin), self.armature, self.pattern, out)
        return out

    def AddToMassMatrix(self, kin, M: np.ndarray) -> None:
        """M += Σ a·JᵀJ (tree pattern only)."""
        add_tendon_armature_mass(self._Moments(kin), self.armature, self.pattern, M)

    def CalcBias(self, kin, J: np.ndarray | None = None) -> np.ndarray:
        """Σ a·J·(J̇·v): the velocity product of the tendons' kinetic energy ½ a (J v)² (nv)."""
        if J is None:
            J = self._Moments(kin)
        if self.fixed_only:
            return np.zeros(J.shape[1])
        A = calc_accelerations(self.order, self.ji, kin.S, kin.c, np.zeros(kin.S.shape[0]))
        jdv = self.paths.CalcJdotV(kin, A)
        return J.T @ (self.armature * jdv)

    def AddToMassMatrixAndBias(self, kin, M: np.ndarray, bias: np.ndarray) -> None:
        """M += Σ a·JᵀJ and bias += Σ a·J·(J̇·v) with one tendon evaluation (the discrete step's hook)."""
        J = self._Moments(kin)
        add_tendon_armature_mass(J, self.armature, self.pattern, M)
        bias += self.CalcBias(kin, J)

    def CalcInverseDynamics(self, kin, vdot: np.ndarray, with_velocity: bool = True) -> np.ndarray:
        """The armature's share of inverse dynamics: M_ten v̇ (+ the bias when `with_velocity`)."""
        J = self._Moments(kin)
        nv = J.shape[1]
        M = np.zeros((nv, nv))
        add_tendon_armature_mass(J, self.armature, self.pattern, M)
        tau = M @ vdot
        if with_velocity:
            tau += self.CalcBias(kin, J)
        return tau

    def CalcForwardDynamics(self, m, kin, F_Bo_W: np.ndarray, tau: np.ndarray) -> np.ndarray:
        """v̇ solving (M + M_ten) v̇ + C v + bias_ten = τ + Σ J_WBᵀ F_Bo_W (the continuous plant's dynamics)."""
        M = pl.mass_matrix_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw)
        minus_rhs = pl.inverse_dynamics_from_inertias(m.order, m.ji, m.reflected_inertia, kin.S, kin.Iw, kin.p_WB,
                                                      kin.V, kin.c, np.zeros(m.nv), F_Bo_W, tau)
        self.AddToMassMatrixAndBias(kin, M, minus_rhs)
        return np.linalg.solve(M, -minus_rhs)


def FinalizeMjcfTendonArmature(plant) -> None:
    """Install plant._tendon_inertia for the MJCF tendons with armature (None when there are none).

    MuJoCo has no J̇ for tendons that wrap geoms (mj_tendonDot stops with an error), so armature on those is
    rejected here as MuJoCo rejects it at its first step.
    """
    items, armature = [], []
    for pm in plant._mjcf_maps:
        for t, ten in enumerate(pm.model.tendons):
            if ten.armature > 0:
                if HasWrappingGeoms(ten):
                    raise ValueError(f"MJCF tendon '{ten.name or t}': armature on a tendon that wraps geoms is not "
                                     "supported (MuJoCo has no Jacobian derivative for geom wrapping); remove the "
                                     "armature or the wrapping geoms")
                items.append((pm, t))
                armature.append(float(ten.armature))
    plant._tendon_inertia = MjcfTendonInertia(plant, items, np.array(armature)) if items else None
