"""solimp impedance, solref stiffness/damping, geom parameter mixing, equality rows, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from oracles import require_mujoco

from mallard.multibody.contact import (ClampSolimp, ConstraintAssembler, Impedance, JointCouplerRow, MixContactParameters,
                                       SolrefStiffnessDamping, ValidateSolimp, ValidateSolref)


def test_impedance_shape_and_derivative():
    solimp = np.array([0.2, 0.9, 0.1, 0.3, 3.0])
    assert Impedance(solimp, 0.0, 0.0)[0] == 0.2
    assert Impedance(solimp, -0.5, 0.0)[0] == 0.9
    # power spline below and above the midpoint, symmetric in the sign of r
    x = 0.02 / 0.1
    assert Impedance(solimp, -0.02, 0.0)[0] == pytest.approx(0.2 + 0.7 * x**3 / 0.3**2, rel=1e-14)
    x = 0.08 / 0.1
    assert Impedance(solimp, 0.08, 0.0)[0] == pytest.approx(0.2 + 0.7 * (1 - (1 - x) ** 3 / 0.7**2), rel=1e-14)
    for pos in (-0.07, -0.01, 0.02, 0.05):
        h = 1e-7
        num = (Impedance(solimp, pos + h, 0.0)[0] - Impedance(solimp, pos - h, 0.0)[0]) / (2 * h)
        assert Impedance(solimp, pos, 0.0)[1] == pytest.approx(num, rel=1e-6)
    assert Impedance(np.array([0.5, 0.5, 0.1, 0.5, 2.0]), -0.05, 0.0) == (0.5, 0.0)  # flat
    assert Impedance(np.array([0.2, 0.9, 0.1, 0.5, 1.0]), 0.03, 0.01)[0] == pytest.approx(0.2 + 0.7 * 0.2)


def test_solref_both_forms_and_refsafe():
    k, b = SolrefStiffnessDamping(np.array([0.02, 1.0]), 0.95, 0.002, True)
    assert k == pytest.approx(1 / (0.95**2 * 0.02**2)) and b == pytest.approx(2 / (0.95 * 0.02))
    k, b = SolrefStiffnessDamping(np.array([0.001, 0.5]), 0.9, 0.002, True)  # clamped to 2*dt
    assert k == pytest.approx(1 / (0.9**2 * 0.004**2 * 0.25)) and b == pytest.approx(2 / (0.9 * 0.004))
    k, b = SolrefStiffnessDamping(np.array([0.001, 0.5]), 0.9, 0.002, False)
    assert b == pytest.approx(2 / (0.9 * 0.001))
    k, b = SolrefStiffnessDamping(np.array([-5000.0, -30.0]), 0.9, 0.002, True)
    assert k == pytest.approx(5000 / 0.81) and b == pytest.approx(30 / 0.9)


def test_mixing_matches_mujoco():
    mujoco = require_mujoco()
    g1 = dict(name="a", priority=0, condim=4, solmix=3.0, solref=(0.03, 0.9), solimp=(0.8, 0.9, 0.01, 0.4, 3),
              friction=(0.6, 0.01, 0.002), margin=0.01, gap=0.002)
    g2 = dict(name="b", priority=0, condim=3, solmix=1.0, solref=(0.01, 1.2), solimp=(0.95, 0.99, 0.002, 0.5, 2),
              friction=(0.9, 0.004, 0.003), margin=0.02, gap=0.001)

    def attrs(g):
        return (f'condim="{g["condim"]}" priority="{g["priority"]}" solmix="{g["solmix"]}" '
                f'solref="{g["solref"][0]} {g["solref"][1]}" solimp="{" ".join(map(str, g["solimp"]))}" '
                f'friction="{" ".join(map(str, g["friction"]))}" margin="{g["margin"]}" gap="{g["gap"]}"')

    for p2 in (0, 1, -1):
        g2["priority"] = p2
        xml = (f'<mujoco><worldbody><geom type="plane" size="1 1 .1" {attrs(g1)}/>'
               f'<body pos="0 0 .095"><freejoint/><geom type="sphere" size=".1" {attrs(g2)}/></body>'
               f'</worldbody></mujoco>')
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        con = d.contact[0]
        mix = MixContactParameters(g1, g2)
        assert mix["condim"] == con.dim
        np.testing.assert_allclose(mix["solref"], con.solref, rtol=1e-14)
        np.testing.assert_allclose(mix["solimp"], con.solimp, rtol=1e-14)
        np.testing.assert_allclose(mix["friction"], con.friction, rtol=1e-14)
        assert mix["includemargin"] == pytest.approx(con.includemargin, rel=1e-14)
        assert mix["margin"] == pytest.approx(m.geom_margin.sum()) and mix["gap"] == pytest.approx(m.geom_gap.sum())


def test_joint_coupler_row_matches_mujoco():
    mujoco = require_mujoco()
    xml = ('<mujoco><option jacobian="dense"/><worldbody><body><joint name="j1" axis="0 1 0" ref="0.1"/>'
           '<geom size=".1"/><body pos=".3 0 0"><joint name="j2" axis="0 1 0"/><geom size=".1"/></body></body>'
           '</worldbody><equality><joint joint1="j1" joint2="j2" polycoef="0.1 0.5 0.2 -0.3 0.05"/></equality></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qpos[:] = [0.7, -0.4]
    mujoco.mj_forward(m, d)
    J, res = JointCouplerRow(d.qpos[0], d.qpos[1], m.eq_data[0, :5], 0, 1, 2, m.qpos0[0], m.qpos0[1])
    np.testing.assert_allclose(J, np.array(d.efc_J).reshape(1, 2), rtol=1e-14)
    np.testing.assert_allclose(res, d.efc_pos[:1], rtol=1e-14)


@pytest.mark.parametrize("solref, match", [((0.0, 1.0), "time constant is zero"),
                                           ((-0.02, 1.0), "mixes formats"),
                                           ((0.02, 0.0), "dampratio")])
def test_bad_solref_names_the_contact(solref, match):
    asm = ConstraintAssembler(1)
    with pytest.raises(ValueError, match=f"contact 'ball/floor'.*{match}"):
        asm.SetContacts(np.zeros((1, 3, 1)), [-0.01], [3], [(1, 0, 0)], [solref], [(0.9, 0.95, 0.001, 0.5, 2)],
                        [0.0], [1.0], [1.0], names=["ball/floor"])


@pytest.mark.parametrize("solimp", [(np.nan, 0.95, 0.001, 0.5, 2), (0.9, 0.95, np.inf, 0.5, 2), (0.9, 0.95)])
def test_bad_solimp_names_the_constraint(solimp):
    asm = ConstraintAssembler(2)
    with pytest.raises(ValueError, match="limit 'elbow'.*5 finite numbers"):
        asm.AddLimit([[1.0, 0.0]], -0.01, 0.0, 1.0, solimp=solimp, name="elbow")
    with pytest.raises(ValueError, match="equality constraint 'loop'.*5 finite numbers"):
        asm.AddEquality("joint", [[1.0, -1.0]], [0.1], 1.0, solimp=solimp, name="loop")


def test_out_of_range_solimp_is_clamped_where_used_as_in_mujoco():
    # MuJoCo accepts any finite solimp (Menagerie gripper pads give dmin = 2) and clamps it when used
    raw = (2.0, -1.0, -0.5, 1.5, 0.5)
    np.testing.assert_array_equal(ValidateSolimp(raw), raw)
    np.testing.assert_array_equal(ClampSolimp(np.array(raw))[0], [0.9999, 0.0001, 0.0, 0.9999, 1.0])


def test_negative_friction_and_bad_sizes_are_rejected():
    asm = ConstraintAssembler(1)
    with pytest.raises(ValueError, match=r"contact 'box/floor'.*friction.*>= 0"):
        asm.SetContacts(np.zeros((1, 3, 1)), [-0.01], [3], [(-0.5, 0, 0)], [(0.02, 1)], [(0.9, 0.95, 0.001, 0.5, 2)],
                        [0.0], [1.0], [1.0], names=["box/floor"])
    with pytest.raises(ValueError, match="condim 2 is invalid"):
        asm.SetContacts(np.zeros((1, 3, 1)), [-0.01], [2], [(0.5, 0, 0)], [(0.02, 1)], [(0.9, 0.95, 0.001, 0.5, 2)],
                        [0.0], [1.0], [1.0])
    with pytest.raises(ValueError, match=r"frictionloss of 'knee'.*>= 0"):
        asm.AddFrictionLoss([[1.0]], -1.0, 1.0, name="knee")
    with pytest.raises(ValueError, match=r"Jacobian must have shape \(rows, nv=1\)"):
        asm.AddLimit([[1.0, 2.0]], 0.0, 0.0, 1.0, name="knee")
    with pytest.raises(ValueError, match="friction coefficients"):
        MixContactParameters(dict(name="g1", friction=(-1, 0, 0)), dict(name="g2"))
    assert list(ValidateSolref((-100.0, 0.0))) == [-100.0, 0.0]  # direct form without damping is valid
    assert ValidateSolimp((0.9, 0.95, 0.0, 0.5, 1)).shape == (5,)
    assert ValidateSolimp((0.0, 0.99, 0.01, 0.5, 2)).shape == (5,)  # dmin = 0 (MuJoCo humanoid limits) is legal


def test_solver_input_errors_and_empty_problem():
    from mallard.multibody.contact import SolveConstraints
    asm = ConstraintAssembler(3)
    empty = asm.Build(np.zeros(3), 0.002)
    for solver in ("newton", "cg", "pgs"):
        res = SolveConstraints(empty, 2 * np.eye(3), np.array([0.0, 0.0, -9.81]), solver=solver)
        assert res.converged and res.iterations == 0 and res.efc_force.shape == (0,)
        np.testing.assert_array_equal(res.qacc, [0.0, 0.0, -9.81])
    with pytest.raises(ValueError, match="positive diagonal"):
        SolveConstraints(empty, -np.eye(3), np.zeros(3))
    with pytest.raises(ValueError, match="NaN/inf"):
        SolveConstraints(empty, np.eye(3), np.array([np.nan, 0.0, 0.0]))
    with pytest.raises(ValueError, match=r"expected M \(3, 3\)"):
        SolveConstraints(empty, np.eye(2), np.zeros(2))
    with pytest.raises(ValueError, match="solver 'lcp'"):
        SolveConstraints(empty, np.eye(3), np.zeros(3), solver="lcp")
    with pytest.raises(ValueError, match="timestep must be > 0"):
        asm.Build(np.zeros(3), 0.0)
