"""The MJCF compiler's principal inertia frames (body_iquat, body_inertia) against MuJoCo 4's for inertias whose
principal axes are ill-conditioned: near-equal or equal moments, given as fullinertia or summed from geoms, at
very different scales. For near-equal moments the axes move by (rounding error / eigenvalue gap), so only the same
eigensolver (MuJoCo 4's relative stopping rule and half-angle rotations) reproduces them; required here to 1e-12."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracles import require_mujoco

from mallard.parsers.mjcf.compiler import load_mjcf
from mallard.parsers.mjcf.rotations import eig3, quat_to_mat

# relative gaps between the two closest principal moments (0: exactly equal), and overall scales (kg m²)
GAPS = [0.0, 1e-14, 1e-12, 1e-10, 1e-8, 1e-7, 1e-6, 1e-4, 1e-2]
SCALES = [1e-9, 1e-3, 1.0, 1e4]


def _random_fullinertias(seed: int, count: int) -> list[list[float]]:
    """(xx, yy, zz, xy, xz, yz) of R diag(I) Rᵀ for random rotations R and moments with a near-double pair."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        moments = rng.uniform(0.6, 1.0, 3)
        gap = GAPS[k % len(GAPS)]
        pair = rng.choice(3, 2, replace=False)
        moments[pair[1]] = moments[pair[0]] * (1.0 + gap)
        full = SCALES[(k // len(GAPS)) % len(SCALES)] * (q @ np.diag(moments) @ q.T)
        out.append([full[0, 0], full[1, 1], full[2, 2], full[0, 1], full[0, 2], full[1, 2]])
    return out


def _compile_both(xml: str):
    mujoco = require_mujoco()
    mm = mujoco.MjModel.from_xml_string(xml)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_mjcf(xml)
    assert len(model.bodies) == mm.nbody
    return mm, model


def _assert_frames_equal(mm, model):
    for b in range(1, mm.nbody):
        body = model.bodies[b]
        scale = float(np.max(np.abs(mm.body_inertia[b])))
        np.testing.assert_allclose(body.inertia, mm.body_inertia[b], rtol=0, atol=1e-12 * scale,
                                   err_msg=f"body {b} moments")
        np.testing.assert_allclose(body.iquat, mm.body_iquat[b], rtol=0, atol=1e-12, err_msg=f"body {b} frame")
        np.testing.assert_allclose(body.ipos, mm.body_ipos[b], rtol=0, atol=1e-12, err_msg=f"body {b} com")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fullinertia_near_degenerate_frames_match_mujoco(seed):
    """fullinertia with near-equal moments (gaps 0 .. 1e-2) at scales 1e-9 .. 1e4: MuJoCo 4's frames to 1e-12."""
    bodies = []
    for k, f in enumerate(_random_fullinertias(seed, 72)):
        text = " ".join(repr(float(v)) for v in f)
        bodies.append(f'<body name="b{k}" pos="{k} 0 0"><joint/><inertial pos="0.1 -0.2 0.3" mass="1" '
                      f'fullinertia="{text}"/></body>')
    xml = f"<mujoco><worldbody>{''.join(bodies)}</worldbody></mujoco>"
    mm, model = _compile_both(xml)
    _assert_frames_equal(mm, model)


def test_geom_sum_near_symmetric_frames_match_mujoco():
    """Body inertia summed from geoms (inertiafromgeom): near-axisymmetric and exactly axisymmetric sums, the
    tendon-test thigh (two capsules, moments 0.5531 / 0.5525), tiny masses, and a rotated pair of boxes."""
    xml = """<mujoco><worldbody>
      <body name="thigh"><joint/>
        <geom type="capsule" size=".04" fromto="0 0 0 0 0 -1"/>
        <geom type="capsule" size=".02" fromto="0 0 -1 .05 -.08 -1.1"/></body>
      <body name="axisym" pos="1 0 0"><joint/>
        <geom type="cylinder" size=".05 .3"/><geom type="sphere" size=".05" pos="0 0 .4"/></body>
      <body name="nearsym" pos="2 0 0"><joint/>
        <geom type="cylinder" size=".05 .3"/><geom type="sphere" size=".05" pos="1e-7 -2e-7 .4"/></body>
      <body name="tiny" pos="3 0 0"><joint/>
        <geom type="box" size=".001 .001 .0010001" mass="1e-6" euler="10 20 30"/>
        <geom type="sphere" size=".0005" mass="1e-7" pos=".0001 .0002 .003"/></body>
      <body name="boxes" pos="4 0 0"><joint/>
        <geom type="box" size=".1 .1 .2" euler="0 0 17"/>
        <geom type="box" size=".1 .1000001 .2" pos="0 0 .5" euler="3 0 -40"/></body>
      <body name="cross" pos="5 0 0"><joint/>
        <geom type="capsule" size=".02" fromto="-.3 0 0 .3 0 0"/>
        <geom type="capsule" size=".02" fromto="0 -.3 0 0 .3 1e-6"/></body>
    </worldbody></mujoco>"""
    mm, model = _compile_both(xml)
    _assert_frames_equal(mm, model)


def test_mesh_geom_frames_match_mujoco():
    """Mesh geoms: MuJoCo 4 finds a mesh's principal frame by Jacobi rotations stopped at its mesh tolerance 1e-7,
    off the exact eigenvectors by ~1e-8 rad for near-equal moments (Allegro's finger links: body inertia tensors
    5e-8 apart with exact eigenvectors); prisms with slightly uneven sides and a lopsided cloud, to 1e-12."""
    rng = np.random.default_rng(5)
    meshes = []
    for k, n in enumerate((12, 7, 30)):
        t = 2 * np.pi * np.arange(n) / n + rng.uniform(-0.01, 0.01, n)
        r = 0.05 * (1 + rng.uniform(-0.002, 0.002, n))
        ring = np.column_stack([r * np.cos(t), r * np.sin(t)])
        pts = np.vstack([np.column_stack([ring, np.full(n, -0.04)]), np.column_stack([ring, np.full(n, 0.04)])])
        meshes.append(pts)
    meshes.append(np.round(rng.normal(size=(40, 3)) * (0.03, 0.02, 0.05) + (0.01, 0, 0), 5))
    assets = "".join(f'<mesh name="m{k}" vertex="{" ".join(f"{c:.9g}" for c in v.ravel())}"/>'
                     for k, v in enumerate(meshes))
    bodies = "".join(f'<body pos="{k} 0 0" euler="0 {10 * k} 0"><joint/><geom type="mesh" mesh="m{k}"/></body>'
                     for k in range(len(meshes)))
    mm, model = _compile_both(f"<mujoco><asset>{assets}</asset><worldbody>{bodies}</worldbody></mujoco>")
    _assert_frames_equal(mm, model)


def test_eig3_diagonalizes_and_orders_moments():
    """eig3's frame diagonalizes the input (to rounding) and orders the moments decreasingly, including the
    relative stopping rule on a tiny-scale matrix that an absolute 1e-12 threshold would leave undiagonalized."""
    rng = np.random.default_rng(7)
    for scale in (1e-10, 1.0, 1e6):
        q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        full = scale * (q @ np.diag([0.9, 0.7, 0.4]) @ q.T)
        moments, quat = eig3(full)
        r = quat_to_mat(quat)
        d = r.T @ full @ r
        np.testing.assert_allclose(moments, scale * np.array([0.9, 0.7, 0.4]), rtol=1e-12)
        assert np.max(np.abs(d - np.diag(np.diag(d)))) < 1e-14 * scale
    moments, quat = eig3(np.diag([0.2, 0.5, 0.3]))
    np.testing.assert_array_equal(moments, [0.5, 0.3, 0.2])
    r = quat_to_mat(quat)
    np.testing.assert_allclose(r.T @ np.diag([0.2, 0.5, 0.3]) @ r, np.diag([0.5, 0.3, 0.2]), atol=1e-15)
