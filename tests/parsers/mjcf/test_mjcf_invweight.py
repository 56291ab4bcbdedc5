"""MuJoCo's setConst inverse weights (body_invweight0, dof_invweight0) of every shared MJCF model: the MJCF
compiler's and the discrete plant's constraint rows, against mujoco's mjModel."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.parsers import Parser
from mallard.parsers.mjcf.compiler import load_mjcf



def _files(models_dir):
    return sorted((models_dir / "mujoco").rglob("*.xml"))


def _load_plant(path, time_step):
    plant = MultibodyPlant(time_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.Finalize()
    return plant


def test_compiler_invweights_match_mujoco(models_dir):
    """body_simple, body_invweight0 and dof_invweight0 of the MJCF compiler on every shared model (1e-9 rel)."""
    mujoco = require_mujoco()
    files = _files(models_dir)
    assert len(files) >= 40
    for path in files:
        mm = mujoco.MjModel.from_xml_path(str(path))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = load_mjcf(str(path))
        np.testing.assert_array_equal(model.body_simple, mm.body_simple, err_msg=path.name)
        np.testing.assert_allclose(np.reshape(model.body_invweight0, (-1, 2)), mm.body_invweight0, rtol=1e-9,
                                   atol=1e-14, err_msg=path.name)
        np.testing.assert_allclose(model.dof_invweight0, mm.dof_invweight0, rtol=1e-9, atol=1e-14, err_msg=path.name)


def test_plant_constraint_weights_match_mujoco(models_dir):
    """The discrete plant's constraint-row weights (the installed solver's) per MJCF body and dof (1e-9 rel),
    including MuJoCo's rule for slider-only bodies (body_simple = 2: 1/mass, not the mean diagonal 1/(3·mass))
    and tendon armature in M."""
    mujoco = require_mujoco()
    checked, sliders = 0, 0
    for path in _files(models_dir):
        mm = mujoco.MjModel.from_xml_path(str(path))
        plant = _load_plant(path, float(mm.opt.timestep))
        rows = getattr(plant._discrete_solver, "rows", None)
        if rows is None:  # no constraint rows: the weights are not used
            continue
        checked += 1
        sliders += int(np.sum(mm.body_simple == 2))
        pm = plant._mjcf_maps[0]
        body = np.array([rows.body_invweight0[int(b.index())] for b in pm.bodies])
        np.testing.assert_allclose(body, mm.body_invweight0, rtol=1e-9, atol=1e-14, err_msg=path.name)
        for k, joint in enumerate(pm.joints):  # MuJoCo's free joint is [v; w], the plant's [w; v]
            n = joint.num_velocities()
            ours = rows.dof_invweight0[joint.velocity_start():joint.velocity_start() + n]
            theirs = mm.dof_invweight0[mm.jnt_dofadr[k]:mm.jnt_dofadr[k] + n]
            if n == 6:
                ours = np.concatenate([ours[3:], ours[:3]])
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-14, err_msg=f"{path.name} joint {k}")
    assert checked >= 20 and sliders >= 4


@pytest.mark.parametrize("name", ["force_slide.xml", "force_slide_rotated.xml"])
def test_slide_body_held_by_connect_matches_mujoco(models_dir, name):
    """force_slide*.xml: a slide-jointed body held by a connect constraint, 200 steps against mj_step (1e-6)."""
    mujoco = require_mujoco()
    path = models_dir / "mujoco" / "testdata" / "core_smooth" / "rne_post" / "connect" / name
    mm = mujoco.MjModel.from_xml_path(str(path))
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)  # no SceneGraph: no contact
    mm.opt.tolerance = 1e-14
    plant = MultibodyPlant(float(mm.opt.timestep))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(plant).AddModels(str(path))
    plant.set_constraint_solver_options(tolerance=1e-14)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    md = mujoco.MjData(mm)
    state = context.get_mutable_state()
    for step in range(200):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        q, v = GetMujocoState(plant, context)
        np.testing.assert_allclose(q, md.qpos, rtol=0, atol=1e-6, err_msg=f"step {step}")
        np.testing.assert_allclose(v, md.qvel, rtol=0, atol=1e-6, err_msg=f"step {step}")
    assert md.efc_force.size and abs(md.qpos[0]) > 1e-5  # the constraint is active and the body has sagged
