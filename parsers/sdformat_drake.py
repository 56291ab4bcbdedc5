"""Drake's model-level extension elements `drake:linear_bushing_rpy` and `drake:ball_constraint`
→ BushingRecord / BallConstraintRecord, for the SDFormat reader and (with attribute values) the
URDF reader, and the records → plant elements for the Parser.

SDFormat writes values as element text (`<drake:bushing_frameA>A</drake:bushing_frameA>`,
`<drake:ball_constraint_p_AP>0 0 0</drake:ball_constraint_p_AP>`); URDF as attributes
(`<drake:bushing_frameA name="A"/>`, `<drake:ball_constraint_p_AP value="0 0 0"/>`). Every child
is required, as in Drake; names are resolved in the plant, as pydrake resolves them: bushing
frames within the model's instance ("frame", or "nested::frame" in a nested model's), ball
constraint bodies within the model's own instance only.
"""
from __future__ import annotations

import numpy as np

from .errors import Diagnostic, ParseError
from .model_records import BallConstraintRecord, BushingRecord
from .xml_values import child, children, get_attr, parse_vector, tag, text_of

__all__ = ["read_bushing", "read_ball_constraint", "AddBushingRecord", "AddBallConstraintRecord", "BUSHING",
           "BALL_CONSTRAINT"]

BUSHING = "drake:linear_bushing_rpy"
BALL_CONSTRAINT = "drake:ball_constraint"
_BUSHING_NAMES = ("drake:bushing_frameA", "drake:bushing_frameC")
_BUSHING_VECTORS = ("drake:bushing_torque_stiffness", "drake:bushing_torque_damping",
                    "drake:bushing_force_stiffness", "drake:bushing_force_damping")
_BALL_NAMES = ("drake:ball_constraint_body_A", "drake:ball_constraint_body_B")
_BALL_VECTORS = ("drake:ball_constraint_p_AP", "drake:ball_constraint_p_BQ")


def _check_children(node, known: tuple, diag: Diagnostic) -> None:
    for c in children(node):
        if tag(c) not in known:
            diag.error(c, f"<{tag(c)}> is not a child of <{tag(node)}>; expected {list(known)}")


def _required(node, key: str, diag: Diagnostic):
    e = child(node, key)
    if e is None:
        diag.error(node, f"<{tag(node)}> is missing its required <{key}> child")
    return e


def _name(node, key: str, diag: Diagnostic, urdf: bool) -> str:
    e = _required(node, key, diag)
    value = get_attr(e, "name") if urdf else text_of(e)
    if not value or not value.strip():
        diag.error(e, f"<{key}> needs a {'name attribute' if urdf else 'name'}")
    return value.strip()


def _vector(node, key: str, diag: Diagnostic, urdf: bool, non_negative: bool) -> np.ndarray:
    e = _required(node, key, diag)
    text = get_attr(e, "value") if urdf else text_of(e)
    if text is None:
        diag.error(e, f"<{key}> needs a value attribute")
    v = parse_vector(text, diag, e, f"<{key}>", 3)
    if non_negative and np.any(v < 0):
        diag.error(e, f"<{key}> values must be non-negative, got {v.tolist()}")
    return v


def read_bushing(node, diag: Diagnostic, urdf: bool = False) -> BushingRecord:
    """A `<drake:linear_bushing_rpy>` element (attribute values when `urdf`)."""
    _check_children(node, _BUSHING_NAMES + _BUSHING_VECTORS, diag)
    a, c = (_name(node, k, diag, urdf) for k in _BUSHING_NAMES)
    values = [_vector(node, k, diag, urdf, True) for k in _BUSHING_VECTORS]
    return BushingRecord(a, c, *values, line=node.sourceline)


def read_ball_constraint(node, diag: Diagnostic, urdf: bool = False) -> BallConstraintRecord:
    """A `<drake:ball_constraint>` element (attribute values when `urdf`)."""
    _check_children(node, _BALL_NAMES + _BALL_VECTORS, diag)
    a, b = (_name(node, k, diag, urdf) for k in _BALL_NAMES)
    p_AP, p_BQ = (_vector(node, k, diag, urdf, False) for k in _BALL_VECTORS)
    return BallConstraintRecord(a, b, p_AP, p_BQ, line=node.sourceline)


def _frame(plant, rec, name: str, line, element: str):
    """Frame `name` ("x" or "nested::x") of model `rec`'s scope in `plant`; ParseError if none."""
    scope, _, local = name.rpartition("::")
    model = f"{rec.name}::{scope}" if scope else rec.name
    if not plant.HasModelInstanceNamed(model):
        raise ParseError(f"frame '{name}': model '{model}' does not exist", rec.filename, line, element)
    instance = plant.GetModelInstanceByName(model)
    if not plant.HasFrameNamed(local, instance):
        valid = sorted(plant.get_frame(f).name() for f in plant.GetFrameIndices(instance))
        raise ParseError(f"frame '{name}' does not exist in model '{model}'; frames: {valid}", rec.filename,
                         line, element)
    return plant.GetFrameByName(local, instance)


def _body(plant, rec, name: str, line, element: str):
    """Body `name` of model `rec` itself (as pydrake: no "nested::" names); ParseError if none."""
    instance = plant.GetModelInstanceByName(rec.name)
    if not plant.HasBodyNamed(name, instance):
        valid = sorted(plant.get_body(b).name() for b in plant.GetBodyIndices(instance))
        raise ParseError(f"body '{name}' does not exist in model '{rec.name}'; bodies: {valid}", rec.filename,
                         line, element)
    return plant.GetBodyByName(name, instance)


def AddBushingRecord(plant, rec, br: BushingRecord):
    """Add `br` (of model record `rec`) to `plant` as a LinearBushingRollPitchYaw force element."""
    from mallard.multibody.tree import LinearBushingRollPitchYaw
    frameA = _frame(plant, rec, br.frameA, br.line, BUSHING)
    frameC = _frame(plant, rec, br.frameC, br.line, BUSHING)
    try:
        return plant.AddForceElement(LinearBushingRollPitchYaw(
            frameA, frameC, br.torque_stiffness, br.torque_damping, br.force_stiffness, br.force_damping))
    except (ValueError, RuntimeError) as exc:
        raise ParseError(str(exc), rec.filename, br.line, BUSHING) from None


def AddBallConstraintRecord(plant, rec, cr: BallConstraintRecord):
    """Add `cr` (of model record `rec`) to `plant` with AddBallConstraint (on any plant, as pydrake: a continuous
    one keeps it and refuses to compute its dynamics)."""
    body_A = _body(plant, rec, cr.body_A, cr.line, BALL_CONSTRAINT)
    body_B = _body(plant, rec, cr.body_B, cr.line, BALL_CONSTRAINT)
    try:
        return plant.AddBallConstraint(body_A, cr.p_AP, body_B, cr.p_BQ)
    except ValueError as exc:
        raise ParseError(str(exc), rec.filename, cr.line, BALL_CONSTRAINT) from None
