"""ForceDensityField / GravityForceField (pydrake.multibody.tree) against pydrake: density types, values, clones."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.multibody.plant import MultibodyPlant
from mallard.multibody.tree import ForceDensityField_, ForceDensityType, GravityForceField_


class ScaledPosition(ForceDensityField_[float]):
    """f(Q) = s·p_WQ [N/m³]."""

    def __init__(self, scale):
        super().__init__()
        self._scale = scale

    def DoEvaluateAt(self, context, p_WQ):
        return p_WQ * self._scale


def _context():
    plant = MultibodyPlant(0.0)
    plant.Finalize()
    return plant.CreateDefaultContext()


def test_gravity_field_matches_pydrake():
    require_pydrake()
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from pydrake.multibody.tree import GravityForceField as DrakeField
    drake_plant = DrakePlant(0.0)
    drake_plant.Finalize()
    expected = DrakeField(gravity_vector=[0.1, -0.2, -9.81], mass_density=1200.0).EvaluateAt(
        drake_plant.CreateDefaultContext(), [1.0, 2.0, 3.0])
    field = GravityForceField_[float](gravity_vector=[0.1, -0.2, -9.81], mass_density=1200.0)
    np.testing.assert_allclose(field.EvaluateAt(_context(), [1.0, 2.0, 3.0]), expected, rtol=0, atol=0)
    assert field.density_type() == ForceDensityType.kPerReferenceVolume
    assert int(field.density_type()) == 1


def test_user_fields_evaluate_and_clone():
    context = _context()
    field = ScaledPosition(2.0)
    assert field.density_type() == ForceDensityType.kPerCurrentVolume and not field.has_parent_system()
    for f in (field, field.Clone(), copy.copy(field), copy.deepcopy(field)):
        np.testing.assert_array_equal(f.EvaluateAt(context, [1.0, 2.0, 3.0]), [2.0, 4.0, 6.0])
    clone = field.Clone()
    clone._scale = 3.0
    np.testing.assert_array_equal(field.EvaluateAt(context, [1.0, 0.0, 0.0]), [2.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="not owned by a MultibodyPlant"):
        field.parent_system_or_throw()
    with pytest.raises(ValueError, match="3 entries"):
        field.EvaluateAt(context, [1.0, 2.0])
