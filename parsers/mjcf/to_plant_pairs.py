"""MJCF explicit contact pairs (<contact><pair>) on the plant: each pair becomes a MujocoExplicitPair on its
first geom's proximity properties (geometry/mujoco_pairs.py), so that SceneGraph's contact query collides it
whatever the collision filters and the plant uses the pair's own parameters.

MuJoCo's compiler orders a pair's geoms so that geom1's body id is not above geom2's, and sorts the pairs
(stably) by their body-pair signature; that order is kept as the pairs' contact order. With
<flag override="enable"> the option's o_margin / o_solref / o_solimp / o_friction replace the pair's values
(MuJoCo's mj_assign* helpers; solreffriction then equals o_solref), condim and gap stay the pair's.
"""
from __future__ import annotations

import copy
import warnings

import numpy as np

from .errors import MjcfUnsupportedWarning
from .model import MjcfModel

_FRICTION5 = (1.0, 1.0, 0.005, 0.0001, 0.0001)


def _friction5(v) -> np.ndarray:
    """The pair's friction padded with MuJoCo's defaults when fewer than 5 numbers were given."""
    out = np.array(_FRICTION5)
    v = np.asarray(v, float).reshape(-1)[:5]
    out[:v.shape[0]] = v
    return out


def RegisterMjcfContactPairs(plant, model: MjcfModel, pm) -> None:
    """Attach every <contact><pair> of `model` to the proximity properties of its first geom (pm: MjcfPlantMap
    with the registered (collision, visual) ids per geom)."""
    from mallard.geometry import RoleAssign
    from mallard.geometry.mujoco_pairs import AddMujocoExplicitPair, MujocoExplicitPair
    opt = model.option
    override = bool(opt.flags.get("override", False))
    body = [geom.body for geom in model.geoms]
    ordered = []
    self_pairs = []
    for k, pair in enumerate(model.pairs):
        g1, g2 = pair.geom1, pair.geom2
        if g1 == g2:  # MuJoCo collides a geom with itself: contacts with a zero Jacobian, no effect on motion
            self_pairs.append(pair.name or model.geoms[g1].name or str(g1))
            continue
        if body[g1] > body[g2]:
            g1, g2 = g2, g1
        ordered.append(((min(body[g1], body[g2]) << 16) + max(body[g1], body[g2]), k, g1, g2, pair))
    ordered.sort(key=lambda t: (t[0], t[1]))
    sg = plant._scene_graph
    inspector = sg.model_inspector()
    source = plant.get_source_id()
    props: dict = {}
    skipped, seen, duplicates = [], set(), []
    for order, (_, _, g1, g2, pair) in enumerate(ordered):
        if frozenset((g1, g2)) in seen:  # the plant keys pair parameters by geom pair: the first pair is kept
            duplicates.append(pair.name or f"{model.geoms[g1].name or g1}-{model.geoms[g2].name or g2}")
            continue
        seen.add(frozenset((g1, g2)))
        cid1, cid2 = pm.geoms[g1][0], pm.geoms[g2][0]
        if cid1 is None or cid2 is None:
            skipped.append(pair.name or f"{model.geoms[g1].name or g1}-{model.geoms[g2].name or g2}")
            continue
        if override:
            margin = float(opt.o_margin)
            solref = np.asarray(opt.o_solref, float)
            solreffriction = solref
            solimp = np.asarray(opt.o_solimp, float)
            friction = _friction5(opt.o_friction)
        else:
            margin, solref, solimp = float(pair.margin), pair.solref, pair.solimp
            solreffriction, friction = pair.solreffriction, _friction5(pair.friction)
        try:
            rec = MujocoExplicitPair(partner=cid2, condim=int(pair.condim), friction=friction, solref=solref,
                                     solreffriction=np.asarray(solreffriction, float).reshape(-1)[:2], solimp=solimp,
                                     margin=margin, gap=float(pair.gap), order=order)
        except ValueError as exc:
            raise ValueError(f"MJCF model '{model.name}': contact pair '{pair.name or order}': {exc}") from None
        p = props.get(cid1)
        if p is None:
            p = props[cid1] = copy.deepcopy(inspector.GetProximityProperties(cid1))
        AddMujocoExplicitPair(p, rec)
    for cid, p in props.items():
        sg.AssignRole(source, cid, p, RoleAssign.kReplace)
    if duplicates:
        warnings.warn(f"MJCF model '{model.name}': contact pair(s) {duplicates} repeat the geoms of an earlier pair; "
                      "MuJoCo would add a second set of contacts with their parameters, here only the first pair (in "
                      "MuJoCo's compiled order) is used", MjcfUnsupportedWarning, stacklevel=5)
    if self_pairs:
        warnings.warn(f"MJCF model '{model.name}': contact pair(s) {self_pairs} join a geom with itself; MuJoCo's "
                      "contacts for them have a zero Jacobian (no effect on the motion), so they are left out",
                      MjcfUnsupportedWarning, stacklevel=5)
    if skipped:
        warnings.warn(f"MJCF model '{model.name}': {len(skipped)} explicit contact pair(s) {skipped} join geoms that "
                      "are not registered with SceneGraph (see the geom warning); they generate no contacts",
                      MjcfUnsupportedWarning, stacklevel=5)
