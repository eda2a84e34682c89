"""Club mode: many tables, one club server (docs/club.md).

Entry points:
- `Uplink(source_url, table, club_config, report).start()`: copy this table's games to the club's
  Redis from a thread of the appliance (`[club]` in the profile); `stop()` ends it.
- `serve(url, user, password, bind, port, hosts)`: the club page (`tablemate club`), in the foreground;
  `create_app(...)` is the ASGI app itself (tests, and `firmware.web.Background(app=...)`).
- `players.Players`: player cards (`tablemate players ...`); `roster`: which table holds each card at
  the club and which seats count; `acl`: the club's Redis users (`tablemate club-acl`).
"""

from .uplink import ClubTrouble, Uplink


def create_app(url: str, user: str | None = None, password: str | None = None, max_viewers: int = 50,
               hosts: tuple[str, ...] = ()):
    from .page import create_app

    return create_app(url, user, password, max_viewers, hosts)


def serve(url: str, user: str | None, password: str | None, bind: str, port: int, hosts: tuple[str, ...] = ()) -> None:
    """Serve the club page until SIGINT/SIGTERM (blocking), with the live view's server settings;
    with `hosts`, only at those names."""
    from ..web.server import foreground

    foreground(create_app(url, user, password, hosts=hosts), bind, port, "tablemate club: the club page")


__all__ = ["ClubTrouble", "Uplink", "create_app", "serve"]
