"""Reading a Meshcat StaticHtml page back in tests: the scene commands it replays (msgpack, base64-encoded)."""
from __future__ import annotations

import base64
import re

import umsgpack


def html_commands(html: str) -> list[dict]:
    """The Meshcat commands a StaticHtml page replays, decoded, in order."""
    block = html.split("var commands = [", 1)[1].split("];", 1)[0]
    return [umsgpack.unpackb(base64.b64decode(s))
            for s in re.findall(r'"data:application/octet-binary;base64,([A-Za-z0-9+/=]+)"', block)]


def html_command_types(html: str) -> list[str]:
    """The type of each command a StaticHtml page replays ("set_object", "set_transform", "set_animation", ...)."""
    return [command["type"] for command in html_commands(html)]
