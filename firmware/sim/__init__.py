"""The virtual table (`tablemate sim`, `make run`): the whole appliance on mocked hardware, played
from a browser page on this machine.

The page shows the panel's frame as the table renders it, one reader per seat and the shared one,
the five buttons (press and hold) and the encoder, the game's enrolled components by what is
printed on them, and the live view's panels. A click taps, presses or turns through the same mock
readers and gpiozero MockFactory pins the tests and scripts use (firmware.sim.controls). The page
takes inputs, so it is served on loopback unless the profile's [sim] bind says otherwise, and never
for a profile with real readers or buttons (a Pi's): there, `tablemate web` is the read-only view.

Entry point: `run(profile, tags)`; `create_sim_app(app, store_url)` is the ASGI app (tests).
"""

import dataclasses
import logging
import sys
import threading
import webbrowser
from typing import TextIO

from drivers.display import DisplaySpec

from ..app import App
from ..config import Profile, ProfileError, WebConfig
from ..tagmap import TagEntry
from ..web.server import Background
from .page import create_sim_app

__all__ = ["create_sim_app", "run", "serve", "simulated"]

log = logging.getLogger(__name__)


def simulated(profile: Profile) -> Profile:
    """`profile` for the simulator: its screen kept in memory for the page, no separate live view
    (the page serves it). A profile with real hardware is refused (ProfileError)."""
    real = [f"reader {r.name} ({r.driver})" for r in profile.readers if r.driver != "mock"]
    if profile.buttons.driver != "mock":
        real.append(f"buttons ({profile.buttons.driver})")
    if real:
        raise ProfileError(f"{profile.path}: tablemate sim plays on mocked hardware only, and this profile has "
                           f"{', '.join(real)}; on a table, `tablemate web` is the read-only view")
    return dataclasses.replace(profile, display=DisplaySpec(driver="dummy", on_stop=profile.display.on_stop),
                               web=WebConfig(enabled=False))


def serve(app: App, port: int | None = None) -> Background:
    """Serve the page of the built `app` from a thread; when its port is taken, on a free one."""
    sim = app.profile.sim
    port = sim.port if port is None else port

    def server(number: int) -> Background:
        page = create_sim_app(app, app.store.url, sim.bind)
        return Background(app.store.url, app.profile.table.id, sim.bind, number, app=page,
                          on_failure=lambda text: app.loop.note("sim page", text))

    try:
        return server(port).start()
    except RuntimeError as error:
        if port == 0:
            raise
        log.warning("%s; serving the page on a free port instead", error)
        return server(0).start()


def run(profile: Profile, tags: dict[str, TagEntry], *, port: int | None = None, browser: bool = True,
        out: TextIO | None = None) -> int:
    """Play the table from a browser page until Ctrl-C / SIGTERM (`tags` enrolled once the store
    answers); 0 on a clean stop."""
    out = out or sys.stdout
    app = App.build(simulated(profile), web=False, tags=tags)
    try:
        page = serve(app, port)
    except RuntimeError as error:
        app.close()
        print(f"tablemate: {error}", file=sys.stderr)
        return 1
    url = page.url + "/"

    def started() -> None:
        print(f"tablemate sim: the table is at {url}  (Ctrl-C stops it)", file=out, flush=True)
        if browser:
            threading.Thread(target=webbrowser.open, args=(url,), name="tablemate-browser", daemon=True).start()

    try:
        return app.run(started)
    finally:
        page.stop()
