"""Drake's discrete hydroelastic contact (DiscreteUpdateManager::AppendDiscreteContactPairsForHydroelasticContact)
on the compiled step: the contact surfaces of the hydroelastic pairs (geometry/hydroelastic/surface_kernels.py)
become one discrete contact pair per face, at its centroid C:

* g = 1/(1/g_M + 1/g_N), g_M = ∇p_M·n and g_N = −∇p_N·n (∞ for a rigid geometry), n the face normal (out of N
  into M); faces with g_M or g_N below 1e-14 or area below 1e-14 m² are skipped;
* stiffness k = A·g, fe0 = A·p(C), signed distance φ0 = −p(C)/g;
* Hunt–Crossley dissipation (E_N·d_M + E_M·d_N)/(E_M + E_N) over the hydroelastic moduli (rigid: ∞), relaxation
  time τ_M + τ_N, dynamic friction 2μ_Mμ_N/(μ_M + μ_N); A is M's body, B is N's, the contact normal points from A
  to B.

`HydroModel` (m.hydro) holds the packed representations (geometry/hydroelastic/representation.py) compiled from the
SceneGraph's geometry data, the hydroelastic pairs (rows in GeometryId order) and the contact model: 0 no
hydroelastic contact (kPoint), 1 with point-contact fallback, 2 strict (kHydroelastic: a penetrating point pair that
is not a hydroelastic pair is an error).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ...geometry.hydroelastic.surface_kernels import contact_surfaces
from .structs import F1, F2, I1, I2, INT, declare, floats, ints

HYDRO_OFF, HYDRO_FALLBACK, HYDRO_STRICT = 0, 1, 2
_AREA_EPS = 1e-14
_GRADIENT_EPS = 1e-14


@structref.register
class HydroModelType(types.StructRef):
    """numba type of HydroModel."""


class HydroModel(structref.StructRefProxy):
    """Hydroelastic representations and pairs of the proximity geometries (see the module docstring)."""


HYDRO_MODEL = declare(HydroModelType, HydroModel, [
    ("mode", INT), ("triangles", INT),
    ("pairs", I2), ("pair_key", I1),             # hydroelastic pairs (rows), sorted keys i·ng + j (i < j)
    ("gid", I1), ("kind", I1), ("modulus", F1), ("slab", F1), ("bound", F2),
    ("tet_adr", I1), ("tet_num", I1), ("sv", F2), ("st", I2), ("sp", F1), ("sg", F2), ("se0", F1), ("tsph", F2),
    ("tri_adr", I1), ("tri_num", I1), ("rv", F2), ("rt", I2), ("tn", F2), ("trsph", F2),
])


@njit(cache=True)
def new_hydro_model(mode, triangles, pairs, pair_key, gid, kind, modulus, slab, bound, tet_adr, tet_num, sv, st, sp,
                    sg, se0, tsph, tri_adr, tri_num, rv, rt, tn, trsph):
    h = structref.new(HYDRO_MODEL)
    h.mode, h.triangles, h.pairs, h.pair_key, h.gid, h.kind = mode, triangles, pairs, pair_key, gid, kind
    h.modulus, h.slab, h.bound, h.tet_adr, h.tet_num, h.sv, h.st = modulus, slab, bound, tet_adr, tet_num, sv, st
    h.sp, h.sg, h.se0, h.tsph, h.tri_adr, h.tri_num = sp, sg, se0, tsph, tri_adr, tri_num
    h.rv, h.rt, h.tn, h.trsph = rv, rt, tn, trsph
    return h


def CompileHydro(scene, mode: int, triangles: bool) -> HydroModel:
    """The HydroModel of a CompiledScene (None: no geometry) for contact model `mode` (HYDRO_*)."""
    h = scene.hydroelastic() if scene is not None else None
    if h is not None and mode == HYDRO_FALLBACK and len(h.pairs) == 0:
        mode = HYDRO_OFF  # no pair can have a surface: point contact for all, without the surface stage per step
    if scene is None or mode == HYDRO_OFF:
        z, zi = np.zeros(0), np.zeros(0, np.int64)
        z2, z4 = np.zeros((0, 3)), np.zeros((0, 4))
        return new_hydro_model(HYDRO_OFF, int(triangles), np.zeros((0, 2), np.int64), zi, zi, zi, z, z, z4, zi, zi,
                               z2, np.zeros((0, 4), np.int64), z, z2, z, z4, zi, zi, z2, np.zeros((0, 3), np.int64),
                               z2, z4)
    n = len(h.kind)
    key = np.sort(h.pairs[:, 0] * n + h.pairs[:, 1]) if len(h.pairs) else np.zeros(0, np.int64)
    (kind, modulus, slab, bound, tet_adr, tet_num, sv, st, sp, sg, se0, tsph, tri_adr, tri_num, rv, rt, tn,
     trsph) = h.arrays()
    return new_hydro_model(
        int(mode), int(triangles), ints(h.pairs, (-1, 2)), ints(key), ints(h.gid), ints(kind), floats(modulus),
        floats(slab), floats(bound, (-1, 4)), ints(tet_adr), ints(tet_num), floats(sv, (-1, 3)), ints(st, (-1, 4)),
        floats(sp), floats(sg, (-1, 3)), floats(se0), floats(tsph, (-1, 4)), ints(tri_adr), ints(tri_num),
        floats(rv, (-1, 3)), ints(rt, (-1, 3)), floats(tn, (-1, 3)), floats(trsph, (-1, 4)))


@njit(cache=True)
def is_hydro_pair(hm, i, j, ng):
    """Whether rows i, j form a hydroelastic pair (binary search of the sorted keys)."""
    if hm.mode == HYDRO_OFF or hm.pair_key.shape[0] == 0:
        return False
    a, b = (i, j) if i < j else (j, i)
    key = a * ng + b
    k = np.searchsorted(hm.pair_key, key)
    return k < hm.pair_key.shape[0] and hm.pair_key[k] == key


@njit(cache=True)
def no_surfaces(d):
    """No contact surfaces this step (empty d.hyd_*; nothing to do when they already are)."""
    if d.hyd_surf.shape[0] == 0 and d.hyd_sface.shape[0] == 1 and d.hyd_fs.shape[0] == 1 and d.hyd_fa.shape[0] == 0:
        return
    z1, z2, i1 = np.zeros(0), np.zeros((0, 3)), np.zeros(0, np.int64)
    d.hyd_surf, d.hyd_sface, d.hyd_V, d.hyd_vp, d.hyd_fi = np.zeros((0, 2), np.int64), np.zeros(1, np.int64), z2, z1, i1
    d.hyd_fs, d.hyd_fn, d.hyd_fc, d.hyd_fa, d.hyd_fp = np.zeros(1, np.int64), z2, z2, z1, z1
    d.hyd_gM, d.hyd_gN = z2, z2


@njit(cache=True)
def hydro_surfaces(m, d):
    """The step's contact surfaces into d.hyd_* (surface_kernels.contact_surfaces' arrays)."""
    hm = m.hydro
    h = (hm.kind, hm.modulus, hm.slab, hm.bound, hm.tet_adr, hm.tet_num, hm.sv, hm.st, hm.sp, hm.sg, hm.se0, hm.tsph,
         hm.tri_adr, hm.tri_num, hm.rv, hm.rt, hm.tn, hm.trsph)
    out = contact_surfaces(hm.pairs, hm.gid, d.R_WG, d.p_WG, h, hm.triangles != 0)
    (d.hyd_surf, d.hyd_sface, d.hyd_V, d.hyd_vp, d.hyd_fi, d.hyd_fs, d.hyd_fn, d.hyd_fc, d.hyd_fa, d.hyd_fp,
     d.hyd_gM, d.hyd_gN) = out


@njit(cache=True)
def hydro_pairs(m, d):
    """Drake's discrete pairs of the surfaces d.hyd_*: (geometry rows (n, 2) [M, N], surface and face of each (n, 2),
    centroid (n, 3), normal from A to B (n, 3), pair parameters (n, 5) [k, d, τ, μ, fe0], φ0 (n))."""
    cm = m.contact
    nf = d.hyd_fa.shape[0]
    geom = np.empty((nf, 2), np.int64)
    sf = np.empty((nf, 2), np.int64)
    pos = np.empty((nf, 3))
    nrm = np.empty((nf, 3))
    par = np.empty((nf, 5))
    phi = np.empty(nf)
    n = 0
    for s in range(d.hyd_surf.shape[0]):
        i, j = d.hyd_surf[s, 0], d.hyd_surf[s, 1]
        EM, EN = m.hydro.modulus[i], m.hydro.modulus[j]
        dM, dN = cm.geom_drake[i, 1], cm.geom_drake[j, 1]
        den = EM + EN
        if den == 0.0:
            diss = 0.0
        elif np.isinf(EM):
            diss = dN
        elif np.isinf(EN):
            diss = dM
        else:
            diss = EN / den * dM + EM / den * dN
        tau = cm.geom_drake[i, 2] + cm.geom_drake[j, 2]
        muA, muB = cm.geom_drake[i, 4], cm.geom_drake[j, 4]
        mu = 0.0 if muA + muB == 0.0 else 2.0 * muA * muB / (muA + muB)
        for f in range(d.hyd_sface[s], d.hyd_sface[s + 1]):
            A = d.hyd_fa[f]
            if not A > _AREA_EPS:
                continue
            nh = d.hyd_fn[f]
            gM = d.hyd_gM[f] @ nh if not np.isnan(d.hyd_gM[f, 0]) else np.inf
            gN = -(d.hyd_gN[f] @ nh) if not np.isnan(d.hyd_gN[f, 0]) else np.inf
            if gM < _GRADIENT_EPS or gN < _GRADIENT_EPS:
                continue
            gg = 1.0 / (1.0 / gM + 1.0 / gN)
            p0 = d.hyd_fp[f]
            geom[n, 0], geom[n, 1] = i, j
            sf[n, 0], sf[n, 1] = s, f
            pos[n] = d.hyd_fc[f]
            nrm[n] = -nh
            par[n, 0], par[n, 1], par[n, 2], par[n, 3], par[n, 4] = A * gg, diss, tau, mu, A * p0
            phi[n] = -p0 / gg
            n += 1
    return geom[:n].copy(), sf[:n].copy(), pos[:n].copy(), nrm[:n].copy(), par[:n].copy(), phi[:n].copy()
