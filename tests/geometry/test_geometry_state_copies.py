"""Contexts' geometry states are copied on write (geometry/geometry_state.py): a context created from, cloned from
or pickled with another shares its records until one of them changes, so every change through one context (roles,
proximity properties, poses, added and removed geometry, filters, properties changed in place after an inspector
handed them out) must stay in that context, and the model's changes must reach the contexts made after them."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from mallard.geometry import (AddContactMaterial, Box, Capsule, CollisionFilterDeclaration, CoulombFriction,
                              GeometryFrame, GeometryInstance, GeometrySet, HalfSpace, IllustrationProperties, Role,
                              RoleAssign, SceneGraph, Sphere)
from mallard.multibody.math import RigidTransform


def build():
    """A SceneGraph with five proximity geometries on four frames and an anchored half space, and a context."""
    sg = SceneGraph()
    s = sg.RegisterSource("plant")
    frames = [sg.RegisterFrame(s, GeometryFrame(f"body{k}", 1)) for k in range(4)]
    geoms = []
    for k, shape in enumerate((Sphere(0.2), Box(0.4, 0.3, 0.2), Capsule(0.1, 0.4), Sphere(0.1), Sphere(0.3))):
        g = GeometryInstance(RigidTransform([0.0, 0.0, 0.1 * k]), shape, f"geom{k}")
        g.set_proximity_properties(AddContactMaterial(friction=CoulombFriction(1.0, 1.0)))
        geoms.append(sg.RegisterGeometry(s, frames[min(k, 3)], g))
    ground = GeometryInstance(RigidTransform(), HalfSpace(), "ground")
    ground.set_proximity_properties(AddContactMaterial(friction=CoulombFriction(1.0, 1.0)))
    sg.RegisterAnchoredGeometry(s, ground)
    return sg, s, frames, geoms, None, sg.CreateDefaultContext()


def _view(sg, ctx):
    """What a context shows of its geometry: ids, roles, friction, shapes, poses in frame, filters."""
    inspector = sg.get_query_output_port().Eval(ctx).inspector()
    ids = sorted(inspector.GetAllGeometryIds(), key=lambda g: g.get_value())
    view = []
    for g in ids:
        props = inspector.GetProximityProperties(g)
        friction = props.GetProperty("material", "coulomb_friction") if props is not None else None
        view.append((g.get_value(), inspector.GetName(g), props is not None,
                     inspector.GetIllustrationProperties(g) is not None,
                     None if friction is None else friction.static_friction(), type(inspector.GetShape(g)).__name__,
                     tuple(inspector.GetPoseInFrame(g).translation()),
                     props.GetPropertyOrDefault("test", "mark", None) if props is not None else None))
    pairs = [(a.get_value(), b.get_value(), inspector.CollisionFiltered(a, b)) for a in ids for b in ids
             if a.get_value() < b.get_value() and inspector.GetProximityProperties(a) is not None
             and inspector.GetProximityProperties(b) is not None]
    return view, pairs


def _edit(sg, s, frames, geoms, ctx):
    """One change of each kind through `ctx`."""
    sg.AssignRole(ctx, s, geoms[0], AddContactMaterial(friction=CoulombFriction(0.3, 0.2)), RoleAssign.kReplace)
    sg.AssignRole(ctx, s, geoms[1], IllustrationProperties())
    sg.RemoveRole(ctx, s, geoms[2], Role.kProximity)
    sg.RemoveGeometry(ctx, s, geoms[3])
    sg.RegisterGeometry(ctx, s, frames[0], GeometryInstance(RigidTransform(), Sphere(0.05), "added"))
    sg.ChangeShape(ctx, s, geoms[4], Box(0.1, 0.1, 0.1), RigidTransform([0.0, 0.0, 0.5]))
    sg.collision_filter_manager(ctx).Apply(
        CollisionFilterDeclaration().ExcludeBetween(GeometrySet(geoms[0]), GeometrySet(geoms[1])))


@pytest.mark.parametrize("edited", ["original", "clone", "pickled", "created"])
def test_a_change_through_one_context_stays_in_it(edited):
    sg, s, frames, geoms, ground, ctx = build()
    others = {"original": ctx, "clone": ctx.Clone(), "pickled": pickle.loads(pickle.dumps(ctx)),
              "created": sg.CreateDefaultContext()}
    before = _view(sg, ctx)
    model_before = _view(sg, sg.CreateDefaultContext())
    assert model_before == before
    _edit(sg, s, frames, geoms, others[edited])
    after = _view(sg, others[edited])
    assert after != before
    assert len(after[0]) == len(before[0]) and after[0][0][4] == 0.3
    for name, other in others.items():
        if name != edited:
            assert _view(sg, other) == before, name
    assert _view(sg, sg.CreateDefaultContext()) == model_before
    assert _view(sg, others[edited].Clone()) == after


def test_properties_changed_in_place_stay_with_their_state():
    """Drake's inspector hands out const properties; mallard's are the state's own objects, so a caller may keep and
    change one: the change shows in that state only (clones taken afterwards included: they are copied in full),
    and a change to the model's shows in the contexts created afterwards, as when each context copied the model."""
    sg, s, frames, geoms, ground, ctx = build()
    clone_before = ctx.Clone()
    props = sg.get_query_output_port().Eval(ctx).inspector().GetProximityProperties(geoms[0])
    clone_after = ctx.Clone()
    props.AddProperty("test", "mark", 1.0)
    marks = [_view(sg, c)[0][0][7] for c in (ctx, clone_before, clone_after, sg.CreateDefaultContext())]
    assert marks == [1.0, None, None, None]
    model_props = sg.model_inspector().GetProximityProperties(geoms[1])
    assert _view(sg, sg.CreateDefaultContext())[0][1][7] is None
    model_props.AddProperty("test", "mark", 2.0)  # after a context was made from the model
    assert _view(sg, sg.CreateDefaultContext())[0][1][7] == 2.0
    assert _view(sg, ctx)[0][1][7] is None


def test_contexts_start_from_the_current_model_and_config():
    sg, s, frames, geoms, ground, ctx = build()
    sg.RemoveGeometry(s, geoms[3])
    assert len(_view(sg, sg.CreateDefaultContext())[0]) == len(_view(sg, ctx)[0]) - 1
    def modulus(context):
        props = sg.get_query_output_port().Eval(context).inspector().GetProximityProperties(geoms[0])
        return props.GetProperty("hydroelastic", "hydroelastic_modulus")

    default = modulus(ctx)
    sg.get_config().default_proximity_properties.hydroelastic_modulus = 2.0 * default  # in place, on get_config's
    assert (modulus(sg.CreateDefaultContext()), modulus(ctx)) == (2.0 * default, default)
