"""The compiled MJCF model: plain records in MuJoCo's terms (mjModel field names and meanings).

Units are SI and radians. Poses are (pos, quat) of an element's frame in its parent body frame
(bodies: in the parent body frame), quaternions (w, x, y, z). Names are "" when not given.
Cross-references are integer ids into the lists of `MjcfModel` (-1 = none), like mjModel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import Where

JOINT_NQ = {"free": 7, "ball": 4, "slide": 1, "hinge": 1}
JOINT_NV = {"free": 6, "ball": 3, "slide": 1, "hinge": 1}


@dataclass
class MjcfOption:
    """Runtime options (mjOption): timestep [s], gravity [m/s²], solver settings, flags by name."""

    timestep: float
    gravity: np.ndarray
    wind: np.ndarray
    magnetic: np.ndarray
    density: float
    viscosity: float
    impratio: float
    o_margin: float
    o_solref: np.ndarray
    o_solimp: np.ndarray
    o_friction: np.ndarray
    integrator: str
    cone: str
    jacobian: str
    solver: str
    iterations: int
    tolerance: float
    ls_iterations: int
    ls_tolerance: float
    noslip_iterations: int
    noslip_tolerance: float
    ccd_iterations: int
    ccd_tolerance: float
    sdf_iterations: int
    sdf_initpoints: int
    apirate: float
    actuatorgroupdisable: tuple[int, ...]
    flags: dict[str, bool]  #: flag name -> enabled


@dataclass
class MjcfBody:
    """A rigid body. `pos`/`quat`: body frame B in parent frame P (X_PB at qpos0); inertial frame in B."""

    name: str
    parent: int
    pos: np.ndarray
    quat: np.ndarray
    mass: float
    ipos: np.ndarray
    iquat: np.ndarray
    inertia: np.ndarray  #: principal moments [kg m²] about the COM along the iquat axes
    mocap: bool = False
    gravcomp: float = 0.0
    weldid: int = 0
    rootid: int = 0
    jntadr: int = -1
    jntnum: int = 0
    dofadr: int = -1
    dofnum: int = 0
    geomadr: int = -1
    geomnum: int = 0
    user: tuple = ()
    where: Where | None = None
    plugin: int = -1  #: passive-force plugin instance (index into MjcfModel.plugins), -1 if none


@dataclass
class MjcfJoint:
    """A joint of `body`; `pos`/`axis` in the body frame; angles in radians."""

    name: str
    type: str
    body: int
    pos: np.ndarray
    axis: np.ndarray
    range: np.ndarray
    limited: bool
    stiffness: float
    springref: float
    damping: float
    armature: float
    frictionloss: float
    margin: float
    ref: float
    solref_limit: np.ndarray
    solimp_limit: np.ndarray
    solref_friction: np.ndarray
    solimp_friction: np.ndarray
    actfrcrange: np.ndarray
    actfrclimited: bool
    actgravcomp: bool
    group: int
    qposadr: int
    dofadr: int
    qpos0: np.ndarray  #: this joint's slice of the model qpos0
    qpos_spring: np.ndarray
    springdamper: np.ndarray
    user: tuple = ()
    where: Where | None = None


@dataclass
class MjcfMesh:
    """A mesh asset after MuJoCo's processing: vertices centred at the COM and aligned with principal axes."""

    name: str
    vertices: np.ndarray  #: (n, 3) in the mesh inertial frame [m]
    faces: np.ndarray  #: (m, 3) int
    pos: np.ndarray  #: offset of the mesh inertial frame in the original mesh frame
    quat: np.ndarray
    volume: float
    inertia_box: np.ndarray  #: half sizes of the equivalent inertia box
    inertia_mode: str
    file: str | None = None
    #: SDF plugin instance whose surface this mesh shows (mesh/plugin); such meshes are NOT re-centred:
    #: vertices stay in the SDF frame (pos 0, quat identity), volume/inertia_box are about their centroid
    plugin: int = -1
    #: (n, 3) the vertices as read, before refpos/refquat/scale: MuJoCo builds the collision hull there
    file_vertices: np.ndarray | None = field(default=None, repr=False)
    #: (n, 3) the same points in the mesh inertial frame (`vertices` unless a point cloud kept only its hull)
    file_vertices_compiled: np.ndarray | None = field(default=None, repr=False)
    maxhullvert: int = -1  #: vertex cap of the collision hull (-1: none)
    #: the scale mirrors the mesh (a negative product): the hull faces, made in the file frame, turn around
    left_handed: bool = False
    #: (hull vertices, packed hull faces) once computed (mesh_hull.py)
    hull: tuple | None = field(default=None, repr=False, compare=False)
    #: the hull's triangles (t, 3) over the hull vertices, wound outward (mesh_hull.py)
    hull_triangles: np.ndarray | None = field(default=None, repr=False, compare=False)


@dataclass
class MjcfGeom:
    """A geometry of `body`: type, size (MuJoCo meaning per type), pose in the body frame, contact params."""

    name: str
    type: str
    body: int
    size: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    contype: int
    conaffinity: int
    condim: int
    priority: int
    friction: np.ndarray
    solmix: float
    solref: np.ndarray
    solimp: np.ndarray
    margin: float
    gap: float
    group: int
    rgba: np.ndarray
    material: str | None
    mesh: int  #: index into MjcfModel.meshes, -1 if none
    hfield: str | None
    mass: float  #: compile-time geom mass [kg] (0 when not used for inertia)
    inertia: np.ndarray = field(default_factory=lambda: np.zeros(3))  #: principal inertia about the geom frame
    fluidshape: str = "none"
    fluidcoef: np.ndarray = field(default_factory=lambda: np.array([0.5, 0.25, 1.5, 1.0, 1.0]))
    user: tuple = ()
    where: Where | None = None
    plugin: int = -1  #: SDF plugin instance of a type="sdf" geom (index into MjcfModel.plugins), -1 if none


@dataclass
class MjcfSite:
    """A site of `body`: pose in the body frame, rendering size/type."""

    name: str
    type: str
    body: int
    size: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    group: int
    rgba: np.ndarray
    user: tuple = ()
    where: Where | None = None


@dataclass
class MjcfCamera:
    """A camera kept for rendering: pose in the body frame plus all its attributes."""

    name: str
    body: int
    pos: np.ndarray
    quat: np.ndarray
    attrs: dict


@dataclass
class MjcfLight:
    """A light kept for rendering: position/direction in the body frame plus all its attributes."""

    name: str
    body: int
    pos: np.ndarray
    dir: np.ndarray
    attrs: dict


@dataclass
class MjcfTendonWrap:
    """One path element of a tendon: joint (fixed, with coef), site, geom (with sidesite) or pulley."""

    type: str  #: "joint" | "site" | "geom" | "pulley"
    objid: int  #: joint/site/geom id, -1 for pulley
    prm: float  #: coef (joint), divisor (pulley), 0 otherwise
    sidesite: int = -1


@dataclass
class MjcfTendon:
    """A fixed or spatial tendon with its limit, spring, damper and friction parameters."""

    name: str
    kind: str  #: "fixed" | "spatial"
    wraps: list[MjcfTendonWrap]
    limited: bool
    range: np.ndarray
    actfrclimited: bool
    actfrcrange: np.ndarray
    solref_limit: np.ndarray
    solimp_limit: np.ndarray
    solref_friction: np.ndarray
    solimp_friction: np.ndarray
    margin: float
    frictionloss: float
    stiffness: float
    damping: float
    armature: float
    lengthspring: np.ndarray  #: spring rest length / dead band; -1 -1 replaced by the length at qpos_spring
    width: float
    group: int
    rgba: np.ndarray
    user: tuple = ()
    where: Where | None = None
    length0: float | None = None  #: length at qpos0 (None for spatial tendons with wrapping geoms)
    invweight0: float | None = None  #: J M⁻¹ Jᵀ at qpos0 (None when jacobian0 is None)
    jacobian0: np.ndarray | None = None  #: d length / d qvel at qpos0 (None with wrapping geoms)


@dataclass
class MjcfActuator:
    """A `general` actuator (shortcuts already expanded), with mjModel's transmission/type codes by name."""

    name: str
    trntype: str  #: joint | jointinparent | tendon | site | slidercrank | body | undefined
    trnid: tuple[int, int]  #: target id and refsite/slidersite id (-1 if none)
    gear: np.ndarray
    cranklength: float
    dyntype: str
    gaintype: str
    biastype: str
    dynprm: np.ndarray
    gainprm: np.ndarray
    biasprm: np.ndarray
    ctrllimited: bool
    forcelimited: bool
    actlimited: bool
    ctrlrange: np.ndarray
    forcerange: np.ndarray
    actrange: np.ndarray
    lengthrange: np.ndarray
    actdim: int
    actadr: int
    actearly: bool
    group: int
    user: tuple = ()
    where: Where | None = None
    #: ‖M⁻¹ mᵀ‖ at qpos0 (MuJoCo's actuator_acc0; muscles use F0 = scale/acc0); None when the moment arm
    #: of this transmission is not computed at compile time (spatial tendons, ball/free joints, body)
    acc0: float | None = None
    plugin: int = -1  #: actuator plugin instance (index into MjcfModel.plugins), -1 for a built-in actuator
    #: activation slots owned by the plugin: the first `plugin_actdim` of this actuator's `actdim` slots
    #: (a dyntype activation, if any, comes after them)
    plugin_actdim: int = 0


@dataclass
class MjcfEquality:
    """An equality constraint: type connect | weld | joint | tendon, objects and the data MuJoCo stores."""

    name: str
    type: str
    obj1: int
    obj2: int
    objtype: str  #: "body" | "site" | "joint" | "tendon"
    active: bool
    solref: np.ndarray
    solimp: np.ndarray
    anchor: np.ndarray  #: as given (connect: in body1; weld: in body2)
    relpose: np.ndarray  #: as given (pos, quat of body2 in body1); ignored when its quat is zero
    polycoef: np.ndarray
    torquescale: float
    where: Where | None = None
    data: np.ndarray = field(default_factory=lambda: np.zeros(11))  #: mjModel.eq_data, completed at qpos0


@dataclass
class MjcfPair:
    """An explicit contact pair; all contact parameters come from the pair."""

    name: str
    geom1: int
    geom2: int
    condim: int
    friction: np.ndarray
    solref: np.ndarray
    solreffriction: np.ndarray
    solimp: np.ndarray
    margin: float
    gap: float


@dataclass
class MjcfExclude:
    """A body pair excluded from collision."""

    name: str
    body1: int
    body2: int


@dataclass
class MjcfSensor:
    """A sensor: MuJoCo type name, object type/id, reference object, output dimension, noise, cutoff."""

    name: str
    type: str
    objtype: str
    objid: int
    reftype: str
    refid: int
    dim: int
    noise: float
    cutoff: float
    user: tuple = ()
    plugin: int = -1  #: sensor plugin instance (type "plugin"), -1 otherwise
    where: Where | None = None


@dataclass
class MjcfKey:
    """A keyframe with full-size state vectors (missing entries filled as MuJoCo does)."""

    name: str
    time: float
    qpos: np.ndarray
    qvel: np.ndarray
    act: np.ndarray
    ctrl: np.ndarray
    mpos: np.ndarray
    mquat: np.ndarray


@dataclass
class MjcfModel:
    """A compiled MJCF model, faithful to mjModel; element lists are in MuJoCo's id order."""

    name: str
    option: MjcfOption
    compiler: dict
    bodies: list[MjcfBody]
    joints: list[MjcfJoint]
    geoms: list[MjcfGeom]
    sites: list[MjcfSite]
    cameras: list[MjcfCamera]
    lights: list[MjcfLight]
    meshes: list[MjcfMesh]
    tendons: list[MjcfTendon]
    actuators: list[MjcfActuator]
    equalities: list[MjcfEquality]
    pairs: list[MjcfPair]
    excludes: list[MjcfExclude]
    sensors: list[MjcfSensor]
    keys: list[MjcfKey]
    nq: int
    nv: int
    na: int
    qpos0: np.ndarray
    qpos_spring: np.ndarray
    dof_M0: np.ndarray  #: diagonal of the joint-space inertia at qpos0 (incl. armature)
    dof_invweight0: np.ndarray = field(default_factory=lambda: np.zeros(0))  #: constraint regularizer weights
    body_invweight0: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  #: (translation, rotation)
    body_simple: list = field(default_factory=list)  #: MuJoCo's body_simple flags (0, 1, 2)
    size: dict = field(default_factory=dict)
    statistic: dict = field(default_factory=dict)
    visual: dict = field(default_factory=dict)
    custom: dict = field(default_factory=dict)
    materials: dict = field(default_factory=dict)  #: name -> resolved attributes (rendering only)
    textures: list = field(default_factory=list)  #: resolved attributes (rendering only)
    hfields: dict = field(default_factory=dict)  #: name -> {"size": (rx, ry, z_top, z_base), "attrs": {...}}
    unsupported: list[str] = field(default_factory=list)  #: "file:line: <tag>" of ignored tier-3 elements
    #: engine-plugin instances (mallard.multibody.plugins.PluginInstance), explicit ones first, in MuJoCo's order
    plugins: list = field(default_factory=list)

    @property
    def nplugin(self) -> int:
        return len(self.plugins)

    @property
    def npluginstate(self) -> int:
        """Size of the plugin state vector (sum of the instances' nstate)."""
        return sum(p.nstate for p in self.plugins)

    @property
    def nbody(self) -> int:
        return len(self.bodies)

    @property
    def njnt(self) -> int:
        return len(self.joints)

    @property
    def ngeom(self) -> int:
        return len(self.geoms)

    @property
    def nsite(self) -> int:
        return len(self.sites)

    @property
    def nu(self) -> int:
        return len(self.actuators)

    @property
    def ntendon(self) -> int:
        return len(self.tendons)

    @property
    def nsensor(self) -> int:
        return len(self.sensors)

    @property
    def nmocap(self) -> int:
        return sum(1 for b in self.bodies if b.mocap)

    def _find(self, items, name: str, what: str) -> int:
        for i, item in enumerate(items):
            if item.name == name:
                return i
        names = [it.name for it in items if it.name]
        raise KeyError(f"no {what} named '{name}' in model '{self.name}' (valid: {', '.join(names)})")

    def body(self, name: str) -> int:
        """Id of the body called `name` (KeyError listing valid names otherwise)."""
        return self._find(self.bodies, name, "body")

    def joint(self, name: str) -> int:
        """Id of the joint called `name`."""
        return self._find(self.joints, name, "joint")

    def geom(self, name: str) -> int:
        """Id of the geom called `name`."""
        return self._find(self.geoms, name, "geom")

    def site(self, name: str) -> int:
        """Id of the site called `name`."""
        return self._find(self.sites, name, "site")

    def actuator(self, name: str) -> int:
        """Id of the actuator called `name`."""
        return self._find(self.actuators, name, "actuator")

    def tendon(self, name: str) -> int:
        """Id of the tendon called `name`."""
        return self._find(self.tendons, name, "tendon")
