"""BarycentricMeshSystem against pydrake's: the output interpolates the tabulated values at the input."""
import numpy as np
import pytest

from oracles import require_pydrake

from mallard.math import BarycentricMesh
from mallard.systems.primitives import BarycentricMeshSystem

GRID = [{0.0, 1.0}, {0.0, 1.0, 2.0}]
VALUES = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [1.0, -1.0, 0.5, 2.0, 0.0, 3.0]])


def test_output_matches_pydrake():
    require_pydrake()
    from pydrake.math import BarycentricMesh as DrakeMesh
    from pydrake.systems.primitives import BarycentricMeshSystem as DrakeSystem

    ours, theirs = BarycentricMeshSystem(BarycentricMesh(GRID), VALUES), DrakeSystem(DrakeMesh(GRID), VALUES)
    assert (ours.get_input_port().get_name(), ours.get_output_port().get_name()) == ("u0", "y0")
    assert (ours.get_input_port().size(), ours.get_output_port().size()) == \
        (theirs.get_input_port().size(), theirs.get_output_port().size())
    np.testing.assert_array_equal(ours.get_output_values(), theirs.get_output_values())
    ours_context, theirs_context = ours.CreateDefaultContext(), theirs.CreateDefaultContext()
    for u in ([0.5, 1.5], [0.2, 0.7], [1.0, 2.0], [-1.0, 3.0], [0.9, 0.1]):  # inside, on a vertex, clamped outside
        ours.get_input_port().FixValue(ours_context, u)
        theirs.get_input_port().FixValue(theirs_context, u)
        np.testing.assert_allclose(ours.get_output_port().Eval(ours_context),
                                   theirs.get_output_port().Eval(theirs_context), atol=1e-12)


def test_output_values_need_one_column_per_mesh_point():
    with pytest.raises(ValueError, match=r"one column per mesh point \(6\).*shape \(2, 5\)"):
        BarycentricMeshSystem(BarycentricMesh(GRID), VALUES[:, :5])
