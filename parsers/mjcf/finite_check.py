"""The compiler's check that a model's numbers are finite.

MuJoCo reads `inf` wherever it reads a number and compiles, say, a joint stiffness of inf, then simulates
NaN. No MuJoCo model uses infinite values (its own test and model files have none), so the compiler rejects
them with an error at the element, before they reach the constants of setconst or the plant.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .errors import error_at

__all__ = ["check_finite_elements"]


def _non_finite_field(element) -> tuple[str, object] | None:
    """(field name, value) of the first float field of a compiled element holding NaN or inf, or None."""
    for f in dataclasses.fields(element):
        value = getattr(element, f.name)
        if isinstance(value, float):
            if not np.isfinite(value):
                return f.name, value
        elif isinstance(value, np.ndarray) and value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            return f.name, value.tolist()
    return None


def check_finite_elements(groups: dict) -> None:
    """Raise a located MjcfError for the first element of `groups` ({"joint": joints, ...}) with a non-finite
    number (e.g. stiffness="inf")."""
    for kind, elements in groups.items():
        for i, element in enumerate(elements):
            bad = _non_finite_field(element)
            if bad is not None:
                name = getattr(element, "name", "") or f"#{i}"
                raise error_at(getattr(element, "where", None),
                               f"{kind} '{name}': {bad[0]} {bad[1]} is not finite; give it a finite value")
