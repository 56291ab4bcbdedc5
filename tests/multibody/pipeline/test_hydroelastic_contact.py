"""Hydroelastic contact on the compiled step against pydrake 1.51 (issue 16's acceptance): a compliant box resting on
a rigid half space under each discrete approximation (one contact surface, force m·g within 1 %; force, area and
pose as pydrake's to round-off), two compliant spheres, two fingers holding a compliant box for 2 s without slipping
(the scenes: examples/drake_scenes.py, which benchmarks/drake_contact.py times)."""
from __future__ import annotations

import numpy as np
import pytest

import mallard.all as ma
from drake_scenes import fingers_scene, hydro_scene, spheres_scene
from oracles import require_pydrake


def _box_drop(M, approx: str, t_final: float):
    diagram, plant, init, box = hydro_scene(M, "box", 0.001, approx)
    sim = M.Simulator(diagram)
    init(sim.get_mutable_context())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    sim.AdvanceTo(t_final)
    results = plant.get_contact_results_output_port().Eval(pc)
    X = plant.EvalBodyPoseInWorld(pc, box)
    infos = [results.hydroelastic_contact_info(i) for i in range(results.num_hydroelastic_contacts())]
    return X.translation(), results.num_point_pair_contacts(), [
        (i.F_Ac_W().translational(), i.contact_surface().total_area()) for i in infos]


@pytest.mark.parametrize("approx", ["kLagged", "kSap", "kTamsi", "kSimilar"])
def test_box_on_rigid_half_space(approx):
    require_pydrake()
    import pydrake.all as pd
    p, npts, surf = _box_drop(ma, approx, 1.0)
    p_d, npts_d, surf_d = _box_drop(pd, approx, 1.0)
    assert npts == npts_d == 0 and len(surf) == len(surf_d) == 1
    (F, area), (F_d, area_d) = surf[0], surf_d[0]
    mg = 2.0 * 9.81
    assert F[2] == pytest.approx(mg, rel=1e-2)
    # Drake's box mesh and pressure field, Drake's solvers: the same trajectory to round-off (1e-13 m measured)
    assert F[2] == pytest.approx(F_d[2], rel=1e-8)
    assert area == pytest.approx(area_d, rel=1e-9)
    np.testing.assert_allclose(p, p_d, atol=1e-9)


def _two_spheres(M, t_final: float):
    diagram, plant, init, ball = spheres_scene(M)
    sim = M.Simulator(diagram)
    init(sim.get_mutable_context())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    zs = []
    for t in np.arange(0.05, t_final + 1e-9, 0.05):
        sim.AdvanceTo(t)
        zs.append(plant.EvalBodyPoseInWorld(pc, ball).translation()[2])
    results = plant.get_contact_results_output_port().Eval(pc)
    info = results.hydroelastic_contact_info(0)
    return np.array(zs), info.F_Ac_W().translational(), info.contact_surface().total_area()


def test_two_compliant_spheres():
    require_pydrake()
    import pydrake.all as pd
    z, F, area = _two_spheres(ma, 0.3)
    z_d, F_d, area_d = _two_spheres(pd, 0.3)
    np.testing.assert_allclose(z, z_d, atol=2e-5)
    np.testing.assert_allclose(F, F_d, atol=1e-2 * np.linalg.norm(F_d))
    assert area == pytest.approx(area_d, rel=5e-2)


def _fingers(M, t_final: float):
    """The shared fingers squeezing a compliant box; returns the box's height over time."""
    diagram, plant, init, obj = fingers_scene(M)
    sim = M.Simulator(diagram)
    init(sim.get_mutable_context())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    zs = []
    for t in np.arange(0.25, t_final + 1e-9, 0.25):
        sim.AdvanceTo(t)
        zs.append(plant.EvalBodyPoseInWorld(pc, obj).translation()[2])
    return np.array(zs)


def test_fingers_hold_a_compliant_box():
    require_pydrake()
    import pydrake.all as pd
    z = _fingers(ma, 2.0)
    z_d = _fingers(pd, 2.0)
    assert abs(z[-1] - z[0]) < 1e-4 and abs(z[-1]) < 1e-3  # held: no slip over 2 s
    np.testing.assert_allclose(z, z_d, atol=1e-4)
