"""Mutated model files and the classification of what loading them does.

A case is a base model from the shared models (URDF, SDFormat, MJCF) plus a few mutations: XML edits
(junk or extreme attribute values, deleted, renamed, duplicated or moved elements, truncation), includes
of device files, and whole-file replacements (empty, binary, another format). `load_outcome` loads a case
into a MultibodyPlant, finalizes it, and classifies the result: a clean load with a finite model, a
located error, or one of the failures the fuzz tests forbid (another exception type, an error without a
place, a non-finite model, a hang). Used by tests/parsers/test_load_fuzz.py and tests/fuzz/run_fuzz.py.
"""
from __future__ import annotations

import copy
import random
import re
import signal
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lxml import etree

from mallard.multibody.plant import AddMultibodyPlantSceneGraph
from mallard.multibody.tree import BodyIndex, JointActuatorIndex, JointIndex, ModelInstanceIndex
from mallard.parsers import ParseError, Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder

EXTENSIONS = {"urdf": "urdf", "sdf": "sdf", "mjcf": "xml"}
# Bases whose plain load takes over ~0.5 s (muscle length ranges, big meshes): long runs only.
SLOW = ("activation.xml", "humanoid.xml", "dual_iiwa14_polytope_collision.urdf", "spheres_cylinders.xml")

JUNK = ["", " ", "abc", "nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "-1", "0", "0 0 0 0", "0 -1e308 0",
        "1 2", "1 2 3 4 5 6 7 8 9 10", "::", "a::b", "__model__", "world", "true", "2.5\"", "0x10",
        "/dev/zero", "file:///dev/zero", "package://nope/x.obj", "../../../../etc/passwd", "\u00e9\u4e2d",
        "1e400", "-0", "1,2,3", "revolute2", "free", "ball", "hinge", "slide", "mesh", "plane"]
EXTREME = ["1e308", "-1e308", "1e-308", "nan", "inf", "0", "-0", "1e30", "-1e30"]
TAGS = {
    "urdf": ["link", "joint", "inertial", "inertia", "mass", "origin", "visual", "collision", "geometry", "box",
             "sphere", "cylinder", "mesh", "axis", "limit", "parent", "child", "transmission", "foo",
             "drake:collision_filter_group", "drake:member", "mimic", "robot"],
    "sdf": ["model", "link", "joint", "pose", "inertial", "inertia", "mass", "visual", "collision", "geometry",
            "box", "size", "sphere", "cylinder", "mesh", "uri", "axis", "xyz", "limit", "parent", "child",
            "frame", "include", "world", "foo", "drake:collision_filter_group", "drake:member"],
    "mjcf": ["body", "joint", "freejoint", "geom", "site", "inertial", "include", "default", "worldbody",
             "actuator", "motor", "muscle", "position", "tendon", "fixed", "spatial", "equality", "connect",
             "weld", "sensor", "compiler", "option", "asset", "mesh", "keyframe", "key", "contact", "exclude",
             "pair", "frame", "foo"],
}
INCLUDES = {  # device files that must not be read (to the end)
    "urdf": '<link name="devzero"><visual><geometry><mesh filename="file:///dev/zero"/></geometry></visual></link>',
    "sdf": "<include><uri>file:///dev/zero</uri></include>",
    "mjcf": '<include file="/dev/zero"/>',
}
WHOLE = [b"", b"   \n\t ", b"\xef\xbb\xbf", bytes(range(256)), b"\x00" * 64, b"<robot/>", b"<sdf version='1.9'/>",
         b"<mujoco/>", b"<?xml version='1.0'?>", b"<mujoco><worldbody><body/></worldbody></mujoco>"]
OPS = ["attr_value", "attr_value", "attr_extreme", "attr_extreme", "attr_scale", "attr_zero", "attr_delete", "text",
       "text_extreme", "delete", "rename", "duplicate", "duplicate_unnamed", "move", "move", "strip", "reference",
       "include", "truncate", "whole"]
# Elements the "strip" mutation removes everywhere (a model without joints, inertials, geometry, ...).
STRIP = {"urdf": ["joint", "inertial", "collision", "visual", "limit", "origin"],
         "sdf": ["joint", "inertial", "collision", "visual", "pose", "axis"],
         "mjcf": ["joint", "freejoint", "inertial", "geom", "actuator", "default", "compiler"]}
# Attributes and texts that name other elements (the "reference" mutation points them elsewhere).
REFERENCES = {"name", "link", "joint", "body", "body1", "body2", "geom", "geom1", "geom2", "site", "tendon", "class",
              "childclass", "mesh", "material", "parent", "child", "relative_to", "objname", "joint1", "joint2"}


@dataclass
class Base:
    kind: str
    path: Path
    text: str


def bases(models: Path, include_slow: bool) -> list[Base]:
    """Every URDF, SDFormat and MJCF model under `models` (sorted, so case numbers are reproducible)."""
    out = []
    for kind, pattern in (("urdf", "**/*.urdf"), ("sdf", "**/*.sdf"), ("mjcf", "mujoco/**/*.xml")):
        for path in sorted(models.glob(pattern)):
            if include_slow or path.name not in SLOW:
                out.append(Base(kind, path, path.read_text()))
    return out


@dataclass
class Case:
    base: Base
    ops: list = field(default_factory=list)
    time_step: float = 0.0

    def describe(self) -> str:
        return f"{self.base.path.name} h={self.time_step} ops={self.ops}"


def random_case(rng: random.Random, pool: list[Base]) -> Case:
    """A base from `pool` and 1-3 mutations drawn with `rng`."""
    base = pool[rng.randrange(len(pool))]
    ops = []
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(OPS)
        ops.append((op, rng.randrange(10 ** 6), rng.randrange(10 ** 6), rng.random()))
        if op == "whole":
            break
    return Case(base, ops, rng.choice((0.0, 0.001)))


def _elements(root) -> list:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _numbers_replaced(text: str, seed: int, value: str) -> str:
    """`text` with one of its numbers replaced by `value` (or `value` itself when it holds none)."""
    spans = [m.span() for m in re.finditer(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)]
    if not spans:
        return value
    a, b = spans[seed % len(spans)]
    return text[:a] + value + text[b:]


def mutate(case: Case) -> bytes:
    """The bytes of the mutated file."""
    kind = case.base.kind
    try:
        root = etree.fromstring(case.base.text.encode())
    except etree.XMLSyntaxError:  # a base that does not parse is fuzzed as text only
        return case.base.text.encode()
    truncate = None
    for op, seed, seed2, u in case.ops:
        elements = _elements(root)
        e = elements[seed % len(elements)]
        with_attrs = [x for x in elements if x.attrib]
        if op in ("attr_value", "attr_extreme", "attr_delete") and with_attrs:
            e = with_attrs[seed % len(with_attrs)]
            key = list(e.attrib)[seed2 % len(e.attrib)]
            if op == "attr_value":
                e.set(key, JUNK[seed2 % len(JUNK)])
            elif op == "attr_extreme":
                e.set(key, _numbers_replaced(e.get(key), seed2, EXTREME[seed2 % len(EXTREME)]))
            else:
                del e.attrib[key]
        elif op in ("text", "text_extreme"):
            leaves = [x for x in elements if len(x) == 0]
            leaf = leaves[seed % len(leaves)]
            leaf.text = (JUNK[seed2 % len(JUNK)] if op == "text" else
                         _numbers_replaced(leaf.text or "", seed2, EXTREME[seed2 % len(EXTREME)]))
        elif op in ("attr_scale", "attr_zero"):
            numeric = [(x, k) for x in elements for k, v in x.attrib.items() if re.search(r"\d", v)]
            if numeric:
                x, key = numeric[seed % len(numeric)]
                if op == "attr_zero":
                    x.set(key, re.sub(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", "0", x.get(key)))
                else:
                    factor = (1e300, 1e-300, -1.0, 1e6)[seed2 % 4]
                    x.set(key, re.sub(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?",
                                      lambda m: repr(float(m.group(0)) * factor), x.get(key)))
        elif op == "strip":
            doomed = STRIP[kind][seed2 % len(STRIP[kind])]
            for x in [x for x in elements if etree.QName(x).localname == doomed and x is not root]:
                x.getparent().remove(x)
        elif op == "reference":
            refs = [(x, k) for x in elements for k in x.attrib if k in REFERENCES]
            if refs:
                x, key = refs[seed % len(refs)]
                others = sorted({v for y in elements for k, v in y.attrib.items() if k in REFERENCES})
                x.set(key, (others + ["nope", "world", ""])[seed2 % (len(others) + 3)])
        elif op == "duplicate_unnamed" and e is not root:
            twin = copy.deepcopy(e)
            for x in twin.iter():
                if isinstance(x.tag, str) and "name" in x.attrib and kind == "mjcf":
                    del x.attrib["name"]
            e.addnext(twin)
        elif op == "whole":
            return WHOLE[seed % len(WHOLE)]
        elif op == "truncate":
            truncate = 0.05 + 0.94 * u
        elif op == "include":
            hosts = [x for x in elements if etree.QName(x).localname in ("model", "world")] or [root]
            host = hosts[seed % len(hosts)]
            host.insert(seed2 % (len(host) + 1), etree.fromstring(INCLUDES[kind]))
        elif e is root:
            continue
        elif op == "delete":
            e.getparent().remove(e)
        elif op == "rename":
            e.tag = TAGS[kind][seed2 % len(TAGS[kind])].replace("drake:", "{http://drake.mit.edu}")
        elif op == "duplicate":
            e.addnext(copy.deepcopy(e))
        elif op == "move":
            same = [x for x in elements if x.tag == TAGS[kind][seed % len(TAGS[kind])] and x is not root]
            e = same[seed2 % len(same)] if same and u < 0.5 else e
            targets = [t for t in elements if t is not e and e not in t.iterancestors()]
            target = targets[seed2 % len(targets)]
            if target is not e.getparent() or len(targets) == 1:
                target.append(e)
    out = etree.tostring(root, pretty_print=True)
    if truncate is not None:
        start = out.index(b">") + 1
        out = out[: start + int((len(out) - start) * truncate)]
    return out


# ---- loading and classification ------------------------------------------------------------------
GOOD = ("loaded", "parse_error", "model_error")
BAD = ("unlocated_error", "other_exception", "nonfinite_model", "hang")


@dataclass
class Outcome:
    kind: str
    detail: str = ""
    seconds: float = 0.0


class _Timeout(BaseException):
    """A case ran past its time limit (BaseException: no `except Exception` in the package swallows it)."""


def _on_alarm(signum, frame):
    raise _Timeout()


def _names(plant) -> list[str]:
    """Names of the plant's bodies, joints, actuators and model instances (to look for in messages)."""
    names = [plant.get_body(BodyIndex(i)).name() for i in range(plant.num_bodies())]
    names += [plant.get_joint(JointIndex(i)).name() for i in range(plant.num_joints())]
    names += [plant.get_joint_actuator(JointActuatorIndex(i)).name() for i in range(plant.num_actuators())]
    names += [plant.GetModelInstanceName(ModelInstanceIndex(i)) for i in range(plant.num_model_instances())]
    return [n for n in names if n]


def located_parse_error(err: ParseError, path: str) -> bool:
    """A ParseError that names this file, a line and an element (or says the file is empty/binary)."""
    if err.filename != path and not Path(err.filename).is_file():  # or a file the model includes
        return False
    if err.element:
        return isinstance(err.line, int) and err.line >= 1
    return any(word in err.detail for word in ("file is empty", "file is binary", "no XML element"))


def load_outcome(path: str, time_step: float, package_xml: Path | None, limit_s: float = 30.0) -> Outcome:
    """Loads `path` into a plant (time_step), finalizes it, evaluates its mass matrix and first step (one
    discrete update, or the time derivatives) at the default state, and classifies what happened."""
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    plant = None
    stage = "parse"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            builder = DiagramBuilder()
            plant, _ = AddMultibodyPlantSceneGraph(builder, time_step)
            parser = Parser(plant)
            if package_xml is not None:
                if parser.package_map().Contains("drake_models"):
                    parser.package_map().Remove("drake_models")  # a default remote package, as in pydrake's map
                parser.package_map().AddPackageXml(str(package_xml))
            parser.AddModels(path)
            stage = "finalize"
            plant.Finalize()
            stage = "evaluate"
            diagram = builder.Build()
            root = diagram.CreateDefaultContext()
            context = plant.GetMyContextFromRoot(root)
            x = plant.GetPositionsAndVelocities(context)
            M = plant.CalcMassMatrix(context)
            g = plant.CalcGravityGeneralizedForces(context)
            if not (np.all(np.isfinite(x)) and np.all(np.isfinite(M)) and np.all(np.isfinite(g))):
                return Outcome("nonfinite_model", f"finite state {np.all(np.isfinite(x))}, mass matrix "
                                                  f"{np.all(np.isfinite(M))}, gravity {np.all(np.isfinite(g))}")
            stage = "step"
            actuation = plant.get_actuation_input_port()
            actuation.FixValue(context, np.zeros(actuation.size()))
            if time_step > 0:
                Simulator(diagram, root).AdvanceTo(time_step)
                x = plant.GetPositionsAndVelocities(context)
            else:
                x = plant.EvalTimeDerivatives(context).CopyToVector()
            if not np.all(np.isfinite(x)):
                return Outcome("nonfinite_model", f"non-finite {'state after one step' if time_step else 'derivatives'}")
        return Outcome("loaded")
    except _Timeout:
        return Outcome("hang", f"no answer within {limit_s} s (stage {stage})")
    except ParseError as err:
        if located_parse_error(err, path):
            return Outcome("parse_error", str(err))
        return Outcome("unlocated_error", f"{type(err).__name__}: {err}")
    except (ValueError, RuntimeError) as err:
        if stage == "parse":
            return Outcome("unlocated_error", f"{type(err).__name__} while parsing: {err}")
        names = _names(plant)
        message = str(err)
        quoted = set(re.findall(r"'([^']+)'", message))  # element names, or state names such as 'elbow_q'
        if any(q in names or q.rsplit("_", 1)[0] in names for q in quoted) or \
                re.search(r"(constraint|geometry|geometries) \[?'[^']+'", message):
            return Outcome("model_error", f"{type(err).__name__} at {stage}: {message}")
        return Outcome("unlocated_error", f"{type(err).__name__} at {stage}: {message}")
    except Exception as err:  # noqa: BLE001 - the classification is the point
        return Outcome("other_exception", f"{type(err).__name__} at {stage}: {err}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _case_folder(base: Base, folder: Path) -> Path:
    """A folder in `folder` holding links to the files beside `base` (models it includes by relative path)."""
    sub = folder / re.sub(r"[^A-Za-z0-9]+", "_", str(base.path.parent))
    if not sub.is_dir():
        sub.mkdir(parents=True)
        for entry in base.path.parent.iterdir():
            (sub / entry.name).symlink_to(entry)
    return sub


def run_case(case: Case, folder: Path, package_xml: Path | None, limit_s: float = 30.0) -> Outcome:
    """Writes the mutated file beside (links to) its base's neighbours under `folder`, and loads it."""
    data = mutate(case)
    path = _case_folder(case.base, folder) / f"fuzz_case.{EXTENSIONS[case.base.kind]}"
    path.write_bytes(data)
    t = time.perf_counter()
    outcome = load_outcome(str(path), case.time_step, package_xml, limit_s)
    outcome.seconds = time.perf_counter() - t
    return outcome
