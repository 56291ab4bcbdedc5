"""Framework overhead benchmark: ten Python first-order filters in a chain, mallard vs pydrake.

Each filter is a plain Python LeafSystem with one continuous state, xdot = (u - x) / tau and output y = x
(declared with prerequisites_of_calc={xc_ticket()}); a ConstantVectorSource drives the first one. The diagram
is simulated for 10 s with fixed-step RK2 (h = 1 ms, 10,000 steps) on each engine. Prints both wall times and
the ratio pydrake / mallard (> 1 means mallard is faster). With --profile, prints where mallard's time goes.

    python benchmarks/framework_chain.py [--profile] [--t-final 10]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
import types

import numpy as np

N_FILTERS = 10
TAU = 0.05


def _namespace(engine: str):
    ns = types.SimpleNamespace()
    if engine == "mallard":
        from mallard.systems.analysis import ResetIntegratorFromFlags, Simulator
        from mallard.systems.framework import DiagramBuilder, LeafSystem
        from mallard.systems.primitives import ConstantVectorSource
    else:
        from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator
        from pydrake.systems.framework import DiagramBuilder, LeafSystem
        from pydrake.systems.primitives import ConstantVectorSource
    ns.DiagramBuilder, ns.LeafSystem, ns.Simulator = DiagramBuilder, LeafSystem, Simulator
    ns.ConstantVectorSource, ns.ResetIntegratorFromFlags = ConstantVectorSource, ResetIntegratorFromFlags
    return ns


def _filter_class(LeafSystem):
    class PyFilter(LeafSystem):
        """xdot = (u - x) / tau, y = x: the way a user writes it with the public pydrake API."""

        def __init__(self, tau: float):
            super().__init__()
            self.tau = tau
            self.DeclareVectorInputPort("u", 1)
            self.DeclareContinuousState(1)
            self.DeclareVectorOutputPort("y", 1, self.CalcY, prerequisites_of_calc={self.xc_ticket()})

        def DoCalcTimeDerivatives(self, context, derivatives):
            x = context.get_continuous_state_vector().GetAtIndex(0)
            u = self.get_input_port(0).Eval(context)[0]
            derivatives.get_mutable_vector().SetAtIndex(0, (u - x) / self.tau)

        def CalcY(self, context, output):
            output.SetAtIndex(0, context.get_continuous_state_vector().GetAtIndex(0))
    return PyFilter


def build_and_simulate(engine: str, t_final: float, profile: bool = False):
    """Returns (wall seconds for AdvanceTo, final state, profile text or None)."""
    ns = _namespace(engine)
    PyFilter = _filter_class(ns.LeafSystem)
    builder = ns.DiagramBuilder()
    source = builder.AddSystem(ns.ConstantVectorSource(np.array([1.0])))
    prev = source.get_output_port(0)
    for _ in range(N_FILTERS):
        f = builder.AddSystem(PyFilter(TAU))
        builder.Connect(prev, f.get_input_port(0))
        prev = f.get_output_port(0)
    diagram = builder.Build()
    sim = ns.Simulator(diagram)
    ns.ResetIntegratorFromFlags(sim, "runge_kutta2", 1e-3)
    sim.Initialize()
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    sim.AdvanceTo(t_final)
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    x = sim.get_context().get_continuous_state_vector().CopyToVector()
    text = None
    if profiler:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("tottime").print_stats(25)
        text = out.getvalue()
    return wall, x, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--t-final", type=float, default=10.0, help="simulated seconds (default 10)")
    parser.add_argument("--profile", action="store_true", help="cProfile mallard's AdvanceTo")
    args = parser.parse_args()
    steps = round(args.t_final / 1e-3)
    print(f"{N_FILTERS} Python first-order filters in a chain, RK2 fixed step 1 ms, {args.t_final} s "
          f"({steps} steps, {2 * steps * N_FILTERS} filter derivative evaluations)")
    mallard_wall, x_m, prof = build_and_simulate("mallard", args.t_final, args.profile)
    print(f"mallard : {mallard_wall:8.3f} s wall  ({1e6 * mallard_wall / steps:7.1f} us/step)")
    try:
        drake_wall, x_d, _ = build_and_simulate("pydrake", args.t_final)
    except ImportError:
        print("pydrake : not installed, no comparison")
        drake_wall = None
    if drake_wall is not None:
        print(f"pydrake : {drake_wall:8.3f} s wall  ({1e6 * drake_wall / steps:7.1f} us/step)")
        print(f"ratio pydrake/mallard = {drake_wall / mallard_wall:.2f}  (target >= 2)")
        print(f"max |x_mallard - x_pydrake| = {np.max(np.abs(x_m - x_d)):.3e}")
    if prof:
        print("\nmallard profile (top functions by own time):")
        print(prof)


if __name__ == "__main__":
    main()
