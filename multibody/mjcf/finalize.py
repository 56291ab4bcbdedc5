"""Finalize's MJCF part: the one call through which a plant builds what its MJCF models add (mjcf/actuation.py,
sensors.py, plugins.py, tendon_armature.py)."""
from __future__ import annotations

import numpy as np

from .actuation import MjcfActuation
from .implicit import FinalizeImplicit
from .plugins import FinalizeMjcfPlugins
from .rk4 import RungeKuttaScratch
from .sensors import FinalizeMjcfSensors
from .tendon_armature import FinalizeMjcfTendonArmature

__all__ = ["FinalizeMjcf"]


def FinalizeMjcf(plant) -> None:
    """What the plant's MJCF models add, made at Finalize: the compiled actuators with their ctrl ports and
    activation state, the sensor ports, the engine plugins and the tendon armature (zero rows, no ports and no state
    for a plant without MJCF models).

    Activations are continuous state after [q; v] (x = [q; v; act]) for a continuous plant, and the discrete
    state group `plant._mjcf_act_group` for a discrete one.
    """
    act = MjcfActuation(plant)
    plant._mjcf_actuation = act
    plant._mjcf_act_group = None
    FinalizeMjcfSensors(plant)
    if act.na:
        act0 = np.zeros(act.na)
        if plant.time_step() > 0:
            plant._mjcf_act_group = plant.DeclareDiscreteState(act0)
        else:
            nq, nv = plant.num_positions(), plant.num_velocities()
            plant.DeclareContinuousState(np.concatenate([plant._xc_model[:nq + nv], act0]), nq, nv, act.na)
    act.plugins = FinalizeMjcfPlugins(plant, act)  # plugin state group and post-step advance (engine plugins)
    # whether CalcGeneralizedForces adds anything (actuators, tendon springs / dampers, gravcomp, plugin forces)
    act.adds_forces = bool(act.nout or act.passive or act.gravcomp
                           or (act.plugins and any(mp.has_passive for mp in act.plugins.models)))
    FinalizeMjcfTendonArmature(plant)
    FinalizeImplicit(plant)  # the implicit / implicitfast step's free blocks and tree pattern (mjcf/implicit.py)
    plant._mjcf_rk4 = RungeKuttaScratch()  # the RK4 step's stage contexts (mjcf/rk4.py)
