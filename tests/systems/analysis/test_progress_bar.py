"""mallard's progress bars start no thread: a process that showed a sweep's or a simulation's bar can still fork its
local workers from a single thread (tqdm's own bars keep a monitor thread for the life of the process)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import io, json, threading
    from mallard.systems.analysis import ParallelMap, Simulator
    from mallard.systems.analysis.progress_bar import ProgressBar
    from mallard.systems.primitives import Integrator, ConstantVectorSource
    from mallard.systems.framework import DiagramBuilder

    assert ParallelMap(abs, [-1, 2, -3], num_parallel_executions=2, progress=True) == [1, 2, 3]
    builder = DiagramBuilder()
    source, integrator = builder.AddSystem(ConstantVectorSource([1.0])), builder.AddSystem(Integrator(1))
    builder.Connect(source.get_output_port(0), integrator.get_input_port(0))
    Simulator(builder.Build()).AdvanceTo(0.5, show_progress=True)
    bar = ProgressBar(total=3, file=io.StringIO(), disable=False)
    bar.update(3)
    bar.close()
    print(json.dumps(sorted(t.name for t in threading.enumerate())))
""")


def test_progress_bars_start_no_monitor_thread() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "samples" in out.stderr and "simulating" in out.stderr  # both bars were drawn
    threads = json.loads(out.stdout.strip().splitlines()[-1])
    assert "tqdm_monitor" not in threads, threads
