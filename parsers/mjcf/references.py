"""Name lookup for cross references (joint, body, geom, site, tendon, actuator, ...) with clear errors."""
from __future__ import annotations

from .errors import Where, error_at


class Names:
    """Name -> id tables per element type; duplicate names are rejected."""

    def __init__(self):
        self.tables: dict[str, dict[str, int]] = {}
        #: (where, name prefix) of the ignored elements that would have made bodies, joints and geoms (<flexcomp>,
        #: <composite>): a reference to one of their names says so instead of only "unknown"
        self.ignored_generators: list[tuple[Where, str]] = []

    def add(self, kind: str, items, where_of=lambda it: getattr(it, "where", None)) -> None:
        """Register the named items of one type (their list index is the id)."""
        table: dict[str, int] = {}
        for i, it in enumerate(items):
            if it.name:
                if it.name in table:
                    raise error_at(where_of(it), f"repeated {kind} name '{it.name}'")
                table[it.name] = i
        self.tables[kind] = table

    def id(self, kind: str, name: str | None, where: Where, what: str) -> int:
        """Id of the `kind` called `name`; MjcfError naming the referencing element if there is none."""
        if name is None:
            raise error_at(where, f"{what}: missing {kind} name")
        table = self.tables.get(kind, {})
        if name not in table:
            valid = ", ".join(sorted(table)) or "none"
            hint = ""
            for gen_where, prefix in self.ignored_generators:
                if prefix and name.startswith(prefix):
                    hint = (f"; it would be made by the <{gen_where.tag}> at {gen_where.file}:{gen_where.line}, which "
                            f"mallard does not support (its bodies, joints and geoms are not created): remove the "
                            f"reference to load the model without it")
                    break
            raise error_at(where, f"{what}: unknown {kind} '{name}' (defined {kind}s: {valid}){hint}")
        return table[name]

    def opt(self, kind: str, name: str | None, where: Where, what: str) -> int:
        """Like `id`, but -1 when `name` is None."""
        return -1 if name is None else self.id(kind, name, where, what)
