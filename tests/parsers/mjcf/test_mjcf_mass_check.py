"""The compile-time check of moving-body mass and inertia agrees with MuJoCo on which models it rejects."""
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf import MjcfError, load_mjcf

POINT = '<inertial pos="0 0 0" mass="1" diaginertia="0 0 0"/>'
CASES = {
    "massless_hinge_with_child": '<body><joint type="hinge"/><body pos="1 0 0"><geom size="0.1"/></body></body>',
    "massless_free_child_at_origin": '<body><freejoint/><body><geom size="0.1"/></body></body>',
    "grandchild_welded": '<body><joint type="slide"/><body><body><geom size=".1"/></body></body></body>',
    "point_mass_hinge": f'<body><joint type="hinge"/>{POINT}</body>',
    "point_mass_slide": f'<body><joint type="slide"/>{POINT}</body>',
    "massless_slide_jointed_child": '<body><joint type="slide"/><body><joint/><geom size="0.1"/></body></body>',
    "two_point_masses": f'<body><joint/><body pos="1 0 0">{POINT}</body><body pos="0 1 0">{POINT}</body></body>',
    "massless_jointed_child": '<body><joint/><geom size=".1"/><body pos="1 0 0"><joint/></body></body>',
    "site_only_free_body": '<body name="b"><freejoint/><site size="0.1"/></body>',
}


def _xml(body: str) -> str:
    return f"<mujoco><worldbody>{body}</worldbody></mujoco>"


@pytest.mark.parametrize("name", sorted(CASES))
def test_moving_body_mass_check_matches_mujoco(name):
    mujoco = require_mujoco()
    xml = _xml(CASES[name])
    try:
        mujoco.MjModel.from_xml_string(xml)
        rejected = False
    except ValueError:
        rejected = True
    if rejected:
        with pytest.raises(MjcfError, match=r":1: <body>: body .*mass and inertia of moving bodies"):
            load_mjcf(xml)
    else:
        load_mjcf(xml)
