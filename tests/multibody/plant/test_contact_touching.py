"""Contacts exactly at the margin get no constraint rows, as in MuJoCo (its `exclude` flag for dist >= margin):
a box or sphere placed exactly touching a plane falls freely for its first step, and a margin contact at
exactly dist == margin exerts no force; with the contact flag disabled there are no contacts at all."""
import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.mjcf.state import GetMujocoState
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

SCENE = ('<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="1 1 .1" margin="{m}"/>'
         '<body pos="0 0 {z}"><freejoint/><geom type="{shape}" size="{size}" margin="{m}"/></body></worldbody></mujoco>')


def _scene(xml: str):
    """(plant, diagram, root context) of a 2 ms plant + SceneGraph diagram holding the MJCF model `xml`."""
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Parser(builder).AddModelsFromString(xml, "xml")
    plant.Finalize()
    diagram = builder.Build()
    return plant, diagram, diagram.CreateDefaultContext()


@pytest.mark.parametrize("shape,size,z,margin", [("box", ".05 .05 .05", 0.05, 0.0), ("sphere", ".05", 0.05, 0.0),
                                                  ("sphere", ".0625", 0.078125, 0.0078125)])
def test_contact_at_the_margin_is_excluded_as_in_mujoco(shape, size, z, margin):
    mujoco = require_mujoco()
    xml = SCENE.format(m=margin, z=z, shape=shape, size=size)
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    plant, diagram, context = _scene(xml)
    simulator = Simulator(diagram, context)
    mujoco.mj_forward(mm, md)
    assert md.ncon >= 1 and md.nefc == 0  # MuJoCo: contacts found at dist == margin, but excluded
    for k in range(50):
        mujoco.mj_step(mm, md)
        simulator.AdvanceTo((k + 1) * 0.002)
        q, v = GetMujocoState(plant, plant.GetMyContextFromRoot(context))
        if k == 0:
            assert q[2] == pytest.approx(z - 9.81 * 0.002 ** 2, abs=1e-15)  # a free fall step
        np.testing.assert_allclose(q, md.qpos, atol=1e-12)
        np.testing.assert_allclose(v, md.qvel, atol=1e-10)


def test_contact_flag_disabled_means_no_contacts_as_in_mujoco():
    """<flag contact="disable">: MuJoCo generates no contacts (a sphere falls through the floor); so does the plant
    with a SceneGraph, including explicit pairs."""
    mujoco = require_mujoco()
    xml = ('<mujoco><option timestep="0.002"><flag contact="disable"/></option><worldbody>'
           '<geom name="floor" type="plane" size="1 1 .1"/><body pos="0 0 0.1"><freejoint/>'
           '<geom name="ball" type="sphere" size=".05"/></body></worldbody>'
           '<contact><pair geom1="floor" geom2="ball"/></contact></mujoco>')
    mm = mujoco.MjModel.from_xml_string(xml)
    md = mujoco.MjData(mm)
    plant, diagram, context = _scene(xml)
    Simulator(diagram, context).AdvanceTo(0.4)
    for _ in range(200):
        mujoco.mj_step(mm, md)
    q, _v = GetMujocoState(plant, plant.GetMyContextFromRoot(context))
    assert md.qpos[2] < -0.5 and md.ncon == 0
    np.testing.assert_allclose(q, md.qpos, atol=1e-12)
