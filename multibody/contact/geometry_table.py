"""Per-geometry contact data of a plant (body, MuJoCo parameters or Drake material) and pair mixing.

A geometry whose ProximityProperties hold the "mujoco" group uses MuJoCo's soft-contact parameters;
a pair in which either geometry has them is a MuJoCo pair (the other geometry takes MuJoCo defaults),
mixed with MuJoCo's rules (priority, solmix, max friction, summed margin and gap), unless the two geometries
form a MuJoCo explicit pair (geometry/mujoco_pairs.py), whose own parameters (solreffriction included) are used.
Friction coefficients are raised to MuJoCo's mjMINMU. Other pairs use
Drake's point-contact material (coulomb_friction, point_contact_stiffness, hunt_crossley_dissipation,
relaxation_time), with stiffness and dissipation defaulted from the penetration allowance.
All parameters are validated once, with errors naming the geometry.
"""
from __future__ import annotations

import numpy as np

from mallard.systems.framework.portable import PortableAttributes
from mallard.systems.framework.weak_owner import WeakAttribute

from ...geometry.mujoco_pairs import GetMujocoExplicitPairs
from ...geometry.properties import MUJOCO_GROUP, CoulombFriction, GetMujocoContactParameters
from .parameters import MixContactParameters, ValidateSolimp, ValidateSolref
from .point_contact import CombineFrictionCoefficients, CombinePointContactParameters, DefaultPointContactParameters
from .sap import DEFAULT_RELAXATION_TIME, CombineRelaxationTimes


MINMU = 1e-5  # MuJoCo's mjMINMU: every contact friction coefficient is at least this (mj_assignFriction)


class GeometryContactData:
    """What the contact pipeline needs about one proximity geometry."""

    __slots__ = ("gid", "name", "body", "mujoco", "mu_static", "mu_dynamic", "stiffness", "dissipation",
                 "relaxation_time", "pairs")

    def __init__(self, plant, inspector, gid, defaults: dict):
        self.gid = gid
        self.name = inspector.GetName(gid)
        body = plant.GetBodyFromFrameId(inspector.GetFrameId(gid))
        if body is None:
            raise RuntimeError(f"geometry '{self.name}' is not attached to a body of plant '{plant.get_name()}'")
        self.body = int(body.index())
        props = inspector.GetProximityProperties(gid)
        self.mujoco = None
        try:  # MuJoCo explicit pairs whose first geometry this is: partner GeometryId -> MujocoExplicitPair
            self.pairs = {p.partner: p for p in GetMujocoExplicitPairs(props)}
        except ValueError as err:
            raise ValueError(f"geometry '{self.name}': {err}") from None
        if props is not None and props.HasGroup(MUJOCO_GROUP):
            try:
                mj = GetMujocoContactParameters(props)
            except ValueError as err:
                raise ValueError(f"geometry '{self.name}': {err}") from None
            ValidateSolref(mj.solref, "geometry", self.name)
            ValidateSolimp(mj.solimp, "geometry", self.name)
            self.mujoco = {"name": self.name, "priority": mj.priority, "condim": mj.condim, "solmix": mj.solmix,
                           "solref": np.array(mj.solref), "solimp": np.array(mj.solimp),
                           "friction": np.array(mj.friction), "margin": mj.margin, "gap": mj.gap}
        fr = props.GetPropertyOrDefault("material", "coulomb_friction", None) if props is not None else None
        if fr is None:
            fr = defaults.get("friction") or CoulombFriction(0.0, 0.0)
        if not isinstance(fr, CoulombFriction):
            raise ValueError(f"geometry '{self.name}': ('material', 'coulomb_friction') must be a CoulombFriction")
        self.mu_static, self.mu_dynamic = float(fr.static_friction()), float(fr.dynamic_friction())
        get = (lambda key, default: props.GetPropertyOrDefault("material", key, default)) if props is not None \
            else (lambda key, default: default)
        self.stiffness = float(get("point_contact_stiffness", defaults["stiffness"]))
        self.dissipation = float(get("hunt_crossley_dissipation", defaults["dissipation"]))
        self.relaxation_time = float(get("relaxation_time", defaults.get("relaxation_time", DEFAULT_RELAXATION_TIME)))
        for key, ok in (("point_contact_stiffness", self.stiffness > 0),
                        ("hunt_crossley_dissipation", self.dissipation >= 0),
                        ("relaxation_time", self.relaxation_time >= 0),
                        ("coulomb_friction", self.mu_static >= 0 and self.mu_dynamic >= 0)):
            if not ok:
                raise ValueError(f"geometry '{self.name}': {key} is invalid (stiffness must be > 0, dissipation, "
                                 f"relaxation_time and friction >= 0)")


class ContactGeometryTable(PortableAttributes):
    """GeometryContactData per proximity-table row (rebuilt when SceneGraph's geometry version changes)
    plus a cache of mixed pair parameters."""

    _plant = WeakAttribute()  # its plant holds it: no reference cycle (systems/framework/weak_owner.py)

    def __init__(self, plant):
        self._plant = plant
        self._version = None
        self._rows: dict[int, GeometryContactData] = {}
        self._pairs: dict[tuple, tuple] = {}
        self._defaults = None
        self._body = np.zeros(0, np.int64)
        self._is_mujoco = np.zeros(0, bool)
        self._known = np.zeros(0, bool)
        self._pair_arrays: dict[int, int] = {}  # pair key -> slot in _slot_arrays
        self._slot_rows: list = []
        self._slot_arrays = None
        self._slot_table = np.full((0, 0), -1, np.int64)  # dense pair -> slot (scenes of <= 512 rows)
        self._slot_ok = np.zeros(0, bool)  # slot's parameters passed ConstraintAssembler.SetContacts' checks
        self._slot_reff = np.zeros((0, 2))  # solreffriction per slot (explicit pairs; (0, 0) = use solref)
        self.has_solreffriction = False  # some slot has a set solreffriction (the fast paths assume none)
        self.last_slots = np.zeros(0, np.int64)  # the slots of the last MujocoPairArrays call

    def FastArrays(self) -> tuple | None:
        """(body, is_mujoco, known, slot table, slot validated, condim, friction, solref, solimp, includemargin)
        per row / pair slot for MujocoContactArrays; None before any pair was seen."""
        if self._slot_arrays is None:
            return None
        cd, fr, ref, imp, mar = self._slot_arrays
        return (self._body, self._is_mujoco, self._known, self._slot_table, self._slot_ok, cd, fr, ref, imp, mar)

    def SlotsValidated(self, slots: np.ndarray) -> bool:
        """Whether every slot's mixed parameters already passed the assembler's contact checks."""
        ok = self._slot_ok
        return ok.shape[0] == len(self._slot_rows) and bool(ok[slots].all())

    def MarkValidated(self, slots: np.ndarray) -> None:
        if self._slot_ok.shape[0] != len(self._slot_rows):
            grown = np.zeros(len(self._slot_rows), bool)
            n = min(self._slot_ok.shape[0], grown.shape[0])
            grown[:n] = self._slot_ok[:n]
            self._slot_ok = grown
        self._slot_ok[slots] = True

    def _default_material(self) -> dict:
        if self._defaults is None:
            plant = self._plant
            masses = [float(b.default_mass()) for b in plant._bodies[1:]] if len(plant._bodies) > 1 else [1.0]
            mmax = max([m for m in masses if np.isfinite(m) and m > 0], default=1.0)
            self._defaults = DefaultPointContactParameters(plant.get_penetration_allowance(), mmax)
            sg = plant._scene_graph
            if sg is not None:  # SceneGraph's default proximity properties fill what a geometry does not set
                c = sg.get_config().default_proximity_properties
                for key, value in (("stiffness", c.point_stiffness), ("dissipation", c.hunt_crossley_dissipation),
                                   ("relaxation_time", c.relaxation_time)):
                    if value is not None:
                        self._defaults[key] = float(value)
                if c.static_friction is not None and c.dynamic_friction is not None:
                    self._defaults["friction"] = CoulombFriction(c.static_friction, c.dynamic_friction)
        return self._defaults

    def ValidateAll(self, inspector) -> list:
        """Build (and so validate) the contact data of every collision geometry of the plant; returns them."""
        return [GeometryContactData(self._plant, inspector, gid, self._default_material())
                for body in self._plant._bodies for gid in self._plant.GetCollisionGeometriesForBody(body)]

    def Sync(self, inspector) -> None:
        version = inspector.geometry_version()
        if version != self._version:
            self._version = version
            self._rows.clear()
            self._pairs.clear()
            self._pair_arrays.clear()
            self._slot_rows = []
            self._slot_arrays = None
            self._slot_table = np.full((0, 0), -1, np.int64)
            self._slot_ok = np.zeros(0, bool)
            self._slot_reff = np.zeros((0, 2))
            self.has_solreffriction = False
            self._known = np.zeros(0, bool)

    def Row(self, inspector, index: int, gid) -> GeometryContactData:
        row = self._rows.get(index)
        if row is None or row.gid != gid:
            row = GeometryContactData(self._plant, inspector, gid, self._default_material())
            self._rows[index] = row
        return row

    def IndexArrays(self, inspector, i1, i2, ids1, ids2):
        """(body, is_mujoco) arrays indexed by proximity-table row, filled for the rows in i1, i2."""
        n = int(max(i1.max(), i2.max())) + 1
        if n <= self._known.shape[0]:
            known = self._known[i1].all() and self._known[i2].all()
        else:  # rows beyond the arrays: grow them
            known = False
            grow = n - self._known.shape[0]
            self._body = np.concatenate([self._body, np.zeros(grow, np.int64)])
            self._is_mujoco = np.concatenate([self._is_mujoco, np.zeros(grow, bool)])
            self._known = np.concatenate([self._known, np.zeros(grow, bool)])
        if not known:
            for idx, gid in zip(np.concatenate([i1, i2]).tolist(), list(ids1) + list(ids2)):
                if not self._known[idx]:
                    row = self.Row(inspector, idx, gid)
                    self._body[idx], self._is_mujoco[idx], self._known[idx] = row.body, row.mujoco is not None, True
        return self._body, self._is_mujoco

    def MujocoPairArrays(self, i1, i2):
        """Per-contact (condim, friction (5), solref (2), solimp (5), includemargin) arrays for row pairs."""
        slot_of = self._pair_arrays
        table = self._slot_table
        try:  # small scenes: a dense (row, row) -> slot table, no per-contact dict lookups
            slots = table[i1, i2]
            n = table.shape[0]
        except IndexError:  # a row beyond the table: grow it (up to 512 rows), else look pairs up by key
            n = int(max(i1.max(), i2.max())) + 1
            if n <= 512:
                grown = np.full((n, n), -1, np.int64)
                grown[:table.shape[0], :table.shape[0]] = table
                self._slot_table = table = grown
                slots = table[i1, i2]
            else:
                slots = np.fromiter((slot_of.get(k, -1) for k in (i1 * (1 << 20) + i2).tolist()), np.int64,
                                    i1.shape[0])
        if slots.min() < 0:  # pairs seen for the first time: mix their parameters once, append a slot
            keys = i1 * (1 << 20) + i2
            for q in np.flatnonzero(slots < 0).tolist():
                key = int(keys[q])
                slot = slot_of.get(key)
                if slot is None:
                    cd, ref, imp, fr, mar, reff = self.MujocoPair(key >> 20, key & ((1 << 20) - 1))
                    slot = len(slot_of)
                    slot_of[key] = slot
                    self._slot_rows.append((cd, np.asarray(ref, float).reshape(2), np.asarray(imp, float).reshape(5),
                                            np.asarray(fr, float).reshape(5), float(mar),
                                            np.asarray(reff, float).reshape(2)))
                slots[q] = slot
                if n <= table.shape[0]:
                    table[key >> 20, key & ((1 << 20) - 1)] = slot
            rows = self._slot_rows
            self._slot_arrays = (np.array([r[0] for r in rows], np.int64), np.array([r[3] for r in rows]),
                                 np.array([r[1] for r in rows]), np.array([r[2] for r in rows]),
                                 np.array([r[4] for r in rows]))
            self._slot_reff = np.array([r[5] for r in rows]).reshape(-1, 2)
            self.has_solreffriction = bool(np.any(self._slot_reff != 0.0))
        cd, fr, ref, imp, mar = self._slot_arrays
        self.last_slots = slots
        return cd[slots], fr[slots], ref[slots], imp[slots], mar[slots]

    def Solreffriction(self, slots: np.ndarray) -> np.ndarray:
        """solreffriction (len(slots), 2) of pair slots ((0, 0): the friction rows use solref)."""
        return self._slot_reff[slots]

    def MujocoPair(self, i: int, j: int) -> tuple:
        """(condim, solref, solimp, friction5, includemargin, solreffriction) of the MuJoCo pair of rows i, j: an
        explicit pair's own parameters (geometry/mujoco_pairs.py), else the geometries' mixed ones."""
        key = (i, j)
        out = self._pairs.get(key)
        if out is None:
            a, b = self._rows[i], self._rows[j]
            pair = a.pairs.get(b.gid) or b.pairs.get(a.gid)
            if pair is not None:  # MuJoCo: all parameters from the pair, includemargin = its margin
                out = (pair.condim, pair.solref, pair.solimp, np.maximum(pair.friction, MINMU), pair.margin,
                       pair.solreffriction)
                self._pairs[key] = out
                return out
            ga = a.mujoco if a.mujoco is not None else {"name": a.name}
            gb = b.mujoco if b.mujoco is not None else {"name": b.name}
            mixed = MixContactParameters(ga, gb)
            out = (mixed["condim"], mixed["solref"], mixed["solimp"], np.maximum(mixed["friction"], MINMU),
                   mixed["includemargin"], np.zeros(2))
            self._pairs[key] = out
        return out

    def DrakePair(self, i: int, j: int) -> tuple:
        """(stiffness N/m, hunt_crossley_dissipation s/m, relaxation_time s, mu_static, mu_dynamic) of a pair."""
        key = (i, j)
        out = self._pairs.get(key)
        if out is None:
            a, b = self._rows[i], self._rows[j]
            k, d = CombinePointContactParameters(a.stiffness, a.dissipation, b.stiffness, b.dissipation)
            out = (k, d, CombineRelaxationTimes(a.relaxation_time, b.relaxation_time),
                   CombineFrictionCoefficients(a.mu_static, b.mu_static),
                   CombineFrictionCoefficients(a.mu_dynamic, b.mu_dynamic))
            self._pairs[key] = out
        return out

    def ById(self, inspector, gid) -> GeometryContactData:
        """GeometryContactData by GeometryId (continuous plant queries report ids, not table rows)."""
        key = ("id", gid)
        row = self._rows.get(key)
        if row is None:
            row = GeometryContactData(self._plant, inspector, gid, self._default_material())
            self._rows[key] = row
        return row

    def DrakePairById(self, a: GeometryContactData, b: GeometryContactData) -> tuple:
        """DrakePair for two GeometryContactData (cached by their ids)."""
        key = ("id", a.gid, b.gid)
        out = self._pairs.get(key)
        if out is None:
            k, d = CombinePointContactParameters(a.stiffness, a.dissipation, b.stiffness, b.dissipation)
            out = (k, d, CombineRelaxationTimes(a.relaxation_time, b.relaxation_time),
                   CombineFrictionCoefficients(a.mu_static, b.mu_static),
                   CombineFrictionCoefficients(a.mu_dynamic, b.mu_dynamic))
            self._pairs[key] = out
        return out
