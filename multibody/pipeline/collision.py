"""Collision of the discrete step (MuJoCo's mj_collision, MJX's collision_driver.py): the world poses of the
proximity geometries from the body poses, then the scene's broad phase, narrow phase and contact frames
(geometry/collision/engine.py) for the dynamic pairs and MuJoCo's explicit pairs, in one compiled pass.

`GeomModel` is compiled from the SceneGraph context's proximity geometries (geometry/compiled_scene.py) and the
plant's body of each; it is rebuilt when that geometry data changes.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ...geometry.collision.engine import pair_contact_points, pairs_contact_points, step_pairs
from ...geometry.compiled_scene import compose_poses_into
from ...geometry.collision.narrowphase import MAXCON, MAXCON_HFIELD
from .structs import F1, F2, F3, I1, I2, INT, declare, floats, ints


@structref.register
class GeomModelType(types.StructRef):
    """numba type of GeomModel."""


class GeomModel(structref.StructRefProxy):
    """Proximity geometries (rows in SceneGraph's proximity order) and MuJoCo's explicit pairs."""


GEOM_MODEL = declare(GeomModelType, GeomModel, [
    ("ngeom", INT),
    ("geom_type", I1), ("geom_size", F2),        # collision/narrowphase.py type codes and sizes (ng, 3)
    ("geom_body", I1),                           # plant body of each geometry
    ("geom_frame", I1),                          # SceneGraph frame row (pairs on one frame never collide)
    ("R_BG", F3), ("p_BG", F2),                  # pose of the geometry in its body
    ("margin", F1), ("gap", F1),                 # MuJoCo margin and gap [m]
    ("contype", I1), ("conaffinity", I1),
    ("excluded", I1),                            # filtered pair keys i·ng + j (i < j), explicit pairs included
    ("verts", F2), ("vadr", I1), ("vnum", I1),   # convex hull vertices (meshes), height-field grids
    ("faces", F1), ("fadr", I1),                 # packed hull faces of the mesh rows
    ("cap0", INT),                               # contacts per pair the narrow phase reserves
    ("graph", I1), ("gadr", I1),                 # hull graphs of the mesh rows (collision/mesh_graph.py)
    ("radii", F1),                               # bounding radius of each geometry about its origin
    ("box_local", F2),                           # (ng, 6) a mesh's hull box in its frame: center, half extents
    ("plane_pairs", I2),                         # the broad phase's pairs with planes / height fields, in order
    ("cand_pairs", I2), ("listed", INT),         # the bounded pairs the static filters keep, when few (pair_list.py)
    ("pair_geom", I2),                           # (np, 2) MuJoCo explicit pairs, in pair order
    ("pair_margin", F1), ("pair_gap", F1),
])


@njit(cache=True)
def new_geom_model(ngeom, geom_type, geom_size, geom_body, geom_frame, R_BG, p_BG, margin, gap, contype, conaffinity,
                   excluded, verts, vadr, vnum, faces, fadr, cap0, graph, gadr, radii, box_local, plane_pairs,
                   cand_pairs, listed, pair_geom, pair_margin, pair_gap):
    g = structref.new(GEOM_MODEL)
    g.ngeom, g.geom_type, g.geom_size, g.geom_body, g.geom_frame = ngeom, geom_type, geom_size, geom_body, geom_frame
    g.R_BG, g.p_BG, g.margin, g.gap, g.contype, g.conaffinity = R_BG, p_BG, margin, gap, contype, conaffinity
    g.excluded, g.verts, g.vadr, g.vnum, g.faces, g.fadr, g.cap0 = excluded, verts, vadr, vnum, faces, fadr, cap0
    g.graph, g.gadr, g.radii, g.box_local, g.plane_pairs = graph, gadr, radii, box_local, plane_pairs
    g.cand_pairs, g.listed = cand_pairs, listed
    g.pair_geom, g.pair_margin, g.pair_gap = pair_geom, pair_margin, pair_gap
    return g


def EmptyGeomModel() -> GeomModel:
    """A model without proximity geometries (a plant not connected to a SceneGraph)."""
    z, zi = np.zeros(0), np.zeros(0, np.int64)
    return new_geom_model(0, zi, np.zeros((0, 3)), zi, zi, np.zeros((0, 3, 3)), np.zeros((0, 3)), z, z, zi, zi, zi,
                          np.zeros((0, 3)), zi, zi, z, np.zeros(1, np.int64), 0, zi, np.zeros(1, np.int64), z,
                          np.zeros((0, 6)), np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64), 1,
                          np.zeros((0, 2), np.int64), z, z)


def CompileGeometry(scene, geom_body: np.ndarray) -> GeomModel:
    """The GeomModel of a CompiledScene (geometry/compiled_scene.py) whose proximity geometry k is attached to the
    plant body geom_body[k]."""
    cm = scene.model
    rows = scene.proximity_rows
    n = int(cm.n)
    if cm.forced is None:
        pairs, pm, pg = np.zeros((0, 2), np.int64), np.zeros(0), np.zeros(0)
    else:
        pairs, pm, pg = cm.forced
    return new_geom_model(
        n, ints(cm.types), floats(cm.sizes, (n, 3)), ints(geom_body), ints(cm.frame),
        floats(scene.R_FG[rows], (n, 3, 3)), floats(scene.p_FG[rows], (n, 3)), floats(cm.margins),
        floats(scene.gaps), ints(cm.contype), ints(cm.conaffinity), ints(cm._dynamic_excluded),
        floats(cm.verts, (-1, 3)), ints(cm.vadr), ints(cm.vnum), floats(cm.faces), ints(cm.fadr),
        int(max(MAXCON, MAXCON_HFIELD)), ints(cm.graph), ints(cm.gadr), floats(cm.radii), floats(cm.box_local, (n, 6)),
        ints(cm.plane_pairs, (-1, 2)), ints(cm.cand_pairs, (-1, 2)), int(cm.listed), ints(pairs, (-1, 2)), floats(pm),
        floats(pg))


@njit(cache=True)
def geometry_poses(m, d):
    """X_WG = X_WB·X_BG of every proximity geometry into d.R_WG, d.p_WG (SceneGraph's own composition), in place
    once they are sized."""
    g = m.geom
    if d.R_WG.shape[0] != g.ngeom:
        d.R_WG, d.p_WG = np.empty((g.ngeom, 3, 3)), np.empty((g.ngeom, 3))
    compose_poses_into(g.geom_body, g.R_BG, g.p_BG, d.R_WB, d.p_WB, d.R_WG, d.p_WG)


@njit(cache=True)
def collision(m, d):
    """Every contact candidate of the step into d.col_*: the dynamic pairs' contacts (within the sum of the two
    margins + gaps), then the explicit pairs' (their own margin + gap): distance, point, MuJoCo contact frame
    (rows: normal from geometry 1 to 2, two tangents), geometry rows, margin, and the explicit pair (-1: none).
    A step without candidate pairs keeps the last step's empty arrays (they are not written)."""
    g = m.geom
    geometry_poses(m, d)
    pairs = step_pairs(g.geom_type, g.geom_size, d.R_WG, d.p_WG, g.verts, g.vadr, g.vnum, g.margin, g.geom_frame,
                       g.contype, g.conaffinity, g.excluded, g.graph, g.gadr, g.radii, g.box_local, g.plane_pairs,
                       g.cand_pairs, g.listed != 0)
    npair = g.pair_geom.shape[0]
    if pairs.shape[0] == 0 and npair == 0:
        if d.col_dist.shape[0] != 0:
            z, zi = np.zeros(0), np.zeros(0, np.int64)
            d.col_dist, d.col_pos, d.col_frame, d.col_margin = z, np.zeros((0, 3)), np.zeros((0, 3, 3)), z
            d.col_g1, d.col_g2, d.col_pair = zi, zi, zi
        return
    dist, pos, frame, g1, g2, margin, _gap = pairs_contact_points(
        pairs, g.geom_type, g.geom_size, d.R_WG, d.p_WG, g.verts, g.vadr, g.vnum, g.margin, g.gap, g.cap0, g.faces,
        g.fadr, g.graph, g.gadr, g.radii)
    if npair == 0:
        d.col_dist, d.col_pos, d.col_frame, d.col_g1, d.col_g2, d.col_margin = dist, pos, frame, g1, g2, margin
        d.col_pair = np.full(dist.shape[0], -1, np.int64)
        return
    fd, fp, ff, f1, f2, fm, _fg, fpair = pair_contact_points(
        g.pair_geom, g.pair_margin, g.pair_gap, g.geom_type, g.geom_size, d.R_WG, d.p_WG, g.verts, g.vadr, g.vnum,
        g.faces, g.fadr, g.graph, g.gadr, g.radii)
    nd, nf = dist.shape[0], fd.shape[0]
    n = nd + nf
    d.col_dist = np.concatenate((dist, fd))
    col_pos = np.empty((n, 3))
    col_frame = np.empty((n, 3, 3))
    col_pos[:nd] = pos
    col_pos[nd:] = fp
    col_frame[:nd] = frame
    col_frame[nd:] = ff
    d.col_pos, d.col_frame = col_pos, col_frame
    d.col_g1 = np.concatenate((g1, f1))
    d.col_g2 = np.concatenate((g2, f2))
    d.col_margin = np.concatenate((margin, fm))
    pair = np.full(n, -1, np.int64)
    pair[nd:] = fpair
    d.col_pair = pair
