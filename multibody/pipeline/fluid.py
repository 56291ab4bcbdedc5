"""Fluid forces of the discrete step (MuJoCo's mj_fluid, called from mj_passive): the inertia-box and ellipsoid
models of kernels/fluid.py on the items of the plant's FluidForces elements, and their velocity derivatives for
the implicit integrators (the fluid part of mjd_passive_vel)."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from ..kernels.fluid import FluidBodyForces, FluidVelocityDerivative
from ..tree.fluid_forces import FluidForces
from .structs import F2, F3, I1, declare, floats, ints


@structref.register
class FluidModelType(types.StructRef):
    """numba type of FluidModel."""


class FluidModel(structref.StructRefProxy):
    """Fluid items, one row each (an inertia box or a fluid ellipsoid; see kernels/fluid.py)."""


FLUID_MODEL = declare(FluidModelType, FluidModel, [
    ("body", I1),        # (n,) plant body
    ("kind", I1),        # (n,) 0 inertia box, 1 ellipsoid
    ("R_BO", F3),        # (n, 3, 3) item frame O in its body
    ("p_BO", F2),        # (n, 3) [m]
    ("params", F2),      # (n, 15) box sides, or semi-axes and ellipsoid coefficients
    ("medium", F2),      # (n, 5) density [kg/m³], viscosity [Pa s], wind (3) [m/s]
])


@njit(cache=True)
def new_fluid_model(body, kind, R_BO, p_BO, params, medium):
    f = structref.new(FLUID_MODEL)
    f.body, f.kind, f.R_BO, f.p_BO, f.params, f.medium = body, kind, R_BO, p_BO, params, medium
    return f


def CompileFluid(plant) -> FluidModel:
    """The items of the plant's FluidForces elements, in registration order (none: zero rows)."""
    elements = [fe for fe in plant._force_elements[1:] if isinstance(fe, FluidForces) and fe.num_items()]
    if not elements:
        return new_fluid_model(ints(np.zeros(0)), ints(np.zeros(0)), np.zeros((0, 3, 3)), np.zeros((0, 3)),
                               np.zeros((0, 15)), np.zeros((0, 5)))
    cat = lambda name: np.concatenate([getattr(fe, name) for fe in elements])  # noqa: E731
    return new_fluid_model(ints(np.concatenate([fe.body_indices() for fe in elements])), ints(cat("kind")),
                           floats(cat("R_BO")), floats(cat("p_BO")), floats(cat("params")), floats(cat("medium")))


@njit(cache=True)
def fluid(m, d):
    """Add the fluid wrenches to the body forces d.F (at the body origins, in W)."""
    f = m.fluid
    if f.body.shape[0]:
        FluidBodyForces(f.body, f.kind, f.R_BO, f.p_BO, f.params, f.medium, d.R_WB, d.p_WB, d.V, d.F)


@njit(cache=True)
def fluid_vel(m, d, D, symmetrize, body_free):
    """D += ∂(fluid generalized forces)/∂v (nv × nv); local Jacobians symmetrized when `symmetrize` (implicitfast)
    except on standalone free bodies (body_free, nb)."""
    f = m.fluid
    if f.body.shape[0]:
        FluidVelocityDerivative(m.tree.ji, d.S, d.R_WB, d.p_WB, d.V, f.body, f.kind, f.R_BO, f.p_BO, f.params,
                                f.medium, symmetrize, body_free, D)
