"""The SDF collision kernels are cached on disk: a new process loads them instead of compiling them, and
repeated processes do not add cache entries (numba cache files of the sdf_* modules)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = r"""
import json, time
import numpy as np
from mallard.geometry.collision import sdf_collide as C, sdf_mesh as M, sdf_pairs as P
from mallard.geometry.collision.sdf import (SDF_BOWL, SPHERE, SdfShape, halton, sdf_collide, sdf_mesh_collide,
                                            sdf_plane_collide, sdf_surface_mesh)
halton(1, 2)  # numba's own start-up, paid by any compiled kernel, before the clock starts
bowl = SdfShape(SDF_BOWL, np.array([0.4, 1.0, 0.02]), np.array([0, 0, 0, 1.02, 1.02, 1.02]))
t = time.perf_counter()
_, _, d = sdf_collide(SdfShape.Primitive(SPHERE, [0.1]), (np.eye(3), np.array([0, 0, -0.881])), bowl,
                      (np.eye(3), np.zeros(3)))
first = time.perf_counter() - t
v = np.array([[x, y, z] for z in (-.1, .1) for y in (-.1, .1) for x in (-.1, .1)])
sdf_mesh_collide(v, np.array([[0, 1, 3], [0, 3, 2]]), (np.eye(3), np.array([0, 0, -0.87])), bowl,
                 (np.eye(3), np.zeros(3)))
verts, _ = sdf_surface_mesh(bowl, resolution=8)
sdf_plane_collide((np.eye(3), np.zeros(3)), verts, (np.eye(3), np.array([0, 0, 1.0])))
kernels = [C._collide_kernel, P._triangles_kernel, P._plane_hull_kernel, M._march]
misses = sum(sum(k.stats.cache_misses.values()) for k in kernels)
print(json.dumps({"first_contact_s": first, "contacts": len(d), "misses": misses,
                  "cache_dir": C._collide_kernel.stats.cache_path}))
"""


def _run() -> dict:
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _sdf_cache_files(cache_dir: str) -> list[str]:
    return sorted(p.name for p in Path(cache_dir).iterdir()
                  if p.name.startswith("sdf_") and p.suffix in (".nbi", ".nbc"))


def test_sdf_kernels_load_from_the_disk_cache_in_a_new_process():
    first = _run()  # compiles whatever is not cached yet
    files = _sdf_cache_files(first["cache_dir"])
    second = _run()
    print(f"\nfirst SDF contact in a new process: {second['first_contact_s']:.3f} s ({len(files)} sdf cache files)")
    assert second["contacts"] > 0
    assert second["misses"] == 0  # loaded, not compiled
    assert _sdf_cache_files(second["cache_dir"]) == files  # no new cache entries per process
