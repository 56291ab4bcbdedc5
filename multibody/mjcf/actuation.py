"""MuJoCo actuators of MJCF models in a MultibodyPlant: the `<instance>_ctrl` input port, activation state
and actuator forces with MuJoCo's semantics (mj_fwdActuation, mj_nextActivation).

Per actuator output i (one per actuator, three for an so3 servo, whose ctrl block has 3 or 4 entries: the
ctrl port has MuJoCo's nu entries, force / length arrays one per output) with transmission moment row m_i
(gear for a hinge/slide joint, the gear axis or wrench for a ball / free joint, gear·(d length / d v) for a
tendon, Jᵀ·(R_WS gear) for a site, with J the site's Jacobian; sites without refsite and free joints have
length 0): length L, velocity V = m_i·v, input = ctrl (dyntype none)
or act (actearly: next act), force f = gain·input + bias with gain fixed (g0) / affine (g0 + g1 L + g2 V)
and bias none / affine (b0 + b1 L + b2 V); ctrl, act and force are clamped to ctrlrange / actrange /
forcerange when limited; a tendon's actuatorfrcrange scales its actuators' forces when their sum leaves the
range (before forcerange); τ = Σ m_iᵀ f_i, then clamped per joint to its actuatorfrcrange. Activations:
integrator ȧ = ctrl, filter ȧ = (ctrl − a)/τ (Euler), filterexact a⁺ = a + (ctrl − a)(1 − e^(−h/τ)).

Supported: transmissions joint and jointinparent (hinge, slide; ball and free with their 3D / 6D gear),
tendon (fixed; spatial through sites and pulleys, tendons.py), site (with or without refsite) and
slider-crank (transmission.py); MuJoCo 4's position-servo setpoints wrapped to the representative
nearest the length on rotational transmissions (ball joint, rotational site+refsite); MuJoCo 4's orientation
servo (gaintype / biastype so3, `<actuator><orientation>`: 3 or 4 controls, 3 outputs; So3Servo); dyntype
none, integrator, filter, filterexact, muscle; gaintype fixed, affine, muscle; biastype none, affine,
muscle (pipeline/muscle.py; the MJCF compiler computes a muscle's lengthrange by simulation when the file
does not give it, parsers/mjcf/lengthrange.py); engine-plugin actuators (their force replaces
gain·input + bias, plugins.py). Other
actuators are reported at load with a located warning naming the actuator and produce no force.
Activations are state: a discrete group (`plant._mjcf_act_group`) updated in the plant's step as mj_step
does (discrete plant), or continuous state after [q; v] integrated by the simulator (continuous plant;
actearly then looks ahead by <option timestep>).
"""
from __future__ import annotations

import math

import numpy as np

from .gravcomp import MjcfGravityCompensation
from .plant_maps import GetMjcfPlantMap, GetMjcfPlantMaps
from .tendons import MjcfTendonKinematics, TendonSupported
from .transmission import MjcfSiteTransmission, RotationVector, So3Servo, WrapPeriod
from ..math.functions import rotation_matrix_from_quaternion as quat_to_mat
from ..pipeline.muscle import MuscleActivationRate, MuscleBias, MuscleGain

__all__ = ["ActuatorSupported", "CheckMjcfActuators", "FinalizeMjcfActuation", "GetMujocoCtrlInputPort",
           "MjcfActuation"]

_DYN = {"none": 0, "integrator": 1, "filter": 2, "filterexact": 3, "muscle": 4}
_GAIN = {"fixed": 0, "affine": 1, "muscle": 2}
_BIAS = {"none": 0, "affine": 1, "muscle": 2}
_MINVAL = 1e-15


def _where(el) -> str:
    return f"{el.where}: " if getattr(el, "where", None) is not None else "MJCF: "


def _quat_R(q: np.ndarray) -> np.ndarray:
    return quat_to_mat(np.asarray(q, float) / np.linalg.norm(q))


def _Unsupported(model, a) -> str | None:
    """Why actuator `a` cannot be simulated, or None."""
    if getattr(a, "ctrlspec", None):  # MuJoCo 4 orientation servo (gaintype / biastype so3; none or integrator)
        return None
    if a.dyntype not in _DYN or a.gaintype not in _GAIN or a.biastype not in _BIAS:
        return (f"dyntype '{a.dyntype}', gaintype '{a.gaintype}', biastype '{a.biastype}' is not supported by "
                f"MultibodyPlant (supported: dyntype {sorted(_DYN)}, gaintype {sorted(_GAIN)}, biastype "
                f"{sorted(_BIAS)})")
    if "muscle" in (a.gaintype, a.biastype) and not a.lengthrange[0] < a.lengthrange[1]:
        return ("a muscle needs its actuator lengthrange (give lengthrange, or <compiler><lengthrange "
                "uselimit='true'/> on a limited joint / tendon)")
    if "muscle" in (a.gaintype, a.biastype) and a.gainprm[2] < 0 and a.acc0 is None:
        return "a muscle with force < 0 needs actuator_acc0, which the compiler did not compute"
    if a.trntype in ("joint", "jointinparent"):
        return None
    if a.trntype in ("site", "slidercrank"):
        return None
    if a.trntype == "tendon":
        if not TendonSupported(model.tendons[a.trnid[0]]):
            return "tendon transmissions are supported on fixed tendons and spatial tendons without wrapping geoms"
        return None
    return (f"transmission '{a.trntype}' is not supported by MultibodyPlant (supported: joint, jointinparent, "
            "tendon, site, slidercrank)")


def ActuatorSupported(model, a) -> bool:
    """Whether the plant simulates actuator `a` of `model`."""
    return _Unsupported(model, a) is None


def CheckMjcfActuators(model) -> list[str]:
    """One located message per actuator this module cannot simulate (its force stays zero)."""
    out = []
    for i, a in enumerate(model.actuators):
        why = _Unsupported(model, a)
        if why is not None:
            out.append(f"{_where(a)}actuator '{a.name or i}': {why}; its force is zero")
    return out


class MjcfActuation:
    """The compiled actuators of every MJCF model of a plant (arrays in plant velocity coordinates)."""

    def __init__(self, plant):
        maps = GetMjcfPlantMaps(plant)
        nv, nq = plant.num_velocities(), plant.num_positions()
        rows, qrows, acts, sites, spatial, passive, balls = [], [], [], [], [], [], []
        supported, enabled = [], []  # per output row (one per actuator but 3 for an so3 servo), in plant order
        row_ctrl, ctrl_lo, ctrl_hi, so3, out_of, periods = [], [], [], [], [], []
        self.ports, self.u_slices, self.ctrl_slices, self.act_slices = [], [], [], []
        jlim, tlim, trn_dof = [], [], []  # trn_dof: per output row, the dof of its hinge / slide joint (else -1)
        u0 = a0 = c0 = 0
        for pm in maps:
            model = pm.model
            flags = model.option.flags
            disabled = set(model.option.actuatorgroupdisable)
            for a in model.actuators:
                ok = ActuatorSupported(model, a)
                on = ok and flags.get("actuation", True) and a.group not in disabled
                clamp = a.ctrllimited and flags.get("clampctrl", True)
                nctrl, nout = getattr(a, "ctrlnum", 1), getattr(a, "outnum", 1)
                ctrl_lo += [a.ctrlrange[0] if clamp else -np.inf] * nctrl
                ctrl_hi += [a.ctrlrange[1] if clamp else np.inf] * nctrl
                out_of.append(len(rows))
                if nout > 1:  # so3 servo: 3 rows computed at every state (So3Servo)
                    if ok:
                        so3.append(So3Servo(pm, a, len(rows), c0))
                    for r in range(nout):
                        trn_dof.append(-1)
                        periods.append(0.0)
                        rows.append(np.zeros(nv))
                        qrows.append(np.zeros(nq))
                        acts.append(a)
                        supported.append(ok)
                        enabled.append(on)
                        row_ctrl.append(c0 + (r if nctrl == nout else 0))  # expmap: one control per output
                    c0 += nctrl
                    continue
                row, qrow = np.zeros(nv), np.zeros(nq)
                trn_dof.append(-1)
                g = float(a.gear[0])
                periods.append(WrapPeriod(model, a))
                supported.append(ok)
                enabled.append(on)
                row_ctrl.append(c0)
                c0 += nctrl
                if not ok:
                    pass
                elif a.trntype in ("site", "slidercrank"):  # length and moment depend on q (transmission.py)
                    sites.append((len(rows), MjcfSiteTransmission(pm, a.trntype, a.trnid[0], a.trnid[1], a.gear,
                                                                  a.cranklength)))
                elif a.trntype in ("joint", "jointinparent"):
                    J = pm.joints[a.trnid[0]]
                    kind = model.joints[a.trnid[0]].type
                    if kind in ("ball", "free"):  # 3D / 6D gear: moment and length depend on q
                        balls.append((len(rows), kind, J, np.asarray(a.gear[:6], float),
                                      a.trntype == "jointinparent"))
                    else:
                        row[J.velocity_start()] += g
                        qrow[J.position_start()] += g
                        trn_dof[-1] = J.velocity_start()
                elif model.tendons[a.trnid[0]].kind == "spatial":  # length and moment depend on q
                    spatial.append((len(rows), MjcfTendonKinematics(pm, a.trnid[0]), g))
                else:
                    for w in model.tendons[a.trnid[0]].wraps:
                        J = pm.joints[w.objid]
                        row[J.velocity_start()] += g * w.prm
                        qrow[J.position_start()] += g * w.prm
                rows.append(row)
                qrows.append(qrow)
                acts.append(a)
            for a_i, a in enumerate(model.actuators):
                ten = model.tendons[a.trnid[0]] if a.trntype == "tendon" else None
                if ten is not None and ten.actfrclimited:
                    tlim.append((out_of[-model.nu + a_i], (len(self.ports), a.trnid[0]), float(ten.actfrcrange[0]),
                                 float(ten.actfrcrange[1])))
            for jr, J in zip(model.joints, pm.joints):
                if jr.actfrclimited and jr.type in ("hinge", "slide"):
                    jlim.append((J.velocity_start(), float(jr.actfrcrange[0]), float(jr.actfrcrange[1])))
            for t, ten in enumerate(model.tendons):
                spring = ten.stiffness and flags.get("spring", True) and flags.get("passive", True)
                damper = ten.damping and flags.get("damper", True) and flags.get("passive", True)
                if (spring or damper) and TendonSupported(ten):
                    passive.append(MjcfTendonKinematics(pm, t, spring=bool(spring), damper=bool(damper)))
            nout = len(rows) - u0
            self.u_slices.append(slice(u0, u0 + nout))  # output rows (forces, lengths) of this model
            self.ctrl_slices.append(slice(self.ctrl_slices[-1].stop if self.ctrl_slices else 0, c0))
            self.act_slices.append(slice(a0, a0 + model.na))
            nctrl = self.ctrl_slices[-1].stop - self.ctrl_slices[-1].start  # MuJoCo's nu (ctrl size)
            self.ports.append(plant.DeclareVectorInputPort(f"{plant.GetModelInstanceName(pm.instance)}_ctrl",
                                                           nctrl, required=False))
            u0 += nout
            a0 += model.na
        self.nu, self.na, self.nout = c0, a0, u0
        self.row_ctrl = np.array(row_ctrl, dtype=int)
        self.so3 = so3  # So3Servo of every supported orientation servo
        self.period = np.array(periods, dtype=float)  # wrap period of rotational position servos (0: none)
        self.moment = np.array(rows, float).reshape(len(rows), nv)  # len(): a zero-DOF model has nv = 0
        self.qmoment = np.array(qrows, float).reshape(len(qrows), nq)
        f = lambda fn: np.array([fn(a) for a in acts], dtype=float)  # noqa: E731
        self.enabled = np.array(enabled, dtype=bool)
        self.ctrl_lo, self.ctrl_hi = np.array(ctrl_lo, float), np.array(ctrl_hi, float)
        so3_row = np.array([bool(getattr(a, "ctrlspec", None)) for a in acts], dtype=bool)  # norm-clamped instead
        self.force_lo = np.where(so3_row, -np.inf, f(lambda a: a.forcerange[0] if a.forcelimited else -np.inf))
        self.force_hi = np.where(so3_row, np.inf, f(lambda a: a.forcerange[1] if a.forcelimited else np.inf))
        self.act_lo = f(lambda a: a.actrange[0] if a.actlimited else -np.inf)
        self.act_hi = f(lambda a: a.actrange[1] if a.actlimited else np.inf)
        self.dyn = f(lambda a: _DYN.get(a.dyntype, 0)).astype(int)
        self.tau = f(lambda a: max(float(a.dynprm[0]), _MINVAL))
        self.gain = np.array([a.gainprm[:3] for a in acts], dtype=float).reshape(-1, 3)
        self.gaintype = f(lambda a: _GAIN.get(a.gaintype, 0)).astype(int)
        self.bias = np.array([a.biasprm[:3] for a in acts], dtype=float).reshape(-1, 3)
        self.biastype = f(lambda a: _BIAS.get(a.biastype, 0)).astype(int)
        self.actearly = f(lambda a: a.actearly).astype(bool)
        self.gainprm = np.array([a.gainprm[:9] for a in acts], dtype=float).reshape(-1, 9)
        self.biasprm = np.array([a.biasprm[:9] for a in acts], dtype=float).reshape(-1, 9)
        self.dynprm = np.array([a.dynprm[:3] for a in acts], dtype=float).reshape(-1, 3)
        self.lengthrange = np.array([a.lengthrange for a in acts], dtype=float).reshape(-1, 2)
        self.acc0 = f(lambda a: a.acc0 if a.acc0 is not None else 0.0)
        # activation slot of each stateful actuator (global index into the activation vector), -1 if none
        adr, k, i = [], 0, 0
        for pm in maps:
            for a in pm.model.actuators:
                nout = getattr(a, "outnum", 1)
                for r in range(nout):  # an so3 integrator keeps one activation per output
                    dyn_slot = a.actdim > getattr(a, "plugin_actdim", 0)  # a plugin's own slots come first
                    last = a.actadr + a.actdim - nout + r
                    adr.append(k + last if dyn_slot and supported[i] else -1)
                    i += 1
            k += pm.model.na
        self.actadr = np.array(adr, dtype=int)
        #: integrator position servos whose wrapped setpoint mj_advance re-anchors to the actuator length
        self.wraps_setpoints = bool(np.any((self.actadr >= 0) & (self.dyn == 1) & (self.period > 0)))
        self.jlim = jlim
        # per output row, the row of `jlim` whose joint is its transmission (-1: none): MuJoCo's implicit
        # integrators drop the velocity derivative of such an actuator while that joint's actuator torque is clamped
        jlim_row = {k: r for r, (k, _, _) in enumerate(jlim)}
        self.out_jlim = np.array([jlim_row.get(k, -1) if k >= 0 else -1 for k in trn_dof], dtype=int)
        self.tlim = tlim  # (actuator index, tendon key, lower, upper) of actuators on force-limited tendons
        self.sites = sites  # (actuator index, MjcfSiteTransmission) of site and slider-crank transmissions
        self.spatial = spatial  # (actuator index, MjcfTendonKinematics, gear) of spatial-tendon transmissions
        self.passive = passive  # tendons with a spring or damper
        self.gravcomp = MjcfGravityCompensation(plant)
        self.balls = balls  # (actuator index, 'ball' | 'free', Joint, gear, in parent) of ball / free joint gears
        self.plugins = None  # MjcfPlugins, set by FinalizeMjcfActuation
        self.adds_forces = False  # set by FinalizeMjcfActuation
        self.h = plant.time_step() if plant.time_step() > 0 else (
            float(maps[0].model.option.timestep) if maps else 0.0)

    # ---- evaluation -------------------------------------------------------------------------------------
    def EvalCtrl(self, plant, context) -> np.ndarray:
        """ctrl of every MJCF actuator (0 where the port is unconnected), clamped to ctrlrange when limited."""
        u = np.zeros(self.nu)
        for port, sl in zip(self.ports, self.ctrl_slices):
            if port.HasValue(context):
                u[sl] = port.Eval(context)
        if np.isnan(u).any():
            raise RuntimeError(f"MultibodyPlant '{plant.get_name()}': NaN in an MJCF ctrl input port")
        return np.clip(u, self.ctrl_lo, self.ctrl_hi)

    def GetActivations(self, plant, context) -> np.ndarray:
        """MuJoCo's act for every MJCF model of the plant (discrete group or the continuous z block)."""
        if not self.na:
            return np.zeros(0)
        if plant._mjcf_act_group is None:
            return context.get_continuous_state_vector().get_value()[plant._xc_nq + plant._xc_nv:]
        return context.get_discrete_state(plant._mjcf_act_group).get_value()

    def MutableActivations(self, plant, context) -> np.ndarray:
        """Writable view of the activations in `context`."""
        if plant._mjcf_act_group is None:
            return context.get_mutable_continuous_state_vector().get_mutable_value()[plant._xc_nq + plant._xc_nv:]
        return context.get_mutable_discrete_state(plant._mjcf_act_group).get_mutable_value()

    def CalcActivationRates(self, ctrl: np.ndarray, act: np.ndarray) -> np.ndarray:
        """ȧ per activation slot (integrator: ctrl; filter / filterexact: (ctrl − a)/τ)."""
        adot = np.zeros(self.na)
        for i in np.flatnonzero(self.actadr >= 0):
            k = self.actadr[i]
            u = ctrl[self.row_ctrl[i]]
            if self.dyn[i] == 1:
                adot[k] = u
            elif self.dyn[i] == 4:
                adot[k] = MuscleActivationRate(u, act[k], self.dynprm[i])
            else:
                adot[k] = (u - act[k]) / self.tau[i]
        return adot

    def CalcNextActivations(self, ctrl: np.ndarray, act: np.ndarray, lengths: np.ndarray | None = None
                            ) -> np.ndarray:
        """a⁺ after one step h (Euler, or exact for filterexact), clamped to actrange when limited; then, as
        mj_advance, an so3 integrator's setpoint is re-anchored to angle ≤ π and, given the pre-step actuator
        `lengths`, an integrator position servo's wrapped setpoint to the representative nearest its length."""
        nxt = act + self.h * self.CalcActivationRates(ctrl, act)
        for i in np.flatnonzero((self.actadr >= 0) & (self.dyn == 3)):
            k = self.actadr[i]
            nxt[k] = act[k] + (ctrl[self.row_ctrl[i]] - act[k]) * (1.0 - math.exp(-self.h / self.tau[i]))
        for i in np.flatnonzero(self.actadr >= 0):
            k = self.actadr[i]
            nxt[k] = min(max(nxt[k], self.act_lo[i]), self.act_hi[i])
        if lengths is not None:
            for i in np.flatnonzero((self.actadr >= 0) & (self.dyn == 1) & (self.period > 0)):
                k, P = self.actadr[i], self.period[i]
                nxt[k] -= P * math.floor((nxt[k] - lengths[i]) / P + 0.5)
        for servo in self.so3:  # an so3 integrator's expmap setpoint is re-anchored to angle ≤ π (mj_advance)
            if self.actadr[servo.rows[0]] >= 0:
                k = self.actadr[servo.rows]
                angle = float(np.linalg.norm(nxt[k]))
                if angle > math.pi:
                    nxt[k] *= (angle - 2.0 * math.pi * math.floor(angle / (2.0 * math.pi) + 0.5)) / angle
        return nxt

    def CalcMomentArms(self, plant, context) -> np.ndarray:
        """actuator_moment (one row per actuator output × plant nv): d length / d v; site rows are gear wrenches
        in the site (or refsite) frame mapped by the site Jacobian (see transmission.py)."""
        if not self.sites and not self.spatial and not self.balls and not self.so3:
            return self.moment
        moment = self.moment.copy()
        for i, trn in self.sites:
            moment[i] = trn.Calc(plant, context)[1]
        for servo in self.so3:
            moment[servo.rows] = servo.Calc(plant, context)[1]
        for i, tendon, gear in self.spatial:
            moment[i] = gear * tendon.CalcMoment(plant, context)
        if self.balls:
            q = plant.GetPositions(context)
            for i, kind, J, gear, inparent in self.balls:
                qs, vs = J.position_start(), J.velocity_start()
                R = _quat_R(q[qs:qs + 4])
                moment[i] = 0.0
                if kind == "ball":  # MuJoCo: gear axis in the child frame (jointinparent: in the parent's)
                    moment[i, vs:vs + 3] = gear[:3] if inparent else R @ gear[:3]
                else:  # plant v = [w_W; v_W]; gear = [force (world); torque (body, or world: jointinparent)]
                    moment[i, vs:vs + 3] = gear[3:6] if inparent else R @ gear[3:6]
                    moment[i, vs + 3:vs + 6] = gear[:3]
        return moment

    def CalcLengths(self, plant, context, q: np.ndarray) -> np.ndarray:
        """actuator_length per output: gear·(joint position or tendon length), site pose in the refsite frame
        (0 without a refsite), slider-crank length, so3 rotation vectors."""
        L = self.qmoment @ q
        for i, trn in self.sites:
            L[i] = trn.Calc(plant, context)[0]
        for servo in self.so3:
            L[servo.rows] = servo.Calc(plant, context)[0]
        for i, tendon, gear in self.spatial:
            L[i] = gear * tendon.CalcLength(plant, context, q)
        for i, kind, J, gear, inparent in self.balls:
            L[i] = 0.0
            if kind == "ball":  # rotation vector of the joint's quaternion · gear axis (child frame)
                qs = J.position_start()
                quat = q[qs:qs + 4] / np.linalg.norm(q[qs:qs + 4])
                axis = gear[:3] if not inparent else _quat_R(quat).T @ gear[:3]
                L[i] = float(RotationVector(quat) @ axis)
        return L

    def CalcActuatorForces(self, plant, context, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """actuator_force: f = gain·input + bias per actuator [N or N·m], clamped to forcerange when limited."""
        ctrl = self.EvalCtrl(plant, context)
        act = self.GetActivations(plant, context)
        inp = ctrl[self.row_ctrl]
        if self.na:
            nxt = self.CalcNextActivations(ctrl, act)
            for i in np.flatnonzero(self.actadr >= 0):
                inp[i] = nxt[self.actadr[i]] if self.actearly[i] else act[self.actadr[i]]
        L = self.CalcLengths(plant, context, q)
        moment = self.CalcMomentArms(plant, context)
        V = moment @ v
        wrap = self.period > 0  # rotational position servos: the setpoint representative nearest the length
        if wrap.any():
            P = self.period[wrap]
            inp[wrap] -= P * np.floor((inp[wrap] - L[wrap]) / P + 0.5)
        gain = np.where(self.gaintype == 1, self.gain[:, 0] + self.gain[:, 1] * L + self.gain[:, 2] * V,
                        self.gain[:, 0])
        bias = np.where(self.biastype == 1, self.bias[:, 0] + self.bias[:, 1] * L + self.bias[:, 2] * V, 0.0)
        for i in np.flatnonzero((self.gaintype == 2) | (self.biastype == 2)):
            if self.gaintype[i] == 2:
                gain[i] = MuscleGain(L[i], V[i], self.lengthrange[i], self.acc0[i], self.gainprm[i])
            if self.biastype[i] == 2:
                bias[i] = MuscleBias(L[i], self.lengthrange[i], self.acc0[i], self.biasprm[i])
        force = np.where(self.enabled, gain * inp + bias, 0.0)
        for servo in self.so3:
            force[servo.rows] = servo.Force(ctrl, inp[servo.rows], L[servo.rows], V[servo.rows])
        if self.plugins:  # plugin actuators: the plugin's force replaces gain·input + bias (plugins.py)
            self.plugins.ActuatorForces(plant, context, ctrl, act, L, V, force)
            force = np.where(self.enabled, force, 0.0)
        if self.tlim:  # a tendon's summed actuator force outside its actuatorfrcrange scales its actuators
            total: dict = {}
            for i, key, _, _ in self.tlim:
                total[key] = total.get(key, 0.0) + force[i]
            for i, key, lo, hi in self.tlim:
                t = total[key]
                if t and (t < lo or t > hi):
                    force[i] *= (lo if t < lo else hi) / t
        force = np.clip(force, self.force_lo, self.force_hi)
        return np.where(self.enabled, force, 0.0)

    def CalcGeneralizedForces(self, plant, context, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Everything the MJCF models add to the plant's generalized forces: qfrc_actuator plus the passive
        spring / damper forces of their tendons and body gravity compensation (the plant's force hook, called
        in every step)."""
        tau = self.CalcActuatorGeneralizedForces(plant, context, q, v)
        for tendon in self.passive:
            tau += tendon.CalcPassiveGeneralizedForces(plant, context, q, v)
        if self.gravcomp:
            tau += np.where(self.gravcomp.actuated, 0.0, self.gravcomp.CalcGeneralizedForces(plant, context))
        if self.plugins and any(mp.has_passive for mp in self.plugins.models):
            tau += self.plugins.PassiveForces(plant, context)
        return tau

    def CalcActuatorGeneralizedForces(self, plant, context, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """qfrc_actuator in plant velocity coordinates (moment arms ᵀ forces, joint actuatorfrcrange applied)."""
        tau = self.CalcMomentArms(plant, context).T @ self.CalcActuatorForces(plant, context, q, v)
        if self.gravcomp and self.gravcomp.actuated.any():  # gravcomp routed through actuatorgravcomp joints
            tau += np.where(self.gravcomp.actuated, self.gravcomp.CalcGeneralizedForces(plant, context), 0.0)
        for k, lo, hi in self.jlim:
            tau[k] = min(max(tau[k], lo), hi)
        return tau


def GetMujocoCtrlInputPort(plant, model_instance=None):
    """The `<instance>_ctrl` input port of an MJCF model: MuJoCo's ctrl vector (size nu; 0 when unconnected)."""
    plant._ThrowIfNotFinalized("GetMujocoCtrlInputPort")
    pm = GetMjcfPlantMap(plant, model_instance)
    k = [int(p.instance) for p in GetMjcfPlantMaps(plant)].index(int(pm.instance))
    return plant._mjcf_actuation.ports[k]

