"""The MJCF schema: which elements may appear under which parent, their attributes, types and defaults.

Attribute specs are written in a compact notation (one `name:type[=default]` per `;`):
`s` string, `i` int, `iN` N ints, `r` real, `rN` N reals, `rN<` up to N reals (missing trailing values
keep their default), `r*`/`i*` any length, `[a|b]` keyword, `b` false/true, `t` false/true/auto,
`f` disable/enable. A trailing `!` marks a required attribute; no default means "undefined" (None).
Values follow spec/mjcf.md (MuJoCo 3.3 semantics).
"""
from __future__ import annotations

from dataclasses import dataclass

ORIENT = "quat:r4=1 0 0 0; axisangle:r4; xyaxes:r6; zaxis:r3; euler:r3"
SOLREF = "0.02 1"
SOLIMP = "0.9 0.95 0.001 0.5 2"

JOINT = (
    "name:s; class:s; type:[free|ball|slide|hinge]=hinge; group:i=0; pos:r3=0 0 0; axis:r3=0 0 1;"
    "springdamper:r2=0 0; solreflimit:r2<=0.02 1; solimplimit:r5<=0.9 0.95 0.001 0.5 2;"
    "solreffriction:r2<=0.02 1; solimpfriction:r5<=0.9 0.95 0.001 0.5 2; stiffness:r=0; range:r2=0 0;"
    "limited:t=auto; actuatorfrcrange:r2=0 0; actuatorfrclimited:t=auto; actuatorgravcomp:b=false;"
    "margin:r=0; ref:r=0; springref:r=0; armature:r=0; damping:r=0; frictionloss:r=0; user:r*"
)
GEOM = (
    "name:s; class:s; type:[plane|hfield|sphere|capsule|ellipsoid|cylinder|box|mesh|sdf]=sphere;"
    "contype:i=1; conaffinity:i=1; condim:i=3; group:i=0; priority:i=0; size:r3<=0 0 0; material:s;"
    "rgba:r4=0.5 0.5 0.5 1; friction:r3<=1 0.005 0.0001; mass:r; density:r=1000; shellinertia:b=false;"
    "solmix:r=1; solref:r2<=0.02 1; solimp:r5<=0.9 0.95 0.001 0.5 2; margin:r=0; gap:r=0; fromto:r6;"
    "adhesion:r=0; pos:r3=0 0 0; hfield:s; mesh:s; fitscale:r=1; fluidshape:[none|ellipsoid]=none;"
    "fluidcoef:r5<=0.5 0.25 1.5 1.0 1.0; user:r*; " + ORIENT
)
SITE = (
    "name:s; class:s; type:[sphere|capsule|ellipsoid|cylinder|box]=sphere; group:i=0; material:s;"
    "rgba:r4=0.5 0.5 0.5 1; size:r3<=0.005 0.005 0.005; fromto:r6; pos:r3=0 0 0; user:r*; " + ORIENT
)
CAMERA = (
    "name:s; class:s; mode:[fixed|track|trackcom|targetbody|targetbodycom]=fixed; target:s;"
    "orthographic:b=false; projection:[perspective|orthographic]=perspective; output:s=rgb; fovy:r=45; resolution:i2=1 1; focal:r2=0 0; focalpixel:r2=0 0;"
    "principal:r2=0 0; principalpixel:r2=0 0; sensorsize:r2=0 0; ipd:r=0.068; pos:r3=0 0 0; user:r*; "
    + ORIENT
)
LIGHT = (
    "name:s; class:s; mode:[fixed|track|trackcom|targetbody|targetbodycom]=fixed; target:s;"
    "directional:b=false; castshadow:b=true; active:b=true; radius:r=0.02; bulbradius:r=0.02;"
    "pos:r3=0 0 0; dir:r3=0 0 -1; attenuation:r3=1 0 0; cutoff:r=45; exponent:r=10;"
    "ambient:r3=0 0 0; diffuse:r3=0.7 0.7 0.7; specular:r3=0.3 0.3 0.3; texture:s; intensity:r=0;"
    "type:[spot|directional|point|image]=spot; range:r=10; softness:r=0.2"
)
PAIR = (
    "name:s; class:s; geom1:s!; geom2:s!; condim:i=3; friction:r5<=1 1 0.005 0.0001 0.0001;"
    "solref:r2<=0.02 1; solimp:r5<=0.9 0.95 0.001 0.5 2; solreffriction:r2<=0 0; margin:r=0; gap:r=0;"
    "adhesion:r=0"
)
EQ_COMMON = "name:s; class:s; active:b=true; solref:r2<=0.02 1; solimp:r5<=0.9 0.95 0.001 0.5 2"
TENDON_COMMON = (
    "name:s; class:s; group:i=0; limited:t=auto; actuatorfrclimited:t=auto; range:r2=0 0;"
    "actuatorfrcrange:r2=0 0; solreflimit:r2<=0.02 1; solimplimit:r5<=0.9 0.95 0.001 0.5 2;"
    "solreffriction:r2<=0.02 1; solimpfriction:r5<=0.9 0.95 0.001 0.5 2; margin:r=0; frictionloss:r=0;"
    "springlength:r2<=-1 -1; stiffness:r=0; damping:r=0; armature:r=0; user:r*"
)
SPATIAL = TENDON_COMMON + "; width:r=0.003; material:s; rgba:r4=0.5 0.5 0.5 1"
ACT_TARGETS = "joint:s; jointinparent:s; site:s; refsite:s; tendon:s; cranksite:s; slidersite:s"
ACT_COMMON = (
    "name:s; class:s; group:i=0; ctrllimited:t=auto; forcelimited:t=auto; ctrlrange:r2=0 0;"
    "forcerange:r2=0 0; lengthrange:r2=0 0; gear:r6<=1 0 0 0 0 0; cranklength:r=0; user:r*; " + ACT_TARGETS
)
GENERAL = (
    ACT_COMMON + "; body:s; actlimited:t=auto; actrange:r2=0 0; actdim:i=-1;"
    "dyntype:[none|integrator|filter|filterexact|muscle|user]=none; gaintype:[fixed|affine|muscle|so3|user]=fixed;"
    "biastype:[none|affine|muscle|so3|user]=none; dynprm:r10<=1 0 0 0 0 0 0 0 0 0;"
    "gainprm:r10<=1 0 0 0 0 0 0 0 0 0; biasprm:r10<=0 0 0 0 0 0 0 0 0 0; actearly:b=false; input:[expmap|quat]"
)
SHORTCUTS = {
    "motor": ACT_COMMON,
    "position": ACT_COMMON + "; kp:r; kv:r; dampratio:r; timeconst:r; inheritrange:r",
    "velocity": ACT_COMMON + "; kv:r",
    "intvelocity": ACT_COMMON + "; actrange:r2=0 0; actlimited:t=auto; kp:r; kv:r; dampratio:r; inheritrange:r",
    "damper": ACT_COMMON + "; kv:r",
    "cylinder": ACT_COMMON + "; timeconst:r; area:r; diameter:r; bias:r3",
    "muscle": ACT_COMMON + "; timeconst:r2; tausmooth:r; range:r2; force:r; scale:r; lmin:r; lmax:r; vmax:r;"
    " fpmax:r; fvmax:r",
    "adhesion": "name:s; class:s; group:i=0; forcelimited:t=auto; ctrlrange:r2=0 0; forcerange:r2=0 0;"
    " user:r*; body:s!; gain:r; ctrllimited:t=auto",
    #: MuJoCo 4 geodesic orientation servo on a ball joint or a site with a refsite (gaintype/biastype so3)
    "orientation": "name:s; class:s; group:i=0; ctrllimited:t=auto; forcelimited:t=auto; ctrlrange:r2=0 0;"
    " forcerange:r2=0 0; user:r*; joint:s; site:s; refsite:s; kp:r; kv:r; dampratio:r; input:[expmap|quat]",
}
#: actuator/plugin (spec §12.4): the common actuator attributes, dyntype after the plugin's own activations
A_PLUGIN = (
    ACT_COMMON + "; plugin:s; instance:s; actlimited:t=auto; actrange:r2=0 0; actdim:i=-1;"
    "dyntype:[none|integrator|filter|filterexact|muscle|user]=none; dynprm:r10<=1 0 0 0 0 0 0 0 0 0;"
    "actearly:b=false"
)
MESH = (
    "name:s; class:s; content_type:s; file:s; scale:r3=1 1 1; inertia:[convex|exact|legacy|shell]=legacy;"
    "smoothnormal:b=false; maxhullvert:i=-1; vertex:r*; normal:r*; texcoord:r*; face:i*; refpos:r3=0 0 0;"
    "refquat:r4=1 0 0 0; material:s"
)
MATERIAL = (
    "name:s; class:s; texture:s; texrepeat:r2=1 1; texuniform:b=false; emission:r=0; specular:r=0.5;"
    "shininess:r=0.5; reflectance:r=0; metallic:r=0; roughness:r=1; rgba:r4=1 1 1 1"
)
TEXTURE = (
    "name:s; class:s; type:[2d|cube|skybox]=cube; content_type:s; file:s; gridsize:i2=1 1;"
    "gridlayout:s=............; fileright:s; fileleft:s; fileup:s; filedown:s; filefront:s; fileback:s;"
    "builtin:[none|gradient|checker|flat]=none; rgb1:r3=0.8 0.8 0.8; rgb2:r3=0.5 0.5 0.5;"
    "mark:[none|edge|cross|random]=none; markrgb:r3=0 0 0; random:r=0.01; width:i=0; height:i=0;"
    "hflip:b=false; vflip:b=false; nchannel:i=3; colorspace:[auto|linear|sRGB]=auto"
)
SENSOR_COMMON = "name:s; noise:r=0; cutoff:r=0; user:r*"
OBJTYPE = "[body|xbody|geom|site|camera]"
#: sensor/plugin (spec §13)
S_PLUGIN = SENSOR_COMMON + "; plugin:s; instance:s; objtype:s; objname:s; reftype:s; refname:s"
SENSORS = {
    **{t: SENSOR_COMMON + "; site:s!" for t in (
        "touch", "accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer")},
    #: MuJoCo 4: a site or a camera (one ray per pixel); data lists output fields in MuJoCo's order
    "rangefinder": SENSOR_COMMON + "; site:s; camera:s; data:s=dist",
    "camprojection": SENSOR_COMMON + "; site:s!; camera:s!",
    #: MuJoCo 4: 1 when the object's frame origin is inside the site's volume
    "insidesite": SENSOR_COMMON + f"; site:s!; objtype:{OBJTYPE}!; objname:s!",
    **{t: SENSOR_COMMON + "; joint:s!" for t in (
        "jointpos", "jointvel", "jointactuatorfrc", "ballquat", "ballangvel", "jointlimitpos",
        "jointlimitvel", "jointlimitfrc")},
    **{t: SENSOR_COMMON + "; tendon:s!" for t in (
        "tendonpos", "tendonvel", "tendonactuatorfrc", "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc")},
    **{t: SENSOR_COMMON + "; actuator:s!" for t in ("actuatorpos", "actuatorvel", "actuatorfrc")},
    **{t: SENSOR_COMMON + f"; objtype:{OBJTYPE}!; objname:s!; reftype:{OBJTYPE}; refname:s" for t in (
        "framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel", "frameangvel")},
    **{t: SENSOR_COMMON + f"; objtype:{OBJTYPE}!; objname:s!" for t in ("framelinacc", "frameangacc")},
    **{t: SENSOR_COMMON + "; body:s!" for t in ("subtreecom", "subtreelinvel", "subtreeangmom")},
    **{t: SENSOR_COMMON + "; geom1:s; geom2:s; body1:s; body2:s" for t in ("distance", "normal", "fromto")},
    **{t: SENSOR_COMMON for t in ("e_potential", "e_kinetic", "clock")},
    "user": SENSOR_COMMON + "; objtype:s; objname:s; datatype:[real|positive|axis|quaternion]=real;"
    " needstage:[pos|vel|acc]=acc; dim:i!",
}
OPTION = (
    "timestep:r=0.002; apirate:r=100; impratio:r=1; gravity:r3=0 0 -9.81; wind:r3=0 0 0;"
    "magnetic:r3=0 -0.5 0; density:r=0; viscosity:r=0; o_margin:r=0; o_solref:r2<=0.02 1;"
    "o_solimp:r5<=0.9 0.95 0.001 0.5 2; o_friction:r5<=1 1 0.005 0.0001 0.0001;"
    "integrator:[Euler|RK4|implicit|implicitfast]=Euler; cone:[pyramidal|elliptic]=pyramidal;"
    "jacobian:[dense|sparse|auto]=auto; solver:[PGS|CG|Newton]=Newton; iterations:i=100; tolerance:r=1e-8;"
    "ls_iterations:i=50; ls_tolerance:r=0.01; noslip_iterations:i=0; noslip_tolerance:r=1e-6;"
    "ccd_iterations:i=50; ccd_tolerance:r=1e-6; sleep_tolerance:r=1e-3; sdf_iterations:i=10; sdf_initpoints:i=40;"
    "actuatorgroupdisable:i*"
)
FLAGS_ENABLED = ("constraint", "equality", "frictionloss", "limit", "contact", "passive", "spring", "damper",
                 "gravity", "clampctrl", "warmstart", "filterparent", "actuation", "refsafe", "sensor",
                 "midphase", "nativeccd", "eulerdamp", "autoreset", "multiccd", "island")
FLAGS_DISABLED = ("override", "energy", "fwdinv", "invdiscrete", "sleep", "diagexact")
FLAG = "; ".join([f"{n}:f=enable" for n in FLAGS_ENABLED] + [f"{n}:f=disable" for n in FLAGS_DISABLED])
COMPILER = (
    "autolimits:b=true; boundmass:r=0; boundinertia:r=0; settotalmass:r=-1; balanceinertia:b=false;"
    "strippath:b=false; coordinate:[local|global]=local; angle:[radian|degree]=degree; fitaabb:b=false;"
    "eulerseq:s=xyz; meshdir:s; texturedir:s; assetdir:s; discardvisual:b=false; usethread:b=true;"
    "fusestatic:b=false; inertiafromgeom:t=auto; alignfree:b=false; inertiagrouprange:i2=0 5;"
    "saveinertial:b=false; conflict:[warning|merge|error]=warning"
)
LENGTHRANGE = (
    "mode:[none|muscle|muscleuser|all]=muscle; useexisting:b=true; uselimit:b=false; accel:r=20;"
    "maxforce:r=0; timeconst:r=1; timestep:r=0.01; inttotal:r=10; interval:r=2; tolrange:r=0.05"
)
SIZE = (
    "memory:s=-1; njmax:i=-1; nconmax:i=-1; nstack:i=-1; nuserdata:i=0; nkey:i=0; nuser_body:i=-1;"
    "nuser_jnt:i=-1; nuser_geom:i=-1; nuser_site:i=-1; nuser_cam:i=-1; nuser_tendon:i=-1;"
    "nuser_actuator:i=-1; nuser_sensor:i=-1"
)
STATISTIC = "meanmass:r; meaninertia:r; meansize:r; extent:r; center:r3"
VISUAL = {
    "global": "orthographic:b=false; fovy:r=45; ipd:r=0.068; azimuth:r=90; elevation:r=-45; linewidth:r=1;"
    " glow:r=0.3; realtime:r=1; offwidth:i=640; offheight:i=480; ellipsoidinertia:b=false; bvactive:b=true;"
    " cameraid:i=-1",
    "quality": "shadowsize:i=4096; offsamples:i=4; numslices:i=28; numstacks:i=16; numquads:i=4",
    "headlight": "ambient:r3=0.1 0.1 0.1; diffuse:r3=0.4 0.4 0.4; specular:r3=0.5 0.5 0.5; active:i=1",
    "map": "; ".join(f"{n}:r" for n in (
        "stiffness", "stiffnessrot", "force", "torque", "alpha", "fogstart", "fogend", "znear", "zfar", "haze",
        "shadowclip", "shadowscale", "actuatortendon")),
    "scale": "; ".join(f"{n}:r" for n in (
        "forcewidth", "contactwidth", "contactheight", "connect", "com", "camera", "light", "selectpoint",
        "jointlength", "jointwidth", "actuatorlength", "actuatorwidth", "framelength", "framewidth",
        "constraint", "slidercrank", "frustum")),
    "rgba": "; ".join(f"{n}:r4" for n in (
        "fog", "haze", "force", "inertia", "joint", "actuator", "actuatornegative", "actuatorpositive", "com",
        "camera", "light", "selectpoint", "connect", "contactpoint", "contactforce", "contactfriction",
        "contacttorque", "contactgap", "rangefinder", "constraint", "slidercrank", "crankbroken", "frustum",
        "bv", "bvactive")),
}
BODY = ("name:s; childclass:s; mocap:b=false; pos:r3; gravcomp:r=0; sleep:[auto|never|allowed|init]=auto;"
        " simple:[false|auto]=auto; user:r*; " + ORIENT)
INERTIAL = "pos:r3!; mass:r!; diaginertia:r3; fullinertia:r6; " + ORIENT
FRAME = "name:s; childclass:s; pos:r3=0 0 0; " + ORIENT
REPLICATE = "count:i!; sep:s=; offset:r3=0 0 0; euler:r3=0 0 0; prefix:s"
KEY = "name:s; time:r=0; qpos:r*; qvel:r*; act:r*; ctrl:r*; mpos:r*; mquat:r*"

#: Elements that are parsed and kept but not simulated (tier 3): any attributes, raw strings kept.
TIER3 = "*"


@dataclass(frozen=True)
class AttrSpec:
    """One attribute: kind (s, i, r, kw, b, t, f), array length (1, N or -1 for any), defaults."""

    name: str
    kind: str
    length: int
    fewer_ok: bool
    default: object
    required: bool
    keywords: tuple[str, ...] = ()


def _parse_default(kind: str, text: str, keywords: tuple[str, ...]):
    if kind in ("s", "kw", "b", "t", "f"):
        return text
    values = [float(v) if kind == "r" else int(v) for v in text.split()]
    return tuple(values)


def parse_attrs(spec: str) -> dict[str, AttrSpec]:
    """Expand an attribute spec string into {name: AttrSpec}."""
    out: dict[str, AttrSpec] = {}
    for item in spec.split(";"):
        item = item.strip()
        if not item:
            continue
        name, rest = item.split(":", 1)
        default = None
        required = rest.endswith("!")
        rest = rest.rstrip("!")
        if "=" in rest:
            rest, default = rest.split("=", 1)
        keywords: tuple[str, ...] = ()
        fewer = rest.endswith("<")
        rest = rest.rstrip("<")
        if rest.startswith("["):
            kind, length, keywords = "kw", 1, tuple(rest.strip("[]").split("|"))
        elif rest in ("s", "b", "t", "f"):
            kind, length = rest, 1
        else:
            kind = rest[0]
            tail = rest[1:]
            length = 1 if tail == "" else (-1 if tail == "*" else int(tail))
        if default is not None:
            default = _parse_default(kind, default, keywords)
            if kind in ("r", "i") and length == 1 and not fewer:
                default = default[0]
        out[name.strip()] = AttrSpec(name.strip(), kind, length, fewer, default, required, keywords)
    return out


def _without(spec: str, *names: str) -> str:
    return "; ".join(p for p in spec.split(";") if p.strip() and p.split(":")[0].strip() not in names)


# ---- the element table: key -> (attribute spec, {child tag: child key}) ------------------------------

_BODY_CHILDREN = {
    "inertial": "inertial", "joint": "joint", "freejoint": "freejoint", "geom": "geom", "site": "site",
    "camera": "camera", "light": "light", "body": "body", "frame": "frame", "replicate": "replicate",
    "attach": "attach", "plugin": "el_plugin", "composite": "t3", "flexcomp": "t3",
}
_WORLD_CHILDREN = {k: v for k, v in _BODY_CHILDREN.items() if k not in ("inertial", "joint", "freejoint")}
_FRAME_CHILDREN = {k: v for k, v in _BODY_CHILDREN.items() if k != "inertial"}
_ACTUATORS = ("general",) + tuple(SHORTCUTS)
_DEFAULT_CHILDREN = {
    "mesh": "d_mesh", "material": "d_material", "joint": "d_joint", "geom": "d_geom", "site": "d_site",
    "camera": "d_camera", "light": "d_light", "pair": "d_pair", "equality": "d_equality",
    "tendon": "d_tendon", "default": "default", "texture": "d_texture",
    **{a: f"d_{a}" for a in _ACTUATORS},
}
_NO_REF = ("name", "class", "joint", "jointinparent", "site", "refsite", "tendon", "slidersite", "cranksite",
           "body", "lengthrange")

ELEMENTS: dict[str, tuple[str, dict[str, str]]] = {
    "mujoco": ("model:s=MuJoCo Model", {
        "compiler": "compiler", "option": "option", "size": "size", "statistic": "statistic",
        "visual": "visual", "default": "default", "extension": "extension", "custom": "custom", "asset": "asset",
        "worldbody": "worldbody", "deformable": "t3", "contact": "contact", "equality": "equality",
        "tendon": "tendon", "actuator": "actuator", "sensor": "sensor", "keyframe": "keyframe"}),
    "compiler": (COMPILER, {"lengthrange": "lengthrange"}),
    "lengthrange": (LENGTHRANGE, {}),
    "option": (OPTION, {"flag": "flag"}),
    "flag": (FLAG, {}),
    "size": (SIZE, {}),
    "statistic": (STATISTIC, {}),
    "visual": ("", {k: f"v_{k}" for k in VISUAL}),
    **{f"v_{k}": (v, {}) for k, v in VISUAL.items()},
    "default": ("class:s", _DEFAULT_CHILDREN),
    "d_mesh": ("scale:r3=1 1 1; maxhullvert:i=-1; inertia:[convex|exact|legacy|shell]=legacy", {}),
    "d_material": (_without(MATERIAL, "name", "class"), {"layer": "layer"}),
    "d_texture": (_without(TEXTURE, "name", "class", "file", "content_type"), {}),
    "d_joint": (_without(JOINT, "name", "class"), {}),
    "d_geom": (_without(GEOM, "name", "class"), {}),
    "d_site": (_without(SITE, "name", "class"), {}),
    "d_camera": (_without(CAMERA, "name", "class", "target"), {}),
    "d_light": (_without(LIGHT, "name", "class", "target"), {}),
    "d_pair": (_without(PAIR, "name", "class", "geom1", "geom2"), {}),
    "d_equality": ("active:b=true; solref:r2<=0.02 1; solimp:r5<=0.9 0.95 0.001 0.5 2", {}),
    "d_tendon": (_without(SPATIAL, "name", "class"), {}),
    "d_general": (_without(GENERAL, *_NO_REF), {}),
    **{f"d_{k}": (_without(v, *_NO_REF), {}) for k, v in SHORTCUTS.items()},
    "custom": ("", {"numeric": "numeric", "text": "text", "tuple": "tuple"}),
    "numeric": ("name:s!; size:i; data:r*", {}),
    "text": ("name:s!; data:s", {}),
    "tuple": ("name:s!", {"element": "tuple_element"}),
    "tuple_element": ("objtype:s!; objname:s!; prm:r=0", {}),
    "asset": ("", {"mesh": "mesh", "hfield": "hfield", "skin": "t3", "texture": "texture",
                   "material": "material", "model": "model"}),
    "mesh": (MESH, {"plugin": "el_plugin"}),
    "hfield": ("name:s; content_type:s; file:s; nrow:i=0; ncol:i=0; elevation:r*; size:r4!", {}),
    "texture": (TEXTURE, {}),
    "material": (MATERIAL, {"layer": "layer"}),
    "layer": ("texture:s!; role:s!", {}),
    "model": ("name:s; file:s!; content_type:s", {}),
    "worldbody": ("", _WORLD_CHILDREN),
    "body": (BODY, _BODY_CHILDREN),
    "frame": (FRAME, _FRAME_CHILDREN),
    "replicate": (REPLICATE, _FRAME_CHILDREN),
    "attach": ("model:s!; body:s; prefix:s!", {}),
    "inertial": (INERTIAL, {}),
    "joint": (JOINT, {}),
    "freejoint": ("name:s; group:i=0; align:t=auto", {}),
    "geom": (GEOM, {"plugin": "el_plugin"}),
    "site": (SITE, {}),
    "camera": (CAMERA, {}),
    "light": (LIGHT, {}),
    "contact": ("", {"pair": "pair", "exclude": "exclude"}),
    "pair": (PAIR, {}),
    "exclude": ("name:s; body1:s!; body2:s!", {}),
    "equality": ("", {"connect": "connect", "weld": "weld", "joint": "eq_joint", "tendon": "eq_tendon",
                      "flex": "t3", "distance": "eq_distance"}),
    "connect": (EQ_COMMON + "; body1:s; body2:s; anchor:r3; site1:s; site2:s", {}),
    "weld": (EQ_COMMON + "; body1:s; body2:s; relpose:r7=0 1 0 0 0 0 0; anchor:r3=0 0 0; site1:s; site2:s;"
             " torquescale:r=1", {}),
    "eq_joint": (EQ_COMMON + "; joint1:s!; joint2:s; polycoef:r5<=0 1 0 0 0", {}),
    "eq_tendon": (EQ_COMMON + "; tendon1:s!; tendon2:s; polycoef:r5<=0 1 0 0 0", {}),
    "eq_distance": ("*", {}),
    "tendon": ("", {"spatial": "spatial", "fixed": "fixed"}),
    "spatial": (SPATIAL, {"site": "ten_site", "geom": "ten_geom", "pulley": "pulley"}),
    "ten_site": ("site:s!", {}),
    "ten_geom": ("geom:s!; sidesite:s", {}),
    "pulley": ("divisor:r!", {}),
    "fixed": (TENDON_COMMON, {"joint": "ten_joint"}),
    "ten_joint": ("joint:s!; coef:r!", {}),
    "actuator": ("", {"general": "general", **{k: k for k in SHORTCUTS}, "plugin": "a_plugin"}),
    "a_plugin": (A_PLUGIN, {"config": "config"}),
    "general": (GENERAL, {}),
    **{k: (v, {}) for k, v in SHORTCUTS.items()},
    "sensor": ("", {**{k: f"s_{k}" for k in SENSORS if k != "user"}, "user": "t3", "plugin": "s_plugin"}),
    "s_plugin": (S_PLUGIN, {"config": "config"}),
    **{f"s_{k}": (v, {}) for k, v in SENSORS.items()},
    "keyframe": ("", {"key": "key"}),
    "key": (KEY, {}),
    "extension": ("", {"plugin": "ext_plugin"}),
    "ext_plugin": ("plugin:s!", {"instance": "ext_instance"}),
    "ext_instance": ("name:s!", {"config": "config"}),
    "config": ("key:s!; value:s!", {}),
    "el_plugin": ("plugin:s; instance:s", {"config": "config"}),
    "t3": (TIER3, {}),
}

_CACHE: dict[str, dict[str, AttrSpec]] = {}


def attributes(key: str) -> dict[str, AttrSpec] | None:
    """The attribute table of element `key`, or None if the element accepts any attribute (tier 3)."""
    spec = ELEMENTS[key][0]
    if spec == TIER3:
        return None
    if key not in _CACHE:
        _CACHE[key] = parse_attrs(spec)
    return _CACHE[key]


def children(key: str) -> dict[str, str]:
    """{child tag: child element key} allowed under element `key`."""
    return ELEMENTS[key][1]
