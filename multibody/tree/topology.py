"""Topology checks and compilation of the tree into a CompiledModel at Finalize()."""
from __future__ import annotations

import numpy as np

from mallard.common.lazy_import import LazyModule

from ..kernels.compiled_model import CompiledModel

nx = LazyModule("networkx")  # imported when first used (only to name the bodies of a loop)


def check_topology(bodies, joints) -> None:
    """Raise ValueError if the joints close a loop (the graph of bodies and joints, direction ignored, must be a
    forest). A joint's direction does not matter here, as in Drake: a body with two joints that name it as child
    (a link welded to World that already has a parent joint) re-roots its tree (spanning_tree reverses one)."""
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
    component = _components(num_bodies, joints)
    roots = [b for b in range(1, num_bodies) if as_child[b] == 0 and as_parent[b] > 0]
    lone = [b for b in range(1, num_bodies) if as_child[b] == 0 and as_parent[b] == 0]
    bases, taken = [], {component[0]}  # a tree connected to World (maybe through a re-rooting weld) needs none
    for b in sorted(roots, key=lambda b: (-int(as_parent[b]), b)) + lone:
        if component[b] not in taken:
            taken.add(component[b])
            bases.append(b)
    return bases


def _components(num_bodies: int, joints) -> list[int]:
    """The connected component (a representative body index) of every body, joints taken without direction."""
    root = list(range(num_bodies))

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    for j in joints:
        root[find(int(j.parent_body().index()))] = find(int(j.child_body().index()))
    return [find(b) for b in range(num_bodies)]


# Joint types whose parent/child order the tree may reverse, as in Drake (MultibodyPlant::Finalize).
_REVERSIBLE = ("revolute", "prismatic", "weld")


def spanning_tree(num_bodies: int, joints) -> tuple[list[int], dict]:
    """Body indices (world excluded) depth first from the world, and each body's inboard (joint, reversed).

    Joints are followed in either direction, siblings in joint-index order: a joint reached from its child body
    is reversed (its parent body becomes the outboard one), as Drake's forest builder does when a link that has
    a parent joint is welded to World. Only revolute, prismatic and weld joints can be reversed (Drake's rule).
    """
    adjacent: dict[int, list] = {}
    for j in sorted(joints, key=lambda j: int(j.index())):
        p, c = int(j.parent_body().index()), int(j.child_body().index())
        adjacent.setdefault(p, []).append((j, c, False))
        adjacent.setdefault(c, []).append((j, p, True))
    order: list[int] = []
    inboard: dict[int, tuple] = {}
    stack = list(reversed(adjacent.get(0, [])))
    seen = {0}
    while stack:
        j, b, reversed_ = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        if reversed_ and j.type_name() not in _REVERSIBLE:
            raise ValueError(
                f"MultibodyPlant::Finalize(): parent/child ordering for {j.type_name()} joint '{j.name()}' would "
                "have to be reversed to make a tree-structured model (its child body "
                f"'{j.child_body().name()}' is closer to World). Only {', '.join(_REVERSIBLE)} joints can be "
                "reversed, as in Drake: swap the joint's parent and child so that its parent is closer to World.")
        order.append(b)
        inboard[b] = (j, reversed_)
        stack.extend(reversed([e for e in adjacent.get(b, []) if e[1] not in seen]))
    if len(order) != num_bodies - 1:
        missing = set(range(1, num_bodies)) - set(order)
        raise ValueError(f"bodies {sorted(missing)} are not connected to the world")
    return order, inboard


def _edge_geometry(j, reversed_: bool) -> tuple:
    """(R_PF, p_PF, R_MB, p_MB, axis, pitch) of the tree edge that joint j makes: P the inboard body, B the
    outboard one. A reversed joint moves its parent body relative to its child: X_CP = X_CJc · X_JcJp(q) · X_JpP,
    where X_JcJp(q) = X_FM(q)⁻¹ is the same joint type about the negated axis at the same q (revolute, prismatic:
    a rotation or slide by -q), and a weld's fixed X_FM is inverted."""
    R_FM, p_FM = j._fixed_X_FM()
    axis, pitch = j._axis_and_pitch()
    inner, outer = (j.frame_on_child(), j.frame_on_parent()) if reversed_ else (j.frame_on_parent(),
                                                                                 j.frame_on_child())
    if reversed_:
        R_FM, p_FM, axis = R_FM.T, -(R_FM.T @ p_FM), -axis
    R_PF = inner._R_BF @ R_FM
    p_PF = inner._p_BF + inner._R_BF @ p_FM
    R_MB = outer._R_BF.T
    p_MB = -(R_MB @ outer._p_BF)
    return R_PF, p_PF, R_MB, p_MB, axis, pitch


def compile_model(bodies, joints, actuators) -> CompiledModel:
    """Assign q/v layouts to the joints (depth-first order) and pack every array the pipeline needs."""
    nb = len(bodies)
    order, inboard = spanning_tree(nb, joints)
    position = {id(j): k for k, j in enumerate(joints)}  # a joint's place in `joints` (its index, unless removed)
    ji = np.zeros((nb, 6), dtype=np.int64)
    jf = np.zeros((nb, 28))
    jf[0, 0:9] = np.eye(3).ravel()
    jf[0, 12:21] = np.eye(3).ravel()
    joint_of_body = np.full(nb, -1, dtype=np.int64)
    q0 = v0 = 0
    for b in order:
        j, reversed_ = inboard[b]
        j._position_start, j._velocity_start = q0, v0
        j._mobilized_body, j._reversed = b, reversed_
        nq, nv = j.num_positions(), j.num_velocities()
        inner = j.frame_on_child() if reversed_ else j.frame_on_parent()
        ji[b] = (int(inner.body().index()), j._type_code, q0, nq, v0, nv)
        R_PF, p_PF, R_MB, p_MB, axis, pitch = _edge_geometry(j, reversed_)
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
