"""namedview behaves as pydrake's: named access that writes through to the viewed array."""
import numpy as np
import pytest

from mallard.common import namedview
from oracles import require_pydrake


def test_namedview_writes_through_and_matches_pydrake():
    State = namedview("State", ["x", "v"])
    a = np.array([1.0, 2.0])
    s = State(a)
    s.x = 5.0
    assert a[0] == 5.0 and s.v == 2.0 and State.get_fields() == ("x", "v") and len(s) == 2
    assert list(State.Zero()) == [0, 0]
    with pytest.raises(AttributeError, match="no field 'y'"):
        s.y = 1.0
    with pytest.raises(ValueError, match="expected 2 values"):
        State([1.0])
    pydrake_containers = pytest.importorskip("pydrake.common.containers")
    require_pydrake()
    D = pydrake_containers.namedview("State", ["x", "v"])
    b = np.array([1.0, 2.0])
    d = D(b)
    d.x = 5.0
    assert str(d) == str(s) == "State(x=5.0, v=2.0)" and repr(d) == repr(s)
    assert np.array_equal(a, b)
