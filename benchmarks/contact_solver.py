"""Constraint-solver micro-benchmark: mallard's assembly + Newton solve vs. MuJoCo's mj_forward.

Two scenes, stepped by MuJoCo (2 ms): a 27-body pile (spheres and boxes falling into a walled bin)
and the MuJoCo humanoid (27 DOF) falling on the floor. At sampled states the same constraint
problem (MuJoCo's M, qacc_smooth, Jacobians, parameters) is assembled and solved by mallard;
the agreement with MuJoCo's qacc and the per-call times are printed. MuJoCo's time covers its
whole mj_forward (kinematics, collision, solve), so the ratio bounds the solver's share from above.

Run: python benchmarks/contact_solver.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "multibody" / "contact"))

import mujoco  # noqa: E402  (benchmark only: the oracle)
from conftest import mujoco_assembler  # noqa: E402

from mallard.multibody.contact import SolveConstraints  # noqa: E402


def pile_xml(n: int = 27) -> str:
    rng = np.random.default_rng(0)
    bodies = []
    for i in range(n):
        x, y = rng.uniform(-0.15, 0.15, 2)
        z = 0.15 + 0.12 * i
        if i % 2:
            geom = f'<geom type="box" size="{rng.uniform(.03, .05):.3f} {rng.uniform(.03, .05):.3f} .04"/>'
        else:
            geom = f'<geom type="sphere" size="{rng.uniform(.03, .05):.3f}"/>'
        bodies.append(f'<body pos="{x:.3f} {y:.3f} {z:.3f}"><freejoint/>{geom}</body>')
    walls = "".join(f'<geom type="box" size="{sx} {sy} .2" pos="{px} {py} .2"/>' for sx, sy, px, py in
                    ((.02, .3, .3, 0), (.02, .3, -.3, 0), (.3, .02, 0, .3), (.3, .02, 0, -.3)))
    return (f'<mujoco><option timestep="0.002" jacobian="dense"/><worldbody>'
            f'<geom type="plane" size="2 2 .1"/>{walls}{"".join(bodies)}</worldbody></mujoco>')


def humanoid_model():
    path = HERE.parent.parent / "shared" / "models" / "mujoco" / "model" / "humanoid.xml"
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    m.opt.timestep = 0.002
    return m


def bench(name: str, m, seconds: float = 2.0, every: int = 25, show: bool = True) -> None:
    d = mujoco.MjData(m)
    nsteps = int(seconds / m.opt.timestep)
    t_mj, t_ours, worst, samples, nefc_max = 0.0, 0.0, 0.0, 0, 0
    for step in range(nsteps):
        mujoco.mj_step(m, d)
        if step % every or d.nefc == 0:
            continue
        t0 = time.perf_counter()
        mujoco.mj_forward(m, d)
        t_mj += time.perf_counter() - t0
        asm, M, a0, build_args = mujoco_assembler(mujoco, m, d)  # harness: copies MuJoCo's inputs
        t0 = time.perf_counter()
        problem = asm.Build(**build_args)
        res = SolveConstraints(problem, M, a0, tolerance=m.opt.tolerance, qacc_warmstart=d.qacc_warmstart)
        t_ours += time.perf_counter() - t0
        worst = max(worst, float(np.max(np.abs(res.qacc - d.qacc)) / (1 + np.max(np.abs(d.qacc)))))
        samples += 1
        nefc_max = max(nefc_max, d.nefc)
    if not show:
        return
    print(f"{name:10s} nv={m.nv:3d}  samples={samples:3d}  max nefc={nefc_max:4d}  "
          f"mujoco mj_forward {1e3 * t_mj / samples:7.3f} ms  mallard assemble+solve {1e3 * t_ours / samples:7.3f} ms  "
          f"ratio {t_ours / t_mj:6.1f}x  max rel |qacc - mujoco| {worst:.1e}")


def main() -> None:
    # warm up the compiled kernels
    bench("warmup", mujoco.MjModel.from_xml_string(pile_xml(3)), seconds=0.2, every=5, show=False)
    bench("pile27", mujoco.MjModel.from_xml_string(pile_xml()))
    bench("humanoid", humanoid_model())


if __name__ == "__main__":
    main()
