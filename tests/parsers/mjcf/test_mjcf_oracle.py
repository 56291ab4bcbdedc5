"""Oracle tests: every shared MuJoCo model compiled by mallard matches mujoco.MjModel field by field."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfUnsupportedWarning, load_mjcf

MODELS = Path(__file__).resolve().parents[3].parent / "shared" / "models" / "mujoco"
FILES = sorted(MODELS.rglob("*.xml")) if MODELS.is_dir() else []
#: Models that use MuJoCo features outside tiers 1-2 of spec/mjcf.md (they must fail with MjcfError).

TOL = 1e-9
JNT = {"free": 0, "ball": 1, "slide": 2, "hinge": 3}
GEOM = {"plane": 0, "hfield": 1, "sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6, "mesh": 7}
TRN = {"joint": 0, "jointinparent": 1, "slidercrank": 2, "tendon": 3, "site": 4, "body": 5, "so3": 6}
DYN = {"none": 0, "integrator": 1, "filter": 2, "filterexact": 3, "muscle": 4, "user": 5}
GAIN = {"fixed": 0, "affine": 1, "muscle": 2, "so3": 4, "user": 3}
BIAS = {"none": 0, "affine": 1, "muscle": 2, "so3": 4, "user": 3}
EQ = {"connect": 0, "weld": 1, "joint": 2, "tendon": 3}
WRAP = {"joint": 1, "pulley": 2, "site": 3}


def _ids(files):
    return [str(f.relative_to(MODELS)) for f in files]


def _close(a, b, what, tol=TOL):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    assert np.allclose(a, b, atol=tol, rtol=0), f"{what}: {a} != {b}"


def _quat(a, b, what):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    assert np.allclose(a, b, atol=TOL) or np.allclose(a, -b, atol=TOL), f"{what}: {a} != ±{b}"


def _iquat(a, b, what):
    """Principal frames: equal to 1e-9, or (when MuJoCo's Jacobi sweep stopped on its rotation cutoff
    cos θ > 1 - 1e-12, i.e. θ < 1.5e-6 rad, in a different iteration because of last-bit rounding) within
    that cutoff angle."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if np.allclose(a, b, atol=TOL) or np.allclose(a, -b, atol=TOL):
        return
    angle = 2 * np.arccos(min(1.0, abs(float(a @ b))))
    assert angle < 3e-6, f"{what}: {a} != ±{b} (angle {angle})"


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MjcfUnsupportedWarning)
        return load_mjcf(path)


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))  # every shared MJCF file compiles
def test_model_matches_mujoco(path):
    mujoco = require_mujoco()
    compare_with_mujoco(_load(path), mujoco.MjModel.from_xml_path(str(path)), mujoco)


def compare_with_mujoco(m, ref, mujoco, mesh: bool = False) -> None:
    """Assert that a compiled MjcfModel equals the mujoco.MjModel of the same file, field by field.

    `mesh`: MuJoCo stores mesh vertices as float32, so mesh-derived frames/sizes carry ~1e-7 relative
    rounding; those fields are then compared at 1e-7 instead of 1e-9.
    """
    gtol = 1e-7 if mesh else TOL
    for name in ("nbody", "njnt", "ngeom", "nsite", "ntendon", "nsensor"):
        assert getattr(m, name) == getattr(ref, name), name
    # MuJoCo 4: nu counts controls (an orientation servo has 3 or 4), nactuator the actuators (MjcfModel.nu)
    assert (m.nu, sum(getattr(a, "ctrlnum", 1) for a in m.actuators)) == (ref.nactuator, ref.nu)
    assert (m.nq, m.nv, m.na) == (ref.nq, ref.nv, ref.na)
    _close(m.qpos0, ref.qpos0, "qpos0")
    _close(m.qpos_spring, ref.qpos_spring, "qpos_spring")
    for i, b in enumerate(m.bodies):
        w = f"body {i} '{b.name}'"
        assert b.parent == ref.body_parentid[i], w
        assert b.weldid == ref.body_weldid[i], w
        assert b.name == ref.body(i).name, w
        _close(b.pos, ref.body_pos[i], w + " pos")
        _quat(b.quat, ref.body_quat[i], w + " quat")
        _close(b.mass, ref.body_mass[i], w + " mass", gtol)
        _close(b.inertia, ref.body_inertia[i], w + " inertia", gtol)
        _close(b.ipos, ref.body_ipos[i], w + " ipos", gtol)
        if b.mass > 0 and len(set(np.round(b.inertia, 12))) == 3:
            _iquat(b.iquat, ref.body_iquat[i], w + " iquat")
        else:  # degenerate principal moments: compare the inertia tensor instead of the frame
            from mallard.parsers.mjcf.rotations import global_inertia
            _close(global_inertia(b.inertia, b.iquat), global_inertia(ref.body_inertia[i], ref.body_iquat[i]),
                   w + " inertia tensor")
    for i, j in enumerate(m.joints):
        w = f"joint {i} '{j.name}'"
        assert JNT[j.type] == ref.jnt_type[i], w
        assert j.body == ref.jnt_bodyid[i], w
        assert (j.qposadr, j.dofadr) == (ref.jnt_qposadr[i], ref.jnt_dofadr[i]), w
        assert j.limited == bool(ref.jnt_limited[i]), w
        _close(j.axis, ref.jnt_axis[i], w + " axis")
        _close(j.pos, ref.jnt_pos[i], w + " pos")
        _close(j.range, ref.jnt_range[i], w + " range")
        _close(j.stiffness, ref.jnt_stiffness[i], w + " stiffness", 1e-7)
        _close(j.margin, ref.jnt_margin[i], w + " margin")
        _close(j.solref_limit, ref.jnt_solref[i], w + " solref")
        _close(j.solimp_limit, ref.jnt_solimp[i], w + " solimp")
        nv = {"free": 6, "ball": 3}.get(j.type, 1)
        for k in range(j.dofadr, j.dofadr + nv):
            _close(j.damping, ref.dof_damping[k], w + " damping", 1e-7)
            _close(j.armature, ref.dof_armature[k], w + " armature")
            _close(j.frictionloss, ref.dof_frictionloss[k], w + " frictionloss")
            _close(j.solref_friction, ref.dof_solref[k], w + " solreffriction")
    # dof_M0 inherits the (at most 1.5e-6 rad) principal-frame differences allowed in _iquat
    assert np.allclose(m.dof_M0, ref.dof_M0, rtol=1e-7 if mesh else 1e-8, atol=TOL), f"dof_M0: {m.dof_M0} != {ref.dof_M0}"
    for i, g in enumerate(m.geoms):
        w = f"geom {i} '{g.name}'"
        assert GEOM[g.type] == ref.geom_type[i], w
        assert g.body == ref.geom_bodyid[i], w
        _close(g.size, ref.geom_size[i], w + " size", gtol)
        _close(g.pos, ref.geom_pos[i], w + " pos", gtol)
        (_iquat if mesh else _quat)(g.quat, ref.geom_quat[i], w + " quat")
        assert (g.contype, g.conaffinity, g.condim, g.priority) == (
            ref.geom_contype[i], ref.geom_conaffinity[i], ref.geom_condim[i], ref.geom_priority[i]), w
        _close(g.friction, ref.geom_friction[i], w + " friction")
        _close([g.solmix, g.margin, g.gap], [ref.geom_solmix[i], ref.geom_margin[i], ref.geom_gap[i]], w)
        _close(g.solref, ref.geom_solref[i], w + " solref")
        _close(g.solimp, ref.geom_solimp[i], w + " solimp")
    for i, s in enumerate(m.sites):
        w = f"site {i} '{s.name}'"
        assert s.body == ref.site_bodyid[i], w
        _close(s.pos, ref.site_pos[i], w + " pos")
        _quat(s.quat, ref.site_quat[i], w + " quat")
        _close(s.size, ref.site_size[i], w + " size")
    assert (len(m.pairs), len(m.excludes)) == (ref.npair, ref.nexclude)
    for i, pr in enumerate(m.pairs):
        assert (pr.geom1, pr.geom2, pr.condim) == (ref.pair_geom1[i], ref.pair_geom2[i], ref.pair_dim[i])
        _close(pr.friction, ref.pair_friction[i], f"pair {i} friction")
        _close(pr.solref, ref.pair_solref[i], f"pair {i} solref")
        _close(pr.solreffriction, ref.pair_solreffriction[i], f"pair {i} solreffriction")
        _close(pr.solimp, ref.pair_solimp[i], f"pair {i} solimp")
        _close([pr.margin, pr.gap], [ref.pair_margin[i], ref.pair_gap[i]], f"pair {i} margin/gap")
    for i, ex in enumerate(m.excludes):
        lo, hi = sorted((ex.body1, ex.body2))
        assert ref.exclude_signature[i] == (lo << 16) + hi, f"exclude {i}"
    assert (len(m.cameras), len(m.lights)) == (ref.ncam, ref.nlight)
    for i, c in enumerate(m.cameras):
        assert c.body == ref.cam_bodyid[i]
        _close(c.pos, ref.cam_pos[i], f"camera {i} pos")
        _quat(c.quat, ref.cam_quat[i], f"camera {i} quat")
    for i, lt in enumerate(m.lights):
        assert lt.body == ref.light_bodyid[i]
        _close(lt.pos, ref.light_pos[i], f"light {i} pos")
        _close(lt.dir, ref.light_dir[i], f"light {i} dir")
    for i, a in enumerate(m.actuators):
        w = f"actuator {i} '{a.name}'"
        o, c = ref.actuator_outadr[i], ref.actuator_ctrladr[i]  # MuJoCo 4: per-output gear, per-control range
        assert (getattr(a, "ctrlnum", 1), getattr(a, "outnum", 1)) == (ref.actuator_ctrlnum[i],
                                                                       ref.actuator_outnum[i]), w
        assert (TRN["so3"] if getattr(a, "ctrlspec", None) else TRN[a.trntype]) == ref.actuator_trntype[i], w
        assert list(a.trnid) == list(ref.actuator_trnid[i]), w
        assert (DYN[a.dyntype], GAIN[a.gaintype], BIAS[a.biastype]) == (
            ref.actuator_dyntype[i], ref.actuator_gaintype[i], ref.actuator_biastype[i]), w
        _close(a.gear, ref.actuator_gear[o], w + " gear")
        _close(a.dynprm, ref.actuator_dynprm[i][:10], w + " dynprm")
        _close(a.gainprm, ref.actuator_gainprm[i][:10], w + " gainprm")
        _close(a.biasprm, ref.actuator_biasprm[i][:10], w + " biasprm")
        if a.acc0 is not None:
            assert np.isclose(a.acc0, ref.actuator_acc0[o], rtol=1e-8, atol=TOL), w + " acc0"
        _close(a.ctrlrange, ref.actuator_ctrlrange[c], w + " ctrlrange")
        _close(a.forcerange, ref.actuator_forcerange[i], w + " forcerange")
        _close(a.actrange, ref.actuator_actrange[i], w + " actrange")
        assert (a.ctrllimited, a.forcelimited, a.actlimited, a.actearly) == (
            bool(ref.actuator_ctrllimited[c]), bool(ref.actuator_forcelimited[i]),
            bool(ref.actuator_actlimited[i]), bool(ref.actuator_actearly[i])), w
        assert (a.actadr, a.actdim) == (ref.actuator_actadr[i], ref.actuator_actnum[i]), w
        # muscles without an explicit range get it from compiler/lengthrange's simulation (lengthrange.py):
        # the same Euler steps as MuJoCo's, equal up to the soft-limit constraint solves (~1e-8 observed)
        _close(a.lengthrange, ref.actuator_lengthrange[o], w + " lengthrange",
               1e-6 if a.gaintype == "muscle" else TOL)
    for i, t in enumerate(m.tendons):
        w = f"tendon {i} '{t.name}'"
        assert t.limited == bool(ref.tendon_limited[i]), w
        _close(t.range, ref.tendon_range[i], w + " range")
        _close([t.stiffness, t.damping, t.frictionloss, t.armature, t.margin],
               [ref.tendon_stiffness[i], ref.tendon_damping[i], ref.tendon_frictionloss[i],
                ref.tendon_armature[i], ref.tendon_margin[i]], w)
        _close(t.solref_limit, ref.tendon_solref_lim[i], w + " solref")
        assert len(t.wraps) == ref.tendon_num[i], w
        for k, wr in enumerate(t.wraps):
            adr = ref.tendon_adr[i] + k
            if wr.type != "geom":
                assert WRAP[wr.type] == ref.wrap_type[adr], w
            assert wr.objid == ref.wrap_objid[adr] or wr.type == "pulley", w
            if wr.type in ("joint", "pulley"):
                _close(wr.prm, ref.wrap_prm[adr], w + " wrap prm")
            if wr.type == "geom":
                _close(wr.sidesite, ref.wrap_prm[adr], w + " sidesite")
    # inverse inertias amplify the (<1.5e-6 rad) principal-frame differences allowed in _iquat
    assert np.allclose(m.dof_invweight0, ref.dof_invweight0, rtol=1e-5, atol=TOL), "dof_invweight0"
    assert np.allclose(m.body_invweight0, ref.body_invweight0, rtol=1e-5, atol=TOL), "body_invweight0"
    assert list(m.body_simple) == list(ref.body_simple), "body_simple"
    for i, t in enumerate(m.tendons):
        if t.length0 is not None:
            _close(t.length0, ref.tendon_length0[i], f"tendon {i} length0")
        if t.lengthspring[0] != -1:
            _close(t.lengthspring, ref.tendon_lengthspring[i], f"tendon {i} lengthspring")
        if t.invweight0 is not None:
            assert np.isclose(t.invweight0, ref.tendon_invweight0[i], rtol=1e-5, atol=TOL), f"tendon {i} invweight0"
    for i, e in enumerate(m.equalities):
        w = f"equality {i}"
        _close(e.data, ref.eq_data[i][:11], w + " data")
        assert EQ[e.type] == ref.eq_type[i], w
        assert (e.obj1, e.obj2, e.active) == (ref.eq_obj1id[i], ref.eq_obj2id[i], bool(ref.eq_active0[i])), w
        _close(e.solref, ref.eq_solref[i], w + " solref")
        _close(e.solimp, ref.eq_solimp[i], w + " solimp")
    for i, s in enumerate(m.sensors):
        w = f"sensor {i} '{s.name}'"
        assert (s.objid, s.dim) == (ref.sensor_objid[i], ref.sensor_dim[i]), w
        assert s.refid == ref.sensor_refid[i], w
    assert len(m.keys) == ref.nkey
    for i, k in enumerate(m.keys):
        _close(k.qpos, ref.key_qpos[i], f"key {i} qpos")
        _close(k.qvel, ref.key_qvel[i], f"key {i} qvel")
        _close(k.ctrl, ref.key_ctrl[i], f"key {i} ctrl")
    o = ref.opt
    _close([m.option.timestep, m.option.impratio, m.option.tolerance], [o.timestep, o.impratio, o.tolerance], "opt")
    _close(m.option.gravity, o.gravity, "gravity")
    assert m.option.iterations == o.iterations
    assert ["Euler", "RK4", "implicit", "implicitfast"].index(m.option.integrator) == o.integrator
    assert ["pyramidal", "elliptic"].index(m.option.cone) == o.cone
    assert ["PGS", "CG", "Newton"].index(m.option.solver) == o.solver
    for flag, bit in (("contact", mujoco.mjtDisableBit.mjDSBL_CONTACT),
                      ("gravity", mujoco.mjtDisableBit.mjDSBL_GRAVITY),
                      ("limit", mujoco.mjtDisableBit.mjDSBL_LIMIT),
                      ("constraint", mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)):
        assert m.option.flags[flag] == (not (o.disableflags & bit)), flag
    assert m.option.flags["energy"] == bool(o.enableflags & mujoco.mjtEnableBit.mjENBL_ENERGY)


#: Synthetic models exercising compiler features the shared models do not use.
CASES = {
"orientations_degree_xyz": """
<mujoco><compiler angle="degree" eulerseq="xyz"/>
<worldbody>
 <body name="a" pos="1 2 3" euler="10 20 30"><joint type="hinge" axis="1 1 0" range="-45 60" ref="5" springref="7"/>
  <geom type="box" size=".1 .2 .3" axisangle="1 2 3 40"/>
  <geom type="ellipsoid" size=".1 .2 .3" xyaxes="1 1 0 -1 2 0.5" pos=".1 0 0"/>
  <geom type="cylinder" size=".1 .2" zaxis="1 -1 2" pos="0 .2 0"/>
  <geom type="capsule" size=".05 .2" quat="1 2 3 4" pos="0 0 .3"/>
  <site name="s1" type="box" size=".1 .1 .1" euler="90 0 45"/>
  <body name="b" quat="0 1 0 0" pos="0 0 1"><joint type="ball" range="0 100"/><geom size=".1"/></body>
 </body>
</worldbody></mujoco>""",
"orientations_radian_ZYX": """
<mujoco><compiler angle="radian" eulerseq="ZYX"/>
<worldbody>
 <body pos="0 0 1" euler="0.1 0.2 0.3"><joint axis="0 1 0" range="-1 1" ref="0.3"/>
  <geom type="box" size=".1 .2 .3" euler="1 -0.5 2"/>
  <body axisangle="0 0 1 1.5" pos="1 0 0"><joint type="slide" axis="1 0 0" range="-1 2"/><geom size=".2" mass="3"/></body>
 </body>
</worldbody></mujoco>""",
"eulerseq_mixed": """
<mujoco><compiler eulerseq="zXy"/>
<worldbody><body euler="30 -40 50"><freejoint/><geom type="box" size="1 .5 .2" euler="10 20 70"/></body></worldbody></mujoco>""",
"frames_childclass_fromto": """
<mujoco>
<default><default class="red"><geom rgba="1 0 0 1" size=".05" type="capsule"/><joint damping="3"/></default>
 <default class="blue"><geom type="box" size=".1 .1 .1" density="500"/></default></default>
<worldbody>
 <frame pos="1 0 0" euler="0 0 90" childclass="red">
  <body name="f" pos="0 1 0"><joint axis="1 0 0"/><geom fromto="0 0 0 .3 .2 .1"/>
   <frame pos="0 0 1" quat="0 0 1 0"><geom class="blue" pos=".1 0 0"/><site name="fs" type="cylinder" size=".02" fromto="0 0 0 0 .1 .4"/>
    <joint axis="0 1 0"/></frame>
   <geom type="box" size=".1" fromto="0 0 0 0 0 .5"/>
   <geom type="ellipsoid" size=".1" fromto="0 0 0 .4 0 0"/>
   <geom type="cylinder" fromto="0 0 0 0 .3 0"/>
  </body>
 </frame>
</worldbody></mujoco>""",
"inertial_explicit_and_bounds": """
<mujoco><compiler boundmass="0.5" boundinertia="0.01" balanceinertia="true"/>
<worldbody>
 <body><joint/><inertial pos="0 0 .1" mass="0.1" diaginertia="0.001 0.002 0.5"/><geom size=".1"/></body>
 <body pos="1 0 0"><joint/><inertial pos=".1 .2 .3" mass="2" fullinertia="1 2 2.5 0.1 0.2 0.3"/></body>
 <body pos="2 0 0"><joint/><inertial pos="0 0 0" mass="2" euler="10 20 30" diaginertia="1 2 2.5"/></body>
 <body pos="3 0 0"><joint/></body>
</worldbody></mujoco>""",
"inertiafromgeom_true_groups_totalmass": """
<mujoco><compiler inertiafromgeom="true" inertiagrouprange="0 2" settotalmass="10"/>
<worldbody>
 <body><joint/><inertial pos="0 0 0" mass="100" diaginertia="1 1 1"/><geom size=".1"/><geom type="box" size=".1 .2 .3" group="3" pos="1 0 0"/>
  <geom type="cylinder" size=".1 .3" group="2" pos="0 1 0" euler="30 0 0"/></body>
 <body pos="1 0 0"><joint type="slide"/><geom type="capsule" size=".1 .5" mass="2"/><geom type="ellipsoid" size=".1 .2 .3" pos="0 0 1" density="300"/></body>
</worldbody></mujoco>""",
"shell_inertia": """
<mujoco><worldbody>
 <body><freejoint/><geom size=".1" shellinertia="true"/></body>
 <body pos="1 0 0"><freejoint/><geom type="capsule" size=".1 .3" shellinertia="true"/></body>
 <body pos="2 0 0"><freejoint/><geom type="cylinder" size=".1 .3" shellinertia="true" mass="2"/></body>
</worldbody></mujoco>""",
"actuator_shortcuts": """
<mujoco>
<default><position kp="7" kv="2"/><default class="vel"><velocity kv="3"/></default>
 <default class="mus"><muscle timeconst=".02 .05" force="100"/></default></default>
<worldbody>
 <site name="ref" pos="0 0 1"/>
 <body><joint name="j1" range="-1 1"/><geom size=".1" mass="1"/>
  <site name="s1" pos=".1 0 0"/>
  <body pos="0 0 .5"><joint name="j2" type="slide" axis="0 0 1" range="-.5 .5"/><geom size=".1"/>
   <body pos="0 0 .5"><joint name="j3"/><geom type="box" size=".1 .1 .1"/><site name="s3" pos="0 .1 0"/></body></body>
 </body>
 <body name="bb" pos="2 0 0"><joint name="b1" type="ball"/><geom size=".1"/><site name="s4" pos=".1 0 0"/></body>
</worldbody>
<tendon><fixed name="t1" range="-1 2"><joint joint="j1" coef="1"/><joint joint="j2" coef="-.5"/></fixed></tendon>
<actuator>
 <motor joint="j1" gear="2" ctrlrange="-1 1"/>
 <position joint="j1"/>
 <position joint="j2" kp="20" dampratio="0.7" timeconst="0.1"/>
 <position tendon="t1" kp="5" inheritrange="0.8"/>
 <velocity class="vel" joint="j3"/>
 <velocity joint="j3" kv="9" forcerange="-1 1"/>
 <intvelocity joint="j2" kp="4" inheritrange="1.2"/>
 <damper joint="j3" kv="2" ctrlrange="0 3"/>
 <cylinder joint="j2" diameter="0.2" bias="1 2 3" timeconst="0.3"/>
 <cylinder joint="j2" area="0.5"/>
 <muscle class="mus" joint="j1" lengthrange="0 1"/>
 <muscle tendon="t1" lengthrange="-1 1" force="20" range="0.5 1.5" scale="100" tausmooth="0.2"/>
 <general joint="j1" dyntype="filter" gaintype="affine" biastype="affine" dynprm="0.5" gainprm="1 2 3" biasprm="4 5 6" actearly="true" actrange="-1 1"/>
 <general class="main" joint="j3"/>
 <general site="s1" gear="0 0 1 0 0 1" refsite="ref"/>
 <position site="s3" kp="3" dampratio="1" gear="0 1 0 0 0 0"/>
 <motor jointinparent="b1" gear="1 0 0 0 0 0"/>
 <adhesion body="bb" gain="5" ctrlrange="0 1"/>
 <general cranksite="s4" slidersite="s1" cranklength="0.3"/>
</actuator>
</mujoco>""",
"tendons_spatial_pulley_wrap": """
<mujoco><worldbody>
 <body pos="3 0 0"><joint type="hinge" axis="0 1 0" springdamper="0.5 0.8" springref="20"/><geom size=".2"/></body>
 <site name="a" pos="0 0 2"/><site name="side" pos=".2 0 1"/>
 <geom name="w" type="cylinder" size=".1 .1" pos="0 0 1"/>
 <geom name="ws" size=".1" pos="0 .5 1"/>
 <body pos="0 0 0"><joint name="j" type="slide" axis="0 0 1"/><geom size=".1"/><site name="b" pos="0 0 .1"/>
  <site name="c" pos=".1 0 .1"/></body>
</worldbody>
<tendon>
 <spatial name="sp" limited="true" range="0 3" stiffness="10" springlength=".5 1" damping="1" frictionloss=".1" margin=".01">
  <site site="a"/><geom geom="w" sidesite="side"/><site site="b"/><pulley divisor="2"/><site site="a"/><geom geom="ws"/><site site="c"/></spatial>
 <fixed name="fx" springlength="0.3"><joint joint="j" coef="2"/></fixed>
</tendon>
</mujoco>""",
"equality_sensors_keys": """
<mujoco>
<worldbody>
 <body name="m" mocap="true" pos="1 1 1" quat="0 1 0 0"><geom size=".1" contype="0" conaffinity="0"/></body>
 <body name="a" pos="0 0 1"><freejoint/><geom name="ga" size=".1"/><site name="sa" pos="0 0 .1"/>
 </body>
 <body name="b" pos="1 0 1"><joint name="h" range="-1 1"/><geom name="gb" type="box" size=".1 .1 .1"/><site name="sb"/>
  <body name="c"><body name="d" pos="0 1 0"><joint name="bq" type="ball"/><geom size=".05"/></body>
   <joint name="h2"/><geom size=".05"/><site name="sc" pos=".1 0 0"/></body></body>
</worldbody>
<tendon><fixed name="t"><joint joint="h" coef="1"/></fixed><fixed name="t2"><joint joint="h2" coef="1"/></fixed></tendon>
<equality>
 <connect body1="a" body2="b" anchor="0 0 .5"/><connect site1="sa" site2="sb" active="false"/>
 <weld body1="a" relpose="0 0 1 1 0 0 0" torquescale="2" solref=".05 1"/><weld site1="sa" site2="sc"/>
 <joint joint1="h" joint2="h2" polycoef="0 2 .1 0 0"/><tendon tendon1="t" tendon2="t2"/>
</equality>
<contact><pair geom1="ga" geom2="gb" friction="1 2" condim="4"/><exclude body1="a" body2="b"/></contact>
<actuator><motor name="0" joint="h"/><general joint="h2" dyntype="integrator"/></actuator>
<sensor>
 <jointpos joint="h"/><jointvel joint="h2" noise=".1"/><framepos objtype="site" objname="sa" reftype="body" refname="b"/>
 <framequat objtype="xbody" objname="a"/><subtreecom body="b"/><actuatorfrc actuator="0" cutoff="2"/><clock/>
 <touch site="sa"/><accelerometer site="sb"/><distance geom1="ga" body2="b"/><tendonpos tendon="t"/>
 <ballquat joint="bq"/>
</sensor>
<keyframe>
 <key name="k1" time="1" qpos="0 0 2 1 1 0 0 .5 .3 0 1 0 0" ctrl="1 2" act=".5" mpos="1 2 3" mquat="1 1 0 0"/>
 <key qvel="1 2 3 4 5 6 7 8 0 0 0"/>
</keyframe>
</mujoco>""",
"replicate_nested": """
<mujoco><worldbody>
 <replicate count="2" offset="0 1 0" euler="90 0 0">
  <replicate count="3" sep="-" offset="1 0 0" euler="0 90 0">
   <body name="r" pos="0 0 1"><joint name="rj"/><geom name="Alice" size=".1"/><site name="rs"/></body>
  </replicate>
 </replicate>
</worldbody>
<sensor><jointpos joint="rj-00"/></sensor>
</mujoco>""",
"lengthrange_uselimit": """<mujoco><compiler><lengthrange uselimit="true" mode="all"/></compiler>
<worldbody><body><joint name="j" range="-30 40"/><geom size=".1"/><site name="s" pos=".2 0 0"/></body>
<site name="w" pos="0 0 1"/></worldbody>
<tendon><fixed name="t" range="-1 2"><joint joint="j" coef="2"/></fixed></tendon>
<actuator><muscle joint="j"/><muscle tendon="t" lengthrange="0 0.5"/><motor tendon="t"/></actuator></mujoco>""",
"freejoint_align": """<mujoco><compiler alignfree="true"/><worldbody>
<body pos="1 2 3" euler="10 20 30"><freejoint/><geom type="box" size=".1 .2 .3" pos=".1 0 0" euler="0 0 40"/>
<geom size=".1" pos="0 .3 0"/><site name="s" pos="0 0 .1"/><camera pos="0 0 1"/><light pos="0 1 0" dir="1 0 0"/></body>
<body pos="0 0 1"><freejoint align="false"/><geom type="box" size=".1 .2 .3" pos=".1 0 0"/></body>
<body pos="0 0 2"><freejoint/><geom type="box" size=".1 .2 .3" pos=".1 0 0"/><body><joint/><geom size=".1"/></body></body>
</worldbody><keyframe><key qpos="0 0 0 1 0 0 0 0 0 1 1 0 0 0 0 0 2 1 0 0 0 0.5"/></keyframe></mujoco>""",
"options_flags": """
<mujoco>
<option timestep="0.01" gravity="0 0 -3" integrator="implicitfast" cone="elliptic" impratio="5" solver="CG" iterations="20" tolerance="1e-6" o_solref=".1 2" o_margin=".2">
 <flag contact="disable" energy="enable" override="enable" gravity="disable"/></option>
<option integrator="RK4"/>
<size nkey="2"/>
<worldbody><body><joint/><geom size="1"/></body></worldbody>
<keyframe><key qpos="0.5"/></keyframe>
</mujoco>""",
"autolimits_false": """
<mujoco><compiler autolimits="false"/>
<worldbody><body><joint limited="true" range="-1 1"/><geom size=".1"/></body></worldbody>
<actuator><motor joint="0" ctrllimited="true" ctrlrange="-1 1" forcelimited="false"/></actuator>
</mujoco>""".replace('<joint limited', '<joint name="0" limited'),
"mesh_inline_modes": """<mujoco><asset>
<mesh name="c" inertia="convex" vertex="0 0 0  1 0 0  0 2 0  0 0 3 .2 .2 .2"/>
<mesh name="e" inertia="exact" vertex="0 0 0  1 0 0  0 2 0  0 0 3" face="0 2 1  0 1 3  0 3 2  1 2 3" refpos=".1 .2 .3" refquat="1 .2 .3 .4"/>
<mesh name="s" inertia="shell" vertex="0 0 0  1 0 0  0 2 0  0 0 3" face="0 2 1  0 1 3  0 3 2  1 2 3"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="c"/></body><body><freejoint/><geom type="mesh" mesh="e"/></body>
<body><freejoint/><geom type="mesh" mesh="s" density="3"/></body></worldbody></mujoco>""",
"discardvisual": """<mujoco><compiler discardvisual="true"/><asset><material name="m" rgba="1 0 0 1"/></asset>
<worldbody><geom name="v0" type="plane" size="1 1 1" contype="0" conaffinity="0"/>
<body><joint/><geom size=".1"/><geom name="vis" size=".2" pos="0 0 1" contype="0" conaffinity="0" material="m"/>
<geom name="kept" size=".1" contype="0" conaffinity="0" pos="1 0 0"/></body></worldbody>
<sensor><distance geom1="kept" geom2="v0"/></sensor></mujoco>""",
"mesh_fit_inertiabox": """<mujoco><asset>
<mesh name="box" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1" scale=".1 .2 .4" refpos=".1 0 0"
 face="0 3 2 0 2 1 4 5 6 4 6 7 0 1 5 0 5 4 2 3 7 2 7 6 1 2 6 1 6 5 0 4 7 0 7 3"/></asset>
<worldbody><body><freejoint/><geom type="sphere" mesh="box"/><geom type="capsule" mesh="box" fitscale="1.5" pos="1 0 0"/>
<geom type="cylinder" mesh="box" euler="0 30 0"/><geom type="box" mesh="box"/><geom type="ellipsoid" mesh="box"/></body>
</worldbody></mujoco>""",
"mesh_fit_aabb": """<mujoco><compiler fitaabb="true"/><asset>
<mesh name="box" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1" scale=".1 .2 .4"
 face="0 3 2 0 2 1 4 5 6 4 6 7 0 1 5 0 5 4 2 3 7 2 7 6 1 2 6 1 6 5 0 4 7 0 7 3"/></asset>
<worldbody><body><freejoint/><geom type="sphere" mesh="box"/><geom type="capsule" mesh="box" pos="1 0 0"/>
<geom type="cylinder" mesh="box"/><geom type="box" mesh="box" fitscale="0.5"/></body></worldbody></mujoco>""",
"mesh_nonconvex_legacy_exact": """<mujoco><asset>
<mesh name="L" vertex="0 0 0  2 0 0  2 1 0  1 1 0  1 2 0  0 2 0  0 0 1  2 0 1  2 1 1  1 1 1  1 2 1  0 2 1"
 face="0 2 1 0 3 2 0 5 3 3 5 4 6 7 8 6 8 9 6 9 11 9 10 11 0 1 7 0 7 6 1 2 8 1 8 7 2 3 9 2 9 8 3 4 10 3 10 9 4 5 11 4 11 10 5 0 6 5 6 11"/>
<mesh name="Le" inertia="exact" vertex="0 0 0  2 0 0  2 1 0  1 1 0  1 2 0  0 2 0  0 0 1  2 0 1  2 1 1  1 1 1  1 2 1  0 2 1"
 face="0 2 1 0 3 2 0 5 3 3 5 4 6 7 8 6 8 9 6 9 11 9 10 11 0 1 7 0 7 6 1 2 8 1 8 7 2 3 9 2 9 8 3 4 10 3 10 9 4 5 11 4 11 10 5 0 6 5 6 11"/>
</asset><worldbody><body><freejoint/><geom type="mesh" mesh="L"/></body><body><freejoint/><geom type="mesh" mesh="Le"/></body>
</worldbody></mujoco>""",
"mesh_inline_legacy": """
<mujoco><asset><mesh name="tet" vertex="0 0 0  1 0 0  0 2 0  0 0 3" face="0 2 1  0 1 3  0 3 2  1 2 3"/>
<mesh name="box" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1" scale=".1 .2 .3"
 face="0 3 2 0 2 1 4 5 6 4 6 7 0 1 5 0 5 4 2 3 7 2 7 6 1 2 6 1 6 5 0 4 7 0 7 3"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="tet"/></body>
<body pos="1 0 0"><freejoint/><geom type="mesh" mesh="box" pos=".1 0 0" euler="0 0 30"/></body></worldbody></mujoco>""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_feature_model_matches_mujoco(name):
    mujoco = require_mujoco()
    xml = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MuJoCo 4 prints deprecation notes (settotalmass)
        ref = mujoco.MjModel.from_xml_string(xml)
    compare_with_mujoco(_load(xml), ref, mujoco, mesh=name.startswith("mesh"))

