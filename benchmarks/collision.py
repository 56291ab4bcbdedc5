"""Collision detection (broad + narrow phase) on 100, 1000 and 10000 random spheres and boxes:
mallard's engine against MuJoCo's mj_collision on the same scene, in one run.

The boxes and spheres (sizes 5-15 cm) are scattered in a cube whose volume grows with the count,
so the number of touching pairs grows linearly. Prints the time per query for both engines, the
contact counts, the ratio MuJoCo/mallard (> 1 means mallard is faster) and the growth exponent of
each engine's time with the geometry count (1 = linear).
Run: python benchmarks/collision.py
"""
from __future__ import annotations

import time

import numpy as np
from scipy.spatial.transform import Rotation

SPHERE, BOX = 2, 6


def make_scene(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    side = 1.2 * (n / 100.0) ** (1.0 / 3.0)
    types = np.where(rng.random(n) < 0.5, SPHERE, BOX)
    sizes = np.zeros((n, 3))
    sizes[types == SPHERE, 0] = rng.uniform(0.05, 0.15, int((types == SPHERE).sum()))
    sizes[types == BOX] = rng.uniform(0.05, 0.12, (int((types == BOX).sum()), 3))
    R = Rotation.random(n, random_state=rng).as_matrix()
    p = rng.uniform(0.0, side, (n, 3))
    return types, sizes, R, p


def best_time(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def mallard_query(types, sizes, R, p):
    from mallard.geometry.collision import CollisionModel

    n = len(types)
    zeros = np.zeros(n, np.int64)
    model = CollisionModel(types, sizes, np.arange(n), np.zeros((0, 3)), zeros, zeros, np.zeros((0, 4)), zeros,
                           zeros, np.zeros(n), np.ones(n, np.int64), np.ones(n, np.int64), [])
    R = np.ascontiguousarray(R)
    p = np.ascontiguousarray(p)
    return lambda: model.contacts(R, p)


def mujoco_query(types, sizes, R, p):
    import mujoco

    bodies = []
    for k, (t, s) in enumerate(zip(types, sizes)):
        size = repr(float(s[0])) if t == SPHERE else " ".join(repr(float(x)) for x in s)
        kind = "sphere" if t == SPHERE else "box"
        bodies.append(f'<body><freejoint/><geom type="{kind}" size="{size}"/></body>')
    xml = ('<mujoco><option><flag gravity="disable"/></option><size memory="1G"/>'
           f'<worldbody>{"".join(bodies)}</worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    q = Rotation.from_matrix(R).as_quat()  # x y z w
    qpos = np.concatenate([p, q[:, [3, 0, 1, 2]]], axis=1).reshape(-1)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)

    def run():
        mujoco.mj_collision(m, d)
        return d.ncon
    return run


def main() -> None:
    counts = [100, 1000, 10000]
    rows = []
    print(f"{'geoms':>7} {'mallard [ms]':>13} {'contacts':>9} {'mujoco [ms]':>12} {'contacts':>9} {'mujoco/mallard':>15}")
    for n in counts:
        scene = make_scene(n)
        ours = mallard_query(*scene)
        repeats = 20 if n <= 1000 else 5
        t_ours = best_time(ours, repeats)
        n_ours = len(ours()[0])
        try:
            theirs = mujoco_query(*scene)
            t_mj = best_time(theirs, repeats)
            n_mj = theirs()
        except ImportError:
            t_mj, n_mj = float("nan"), -1
        rows.append((n, t_ours, t_mj))
        print(f"{n:>7} {1e3 * t_ours:>13.3f} {n_ours:>9} {1e3 * t_mj:>12.3f} {n_mj:>9} {t_mj / t_ours:>15.2f}")
    logn = np.log([r[0] for r in rows])
    k_ours = np.polyfit(logn, np.log([r[1] for r in rows]), 1)[0]
    k_mj = np.polyfit(logn, np.log([r[2] for r in rows]), 1)[0] if np.all(np.isfinite([r[2] for r in rows])) else float("nan")
    print(f"growth exponent (time ~ n^k): mallard k = {k_ours:.2f}, mujoco k = {k_mj:.2f}")


if __name__ == "__main__":
    main()
