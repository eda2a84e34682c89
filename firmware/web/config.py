"""The `[web]` section of a profile: whether the service serves the view, and where.

    [web]
    enabled = true
    bind = "192.168.1.20"   # the Pi's LAN address; the default 127.0.0.1 keeps the view on the Pi
    port = 8080

A bad value stops the program at start with a message naming the key.
"""

import ipaddress
from dataclasses import dataclass
from typing import Any

from .server import DEFAULT_BIND, DEFAULT_PORT


class BadWebConfig(ValueError):
    """A `[web]` section that cannot be used; the message names the key."""


@dataclass(frozen=True)
class WebConfig:
    enabled: bool = False
    bind: str = DEFAULT_BIND
    port: int = DEFAULT_PORT

    @classmethod
    def from_section(cls, section: Any) -> "WebConfig":
        """The settings of a parsed `[web]` table (absent keys take the defaults)."""
        if not isinstance(section, dict):
            raise BadWebConfig(f"[web] must be a table, not {section!r}")
        unknown = sorted(set(section) - {"enabled", "bind", "port"})
        if unknown:
            raise BadWebConfig(f"[web] has no key {unknown[0]!r}; its keys are enabled, bind, port")
        enabled = section.get("enabled", cls.enabled)
        if not isinstance(enabled, bool):
            raise BadWebConfig(f"[web] enabled must be true or false, not {enabled!r}")
        bind = section.get("bind", cls.bind)
        try:
            ipaddress.ip_address(bind)
        except ValueError:
            raise BadWebConfig(f"[web] bind must be an IP address of this machine (like 192.168.1.20), not {bind!r}") from None
        port = section.get("port", cls.port)
        if type(port) is not int or not 1 <= port <= 65535:
            raise BadWebConfig(f"[web] port must be a whole number from 1 to 65535, not {port!r}")
        return cls(enabled, bind, port)
