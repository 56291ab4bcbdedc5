"""getDrakePath / GetDrakePath give pydrake's folder of Drake resources, and mallard.all carries pydrake.all's
yaml and schema names (not pydrake.examples', which pydrake.all leaves out)."""
import os

import mallard.all
from mallard.common import GetDrakePath
from oracles import require_pydrake


def test_drake_path_matches_pydrake(monkeypatch):
    require_pydrake()
    import pydrake
    import pydrake.common
    monkeypatch.delenv("DRAKE_RESOURCE_ROOT", raising=False)
    assert mallard.all.getDrakePath() == pydrake.getDrakePath()
    assert os.path.abspath(GetDrakePath()) == os.path.abspath(pydrake.common.GetDrakePath())
    assert os.path.isfile(os.path.join(GetDrakePath(), "examples/pendulum/Pendulum.urdf"))


def test_all_exports_yaml_and_schema_not_examples():
    require_pydrake()
    import pydrake.all
    for name in ("yaml_load_typed", "yaml_dump", "ToDistributionVector", "Gaussian", "getDrakePath", "GetDrakePath"):
        assert name in pydrake.all.__dict__ and name in mallard.all.__dict__, name
    for name in ("AcrobotPlant", "VanDerPolOscillator", "PendulumPlant"):
        assert name not in pydrake.all.__dict__ and name not in mallard.all.__dict__, name
