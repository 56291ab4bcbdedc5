"""The compliant-box / rigid-box contact surface against pydrake 1.51 where round-off decides the physics: Drake's
tutorial `hydroelastic_contact_basics` drops a compliant box flat on a rigid box. Faces of the surface whose
pressure gradient lies in the contact plane become discrete contact pairs or not by the sign of a ~1e-14 tilt of
the face normal (or ~1e-16 of the gradient), and those faces seed the box's first spin. Mallard clips triangles by
tetrahedra, computes polygon normals and field gradients with Drake's arithmetic, so the seed is Drake's."""
from __future__ import annotations

import numpy as np

import mallard.all as ma
from oracles import require_pydrake

_COMPLIANT_BOX = """<?xml version="1.0"?><sdf version="1.7"><model name="CompliantBox">
  <link name="compliant_box">
    <inertial><mass>1.0</mass><inertia><ixx>0.016666</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.014166</iyy><iyz>0</iyz>
      <izz>0.004166</izz></inertia></inertial>
    <collision name="collision"><geometry><box><size>0.10 0.20 0.40</size></box></geometry>
      <drake:proximity_properties><drake:compliant_hydroelastic/><drake:hydroelastic_modulus>1e7</drake:hydroelastic_modulus>
        <drake:mu_dynamic>0.5</drake:mu_dynamic><drake:hunt_crossley_dissipation>1.25</drake:hunt_crossley_dissipation>
      </drake:proximity_properties></collision>
  </link></model></sdf>"""
_RIGID_BOX = """<?xml version="1.0"?><sdf version="1.7"><model name="RigidBox">
  <link name="rigid_box_link">
    <collision name="collision"><geometry><box><size>0.6 1.0 0.05</size></box></geometry>
      <drake:proximity_properties><drake:rigid_hydroelastic/><drake:mu_dynamic>0.5</drake:mu_dynamic>
        <drake:hunt_crossley_dissipation>1.25</drake:hunt_crossley_dissipation></drake:proximity_properties>
    </collision>
  </link>
  <frame name="top_surface"><pose relative_to="rigid_box_link">0 0 0.025 0 0 0</pose></frame>
</model></sdf>"""


def _flat_impact(M, steps: int) -> np.ndarray:
    """Generalized velocities of the compliant box after each of `steps` 1 ms steps (kSimilar) from level contact
    at 3 m/s: the tutorial's scene."""
    builder = M.DiagramBuilder()
    plant, _ = M.AddMultibodyPlant(M.MultibodyPlantConfig(time_step=1e-3, discrete_contact_approximation="similar"),
                                   builder)
    parser = M.Parser(builder)
    parser.AddModelsFromString(_COMPLIANT_BOX, "sdf")
    parser.AddModelsFromString(_RIGID_BOX, "sdf")
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("top_surface"))
    plant.Finalize()
    sim = M.Simulator(builder.Build())
    pc = plant.GetMyContextFromRoot(sim.get_mutable_context())
    plant.SetPositions(pc, np.array([1.0, 0, 0, 0, 0, 0, 0.2]))
    plant.SetVelocities(pc, np.array([0, 0, 0, 0, 0, -3.0]))
    out = []
    for k in range(steps):
        sim.AdvanceTo((k + 1) * 1e-3)
        out.append(plant.GetVelocities(pc).copy())
    return np.array(out)


def test_flat_impact_spin_seed_as_drake():
    require_pydrake()
    import pydrake.all as pd
    v, v_d = _flat_impact(ma, 3), _flat_impact(pd, 3)
    # pydrake: a spin of ~1e-5 rad/s after the second step, 5e-4 after the third, from the faces whose gradient is
    # in the plane (before Drake's arithmetic mallard spun about other axes: ω = (1.7e-3, 2e-4) after step two)
    assert np.abs(v_d[1, :2]).max() > 1e-6 and np.abs(v_d[2, :2]).max() > 1e-4
    np.testing.assert_allclose(v, v_d, rtol=1e-6, atol=1e-10)
