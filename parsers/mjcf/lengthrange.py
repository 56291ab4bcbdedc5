"""compiler/lengthrange by simulation: MuJoCo's estimate of an actuator's feasible length range (mjcf.md §4.3.1,
§19.3), for actuators that need one (muscles by default) and have neither an explicit range nor (uselimit) a
joint / tendon limit to copy.

For each such actuator and each side (shortening, then lengthening) the model is simulated from qpos0 with
contacts, passive forces (springs, dampers), gravity, dry friction and actuation off, so only joint and tendon
limits and equality constraints bound the motion. Every step (of `timestep`, else the model's) the velocity is
damped by exp(−h / max(0.01, timeconst)), and the generalized force f = ±accel · moment / |M⁻¹ moment| (capped
at `maxforce` when > 0) pushes along the actuator's moment arm; the lengths seen while the time is within the
final `interval` of `inttotal` give the bound (minimum on the shortening side, maximum on the other).
The simulation is the discrete MultibodyPlant's step, which is MuJoCo's Euler step, so the result agrees with
MuJoCo's actuator_lengthrange to the accuracy of its constraint solves (well below the procedure's own
`tolrange` spread). Errors, as MuJoCo: an unstable simulation, an empty range, or a spread over the final
interval above tolrange · range (usually a missing joint limit: the length keeps growing).
"""
from __future__ import annotations

import copy
import math
import warnings

import numpy as np

from .errors import error_at
from .model import MjcfModel

__all__ = ["LengthRangeSupported", "compute_lengthranges"]

_MINVAL = 1e-15


def LengthRangeSupported(model: MjcfModel, a) -> bool:
    """Whether the simulation can measure this actuator's length: hinge/slide joint or a tendon the plant
    computes (fixed, or spatial through sites, pulleys and wrapping geoms)."""
    if a.trntype in ("joint", "jointinparent"):
        return model.joints[a.trnid[0]].type in ("hinge", "slide")
    if a.trntype == "tendon":
        from mallard.multibody.mjcf.tendons import TendonSupported
        return TendonSupported(model.tendons[a.trnid[0]])
    return False


def _passive_free_copy(model: MjcfModel, h: float) -> MjcfModel:
    """The model MuJoCo simulates for lengthrange: no gravity, springs, dampers, fluid forces, dry friction or actuators (and,
    here, no sensors, keyframes or engine plugins, which play no part in the length)."""
    sim = copy.deepcopy(model)
    for j in sim.joints:
        j.stiffness, j.damping, j.frictionloss = 0.0, 0.0, 0.0
    for t in sim.tendons:
        t.stiffness, t.damping, t.frictionloss = 0.0, 0.0, 0.0
    sim.option.gravity = np.zeros(3)
    sim.option.density = sim.option.viscosity = 0.0  # MuJoCo's spring/damper switch-off also removes fluid forces
    sim.option.timestep = h
    for b in sim.bodies:
        b.gravcomp, b.plugin = 0.0, -1
    sim.actuators, sim.sensors, sim.keys, sim.na, sim.plugins = [], [], [], 0, []
    return sim


class _LengthRangeSimulation:
    """A discrete plant of the passive-free copy of the model, with the actuator length / moment evaluators."""

    def __init__(self, model: MjcfModel, h: float):
        from mallard.multibody.plant import MultibodyPlant
        from mallard.multibody.mjcf.plant_maps import AttachMjcfModel
        from .to_plant import AddMjcfModelToPlant
        self.model = model
        self.h = h
        self.plant = MultibodyPlant(h)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.pm = AddMjcfModelToPlant(self.plant, _passive_free_copy(model, h), "lengthrange", False)
            AttachMjcfModel(self.plant, self.pm)
            self.plant.Finalize()
        self.context = self.plant.CreateDefaultContext()
        self.port = self.plant.get_applied_generalized_force_input_port()
        self.nv = self.plant.num_velocities()

    def _evaluator(self, a):
        """callable(q) -> (length, moment (nv)) of actuator `a` in the plant's coordinates."""
        plant, pm, ctx = self.plant, self.pm, self.context
        gear = float(a.gear[0])
        if a.trntype in ("joint", "jointinparent"):
            joint = pm.joints[a.trnid[0]]
            qi, vi = joint.position_start(), joint.velocity_start()
            moment = np.zeros(self.nv)
            moment[vi] = gear
            return lambda q: (gear * float(q[qi]), moment)
        from mallard.multibody.mjcf.tendons import MjcfTendonKinematics
        tendon = MjcfTendonKinematics(pm, a.trnid[0])
        return lambda q: (gear * tendon.CalcLength(plant, ctx, q), gear * tendon.CalcMoment(plant, ctx))

    def Run(self, a, index: int, side: int, opt: dict) -> tuple[float, float]:
        """(min, max) of the actuator length over the final interval when pushed towards `side` (0: shorter)."""
        plant, ctx = self.plant, self.context
        evaluate = self._evaluator(a)
        plant.SetDefaultContext(ctx)
        state = ctx.get_mutable_state()
        decay = math.exp(-self.h / max(0.01, float(opt["timeconst"])))
        sign = 2.0 * side - 1.0
        accel, maxforce = float(opt["accel"]), float(opt["maxforce"])
        inttotal, interval = float(opt["inttotal"]), float(opt["interval"])
        t, lo, hi, updated = 0.0, 0.0, 0.0, False
        while t < inttotal:
            plant.SetVelocities(ctx, plant.GetVelocities(ctx) * decay)
            q = plant.GetPositions(ctx)
            length, moment = evaluate(q)
            Minv_moment = np.linalg.solve(plant.CalcMassMatrix(ctx), moment)
            f = moment * (sign * accel / max(_MINVAL, float(np.linalg.norm(Minv_moment))))
            nrm = float(np.linalg.norm(f))
            if maxforce > 0 and nrm > maxforce:
                f = f * (maxforce / max(_MINVAL, nrm))
            self.port.FixValue(ctx, f)
            plant._DiscreteStepUpdate(ctx, state)
            x = plant.GetPositionsAndVelocities(ctx)
            if not np.all(np.isfinite(x)) or np.max(np.abs(x)) > 1e10:
                raise error_at(a.where, f"Unstable lengthrange simulation in actuator {index}")
            t += self.h
            if t > inttotal - interval:
                if length < lo or not updated:
                    lo = length
                if length > hi or not updated:
                    hi = length
                updated = True
        return lo, hi


def compute_lengthranges(model: MjcfModel, pending: list[int], lengthrange_options: dict) -> None:
    """Set `lengthrange` of the actuators `pending` (indices) by MuJoCo's simulation; raises MjcfError naming
    the actuator when the simulation is unstable, the range empty, or the lengths do not settle."""
    if not pending:
        return
    opt = lengthrange_options
    h = float(opt["timestep"]) if float(opt["timestep"]) > 0 else float(model.option.timestep)
    from .errors import MjcfError
    first = model.actuators[pending[0]]
    try:
        sim = _LengthRangeSimulation(model, h)
    except MjcfError:
        raise
    except (ValueError, RuntimeError, np.linalg.LinAlgError) as exc:
        raise error_at(first.where, f"lengthrange simulation of actuator {pending[0]}: {exc}") from None
    for i in pending:
        a = model.actuators[i]
        try:
            (lmin0, lmax0) = sim.Run(a, i, 0, opt)
            (lmin1, lmax1) = sim.Run(a, i, 1, opt)
        except MjcfError:
            raise
        except (ValueError, RuntimeError, np.linalg.LinAlgError) as exc:
            raise error_at(a.where, f"Unstable lengthrange simulation in actuator {i}: {exc}") from None
        rng = np.array([lmin0, lmax1])
        dif = rng[1] - rng[0]
        label = f"actuator {i}" + (f" '{a.name}'" if a.name else "")
        if not dif > 0:
            raise error_at(a.where, f"Invalid lengthrange ({rng[0]:g}, {rng[1]:g}) in {label}")
        for lo, hi in ((lmin0, lmax0), (lmin1, lmax1)):
            if hi - lo > float(opt["tolrange"]) * dif:
                raise error_at(a.where, f"Lengthrange computation did not converge in {label}: eval ({lo:g}, "
                                        f"{hi:g}), range ({rng[0]:g}, {rng[1]:g}); is a joint or tendon limit "
                                        "missing? (or give lengthrange explicitly)")
        a.lengthrange = rng
