"""ProcessModelDirectives: build a plant from model directives (Drake's detail_dmd_parser), plus
GetScopedFrameByName(Maybe) and ModelInstanceInfo.

Directives run in order with Drake's scoping rules: add_directives with a model_namespace prefixes the names
of everything it adds with that (already existing) model instance's name; a frame named without a scope goes
in its base frame's model instance; add_weld welds the child frame to the parent frame and records the weld
in the child model's ModelInstanceInfo. Collision filter groups are resolved once every directive has run.
"""
from __future__ import annotations

from typing import Optional

from mallard.multibody.math import RigidTransform
from mallard.multibody.tree import FixedOffsetFrame, QuaternionFloatingJoint
from mallard.multibody.tree.scoped_name import ScopedName

from .errors import ParseError
from .model_directives import (DmdScopedNameJoin, LoadModelDirectives, ModelDirectives, ModelDirectivesError,
                               ResolveModelDirectiveUri)
from .parser import Parser

__all__ = ["GetScopedFrameByName", "GetScopedFrameByNameMaybe", "ModelInstanceInfo", "ProcessModelDirectives"]


class ModelInstanceInfo:
    """A model added by an add_model directive: its scoped name, file, instance and (after an add_weld that
    names one of its frames as child) the weld's parent and child frame names and pose X_PC."""

    __slots__ = ("model_name", "model_path", "parent_frame_name", "child_frame_name", "X_PC", "model_instance")

    def __init__(self, model_name: str = "", model_path: str = "", parent_frame_name: str = "",
                 child_frame_name: str = "", X_PC: Optional[RigidTransform] = None, model_instance=None) -> None:
        self.model_name, self.model_path = model_name, model_path
        self.parent_frame_name, self.child_frame_name = parent_frame_name, child_frame_name
        self.X_PC = RigidTransform() if X_PC is None else X_PC
        self.model_instance = model_instance

    def __repr__(self) -> str:
        return (f"ModelInstanceInfo(model_name={self.model_name!r}, model_path={self.model_path!r}, "
                f"parent_frame_name={self.parent_frame_name!r}, child_frame_name={self.child_frame_name!r}, "
                f"model_instance={self.model_instance!r})")


def GetScopedFrameByNameMaybe(plant, full_name: str):
    """The frame named `full_name` ("world", "frame" unique in the plant, or "model::frame"), or None."""
    if full_name == "world":
        return plant.world_frame()
    name = ScopedName.Parse(full_name)
    if name.get_namespace():
        if plant.HasModelInstanceNamed(name.get_namespace()):
            instance = plant.GetModelInstanceByName(name.get_namespace())
            if plant.HasFrameNamed(name.get_element(), instance):
                return plant.GetFrameByName(name.get_element(), instance)
        return None
    if plant.HasFrameNamed(name.get_element()):
        return plant.GetFrameByName(name.get_element())
    return None


def GetScopedFrameByName(plant, full_name: str):
    """As GetScopedFrameByNameMaybe, but an unknown name raises (naming the frame and the model instance)."""
    if full_name == "world":
        return plant.world_frame()
    name = ScopedName.Parse(full_name)
    if name.get_namespace():
        return plant.GetFrameByName(name.get_element(), plant.GetModelInstanceByName(name.get_namespace()))
    return plant.GetFrameByName(name.get_element())


class _Run:
    """One ProcessModelDirectives call: the parser, the added models and the collision filter groups."""

    def __init__(self, parser: Parser) -> None:
        self.parser, self.plant = parser, parser.plant()
        self.added: list[ModelInstanceInfo] = []
        self.groups: dict[str, set] = {}        # scoped group name -> scoped member body names
        self.member_groups: dict[str, list] = {}
        self.pairs: list[tuple[str, str]] = []

    def frame(self, ns: str, name: str):
        return GetScopedFrameByName(self.plant, DmdScopedNameJoin(ns, name).to_string())

    def run(self, directives: ModelDirectives, ns: str) -> None:
        for d in directives.directives:
            if d.add_model is not None:
                self.add_model(d.add_model, ns)
            elif d.add_model_instance is not None:
                self.plant.AddModelInstance(ScopedName.Join(ns, d.add_model_instance.name).to_string())
            elif d.add_frame is not None:
                self.add_frame(d.add_frame, ns)
            elif d.add_weld is not None:
                self.add_weld(d.add_weld, ns)
            elif d.add_collision_filter_group is not None:
                self.add_group(d.add_collision_filter_group, ns)
            else:
                sub = d.add_directives
                sub_ns = ScopedName.Join(ns, sub.model_namespace or "").to_string()
                if sub_ns and not self.plant.HasModelInstanceNamed(sub_ns):
                    raise ModelDirectivesError(f"Namespace '{sub_ns}' does not exist as model instance")
                self.run(LoadModelDirectives(ResolveModelDirectiveUri(sub.file, self.parser.package_map())), sub_ns)

    def add_model(self, model, ns: str) -> None:
        name = ScopedName.Join(ns, model.name).to_string()
        try:
            path = ResolveModelDirectiveUri(model.file, self.parser.package_map())
        except (KeyError, ValueError) as exc:
            raise ParseError(str(exc), model.file) from None
        instance = self.parser._AddModelNamed(path, name)
        plant = self.plant
        for joint_name, positions in model.default_joint_positions.items():
            plant.GetJointByName(joint_name, instance).set_default_positions(positions)
        for child_name, pose in model.default_free_body_pose.items():
            parent = plant.world_frame() if pose.base_frame in (None, "world") else self.frame(ns, pose.base_frame)
            if child_name:
                child = plant.GetFrameByName(child_name, instance)
            else:
                bodies = plant.GetBodyIndices(instance)
                if len(bodies) != 1:
                    raise ModelDirectivesError(
                        f"Model instance '{name}' cannot use an empty frame name for its default_free_body_pose in "
                        f"add_model because it has {len(bodies)} (not 1) bodies.")
                child = plant.get_body(bodies[0]).body_frame()
            X_PC = pose.GetDeterministicValue()
            if parent is plant.world_frame() and child.GetFixedPoseInBodyFrame().IsExactlyIdentity():
                plant.SetDefaultFloatingBaseBodyPose(child.body(), X_PC)
            else:
                joint_name = child.body().name()
                while plant.HasJointNamed(joint_name, instance):
                    joint_name = "_" + joint_name
                joint = plant.AddJoint(QuaternionFloatingJoint(joint_name, parent, child))
                joint.SetDefaultPose(X_PC)
        self.added.append(ModelInstanceInfo(model_name=name, model_path=path, model_instance=instance))

    def add_frame(self, frame, ns: str) -> None:
        instance = None
        parsed = ScopedName.Parse(frame.name)
        if parsed.get_namespace():
            parsed.set_namespace(ScopedName.Join(ns, parsed.get_namespace()).get_full())
            instance = self.plant.GetModelInstanceByName(parsed.get_namespace())
        self.plant.AddFrame(FixedOffsetFrame(parsed.get_element(), self.frame(ns, frame.X_PF.base_frame),
                                             frame.X_PF.GetDeterministicValue(), model_instance=instance))

    def add_weld(self, weld, ns: str) -> None:
        X_PC = RigidTransform() if weld.X_PC is None else weld.X_PC.GetDeterministicValue()
        parent, child = self.frame(ns, weld.parent), self.frame(ns, weld.child)
        self.plant.WeldFrames(parent, child, X_PC)
        found = False
        for info in self.added:
            if info.model_instance == child.model_instance():
                info.parent_frame_name, info.child_frame_name, info.X_PC = parent.name(), child.name(), X_PC
                found = True
        if not found:
            raise ModelDirectivesError(f"add_weld: child frame '{weld.child}' is not in a model added by these "
                                       "directives")

    def add_group(self, group, ns: str) -> None:
        if not self.plant.geometry_source_is_registered():
            return
        scope = ns or group.model_namespace or ""
        name = ScopedName.Join(scope, group.name).to_string()
        self.groups[name] = {ScopedName.Join(scope, m).to_string() for m in group.members}
        self.member_groups[name] = [ScopedName.Join(scope, g).to_string() for g in group.member_groups]
        self.pairs += [(name, ScopedName.Join(scope, g).to_string()) for g in group.ignored_collision_filter_groups]

    def finish(self) -> None:
        if not self.groups:
            return
        known = self.parser.GetCollisionFilterGroups().groups()

        def members(name: str, stack=()) -> set:
            if name in stack:
                raise ModelDirectivesError(f"collision filter groups include each other: {' -> '.join(stack)}")
            if name in self.groups:
                out = set(self.groups[name])
                for sub in self.member_groups.get(name, []):
                    out |= members(sub, stack + (name,))
                return out
            if name in known:
                return set(known[name])
            raise ModelDirectivesError(f"collision filter group '{name}' is not defined; groups: "
                                       f"{sorted(set(self.groups) | set(known))}")

        plant = self.plant

        def geometries(name: str):
            bodies = []
            for member in sorted(members(name)):
                scoped = ScopedName.Parse(member)
                instance = plant.GetModelInstanceByName(scoped.get_namespace()) if scoped.get_namespace() else None
                bodies.append(plant.GetBodyByName(scoped.get_element(), instance) if instance is not None
                              else plant.GetBodyByName(scoped.get_element()))
            return plant.CollectRegisteredGeometries(bodies)

        for name in self.groups:
            self.parser._filter_groups.AddGroup(name, members(name))
        for a, b in self.pairs:
            plant.ExcludeCollisionGeometriesWithCollisionFilterGroupPair((a, geometries(a)), (b, geometries(b)))
            self.parser._filter_groups.AddExclusionPair((a, b))


def ProcessModelDirectives(directives: ModelDirectives, plant=None, parser: Optional[Parser] = None
                           ) -> list[ModelInstanceInfo]:
    """Add the models, frames, welds and collision filter groups of `directives`; returns the added models.

    Called as ProcessModelDirectives(directives, parser) or ProcessModelDirectives(directives, plant,
    parser=None) (a new Parser of `plant` when none is given).
    """
    if isinstance(plant, Parser) and parser is None:
        plant, parser = None, plant
    if parser is None:
        if plant is None:
            raise TypeError("ProcessModelDirectives: pass a parser (or a plant)")
        parser = Parser(plant)
    elif plant is not None and plant is not parser.plant():
        raise ValueError("ProcessModelDirectives: the parser adds to a different plant than `plant`")
    run = _Run(parser)
    run.run(directives, "")
    run.finish()
    return run.added
