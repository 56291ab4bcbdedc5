"""Engine plugins in MJCF (spec/mjcf.md §16.2, §7.10, §12.4): <extension>, instances, element plugins.

`<extension><plugin plugin="id"><instance name="n"><config key="k" value="v"/>` declares the
plugins a model needs and its explicit (shareable) instances. Elements backed by a plugin
(`body/plugin`, `geom/plugin` of type="sdf" geoms, `mesh/plugin`, `actuator/plugin`,
`sensor/plugin`) either reference an explicit instance (`instance="n"`, no config allowed) or
create an implicit one in place (`plugin="id"` with optional config; the plugin must be declared).
Configs are validated by the registered plugin (`mallard.multibody.plugins`); every error is an
MjcfError naming file, line and element.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Where, error_at
from .reader import Element

_CAPS = {"actuator": "ACTUATOR", "sensor": "SENSOR", "body": "PASSIVE", "geom": "SDF", "mesh": "SDF"}


def _registry():
    from mallard.multibody import plugins  # lazy: only models that use plugins pay for the import

    return plugins


@dataclass
class PluginTable:
    """Declared plugins and the instances created so far (explicit ones first)."""

    declared: dict[str, Where] = field(default_factory=dict)
    instances: list = field(default_factory=list)  #: PluginInstance records
    by_name: dict[str, int] = field(default_factory=dict)


def _config(el: Element) -> dict[str, tuple[str, Where]]:
    out: dict[str, tuple[str, Where]] = {}
    for c in el.find_all("config"):
        key = c.get("key")
        if key in out:
            raise error_at(c.where, f"repeated config key '{key}'")
        out[key] = (c.get("value"), c.where)
    return out


def _new_instance(table: PluginTable, plugin_name: str, config: dict[str, tuple[str, Where]], name: str,
                  where: Where, explicit: bool) -> int:
    reg = _registry()
    plugin = reg.GetPlugin(plugin_name)
    attrs = {a.name: a for a in plugin.attributes}
    for key, (value, cwhere) in config.items():  # per-key problems are reported at their <config>
        if key not in attrs:
            raise error_at(cwhere, f"plugin '{plugin_name}': unknown config attribute '{key}' "
                                   f"(valid: {', '.join(attrs) or 'none'})")
        try:
            attrs[key].convert(value, plugin_name)
        except ValueError as exc:
            raise error_at(cwhere, str(exc)) from None
    try:
        cfg = plugin.ValidateConfig({k: v for k, (v, _) in config.items()})
    except ValueError as exc:
        raise error_at(where, str(exc)) from None
    table.instances.append(reg.PluginInstance(name, plugin_name, cfg, explicit=explicit, where=where))
    return len(table.instances) - 1


def read_extension(root: Element) -> PluginTable:
    """Declared plugins (each must be registered) and explicit instances of all <extension> sections."""
    table = PluginTable()
    sections = root.find_all("extension")
    if not sections:
        return table
    reg = _registry()
    for sec in sections:
        for p in sec.find_all("plugin"):
            name = p.get("plugin")
            if name not in reg.RegisteredPlugins():
                known = ", ".join(reg.RegisteredPlugins()) or "none"
                raise error_at(p.where, f"plugin '{name}' is not registered (registered: {known}); register it "
                                        f"with mallard.multibody.plugins.RegisterPlugin before loading the model")
            table.declared.setdefault(name, p.where)
            for inst in p.find_all("instance"):
                iname = inst.get("name")
                if iname in table.by_name:
                    raise error_at(inst.where, f"repeated plugin instance name '{iname}'")
                table.by_name[iname] = _new_instance(table, name, _config(inst), iname, inst.where, True)
    return table


def resolve(ctx, el: Element, kind: str, what: str) -> int:
    """Instance id for an element's plugin reference (`el` is the element carrying plugin/instance).

    `kind` is "actuator", "sensor", "body", "geom" or "mesh" (sets the capability the plugin must have).
    """
    table: PluginTable | None = ctx.plugins
    if table is None:
        raise error_at(el.where, f"{what}: plugins inside attached sub-models are not supported; declare the "
                                 f"element in the main model")
    plugin, instance = el.get("plugin"), el.get("instance")
    if plugin is None and instance is None:
        raise error_at(el.where, f"{what}: give 'plugin' (implicit instance) or 'instance' (a declared <instance>)")
    if instance is not None:
        if instance not in table.by_name:
            known = ", ".join(table.by_name) or "none"
            raise error_at(el.where, f"{what}: undefined plugin instance '{instance}' (declared instances: {known})")
        if el.find_all("config"):
            raise error_at(el.find_all("config")[0].where,
                           f"{what}: config is not allowed on an element that references the existing instance "
                           f"'{instance}'; configure the <instance> in <extension> instead")
        iid = table.by_name[instance]
        if plugin is not None and plugin != table.instances[iid].plugin:  # both given (MuJoCo uses the instance)
            raise error_at(el.where, f"{what}: plugin '{plugin}' does not match instance '{instance}' of plugin "
                                     f"'{table.instances[iid].plugin}'")
    else:
        if plugin not in table.declared:
            declared = ", ".join(table.declared) or "none"
            raise error_at(el.where, f"{what}: plugin '{plugin}' is not declared; add <extension><plugin "
                                     f"plugin=\"{plugin}\"/></extension> (declared: {declared})")
        iid = _new_instance(table, plugin, _config(el), "", el.where, False)
    inst = table.instances[iid]
    cap = getattr(_registry().Capability, _CAPS[kind])
    if not _registry().GetPlugin(inst.plugin).capabilities & cap:
        raise error_at(el.where, f"{what}: plugin '{inst.plugin}' has no {cap.name} capability, so it cannot back "
                                 f"a {kind}")
    return iid


def plugin_of(el: Element) -> Element | None:
    """The <plugin> child of a geom/mesh element, if any."""
    kids = el.find_all("plugin")
    return kids[0] if kids else None


def _geom_plugins(root: Element) -> dict[Where, Element]:
    out: dict[Where, Element] = {}
    stack = list(root.find_all("worldbody"))
    while stack:
        el = stack.pop()
        for c in el.children:
            if c.tag == "geom":
                p = plugin_of(c)
                if p is not None:
                    out[c.where] = p
            elif c.tag in ("body", "frame", "replicate"):
                stack.append(c)
    return out


def bind(ctx, root: Element, bodies, geoms, actuators, sensors) -> list:
    """Bind body and geom plugins, check every SDF geom has one, fill plugin state addresses, element
    lists and sensor sizes; returns the model's PluginInstance list."""
    table: PluginTable | None = ctx.plugins
    for bid, el in ctx.body_plugins:
        bodies[bid].plugin = resolve(ctx, el, "body", f"body '{bodies[bid].name}' plugin")
    gplug = _geom_plugins(root)
    for gid, g in enumerate(geoms):
        el = gplug.get(g.where) if g.where is not None else None
        if el is not None:
            if g.type != "sdf":
                raise error_at(el.where, f"geom '{g.name or gid}': a plugin can only back a geom of type 'sdf' "
                                         f"(got type '{g.type}')")
            g.plugin = resolve(ctx, el, "geom", f"geom '{g.name or gid}'")
        elif g.type == "sdf":
            raise error_at(g.where, f"geom '{g.name or gid}' of type 'sdf' needs a <plugin> child naming an SDF "
                                    f"plugin or instance")
    if table is None or not table.instances:
        return []
    reg = _registry()
    insts = table.instances
    for i, b in enumerate(bodies):
        if b.plugin >= 0:
            insts[b.plugin].bodies.append(i)
    for i, g in enumerate(geoms):
        if g.plugin >= 0:
            insts[g.plugin].geoms.append(i)
    for i, a in enumerate(actuators):
        if a.plugin >= 0:
            insts[a.plugin].actuators.append(i)
    for i, s in enumerate(sensors):
        if s.plugin >= 0:
            insts[s.plugin].sensors.append(i)
    for i, m in enumerate(ctx.mesh_list):
        if m.plugin >= 0:
            insts[m.plugin].meshes.append(i)
    adr = 0
    for inst in insts:
        plugin = reg.GetPlugin(inst.plugin)
        try:
            inst.nstate = int(plugin.nstate(inst.config))
            if inst.nstate < 0:
                raise ValueError(f"plugin '{inst.plugin}': nstate() returned {inst.nstate} (must be >= 0)")
            plugin.CheckInstance(inst)
        except ValueError as exc:
            raise error_at(inst.where, str(exc)) from None
        inst.stateadr = adr
        adr += inst.nstate
        for k, sid in enumerate(inst.sensors):
            try:
                dim = int(plugin.nsensordata(inst.config, k))
            except ValueError as exc:
                raise error_at(sensors[sid].where, str(exc)) from None
            if dim < 1:
                raise error_at(sensors[sid].where, f"plugin '{inst.plugin}': nsensordata() returned {dim} for "
                                                   f"this sensor (must be >= 1)")
            sensors[sid].dim = dim
    return insts


def plugin_actdim(ctx, iid: int, where: Where) -> int:
    """Activation slots the plugin of instance `iid` owns per actuator (its `actdim(config)`)."""
    inst = ctx.plugins.instances[iid]
    try:
        n = int(_registry().GetPlugin(inst.plugin).actdim(inst.config))
    except ValueError as exc:
        raise error_at(where, str(exc)) from None
    if n < 0:
        raise error_at(where, f"plugin '{inst.plugin}': actdim() returned {n} (must be >= 0)")
    return n
