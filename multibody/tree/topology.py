"""Topology checks and compilation of the tree into a CompiledModel at Finalize()."""
from __future__ import annotations

import networkx as nx
import numpy as np

from ..kernels.compiled_model import CompiledModel


def check_topology(bodies, joints) -> None:
    """Raise ValueError if a body has two parent joints, the world is a child, or joints close a loop."""
    children: dict[int, object] = {}
    for j in joints:
        c = int(j.child_body().index())
        if c == 0:
            raise ValueError(f"joint '{j.name()}': the world body cannot be a joint's child; swap parent and child")
        if c in children:
            raise ValueError(
                f"body '{j.child_body().name()}' has two parent joints ('{children[c].name()}' and '{j.name()}'); "
                "a body can have only one inboard joint. Model kinematic loops with a loop-closing constraint "
                "(AddBallConstraint, AddDistanceConstraint, AddWeldConstraint) instead of a second joint.")
        children[c] = j
    root = list(range(len(bodies)))  # union-find over the joints seen so far: a joint within a set closes a loop

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    edges: list[tuple[int, int]] = []
    for j in joints:
        a, b = int(j.parent_body().index()), int(j.child_body().index())
        ra, rb = find(a), find(b)
        if ra == rb:
            g = nx.Graph()  # only to name the loop's bodies
            g.add_nodes_from(range(len(bodies)))
            g.add_edges_from(edges)
            try:
                path = nx.shortest_path(g, a, b)
            except nx.NetworkXNoPath:
                path = [a, b]
            names = " -> ".join(bodies[i].name() for i in path + [a])
            raise ValueError(
                f"joint '{j.name()}' closes a kinematic loop through bodies {names}. MultibodyPlant models trees only; "
                "remove one joint of the loop and use a loop-closing constraint (AddBallConstraint, "
                "AddDistanceConstraint or AddWeldConstraint) in its place.")
        root[ra] = rb
        edges.append((a, b))


def floating_base_order(num_bodies: int, joints) -> list[int]:
    """Body indices that Finalize() must mobilize with a floating joint to World, in Drake's order.

    Mirrors Drake's SpanningForest::ChooseBaseBodiesAndAddTrees: first the root of every articulated tree not
    connected to World (a body that is never a joint's child but is some joint's parent), best base first —
    most joints as parent, ties broken by lower body index — then every body with no joint at all, by body
    index. The floating joints are added in this order, so joint indices, the depth-first mobilizer order and
    hence the q/v layout all match pydrake's.
    """
    as_parent = np.zeros(num_bodies, dtype=np.int64)
    as_child = np.zeros(num_bodies, dtype=np.int64)
    for j in joints:
        as_parent[int(j.parent_body().index())] += 1
        as_child[int(j.child_body().index())] += 1
    roots = [b for b in range(1, num_bodies) if as_child[b] == 0 and as_parent[b] > 0]
    lone = [b for b in range(1, num_bodies) if as_child[b] == 0 and as_parent[b] == 0]
    return sorted(roots, key=lambda b: (-int(as_parent[b]), b)) + lone


def depth_first_order(num_bodies: int, joints) -> list[int]:
    """Body indices (world excluded) depth first from the world; siblings in joint-index order."""
    kids: dict[int, list] = {}
    for j in sorted(joints, key=lambda j: int(j.index())):
        kids.setdefault(int(j.parent_body().index()), []).append(int(j.child_body().index()))
    order: list[int] = []
    stack = list(reversed(kids.get(0, [])))
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(kids.get(b, [])))
    if len(order) != num_bodies - 1:
        missing = set(range(1, num_bodies)) - set(order)
        raise ValueError(f"bodies {sorted(missing)} are not connected to the world")
    return order


def compile_model(bodies, joints, actuators) -> CompiledModel:
    """Assign q/v layouts to the joints (depth-first order) and pack every array the pipeline needs."""
    nb = len(bodies)
    order = depth_first_order(nb, joints)
    inboard = {int(j.child_body().index()): j for j in joints}
    position = {id(j): k for k, j in enumerate(joints)}  # a joint's place in `joints` (its index, unless removed)
    ji = np.zeros((nb, 6), dtype=np.int64)
    jf = np.zeros((nb, 28))
    jf[0, 0:9] = np.eye(3).ravel()
    jf[0, 12:21] = np.eye(3).ravel()
    joint_of_body = np.full(nb, -1, dtype=np.int64)
    q0 = v0 = 0
    for b in order:
        j = inboard[b]
        j._position_start, j._velocity_start = q0, v0
        nq, nv = j.num_positions(), j.num_velocities()
        ji[b] = (int(j.parent_body().index()), j._type_code, q0, nq, v0, nv)
        Fp, Fc = j.frame_on_parent(), j.frame_on_child()
        R_FM, p_FM = j._fixed_X_FM()
        R_PF = Fp._R_BF @ R_FM
        p_PF = Fp._p_BF + Fp._R_BF @ p_FM
        R_MB = Fc._R_BF.T
        p_MB = -(R_MB @ Fc._p_BF)
        axis, pitch = j._axis_and_pitch()
        jf[b] = np.concatenate([R_PF.ravel(), p_PF, R_MB.ravel(), p_MB, axis, [pitch]])
        joint_of_body[b] = position[id(j)]
        q0 += nq
        v0 += nv
    # Welded-only joints get q/v starts too (nq = nv = 0) — already set above.
    bp = np.zeros((nb, 13))
    for b, body in enumerate(bodies):
        bp[b, 0] = body._mass
        bp[b, 1:4] = body._com
        bp[b, 4:13] = body._I_BBo_B.ravel()
    refl = np.zeros(v0)
    damping = np.zeros(v0)
    q_lo, q_up = np.full(q0, -np.inf), np.full(q0, np.inf)
    v_lo, v_up = np.full(v0, -np.inf), np.full(v0, np.inf)
    a_lo, a_up = np.full(v0, -np.inf), np.full(v0, np.inf)
    quats = []
    for j in joints:
        qs, vs, nq, nv = j._position_start, j._velocity_start, j.num_positions(), j.num_velocities()
        damping[vs:vs + nv] = j._damping
        refl[vs:vs + nv] += j._armature
        q_lo[qs:qs + nq], q_up[qs:qs + nq] = j._pos_lower, j._pos_upper
        v_lo[vs:vs + nv], v_up[vs:vs + nv] = j._vel_lower, j._vel_upper
        a_lo[vs:vs + nv], a_up[vs:vs + nv] = j._acc_lower, j._acc_upper
        if j.type_name() in ("quaternion_floating", "ball_quaternion"):
            quats.append(qs)
    act_dofs = np.array([a.joint().velocity_start() for a in actuators], dtype=np.int64)
    for a in actuators:
        refl[a.joint().velocity_start()] += a.default_reflected_inertia()
    return CompiledModel(nb=nb, nq=q0, nv=v0, nu=len(actuators), order=np.array(order, dtype=np.int64), ji=ji,
                         jf=jf, body_params=bp, reflected_inertia=refl, damping=damping,
                         joint_of_body=joint_of_body, actuator_dofs=act_dofs, q_lower=q_lo, q_upper=q_up,
                         v_lower=v_lo, v_upper=v_up, a_lower=a_lo, a_upper=a_up,
                         quaternion_starts=np.array(quats, dtype=np.int64))
