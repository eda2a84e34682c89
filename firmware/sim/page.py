"""The simulator's page: the table's screen, readers, buttons and encoder, the game's components, and
the live view's panels, in one page on loopback.

Routes: `/` the page, `/sim/state` what it shows as JSON, `/sim/events` the same after every change
(server-sent events; at most MAX_PAGES at once), `POST /sim/tap?reader=&uid=`, `/sim/button?role=&down=1|0`, `/sim/turn?steps=`
(bodiless; the Guard admits them only from the page itself), `/sim/static/*`. Everything else is the
read-only live view (firmware.web), mounted as it is, so its panels, history and SSE are its own code.
"""

import asyncio
import base64
import io
import json
from contextlib import asynccontextmanager
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import engines

from ..flows import Tap
from ..web import create_app
from ..web.app import hub_of
from ..web.guard import Guard
from ..web.live import Following, Slots, address_of
from . import catalogue
from .controls import Controls, Refused

HERE = Path(__file__).parent
#: how often the page's stream looks for a change at the table (seconds); the page is redrawn only
#: when the frame, the inputs, the status line or the tag map changed
POLL_S = 0.02
#: pages following the table at once (a stream polls the table every POLL_S: each costs CPU)
MAX_PAGES = 8
#: the host names the page answers at (every request: guard.py), besides the address it is bound to
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def create_sim_app(app, store_url: str, bind: str = "127.0.0.1") -> Guard:
    """The simulator's ASGI app for the running `app` (mock readers and buttons), its store at `store_url`."""
    controls = Controls(app)
    page = Page(app, controls)
    live = create_app(store_url, app.profile.table.id)
    hub = hub_of(live)

    @asynccontextmanager
    async def lifespan(_):
        await hub.start()
        yield
        await hub.stop()

    routes = [
        Route("/", page.page),
        Route("/sim/state", page.state),
        Route("/sim/events", page.events),
        Route("/sim/tap", page.tap, methods=["POST"]),
        Route("/sim/button", page.button, methods=["POST"]),
        Route("/sim/turn", page.turn, methods=["POST"]),
        Mount("/sim/static", StaticFiles(directory=HERE / "static"), name="sim_static"),
        Mount("", live),
    ]
    sim = Starlette(routes=routes, lifespan=lifespan)
    sim.state.hub = hub
    return Guard(sim, inputs="/sim/", hosts=tuple(dict.fromkeys(LOOPBACK + (bind,))))


class Page:
    def __init__(self, app, controls: Controls):
        self.app = app
        self.controls = controls
        self.stopping = False
        self.pages = Slots(MAX_PAGES, MAX_PAGES)
        self.env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                                      undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)

    # -- what the page shows ---------------------------------------------------------------------------

    def snapshot(self) -> dict:
        """The table as the page draws it: frame, readers, buttons, components and what may be tapped."""
        loop = self.app.loop
        table = loop.table
        session = table.session
        players = session.players if session else []
        readers = [{"name": name, "seat": r.seat,
                    "label": "Shared" if r.seat is None else f"Seat {r.seat + 1}" + (f" · {players[r.seat]}" if r.seat < len(players) else "")}
                   for name, r in self.controls.readers.items()]
        games = [session.name] if session else sorted({entry.game for _, entry in table.tags.items()})
        components = [c for game in games for c in catalogue.catalogue(table.tags, game)]
        now, why = catalogue.tappable(table, components)
        heading = (lambda c: c.heading) if session else (lambda c: f"{engines.get(c.game).title}: {c.heading}")
        return {
            "frame": _png(self.app.display.image),
            "frames": loop.frames,
            "inputs": self.controls.inputs,
            "status": loop.status(),
            "readers": readers,
            "target": self._target(readers),
            "buttons": self.controls.buttons,
            "encoder": self.controls.encoder,
            "components": [{"uid": c.uid, "label": c.label, "group": heading(c), "kind": c.kind} for c in components],
            "now": [c.uid for c in now],
            "why": why,
        }

    def _target(self, readers: list[dict]) -> str | None:
        """The reader a clicked component goes to: the seat to act when an action starts, the shared
        reader when the table asks for a component by itself."""
        table = self.app.loop.table
        request = table.running.request if table.running else None
        shared = next((r["name"] for r in readers if r["seat"] is None), None)
        if isinstance(request, Tap) and not request.with_seat and shared:
            return shared
        session = table.session
        prompt = session.game.prompt(session.state) if session else None
        seat = prompt.player if prompt else None
        return next((r["name"] for r in readers if r["seat"] == seat and seat is not None), shared or (readers[0]["name"] if readers else None))

    # -- routes ----------------------------------------------------------------------------------------

    def page(self, request: Request) -> HTMLResponse:
        profile = self.app.profile
        return HTMLResponse(self.env.get_template("sim.html").render(table=profile.table.id, state=self.snapshot(),
                                                                     hold_ms=profile.buttons.hold_ms))

    def state(self, request: Request) -> Response:
        return JSONResponse(self.snapshot())

    async def events(self, request: Request) -> Response:
        place = self.pages.take(address_of(request.scope))
        if isinstance(place, str):
            return JSONResponse({"error": place}, status_code=503)

        async def stream():
            yield "retry: 1000\n\n"
            seen = None
            while not self.stopping:
                if await request.is_disconnected():
                    return
                loop = self.app.loop
                version = (loop.frames, self.controls.inputs, loop.status(), len(loop.table.tags.items()))
                if version != seen:
                    seen = version
                    state = await asyncio.to_thread(self.snapshot)
                    yield f"event: table\ndata: {json.dumps(state, ensure_ascii=False)}\n\n"
                await asyncio.sleep(POLL_S)

        return Following(stream(), place)

    async def tap(self, request: Request) -> Response:
        query = request.query_params
        return await self._input(self.controls.tap, query.get("reader", ""), query.get("uid", ""))

    async def button(self, request: Request) -> Response:
        query = request.query_params
        return await self._input(self.controls.button, query.get("role", ""), query.get("down") == "1")

    async def turn(self, request: Request) -> Response:
        steps = request.query_params.get("steps", "")
        if steps not in ("1", "-1"):
            return JSONResponse({"error": "steps is 1 or -1"}, status_code=400)
        return await self._input(self.controls.turn, int(steps))

    async def _input(self, act, *args) -> Response:
        try:
            await asyncio.to_thread(act, *args)
        except Refused as refused:
            return JSONResponse({"error": str(refused)}, status_code=400)
        return JSONResponse({"inputs": self.controls.inputs, "frames": self.app.loop.frames})


def _png(image) -> str:
    """The frame as a data: URL of a 128x64 PNG (the page scales it up, pixels kept square)."""
    if image is None:
        return ""
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
