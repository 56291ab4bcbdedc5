"""ContactResults / PointPairContactInfo value classes (pydrake API)."""
from __future__ import annotations

import numpy as np
import pytest

from mallard.multibody.contact import ContactForcesInWorld, ContactResults, PointPairContactInfo


def test_point_pair_contact_info_accessors_return_copies():
    info = PointPairContactInfo(1, 2, [0.0, 0.0, 9.81], [0.1, 0.2, 0.0], -0.01, 0.002, "pair")
    assert info.bodyA_index() == 1 and info.bodyB_index() == 2 and info.point_pair() == "pair"
    f = info.contact_force()
    f[2] = 0.0
    np.testing.assert_array_equal(info.contact_force(), [0.0, 0.0, 9.81])
    np.testing.assert_array_equal(info.contact_point(), [0.1, 0.2, 0.0])
    assert info.separation_speed() == -0.01 and info.slip_speed() == 0.002
    with pytest.raises(ValueError, match="slip_speed"):
        PointPairContactInfo(1, 2, np.zeros(3), np.zeros(3), 0.0, -1.0, None)


def test_contact_results_collection():
    results = ContactResults()
    assert results.num_point_pair_contacts() == 0 and results.num_hydroelastic_contacts() == 0
    results.AddContactInfo(PointPairContactInfo(0, 1, np.ones(3), np.zeros(3), 0.0, 0.0, None))
    assert results.num_point_pair_contacts() == 1
    assert results.point_pair_contact_info(0).bodyB_index() == 1
    with pytest.raises(IndexError, match="there are 1 point-pair contacts"):
        results.point_pair_contact_info(3)
    with pytest.raises(TypeError):
        results.AddContactInfo("not a contact")


def test_contact_frame_forces_to_world():
    R_WC = np.array([[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]])  # columns: n = x, t1 = y... in W
    f, m = ContactForcesInWorld(np.array([[2.0, 0.5, -0.25, 0.1, 0.0, 0.0]]), R_WC)
    np.testing.assert_allclose(f[0], R_WC[0] @ [2.0, 0.5, -0.25])
    np.testing.assert_allclose(m[0], R_WC[0] @ [0.1, 0.0, 0.0])
