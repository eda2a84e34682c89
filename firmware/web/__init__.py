"""The read-only live web view of a table (issue 10): scores with breakdowns, the board, the history.

Entry points:
- `serve(store_url, table, bind, port)`: serve in the foreground until SIGTERM (`tablemate web`).
- `Background(store_url, table, bind, port).start()`: serve from a thread of this process (the
  service with `[web] enabled`, and any `memory://` store, which only its own process can see).
- `create_app(store_url, table)`: the ASGI app itself (tests).
The `[web]` settings (enabled, bind, port) are read and checked with the rest of the profile
(firmware.config).
"""

from .app import create_app
from .server import Background, serve

__all__ = ["Background", "create_app", "serve"]
