"""MJCF height fields: <hfield> assets (inline elevation, PNG, MuJoCo's binary format) compile to MuJoCo's
normalized grid, hfield geoms register a HeightField (collision and visual), and bodies dropped onto one
follow mj_step."""
from __future__ import annotations

import numpy as np
import pytest

from mjcf_scene import build_mjcf_scene
from oracles import require_mujoco

from mallard.geometry import HeightField
from mallard.multibody.mjcf.state import GetMjcfPlantMap, GetMujocoState, SetMujocoState

_ELEV = np.array([[0.0, 0.3, 0.1, 0.5, 0.2, 0.0],
                  [0.4, 0.9, 0.6, 0.2, 0.7, 0.3],
                  [0.1, 0.5, 1.0, 0.8, 0.4, 0.6],
                  [0.6, 0.2, 0.7, 0.3, 0.9, 0.1],
                  [0.3, 0.8, 0.2, 0.6, 0.5, 0.4]])


def _model(bodies: str, elevation=_ELEV, size="0.6 0.5 0.15 0.05") -> str:
    nrow, ncol = elevation.shape
    values = " ".join(repr(float(x)) for x in np.asarray(elevation).reshape(-1))
    return f"""<mujoco model="hfield_drop"><option timestep="0.002"/>
<asset><hfield name="terrain" nrow="{nrow}" ncol="{ncol}" size="{size}" elevation="{values}"/></asset>
<worldbody><geom name="ground" type="hfield" hfield="terrain" pos="0.05 -0.02 0.01" euler="0 0 10"/>
{bodies}
</worldbody></mujoco>"""


ROUND = _model("""<body name="ball" pos="-0.25 0.1 0.3"><freejoint/><geom type="sphere" size="0.06"/></body>
<body name="pill" pos="0.1 0.2 0.3" euler="80 10 0"><freejoint/><geom type="capsule" size="0.03 0.06"/></body>
<body name="padded" pos="0.3 -0.2 0.3"><freejoint/><geom type="sphere" size="0.05" margin="0.005"/></body>""")
BRICK = _model("""<body name="brick" pos="0.2 -0.15 0.32" euler="20 -10 35"><freejoint/>
<geom type="box" size="0.05 0.04 0.03"/></body>""")


def _build(text: str, time_step: float):
    plant, scene_graph, _, context = build_mjcf_scene(text, time_step=time_step)
    return plant, scene_graph, context


def test_hfield_geom_registers_mujocos_grid():
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(ROUND)
    plant, scene_graph, _ = _build(ROUND, 0.002)
    inspector = scene_graph.model_inspector()
    cid, vid = GetMjcfPlantMap(plant).geoms[0]
    shape = inspector.GetShape(cid)
    assert isinstance(shape, HeightField) and isinstance(inspector.GetShape(vid), HeightField)
    # rows reversed from the text (MuJoCo's image order), normalized in single precision: bit for bit
    np.testing.assert_array_equal(shape.heights(), mm.hfield_data.reshape(mm.hfield_nrow[0], mm.hfield_ncol[0]))
    np.testing.assert_array_equal(shape.size(), mm.hfield_size[0])


def _run(text: str, steps: int):
    """Step mallard and MuJoCo side by side from the same state; returns (plant, context, mujoco data, most
    contacts at once)."""
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    plant, _, context = _build(text, mm.opt.timestep)
    SetMujocoState(plant, context, md.qpos, md.qvel)
    state = context.get_mutable_state()
    ncon = 0
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        plant._DiscreteStepUpdate(context, state)
        ncon = max(ncon, md.ncon)
    return plant, context, md, ncon


def test_spheres_and_capsule_dropped_on_hfield_match_mujoco():
    """A sphere, a capsule and a sphere with a contact margin (contacts from 5 mm away) follow mj_step."""
    plant, context, md, ncon = _run(ROUND, 200)
    assert ncon >= 5  # the balls on two prisms or more, the capsule on one or more
    qpos, qvel = GetMujocoState(plant, context)
    np.testing.assert_allclose(qpos, md.qpos, rtol=0, atol=1e-6)
    np.testing.assert_allclose(qvel, md.qvel, rtol=0, atol=1e-6)


def test_box_dropped_on_hfield_lands_on_it():
    """The box lands on the terrain near MuJoCo's resting place and stays there. Its trajectory is not MuJoCo's:
    MuJoCo's native CCD returns box-prism contacts that are not the minimum translation (test_hfield.py), and
    face on face the prism's one contact point is not unique, so the resting box rocks slightly (see the
    report)."""
    plant, context, md, ncon = _run(BRICK, 400)
    qpos, _ = GetMujocoState(plant, context)
    assert ncon >= 2 and abs(qpos[2] - md.qpos[2]) < 0.01  # on the terrain, near MuJoCo's resting height
    assert np.linalg.norm(qpos[:2] - md.qpos[:2]) < 0.06
    state = context.get_mutable_state()
    for _ in range(100):
        plant._DiscreteStepUpdate(context, state)
    later, _ = GetMujocoState(plant, context)
    assert np.linalg.norm(later[:3] - qpos[:3]) < 2e-3  # no sinking, no sliding away


def _png(path, image):
    from matplotlib import image as mpimg
    mpimg.imsave(path, image, cmap="gray", vmin=0.0, vmax=1.0)


def test_hfield_files_png_and_binary(tmp_path):
    mujoco = require_mujoco()
    from mallard.parsers.mjcf.compiler import load_mjcf
    rng = np.random.default_rng(5)
    _png(tmp_path / "terrain.png", rng.uniform(0, 1, (9, 12)))
    grid = rng.uniform(-1.0, 3.0, (7, 5)).astype(np.float32)
    (tmp_path / "terrain.bin").write_bytes(np.array(grid.shape, "<i4").tobytes() + grid.astype("<f4").tobytes())
    text = """<mujoco><asset><hfield name="png" file="terrain.png" size="1 1 0.2 0.1"/>
        <hfield file="terrain.bin" size="0.5 0.4 0.1 0.05"/></asset>
        <worldbody><geom type="hfield" hfield="png"/><geom type="hfield" hfield="terrain" pos="3 0 0"/></worldbody>
        </mujoco>"""
    (tmp_path / "model.xml").write_text(text)
    mm = mujoco.MjModel.from_xml_path(str(tmp_path / "model.xml"))
    model = load_mjcf(tmp_path / "model.xml")
    for k, name in enumerate(["png", "terrain"]):
        mine = model.hfields[name]["data"]
        ref = mm.hfield_data[mm.hfield_adr[k]:mm.hfield_adr[k] + mm.hfield_nrow[k] * mm.hfield_ncol[k]]
        assert mine.shape == (mm.hfield_nrow[k], mm.hfield_ncol[k])
        np.testing.assert_array_equal(mine.reshape(-1), ref)


def test_hfield_asset_errors(tmp_path):
    from mallard.parsers.mjcf.compiler import load_mjcf
    bad_count = """<mujoco><asset><hfield name="h" nrow="2" ncol="3" elevation="1 2 3" size="1 1 1 1"/></asset>
        </mujoco>"""
    with pytest.raises(ValueError, match="elevation has 3 values; nrow\\*ncol = 6"):
        load_mjcf(bad_count)
    with pytest.raises(ValueError, match="size values .* must be positive"):  # MuJoCo rejects base 0 too
        load_mjcf("""<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 1 0"/></asset></mujoco>""")
    with pytest.raises(ValueError, match="needs a file or nrow and ncol"):
        load_mjcf("""<mujoco><asset><hfield name="h" size="1 1 1 1"/></asset></mujoco>""")
    (tmp_path / "short.bin").write_bytes(np.array([3, 3], "<i4").tobytes() + np.zeros(4, "<f4").tobytes())
    (tmp_path / "m.xml").write_text("""<mujoco><asset><hfield file="short.bin" size="1 1 1 1"/></asset></mujoco>""")
    with pytest.raises(ValueError, match="holds 16 data bytes; 3 x 3 needs 36"):
        load_mjcf(tmp_path / "m.xml")
