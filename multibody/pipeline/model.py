"""Model: the immutable compiled description of a discrete MultibodyPlant and its proximity geometry (MuJoCo's
mjModel), one part per stage: `tree` (smooth.py), `passive` (passive.py), `act` (actuation.py), `rows`
(constraint.py), `geom` (collision.py), `contact` (contact.py), `opt` (solver.py), `fluid` (fluid.py), `integ`
(integrate.py), `ten` (tendon.py), `sens` (sensor.py), `hydro` (hydroelastic.py), `eq` (equality.py).

A feature is data here, not a branch in the plant: a model without joint springs has zero spring rows, one without
geometry zero geometries; every stage runs over whatever rows its part has.
"""
from __future__ import annotations

from numba import njit
from numba.core import types
from numba.experimental import structref

from .actuation import ACTUATION_MODEL
from .collision import GEOM_MODEL
from .constraint import ROW_MODEL
from .contact import CONTACT_MODEL
from .equality import EQUALITY_MODEL
from .fluid import FLUID_MODEL
from .hydroelastic import HYDRO_MODEL
from .integrate import INTEGRATOR_MODEL
from .passive import PASSIVE_MODEL
from .sensor import SENSOR_MODEL
from .smooth import TREE_MODEL
from .solver import OPTION_MODEL
from .structs import declare
from .tendon import TENDON_MODEL


@structref.register
class ModelType(types.StructRef):
    """numba type of Model."""


class Model(structref.StructRefProxy):
    """The compiled model (see the module docstring for its parts)."""


MODEL = declare(ModelType, Model, [
    ("tree", TREE_MODEL), ("passive", PASSIVE_MODEL), ("act", ACTUATION_MODEL), ("rows", ROW_MODEL),
    ("geom", GEOM_MODEL), ("contact", CONTACT_MODEL), ("opt", OPTION_MODEL),
    ("fluid", FLUID_MODEL), ("integ", INTEGRATOR_MODEL),
    ("ten", TENDON_MODEL), ("sens", SENSOR_MODEL), ("hydro", HYDRO_MODEL), ("eq", EQUALITY_MODEL),
])


@njit(cache=True)
def new_model(tree, passive, act, rows, geom, contact, opt, fluid, integ, ten, sens, hydro, eq):
    m = structref.new(MODEL)
    m.tree, m.passive, m.act, m.rows, m.geom, m.contact, m.opt = tree, passive, act, rows, geom, contact, opt
    m.fluid, m.integ, m.ten, m.sens, m.hydro, m.eq = fluid, integ, ten, sens, hydro, eq
    return m
