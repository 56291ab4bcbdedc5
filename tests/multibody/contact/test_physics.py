"""Physics checks of the solver stepping small systems (semi-implicit Euler, 2 ms): a resting box
carries m*g over 4 points; a block on a slope sticks for mu > tan(theta) and slides with
g(sin - mu cos) below it; an elastic bounce sequence does not gain energy."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.contact import ConstraintAssembler, ContactForces, SolveConstraints

H = 0.002
G = 9.81
SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


def step_box(z, v, cone):
    """Free box (1 kg, half-size 0.05) flat on z = 0: 4 corner contacts; returns (problem, M, a0)."""
    m, half = 1.0, 0.05
    inertia = m * 2 * (2 * half) ** 2 / 12
    M = np.diag([m] * 3 + [inertia] * 3)
    a0 = np.array([0, 0, -G, 0, 0, 0])
    R = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]])
    Jc = np.zeros((4, 6, 6))
    for c, (sx, sy) in enumerate([(-1, -1), (-1, 1), (1, -1), (1, 1)]):
        r = np.array([sx * half, sy * half, -half])
        rx = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        Jc[c, :3] = R @ np.hstack([np.eye(3), -rx])
        Jc[c, 3:] = R @ np.hstack([np.zeros((3, 3)), np.eye(3)])
    asm = ConstraintAssembler(6)
    asm.SetContacts(Jc, [z - half] * 4, [3] * 4, [(1.0, 0.005, 0.0001)] * 4, [(0.02, 1.0)] * 4, [SOLIMP] * 4,
                    [0.0] * 4, [1 / m] * 4, [1 / inertia] * 4)
    return asm.Build(v, H, cone=cone), M, a0


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_box_at_rest_carries_its_weight(cone):
    z, v = 0.06, np.zeros(6)
    for _ in range(1500):
        problem, M, a0 = step_box(z, v, cone)
        res = SolveConstraints(problem, M, a0, tolerance=1e-12)
        v = v + H * res.qacc
        z += H * v[2]
    f = ContactForces(res.efc_force, problem.efc_type, problem.con_efc_address, problem.con_dim, problem.con_friction)
    assert f[:, 0].sum() == pytest.approx(1.0 * G, rel=1e-6)
    np.testing.assert_allclose(f[:, 0], G / 4, rtol=1e-6)
    assert abs(v[2]) < 1e-6 and -0.003 < z - 0.05 < 0  # settled, slightly penetrating


def slope_step(p, v, theta, mu, cone):
    """Point mass (1 kg, radius 0.05) on a plane through the origin tilted by theta about y."""
    n = np.array([-np.sin(theta), 0.0, np.cos(theta)])
    t1 = np.array([np.cos(theta), 0.0, np.sin(theta)])
    t2 = np.array([0.0, 1.0, 0.0])
    Jc = np.zeros((1, 3, 3))
    Jc[0] = np.vstack([n, t1, t2])
    asm = ConstraintAssembler(3)
    asm.SetContacts(Jc, [n @ p - 0.05], [3], [(mu, 0.005, 0.0001)], [(0.02, 1.0)], [SOLIMP], [0.0], [1.0], [0.0])
    problem = asm.Build(v, H, cone=cone, impratio=1.0)
    return SolveConstraints(problem, np.eye(3), np.array([0.0, 0.0, -G]), tolerance=1e-12)


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("mu", [0.7, 0.3])
def test_block_on_slope(cone, mu):
    theta = np.deg2rad(25.0)  # tan = 0.466
    t1 = np.array([np.cos(theta), 0.0, np.sin(theta)])
    p = np.array([0.0, 0.0, 0.05 / np.cos(theta)])
    v = np.zeros(3)
    speeds = []
    for k in range(500):
        res = slope_step(p, v, theta, mu, cone)
        v = v + H * res.qacc
        p = p + H * v
        speeds.append(v @ t1)
    if mu > np.tan(theta):
        # sticks: only the soft-constraint creep (v_t ~ R f_t / b, a few mm/s, as in MuJoCo), no acceleration
        assert max(abs(s) for s in speeds[100:]) < 0.02
        assert abs(speeds[499] - speeds[249]) < 1e-3
    else:
        accel = (speeds[499] - speeds[249]) / (250 * H)
        assert accel == pytest.approx(-G * (np.sin(theta) - mu * np.cos(theta)), rel=2e-3)


def test_elastic_bounces_do_not_gain_energy():
    # A lightly damped contact (direct solref: stiffness 2e4, damping 5; constant impedance 0.9):
    # the first bounce keeps > 85 % of its energy, and no apex is ever higher than the one before.
    # (With exactly zero damping, semi-implicit Euler plus the discrete contact onset makes the apex
    # energy wander by a few percent either way; MuJoCo shows the same behaviour.)
    z, v, apexes, rising = 0.3, 0.0, [], False
    for _ in range(3000):
        asm = ConstraintAssembler(1)
        asm.SetContacts(np.array([[[1.0], [0.0], [0.0]]]), [z - 0.05], [1], [(0, 0, 0)],
                        [(-20000.0, -5.0)], [(0.9, 0.9, 0.001, 0.5, 2.0)], [0.0], [1.0], [0.0])
        res = SolveConstraints(asm.Build([v], H), np.eye(1), np.array([-G]), tolerance=1e-12)
        assert res.converged
        v_new = v + H * res.qacc[0]
        if rising and v_new <= 0 < v:
            apexes.append(z)
        rising = v_new > 0
        v = v_new
        z += H * v
    assert len(apexes) >= 8
    energies = G * (np.array(apexes) - 0.05)  # potential energy above the resting contact height
    assert energies[0] < G * (0.3 - 0.05) and energies[0] > 0.85 * G * (0.3 - 0.05)
    assert np.all(np.diff(energies) <= 1e-9)
