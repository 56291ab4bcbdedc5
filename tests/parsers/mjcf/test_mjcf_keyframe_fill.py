"""Keyframe vectors shorter than the model's are completed from the defaults, as MuJoCo does; longer ones fail."""
import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfError, load_mjcf

MODEL = """<mujoco><worldbody>
<body><freejoint/><geom size=".1"/></body>
<body pos="1 0 0"><joint name="h"/><geom size=".1"/></body>
</worldbody><actuator><motor joint="h"/><position joint="h"/></actuator>
<keyframe>{}</keyframe></mujoco>"""


@pytest.mark.parametrize("key", ['<key qpos="0 0 1"/>', '<key qpos="0 0 1 2" qvel="1" ctrl="0.5"/>',
                                 '<key qpos="0 0 1 1 0 0 0 0.3" qvel="1 2 3 4 5 6 7" ctrl="1 2"/>'])
def test_short_keyframe_vectors_are_filled_as_mujoco(key):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(MODEL.format(key))
    (k,) = load_mjcf(MODEL.format(key)).keys
    np.testing.assert_allclose(k.qpos, mm.key_qpos[0], atol=1e-15)
    np.testing.assert_allclose(k.qvel, mm.key_qvel[0], atol=1e-15)
    np.testing.assert_allclose(k.ctrl, mm.key_ctrl[0], atol=1e-15)


def test_long_keyframe_vector_is_an_error():
    with pytest.raises(MjcfError, match=r":5: <key>: key 'k': qpos has 9 values, the model needs 8"):
        load_mjcf(MODEL.format('<key name="k" qpos="0 0 1 1 0 0 0 0 0"/>'))
