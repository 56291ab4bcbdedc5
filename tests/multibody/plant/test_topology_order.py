"""Generalized-coordinate ordering (floating bases, free bodies, jointed trees) against pydrake.

Drake's SpanningForest mobilizes World-jointed trees first, then the root of every unattached articulated tree
(most joints as parent first, ties by body index), then every joint-less body by body index; q and v follow
that depth-first mobilizer order. Each configuration is built in both engines and compared on state, position,
velocity and actuator names, every joint's name/position_start/velocity_start, and M(q) at a random state.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_pydrake

def _drake():
    from pydrake.math import RigidTransform
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import (FixedOffsetFrame, PrismaticJoint, RevoluteJoint, SpatialInertia,
                                        UnitInertia, WeldJoint)
    return dict(RigidTransform=RigidTransform, Parser=Parser, MultibodyPlant=MultibodyPlant,
                FixedOffsetFrame=FixedOffsetFrame, PrismaticJoint=PrismaticJoint, RevoluteJoint=RevoluteJoint,
                SpatialInertia=SpatialInertia, UnitInertia=UnitInertia, WeldJoint=WeldJoint)


def _mallard():
    from mallard.multibody.math import RigidTransform
    from mallard.multibody.plant import MultibodyPlant
    from mallard.multibody.tree import (FixedOffsetFrame, PrismaticJoint, RevoluteJoint, SpatialInertia,
                                        UnitInertia, WeldJoint)
    from mallard.parsers import Parser
    return dict(RigidTransform=RigidTransform, Parser=Parser, MultibodyPlant=MultibodyPlant,
                FixedOffsetFrame=FixedOffsetFrame, PrismaticJoint=PrismaticJoint, RevoluteJoint=RevoluteJoint,
                SpatialInertia=SpatialInertia, UnitInertia=UnitInertia, WeldJoint=WeldJoint)


def _build_program(E, plant, ops) -> None:
    """Apply a list of builder operations: ("instance", name), ("body", name[, instance]),
    ("rev"|"prism"|"weld", joint_name, parent, child[, actuated])."""
    instances = {"default": plant.GetModelInstanceByName("DefaultModelInstance")}
    bodies = {"world": plant.world_body()}
    rng = np.random.default_rng(len(ops))
    for op in ops:
        kind = op[0]
        if kind == "instance":
            instances[op[1]] = plant.AddModelInstance(op[1])
        elif kind == "body":
            mi = instances[op[2]] if len(op) > 2 else instances["default"]
            mass = 0.5 + len(bodies) * 0.3
            com = rng.uniform(-0.2, 0.2, 3)
            G = E["UnitInertia"].SolidBox(0.1 + 0.05 * len(bodies), 0.2, 0.3)
            bodies[op[1]] = plant.AddRigidBody(op[1], mi, E["SpatialInertia"](mass, com, G.ShiftFromCenterOfMass(-com)))
        else:
            name, parent, child = op[1:4]
            X_PF = E["RigidTransform"]([0.1 * len(name), -0.2, 0.3])
            F = plant.AddFrame(E["FixedOffsetFrame"](name + "_F", bodies[parent].body_frame(), X_PF))
            M = bodies[child].body_frame()
            if kind == "rev":
                j = plant.AddJoint(E["RevoluteJoint"](name, F, M, [0.0, 0.6, 0.8]))
            elif kind == "prism":
                j = plant.AddJoint(E["PrismaticJoint"](name, F, M, [1.0, 0.0, 0.0]))
            else:
                j = plant.AddJoint(E["WeldJoint"](name, F, M, E["RigidTransform"]([0.0, 0.0, 0.4])))
            if len(op) > 4 and op[4]:
                plant.AddJointActuator("act_" + name, j)


def _sdf_links(links: list[str], joints: list[tuple], name="m", inner="") -> str:
    L = "".join(f'<link name="{n}"><pose>{0.1 * i} 0 {0.2 * i} 0 0 0</pose><inertial><mass>{1 + i}</mass>'
                f'<inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.3</izz></inertia></inertial></link>'
                for i, n in enumerate(links))
    J = "".join(f'<joint name="{j}" type="{t}"><parent>{p}</parent><child>{c}</child>'
                f'<axis><xyz>0 0 1</xyz></axis></joint>' for j, t, p, c in joints)
    return f'<model name="{name}">{L}{J}{inner}</model>'


def _sdf(model: str) -> str:
    return '<?xml version="1.0"?><sdf version="1.9">' + model + "</sdf>"


URDF_FLOATING = """<?xml version="1.0"?><robot name="floaty">
<link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/>
</inertial></link>
<link name="arm"><inertial><origin xyz="0 0 0.3"/><mass value="1"/>
<inertia ixx="0.05" iyy="0.06" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="hand"><inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
</inertial></link>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
<origin xyz="0 0 0.1"/><limit lower="-3" upper="3" effort="10"/></joint>
<joint name="wrist" type="continuous"><parent link="arm"/><child link="hand"/><axis xyz="1 0 0"/>
<origin xyz="0 0 0.6"/></joint>
<transmission type="SimpleTransmission" name="t"><actuator name="m_shoulder"/><joint name="shoulder"/>
<mechanicalReduction>1</mechanicalReduction></transmission>
</robot>"""

URDF_LONE = """<?xml version="1.0"?><robot name="brick">
<link name="brick"><inertial><mass value="0.3"/><inertia ixx="0.002" iyy="0.003" izz="0.004" ixy="0" ixz="0" iyz="0"/>
</inertial></link></robot>"""


def _load_files(E, plant, models_dir, files) -> None:
    parser = E["Parser"](plant)
    pm = parser.package_map()
    if pm.Contains("drake_models"):
        pm.Remove("drake_models")
    pm.Add("drake_models", str(models_dir / "drake_models"))
    for rel in files:
        parser.AddModels(str(models_dir / rel))


CONFIGS = {
    # The issue-6 reproduction: free1, a -> b, free2 (SDFormat).
    "sdf_free_tree_free": ("sdf", _sdf(_sdf_links(["free1", "a", "b", "free2"], [("j", "revolute", "a", "b")]))),
    # A lone body named like a joint: its floating joint is "_r", and so are its state names.
    "floating_name_clash": ("prog", [("body", "r"), ("body", "a"), ("body", "b"), ("rev", "r", "a", "b")]),
    # Roots of unattached trees: most joints as parent first, then body index; lone bodies last.
    "root_policy": ("prog", [("body", "f"), ("body", "r1"), ("body", "c1"), ("body", "r2"), ("body", "c2a"),
                             ("body", "c2b"), ("rev", "j1", "r1", "c1", True), ("rev", "j2a", "r2", "c2a"),
                             ("rev", "j2b", "r2", "c2b", True)]),
    # A weld counts as a joint of the root; welded children take zero coordinates mid-tree.
    "root_policy_weld": ("prog", [("body", "r1"), ("body", "c1"), ("body", "r2"), ("body", "c2a"), ("body", "c2b"),
                                  ("rev", "j1", "r1", "c1"), ("weld", "j2a", "r2", "c2a"),
                                  ("prism", "j2b", "r2", "c2b")]),
    # A World-jointed tree added last still comes first.
    "world_tree_after": ("prog", [("body", "f"), ("body", "r1"), ("body", "c1"), ("body", "w1"), ("body", "w2"),
                                  ("rev", "j1", "r1", "c1"), ("rev", "jw1", "world", "w1", True),
                                  ("prism", "jw2", "w1", "w2", True)]),
    # Joints added out of body order: siblings follow joint index, depth first.
    "joints_out_of_order": ("prog", [("body", "a"), ("body", "b"), ("body", "c"), ("body", "d"), ("body", "e"),
                                     ("rev", "jc", "b", "c"), ("rev", "jd", "a", "d"), ("rev", "je", "d", "e"),
                                     ("prism", "jb", "a", "b")]),
    # Lone bodies before, between and after two trees with equal root scores (tie broken by body index).
    "lone_between_trees": ("prog", [("body", "l0"), ("body", "t2"), ("body", "l1"), ("body", "t1"),
                                    ("body", "t2c"), ("body", "l2"), ("body", "t1c"), ("body", "l3"),
                                    ("rev", "jt1", "t1", "t1c"), ("rev", "jt2", "t2", "t2c")]),
    # Welded-to-World tree, a weld-only pair floating as one tree, and lone bodies.
    "welded_world_tree": ("prog", [("body", "free"), ("body", "pa"), ("body", "base"), ("body", "link"),
                                   ("body", "pb"), ("weld", "wb", "world", "base"), ("rev", "jl", "base", "link"),
                                   ("weld", "wp", "pa", "pb")]),
    # Several model instances, a lone body in an earlier instance than a floating tree.
    "model_instances": ("prog", [("instance", "A"), ("instance", "B"), ("body", "box", "A"), ("body", "root", "B"),
                                 ("body", "arm", "B"), ("body", "tip", "B"), ("body", "ball", "default"),
                                 ("rev", "sh", "root", "arm", True), ("rev", "el", "arm", "tip", True)]),
    # Nested SDFormat models: free links inside and outside a nested articulated model.
    "sdf_nested": ("sdf", _sdf(_sdf_links(["outer_free"], [], "top",
                                          _sdf_links(["n_free", "n_a", "n_b", "n_c"],
                                                     [("nj1", "revolute", "n_a", "n_b"),
                                                      ("nj2", "prismatic", "n_b", "n_c")], "inner")))),
    # Two SDFormat models: a lone link model, then an articulated model with a free link first.
    "sdf_two_models": ("sdf", _sdf(_sdf_links(["solo"], [], "first")),
                       _sdf(_sdf_links(["loose", "base", "l1", "l2"],
                                       [("j1", "revolute", "base", "l1"), ("j2", "revolute", "base", "l2")],
                                       "second"))),
    # SDFormat static model (parser welds its links to World) between a floating model and a World-jointed one.
    "sdf_static_and_world": ("sdf", _sdf(_sdf_links(["f", "a", "b"], [("j", "revolute", "a", "b")], "m1")),
                             _sdf(_sdf_links(["s1", "s2"], [], "st", "<static>true</static>")),
                             _sdf(_sdf_links(["w", "w2"], [("jw", "revolute", "world", "w")], "m3"))),
    # URDF: a lone brick model loaded before a floating, actuated arm.
    "urdf_lone_then_floating": ("urdf", URDF_LONE, URDF_FLOATING),
    # Real models: a floating iiwa (URDF root not welded), a YCB box, and the Drake acrobot (welded base).
    "real_iiwa_ycb_acrobot": ("files", ["drake_models/ycb/004_sugar_box.sdf",
                                        "drake_models/iiwa_description/urdf/iiwa14_no_collision.urdf",
                                        "drake_examples/Acrobot.urdf"]),
}


def _make(E, config, models_dir):
    kind, *data = CONFIGS[config]
    plant = E["MultibodyPlant"](0.0)
    if kind == "prog":
        _build_program(E, plant, data[0])
    elif kind in ("sdf", "urdf"):
        for text in data:
            E["Parser"](plant).AddModelsFromString(text, kind)
    else:
        _load_files(E, plant, models_dir, data[0])
    plant.Finalize()
    return plant


def _random_state(pd, rng):
    """A random state in pydrake's layout with unit quaternions."""
    nq, nv = pd.num_positions(), pd.num_velocities()
    q, v = rng.uniform(-1, 1, nq), rng.uniform(-1, 1, nv)
    for k in range(pd.num_joints()):
        j = pd.get_joint(pd.GetJointIndices()[k])
        if j.num_positions() == 7:
            s = j.position_start()
            q[s:s + 4] /= np.linalg.norm(q[s:s + 4])
    return q, v


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_order_matches_pydrake(config, models_dir):
    require_pydrake()
    pd = _make(_drake(), config, models_dir)
    pm = _make(_mallard(), config, models_dir)
    for prefix in (True, False):
        assert list(pm.GetStateNames(prefix)) == list(pd.GetStateNames(prefix)), config
        assert list(pm.GetPositionNames(add_model_instance_prefix=prefix)) == \
            list(pd.GetPositionNames(add_model_instance_prefix=prefix))
        assert list(pm.GetVelocityNames(add_model_instance_prefix=prefix)) == \
            list(pd.GetVelocityNames(add_model_instance_prefix=prefix))
        assert list(pm.GetActuatorNames(add_model_instance_prefix=prefix)) == \
            list(pd.GetActuatorNames(add_model_instance_prefix=prefix))
    assert pm.num_joints() == pd.num_joints()
    for k in range(pd.num_joints()):
        jd, jm = pd.get_joint(pd.GetJointIndices()[k]), pm.get_joint(pm.GetJointIndices()[k])
        got = (jm.name(), pm.GetModelInstanceName(jm.model_instance()), jm.position_start(), jm.velocity_start(),
               jm.num_positions(), jm.num_velocities())
        want = (jd.name(), pd.GetModelInstanceName(jd.model_instance()), jd.position_start(), jd.velocity_start(),
                jd.num_positions(), jd.num_velocities())
        assert got == want, f"{config}: joint {k}"
    rng = np.random.default_rng(7)
    q, v = _random_state(pd, rng)
    cd, cm = pd.CreateDefaultContext(), pm.CreateDefaultContext()
    pd.SetPositions(cd, q)
    pd.SetVelocities(cd, v)
    pm.SetPositions(cm, q)
    pm.SetVelocities(cm, v)
    Md, Mm = pd.CalcMassMatrix(cd), pm.CalcMassMatrix(cm)
    assert np.max(np.abs(Mm - Md)) <= 1e-10 * max(1.0, np.max(np.abs(Md))), config
    np.testing.assert_allclose(pm.CalcBiasTerm(cm), pd.CalcBiasTerm(cd), rtol=1e-10, atol=1e-10)
