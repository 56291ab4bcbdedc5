"""A real robot (the KUKA iiwa14 URDF) loaded by both parsers: dynamics agree with pydrake."""
from __future__ import annotations

import numpy as np

from oracles import require_pydrake


def _load(plant, parser_cls, models_dir):
    parser = parser_cls(plant)
    package_map = parser.package_map()
    if package_map.Contains("drake_models"):  # pydrake knows it as a remote package: use the local copy
        package_map.Remove("drake_models")
    package_map.Add("drake_models", str(models_dir / "drake_models"))
    parser.AddModels(str(models_dir / "drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf"))
    plant.Finalize()
    return plant


def test_iiwa_urdf_matches_drake(models_dir):
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from pydrake.multibody.tree import JacobianWrtVariable as DrakeWrt

    from mallard.multibody.plant import MultibodyPlant
    from mallard.multibody.tree import JacobianWrtVariable
    from mallard.parsers import Parser
    pm = _load(MultibodyPlant(1e-3), Parser, models_dir)
    pd = _load(DrakePlant(1e-3), DrakeParser, models_dir)
    assert pm.GetStateNames() == pd.GetStateNames()
    cm, cd = pm.CreateDefaultContext(), pd.CreateDefaultContext()
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.uniform(-1, 1, pm.num_multibody_states())
        x[:4] /= np.linalg.norm(x[:4])
        pm.SetPositionsAndVelocities(cm, x)
        pd.SetPositionsAndVelocities(cd, x)
        np.testing.assert_allclose(pm.CalcMassMatrix(cm), pd.CalcMassMatrix(cd), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(pm.CalcBiasTerm(cm), pd.CalcBiasTerm(cd), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(pm.CalcGravityGeneralizedForces(cm), pd.CalcGravityGeneralizedForces(cd),
                                   rtol=1e-10, atol=1e-10)
        ee_m, ee_d = pm.GetFrameByName("iiwa_link_7"), pd.GetFrameByName("iiwa_link_7")
        Jm = pm.CalcJacobianSpatialVelocity(cm, JacobianWrtVariable.kV, ee_m, [0, 0, 0.1], pm.world_frame(),
                                            pm.world_frame())
        Jd = pd.CalcJacobianSpatialVelocity(cd, DrakeWrt.kV, ee_d, [0, 0, 0.1], pd.world_frame(), pd.world_frame())
        np.testing.assert_allclose(Jm, Jd, rtol=1e-10, atol=1e-10)
