"""Parser: load URDF / SDFormat / MJCF model files into a MultibodyPlant (pydrake.multibody.parsing.Parser).

The readers (`ReadUrdf`, `ReadSdf`) turn a file into format-neutral `ModelRecord`s; this module turns
those records into the plant's public builder calls (AddModelInstance, AddRigidBody, AddFrame,
AddJoint, AddJointActuator, AddForceElement, AddCouplerConstraint, SetDefaultFloatingBaseBodyPose), the
same calls a user could write by hand, following pydrake's parsing rules:

* a joint (and the `<joint>_parent` / `<joint>_child` frames it needs) goes in its child body's
  model instance; a frame goes in its body's model instance;
* a link with no inboard joint is a free body whose default pose is X_WM·X_MB;
* universal joints use a joint frame with x = axis, y = axis2; planar joints a joint frame whose z
  is the plane normal (the smallest rotation taking J's z axis onto the normal, as Drake does);
* a non-zero `spring_stiffness` on a revolute (prismatic) joint becomes a RevoluteSpring
  (PrismaticSpring); a URDF `<mimic>` / SDFormat `<drake:mimic>` becomes a coupler constraint on
  any plant, as in pydrake (a plant that refuses it, i.e. today's continuous plant, warns);
* Drake's `drake:linear_bushing_rpy` becomes a LinearBushingRollPitchYaw and `drake:ball_constraint`
  a ball constraint (see `sdformat_drake`).

Geometry (visual and collision, with Drake's friction / contact-material properties) is registered
when the plant is a SceneGraph source (AddMultibodyPlantSceneGraph, or a Parser given a
scene_graph), and collision filter groups are then applied (see `parser_geometry`). The records,
geometry included, are always kept: `Parser.GetModelRecords()`.
"""
from __future__ import annotations

import copy
import os
import warnings
from typing import Optional

import numpy as np

from mallard.common.blas_threads import single_threaded_blas

from .errors import ParseError, ParseWarning
from .model_reader import ReadModels, ReadModelsFromString
from .model_records import WORLD, CalcCollisionFilterGroups, ModelRecord
from .package_map import PackageMap
from .parser_geometry import ApplyCollisionFilterGroups, CollisionFilterGroups, RegisterGeometryRecord
from .sdformat_drake import AddBallConstraintRecord, AddBushingRecord

__all__ = ["Parser", "KNOWN_FILE_TYPES", "CalcUniversalJointRotation", "CalcPlanarJointRotation"]

#: File extensions Parser.AddModels dispatches on (`.xml` is MJCF, built by parsers/mjcf/to_plant.py).
KNOWN_FILE_TYPES = (".urdf", ".sdf", ".xml", ".obj", ".dmd.yaml")


def _is_identity(X: np.ndarray) -> bool:
    return bool(np.array_equal(X, np.eye(4)))


def _transform(X: np.ndarray):
    """A RigidTransform from a 4x4 homogeneous matrix."""
    from mallard.multibody.math import RigidTransform, RotationMatrix
    return RigidTransform(RotationMatrix(np.array(X[:3, :3], dtype=float)), np.array(X[:3, 3], dtype=float))


def _homogeneous(R: np.ndarray) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = R
    return X


def CalcUniversalJointRotation(axis: np.ndarray, axis2: np.ndarray) -> np.ndarray:
    """R_JU: the frame U of a universal joint, in the joint frame J: x = axis, y = axis2, z = x × y."""
    x = np.asarray(axis, float) / np.linalg.norm(axis)
    y = np.asarray(axis2, float) / np.linalg.norm(axis2)
    return np.column_stack([x, y, np.cross(x, y)])


def CalcPlanarJointRotation(normal: np.ndarray) -> np.ndarray:
    """R_JK: the smallest rotation taking J's z axis onto the unit plane `normal` (expressed in J),
    so that a PlanarJoint built on frame K moves in the plane with that normal."""
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    c = float(n[2])
    if c < -1.0 + 1e-12:  # antiparallel: half turn about x
        return np.diag([1.0, -1.0, -1.0])
    k = np.array([-n[1], n[0], 0.0])  # z × n
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return c * np.eye(3) + K + np.outer(k, k) / (1.0 + c)


def _SpatialInertia(rec: ModelRecord, link):
    """M_BBo_B of a link record; ParseError naming the link if it is not physically valid."""
    from mallard.multibody.tree import RotationalInertia, SpatialInertia
    inertial = link.inertial
    I = np.asarray(inertial.I_BBcm_B, float)
    try:
        M = SpatialInertia.MakeFromCentralInertia(
            float(inertial.mass), np.asarray(inertial.p_BoBcm_B, float),
            RotationalInertia(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]))
    except (ValueError, RuntimeError) as exc:
        raise ParseError(f"link '{link.name}': {exc}", rec.filename, link.line, "link") from None
    return M


def _NestedFirst(records: list) -> list:
    """`records` reordered so every model's nested models ("outer::inner") precede it (post-order)."""
    names = {r.name for r in records}
    children: dict = {}
    roots = []
    for r in records:
        parent = r.name.rpartition("::")[0]
        (children.setdefault(parent, []) if parent in names else roots).append(r)
    out: list = []
    for r in roots:
        _VisitNested(r, children, out)
    return out


def _VisitNested(r, children: dict, out: list) -> None:
    """Appends `r`'s nested models (recursively), then `r`, to `out` (a module function rather than a recursive
    closure, which would sit in a reference cycle with the records until the garbage collector ran)."""
    for c in children.get(r.name, []):
        _VisitNested(c, children, out)
    out.append(r)


class Parser:
    """Loads URDF, SDFormat and MJCF models into a MultibodyPlant (and its SceneGraph, when present).

    Constructors (as pydrake): Parser(plant), Parser(plant, scene_graph), Parser(plant,
    model_name_prefix), Parser(plant, scene_graph, model_name_prefix) and Parser(builder, plant=None,
    scene_graph=None, model_name_prefix=""), which finds the systems named "plant" and "scene_graph"
    in a DiagramBuilder. A non-empty `model_name_prefix` scopes every model instance name as
    "prefix::name".
    """

    def __init__(self, *args, plant=None, scene_graph=None, builder=None, model_name_prefix: str = ""):
        from mallard.multibody.plant import MultibodyPlant
        from mallard.systems.framework import DiagramBuilder
        rest = list(args)
        if len(rest) >= 2 and isinstance(rest[-1], str):  # Parser(plant, [scene_graph,] model_name_prefix)
            model_name_prefix = rest.pop()
        if rest and isinstance(rest[0], DiagramBuilder):
            if builder is not None:
                raise TypeError("Parser(builder, ...): pass the builder once")
            builder = rest.pop(0)
        for name in ("plant", "scene_graph"):
            if rest:
                if (plant if name == "plant" else scene_graph) is not None:
                    raise TypeError(f"Parser: {name} given both by position and by keyword")
                if name == "plant":
                    plant = rest.pop(0)
                else:
                    scene_graph = rest.pop(0)
        if rest:
            raise TypeError(f"Parser: too many arguments {args!r}; use Parser(plant), Parser(plant, scene_graph), "
                            "Parser(plant, model_name_prefix) or Parser(builder, plant=None, scene_graph=None, "
                            "model_name_prefix='')")
        self._builder = builder
        if builder is not None:
            if not isinstance(builder, DiagramBuilder):
                raise TypeError(f"Parser: builder must be a DiagramBuilder, got {type(builder).__name__}")
            if plant is None:
                plant = self._find_subsystem("plant")
            if scene_graph is None and builder.HasSubsystemNamed("scene_graph"):
                scene_graph = builder.GetSubsystemByName("scene_graph")
        if plant is None:
            raise TypeError("Parser: needs a MultibodyPlant (Parser(plant) or Parser(plant=...)) or a DiagramBuilder "
                            "(Parser(builder=...))")
        if not isinstance(plant, MultibodyPlant):
            raise ValueError(f"Parser: expected a MultibodyPlant or a DiagramBuilder, got {type(plant).__name__}")
        if not isinstance(model_name_prefix, str):
            raise ValueError(f"Parser: model_name_prefix must be a str, got {type(model_name_prefix).__name__}")
        self._plant = plant
        self._scene_graph = scene_graph
        self._prefix = model_name_prefix
        self._package_map = PackageMap()
        self._auto_renaming = False
        self._strict = False
        self._filter_groups = CollisionFilterGroups()
        self._records: dict = {}  # ModelInstanceIndex (int) -> ModelRecord (with final names)

    def _find_subsystem(self, name: str):
        if not self._builder.HasSubsystemNamed(name):
            valid = sorted(s.get_name() for s in self._builder.GetSystems())
            raise RuntimeError(f"Parser(builder): the DiagramBuilder has no subsystem named '{name}'; valid "
                               f"subsystems: {valid}. Use AddMultibodyPlantSceneGraph or pass plant=...")
        return self._builder.GetSubsystemByName(name)

    # ---- accessors ---------------------------------------------------------------------------------
    def plant(self):
        """The MultibodyPlant models are added to."""
        return self._plant

    def scene_graph(self):
        """The SceneGraph geometry goes to (None if there is none)."""
        return self._scene_graph

    def builder(self):
        """The DiagramBuilder given to the constructor (None if a plant was given)."""
        return self._builder

    def package_map(self) -> PackageMap:
        """The PackageMap used to resolve package:// and model:// URLs (mutable)."""
        return self._package_map

    def SetAutoRenaming(self, value: bool) -> None:
        """When on, a model whose name is already taken is renamed `<name>_1`, `<name>_2`, ..."""
        self._auto_renaming = bool(value)

    def GetAutoRenaming(self) -> bool:
        """Whether auto-renaming is on (off by default)."""
        return self._auto_renaming

    def SetStrictParsing(self) -> None:
        """Turn every warning (unsupported elements, ignored attributes) into a ParseError."""
        self._strict = True

    def GetCollisionFilterGroups(self) -> CollisionFilterGroups:
        """Every collision filter group (and exclusion pair) declared by the models parsed so far."""
        return copy.deepcopy(self._filter_groups)

    def GetModelRecords(self) -> dict:
        """ModelInstanceIndex → the ModelRecord it was built from (final instance names; geometry,
        materials and collision filter groups included, whether or not geometry was registered)."""
        from mallard.multibody.tree import ModelInstanceIndex
        return {ModelInstanceIndex(k): v for k, v in self._records.items()}

    # ---- loading -------------------------------------------------------------------------------------
    def AddModels(self, file_name: Optional[str] = None, *, url: Optional[str] = None,
                  file_contents: Optional[str] = None, file_type: Optional[str] = None) -> list:
        """Add every model of a file (`file_name`), a URL (`url=`) or a string (`file_contents=`,
        `file_type=`); returns the new ModelInstanceIndex list in file order."""
        given = [x is not None for x in (file_name, url, file_contents)]
        if sum(given) != 1:
            raise ValueError("Parser.AddModels: pass exactly one of file_name, url=..., or "
                             "file_contents=... (with file_type=...)")
        if file_contents is not None:
            if file_type is None:
                raise ValueError("Parser.AddModels(file_contents=...) needs file_type= ('urdf', 'sdf' or 'xml')")
            return self.AddModelsFromString(file_contents, file_type)
        if file_type is not None:
            raise ValueError("Parser.AddModels: file_type= goes with file_contents= only")
        if url is not None:
            return self.AddModelsFromUrl(url)
        filename = os.fspath(file_name)
        lower = filename.lower()
        if lower.endswith(".xml"):
            return self._AddMjcfModels(filename=filename)
        if lower.endswith(".dmd.yaml"):
            if not os.path.isfile(filename):
                raise ParseError(f"file not found: '{os.path.abspath(filename)}'", filename)
            return self._AddDirectivesModels(filename=filename)
        if not lower.endswith((".urdf", ".sdf", ".xacro", ".obj")):
            raise ParseError(f"the file type is not recognized; known types are {', '.join(KNOWN_FILE_TYPES)}",
                             filename)
        if not os.path.isfile(filename):
            raise ParseError(f"file not found: '{os.path.abspath(filename)}'", filename)
        self._check_can_add()
        records = ReadModels(filename, package_map=self._package_map, strict=self._strict)
        return self._AddModelRecords(records)

    def AddModelsFromUrl(self, url: str) -> list:
        """Add the models of a `package://`, `model://` or `file://` URL resolved by package_map()."""
        try:
            path = self._package_map.ResolveUrl(url)
        except (KeyError, ValueError) as exc:
            raise ParseError(str(exc), url) from None
        return self.AddModels(path)

    def AddModelsFromString(self, file_contents: str, file_type: str) -> list:
        """Add the models of `file_contents`, whose format `file_type` is 'urdf', 'sdf' or 'xml' (MJCF)."""
        kind = str(file_type).lower().lstrip(".")
        if kind == "xml":
            return self._AddMjcfModels(file_contents=file_contents)
        if kind == "dmd.yaml":
            return self._AddDirectivesModels(file_contents=file_contents)
        if kind not in ("urdf", "sdf", "xacro", "obj"):
            raise ValueError(f"Parser.AddModelsFromString: file_type {file_type!r} is not recognized; known types "
                             "are 'urdf', 'sdf', 'xml', 'dmd.yaml'")
        self._check_can_add()
        records = ReadModelsFromString(file_contents, kind, package_map=self._package_map, strict=self._strict)
        return self._AddModelRecords(records)

    def _AddDirectivesModels(self, filename: Optional[str] = None, file_contents: Optional[str] = None) -> list:
        """Model directives (.dmd.yaml), as Drake's parser dispatches them: the instances of the add_model
        directives, in order."""
        # The directives' processor builds on this Parser (it imports this module), hence the late import.
        from .model_directives import LoadModelDirectives, LoadModelDirectivesFromString
        from .process_model_directives import ProcessModelDirectives
        self._check_can_add()
        directives = (LoadModelDirectives(filename) if filename is not None
                      else LoadModelDirectivesFromString(file_contents))
        return [info.model_instance for info in ProcessModelDirectives(directives, self)]

    def _AddMjcfModels(self, filename: Optional[str] = None, file_contents: Optional[str] = None) -> list:
        """MJCF (MuJoCo XML): compile with mallard.parsers.mjcf, then build it (parsers/mjcf/to_plant.py)."""
        from .mjcf.to_plant import AddMjcfToPlant
        self._check_can_add()
        if filename is not None and not os.path.isfile(filename):
            raise ParseError(f"file not found: '{os.path.abspath(filename)}'", filename)
        with single_threaded_blas():  # the compiler's length-range simulations step a plant thousands of times
            return AddMjcfToPlant(self, filename, file_contents)

    def _check_can_add(self) -> None:
        if self._plant.is_finalized():
            raise RuntimeError(f"Parser: MultibodyPlant '{self._plant.get_name()}' is already finalized; "
                               "add models before calling Finalize()")

    def _warn(self, record: ModelRecord, line: Optional[int], element: str, detail: str) -> None:
        err = ParseError(detail, record.filename, line, element)
        if self._strict:
            raise err
        warnings.warn(str(err), ParseWarning, stacklevel=4)

    # ---- naming --------------------------------------------------------------------------------------
    def _RenameRecords(self, records: list, model_name: Optional[str] = None) -> list:
        """Copies of `records` under their final instance names (prefix, auto-renaming), references
        to model names rewritten (the records are fresh from a reader: parts not renamed are shared).
        `model_name` (a full scoped name) replaces the name of the file's one top-level model.
        Raises RuntimeError for a taken name when auto-renaming is off."""
        plant = self._plant
        roots: dict = {}
        taken: set = set()
        for rec in records:
            root = rec.name.split("::")[0]
            if root in roots:
                continue
            if model_name is not None:
                base = model_name
            else:
                base = f"{self._prefix}::{root}" if self._prefix else root
            name = base
            if self._auto_renaming:
                k = 0
                while plant.HasModelInstanceNamed(name) or name in taken:
                    k += 1
                    name = f"{base}_{k}"
            elif plant.HasModelInstanceNamed(name) or name in taken:
                raise RuntimeError(
                    f"{rec.filename}: this model already contains a model instance named '{name}'. Model instance "
                    "names must be unique within a given model; call parser.SetAutoRenaming(True) or construct "
                    "the Parser with a model_name_prefix to load it again")
            roots[root] = name
            taken.add(name)

        def rename(model: str) -> str:
            if not model:
                return model
            root, _, tail = model.partition("::")
            new = roots.get(root, root)
            return f"{new}::{tail}" if tail else new

        out = []
        for rec in records:  # fresh records from the reader: copy only what is renamed (joints, frames)
            r = copy.copy(rec)
            r.joints = [copy.copy(j) for j in rec.joints]
            r.frames = [copy.copy(f) for f in rec.frames]
            r.name = rename(rec.name)
            if plant.HasModelInstanceNamed(r.name):
                raise RuntimeError(f"{rec.filename}: model instance '{r.name}' already exists; call "
                                   "parser.SetAutoRenaming(True) or use a model_name_prefix")
            for j in r.joints:
                j.parent_model, j.child_model = rename(j.parent_model), rename(j.child_model)
            for f in r.frames:
                f.body_model, f.model = rename(f.body_model), rename(f.model)
            out.append(r)
        return out

    # ---- building ------------------------------------------------------------------------------------
    def _AddModelNamed(self, filename: str, model_name: str):
        """Add the single top-level model of `filename` as model instance `model_name` (a scoped name), as a
        model directive's add_model does; returns its ModelInstanceIndex."""
        self._check_can_add()
        if not filename.lower().endswith((".urdf", ".sdf", ".xacro")):
            raise ParseError("model directives add URDF and SDFormat models only", filename)
        records = ReadModels(filename, package_map=self._package_map, strict=self._strict)
        sdf_file = any(r.format == "sdf" for r in records)
        top = {r.name.split("::")[0] for r in records if not (sdf_file and r.format != "sdf")}
        if len(top) != 1:
            raise ParseError(f"add_model needs a file with exactly one top-level model; found {sorted(top)}",
                             filename)
        return self._AddModelRecords(records, model_name)[0]

    def _AddModelRecords(self, records: list, model_name: Optional[str] = None) -> list:
        """Build the plant elements of `records` (from one file); returns their instances.

        Follows pydrake's order, which fixes body, joint and state order: URDF models included by
        an SDFormat file come first (and, as in pydrake, are not in the returned list); SDFormat
        model instances are created outer model first, but each model's nested models are built
        before its own links, joints and actuators.
        """
        records = self._RenameRecords(records, model_name)
        plant = self._plant
        sdf_file = any(r.format == "sdf" for r in records)
        included = [r for r in records if sdf_file and r.format != "sdf"]
        own = [r for r in records if not (sdf_file and r.format != "sdf")]
        inertias = {(rec.name, link.name): _SpatialInertia(rec, link) for rec in records for link in rec.links}
        try:
            groups, exclusions = CalcCollisionFilterGroups(records)
        except ParseError:
            raise
        except ValueError as exc:
            raise ParseError(str(exc), records[0].filename if records else "<string>") from None
        instances = {rec.name: plant.AddModelInstance(rec.name) for rec in included + own}
        bodies, joints, inboard = {}, {}, set()
        for rec in included + _NestedFirst(own):
            for link in rec.links:
                bodies[(rec.name, link.name)] = plant.AddRigidBody(link.name, instances[rec.name],
                                                                   inertias[(rec.name, link.name)])
            if sdf_file and rec.links:  # the model frame before the joints' frames, as Drake
                model_frame = [fr for fr in rec.frames if fr.name == "__model__"]
                if model_frame:
                    self._AddFrame(rec, model_frame[0], bodies)
                else:
                    self._AddModelFrame(rec, bodies[(rec.name, rec.links[0].name)])
            for jr in rec.joints:
                joints[(rec.name, jr.name)] = self._AddJoint(rec, jr, bodies)
                inboard.add((jr.child_model, jr.child))
            for ar in rec.actuators:
                self._AddActuator(rec, ar, joints)
        for rec in records:
            for fr in rec.frames:
                if not (sdf_file and rec.links and fr.name == "__model__"):  # (added with the links)
                    self._AddFrame(rec, fr, bodies)
            for jr in rec.joints:
                if jr.mimic is not None:
                    self._AddMimic(rec, jr, joints)
            for link in rec.links:
                if (rec.name, link.name) not in inboard:
                    plant.SetDefaultFloatingBaseBodyPose(bodies[(rec.name, link.name)], _transform(rec.X_WM @ link.X_MB))
        for rec in records:  # (after every frame: they may name a nested model's)
            for br in rec.bushings:
                AddBushingRecord(plant, rec, br)
            for cr in rec.ball_constraints:
                AddBallConstraintRecord(plant, rec, cr)
        if self._RegisterGeometries(records, bodies):
            ApplyCollisionFilterGroups(self._plant, groups, exclusions,
                                       {f"{model}::{link}": body for (model, link), body in bodies.items()})
        for name, members in groups.items():
            self._filter_groups.AddGroup(name, members)
        for pair in exclusions:
            self._filter_groups.AddExclusionPair(pair)
        for rec in records:
            self._records[int(instances[rec.name])] = rec
        return [instances[rec.name] for rec in own]

    def _Body(self, rec: ModelRecord, model: str, link: str, bodies: dict, line, element: str):
        key = (model, link)
        if key in bodies:
            return bodies[key]
        if link == WORLD and not model:
            return self._plant.world_body()
        raise ParseError(f"link '{link}' of model '{model or rec.name}' does not exist; links: "
                         f"{sorted(n for m, n in bodies if m == (model or rec.name))}", rec.filename, line, element)

    def _AddJoint(self, rec: ModelRecord, jr, bodies: dict):
        from mallard.multibody.tree import (BallRpyJoint, FixedOffsetFrame, PlanarJoint, PrismaticJoint,
                                            PrismaticSpring, QuaternionFloatingJoint, RevoluteJoint, RevoluteSpring,
                                            ScrewJoint, UniversalJoint, WeldJoint)
        plant = self._plant
        parent = self._Body(rec, jr.parent_model, jr.parent, bodies, jr.line, "joint")
        child = self._Body(rec, jr.child_model, jr.child, bodies, jr.line, "joint")
        instance = child.model_instance()
        X_PF, X_CM = np.asarray(jr.X_PJ, float), np.asarray(jr.X_CJ, float)
        if jr.type == "universal":
            axis2 = jr.axis2 if jr.axis2 is not None else np.array([0.0, 1.0, 0.0])
            X_JU = _homogeneous(CalcUniversalJointRotation(jr.axis, axis2))
            X_PF, X_CM = X_PF @ X_JU, X_CM @ X_JU
        elif jr.type == "planar":
            X_JK = _homogeneous(CalcPlanarJointRotation(jr.axis))
            X_PF, X_CM = X_PF @ X_JK, X_CM @ X_JK

        def frame(body, X, suffix):  # pydrake: URDF joints always get F, SDFormat joints always get M
            always = (suffix == "parent") == (rec.format == "urdf")
            if _is_identity(X) and not always:
                return body.body_frame()
            return plant.AddFrame(FixedOffsetFrame(f"{jr.name}_{suffix}", body.body_frame(), _transform(X),
                                                   model_instance=instance))

        damping = np.asarray(jr.damping, float)
        d0 = float(damping[0]) if damping.size else 0.0
        try:
            F, M = frame(parent, X_PF, "parent"), frame(child, X_CM, "child")
            if jr.type in ("revolute", "continuous"):
                joint = RevoluteJoint(jr.name, F, M, jr.axis, damping=d0)
            elif jr.type == "prismatic":
                joint = PrismaticJoint(jr.name, F, M, jr.axis, damping=d0)
            elif jr.type == "screw":
                joint = ScrewJoint(jr.name, F, M, jr.axis, jr.screw_thread_pitch, d0)
            elif jr.type == "fixed":
                joint = WeldJoint(jr.name, F, M, _transform(np.eye(4)))
            elif jr.type == "ball":
                joint = BallRpyJoint(jr.name, F, M, damping=damping if damping.size else 0.0)
            elif jr.type == "universal":
                joint = UniversalJoint(jr.name, F, M, damping=damping if damping.size else 0.0)
            elif jr.type == "planar":
                joint = PlanarJoint(jr.name, F, M, damping=damping if damping.size else np.zeros(3))
            elif jr.type == "floating":
                joint = QuaternionFloatingJoint(jr.name, F, M)
            else:
                raise ValueError(f"joint type '{jr.type}' is not supported")
            joint = plant.AddJoint(joint)
            nq, nv = joint.num_positions(), joint.num_velocities()
            if np.size(jr.lower) == nq and nq:
                joint.set_position_limits(np.asarray(jr.lower, float), np.asarray(jr.upper, float))
            if np.size(jr.velocity) == nv and nv:
                vel = np.abs(np.asarray(jr.velocity, float))
                joint.set_velocity_limits(-vel, vel)
            if np.size(jr.acceleration) == nv and nv:
                acc = np.abs(np.asarray(jr.acceleration, float))
                joint.set_acceleration_limits(-acc, acc)
        except (ValueError, RuntimeError, TypeError) as exc:
            raise ParseError(f"joint '{jr.name}': {exc}", rec.filename, jr.line, "joint") from None
        if jr.spring_stiffness != 0.0:
            spring = {"revolute": RevoluteSpring, "continuous": RevoluteSpring,
                      "prismatic": PrismaticSpring}.get(jr.type)
            if spring is None:
                self._warn(rec, jr.line, "joint", f"joint '{jr.name}': spring_stiffness is only supported on "
                           f"revolute and prismatic joints (this one is {jr.type}); the spring is ignored")
            else:
                try:
                    plant.AddForceElement(spring(joint, jr.spring_reference, jr.spring_stiffness))
                except ValueError as exc:
                    raise ParseError(f"joint '{jr.name}': {exc}", rec.filename, jr.line, "joint") from None
        return joint

    def _AddModelFrame(self, rec: ModelRecord, body) -> None:
        """SDFormat's model frame `__model__`, fixed to the model's first link (X_BM = X_MB⁻¹)."""
        from mallard.multibody.tree import FixedOffsetFrame
        link = rec.links[0]
        self._plant.AddFrame(FixedOffsetFrame("__model__", body.body_frame(), _transform(np.linalg.inv(link.X_MB)),
                                              model_instance=body.model_instance()))

    def _AddFrame(self, rec: ModelRecord, fr, bodies: dict):
        from mallard.multibody.tree import FixedOffsetFrame
        body = self._Body(rec, fr.body_model, fr.body, bodies, fr.line, "frame")
        # As pydrake: a model frame goes in its own model's instance (even when the canonical link
        # is a nested model's), another frame in the instance its record names, else its body's.
        model = rec.name if fr.name == "__model__" else fr.model
        instance = self._plant.GetModelInstanceByName(model) if model else body.model_instance()
        try:
            self._plant.AddFrame(FixedOffsetFrame(fr.name, body.body_frame(), _transform(fr.X_BF),
                                                  model_instance=instance))
        except ValueError as exc:
            raise ParseError(f"frame '{fr.name}': {exc}", rec.filename, fr.line, "frame") from None

    def _AddActuator(self, rec: ModelRecord, ar, joints: dict):
        if (rec.name, ar.joint) not in joints:
            raise ParseError(f"actuator '{ar.name}' names joint '{ar.joint}', which model '{rec.name}' does not "
                             f"have; joints: {sorted(n for m, n in joints if m == rec.name)}",
                             rec.filename, ar.line, "actuator")
        joint = joints[(rec.name, ar.joint)]
        if joint.num_velocities() != 1:
            self._warn(rec, ar.line, "actuator", f"actuator '{ar.name}': joint '{ar.joint}' has "
                       f"{joint.num_velocities()} degrees of freedom; only single-dof joints can be actuated, "
                       "so the actuator is ignored")
            return None
        try:
            act = self._plant.AddJointActuator(ar.name, joint, float(ar.effort_limit))
            if ar.gear_ratio != 1.0:
                act.set_default_gear_ratio(float(ar.gear_ratio))
            if ar.rotor_inertia != 0.0:
                act.set_default_rotor_inertia(float(ar.rotor_inertia))
        except ValueError as exc:
            raise ParseError(f"actuator '{ar.name}': {exc}", rec.filename, ar.line, "actuator") from None
        return act

    def _AddMimic(self, rec: ModelRecord, jr, joints: dict):
        mimic = jr.mimic
        if (rec.name, mimic.joint) not in joints:
            raise ParseError(f"joint '{jr.name}': <mimic> names joint '{mimic.joint}', which does not exist; "
                             f"joints: {sorted(n for m, n in joints if m == rec.name)}", rec.filename, jr.line,
                             "mimic")
        joint0 = joints[(rec.name, jr.name)]
        joint1 = joints[(rec.name, mimic.joint)]
        if joint0.num_velocities() != 1 or joint1.num_velocities() != 1:
            self._warn(rec, jr.line, "mimic", f"joint '{jr.name}': <mimic> couples single-dof joints only; "
                       "the mimic element is ignored")
            return
        # as pydrake, on any plant (a continuous one keeps it and refuses to compute its dynamics)
        self._plant.AddCouplerConstraint(joint0, joint1, mimic.multiplier, mimic.offset)

    # ---- geometry ------------------------------------------------------------------------------------
    def _CanRegisterGeometry(self) -> bool:
        """True if the plant is (or, given a scene_graph, can now be made) a SceneGraph source."""
        plant = self._plant
        if not plant.geometry_source_is_registered() and self._scene_graph is not None:
            plant.RegisterAsSourceForSceneGraph(self._scene_graph)
        return bool(plant.geometry_source_is_registered())

    def _RegisterGeometries(self, records: list, bodies: dict) -> bool:
        """Register every visual and collision geometry, when the plant can (see module docstring);
        returns whether it could."""
        if not self._CanRegisterGeometry():
            return False
        for rec in records:
            for geom in rec.world_geometries:
                RegisterGeometryRecord(self._plant, self._plant.world_body(), geom, rec.filename)
            for link in rec.links:
                for geom in list(link.visuals) + list(link.collisions):
                    RegisterGeometryRecord(self._plant, bodies[(rec.name, link.name)], geom, rec.filename)
        return True
