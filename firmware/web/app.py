"""The read-only live table view: pages, JSON API and server-sent events, all read from Redis.

Routes: `/` the current game (live over SSE from `/events`), `/games` the history, `/games/{gid}` one
game with its timeline, `/api/state`, `/api/games`, `/api/games/{gid}` the same as JSON, `/static/*`
the package's own CSS and JS. Nothing here writes to Redis.
"""

import json
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..journal import CorruptJournal
from ..store import connect
from .chart import scores_chart
from .games.generic import label
from .guard import Guard
from .live import Following, Hub, Snapshot, address_of, frame
from .reader import GID, NoSuchGame, Reader, StoreDown
from .replay import Replay

HERE = Path(__file__).parent
DOWN = "The game's store (Redis) is not answering: this page carries on by itself when it is back."
#: Seconds an error page for an outage waits before it tries again.
RETRY_S = 5


def create_app(store_url: str, table: str, max_viewers: int = 50, hosts: tuple[str, ...] = ()) -> Guard:
    """The ASGI app for table `table` of the store at `store_url` (`memory://` or `redis://...`).

    At most `max_viewers` live pages follow the table at once; one more is told the view is busy.
    With `hosts`, only requests naming one of them in their Host header are answered (guard.py).
    """
    if not isinstance(table, str) or not GID.fullmatch(table):
        raise ValueError(f"table id {table!r}: use letters, digits, '-' and '_' (at most 64)")
    reader = Reader(connect(store_url), table)
    view = View(reader)
    hub = Hub(store_url, reader.journal.key("updates"), view.snapshot, max_viewers)
    routes = [
        Route("/", view.live_page, name="live"),
        Route("/games", view.games_page, name="games"),
        Route("/games/{gid}", view.game_page, name="game"),
        Route("/api/state", view.api_state, name="api_state"),
        Route("/api/games", view.api_games, name="api_games"),
        Route("/api/games/{gid}", view.api_game, name="api_game"),
        Route("/events", sse_endpoint(hub), name="events"),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    handlers = {
        StoreDown: view.error(503, "Store unreachable"),
        NoSuchGame: view.error(404, "No such game"),
        CorruptJournal: view.error(500, "Unreadable game"),
        HTTPException: view.http_error,
    }
    app = guarded(routes, handlers, hub, hosts)
    view.router = app.app.router
    return app


def guarded(routes: list, handlers: dict, hub: Hub, hosts: tuple[str, ...] = ()) -> Guard:
    """The app of `routes`, its live `hub` started and stopped with it, behind the guard (the live
    view's and the club page's), which answers only at `hosts` when there are any."""
    @asynccontextmanager
    async def lifespan(app: Starlette):
        await hub.start()
        yield
        await hub.stop()

    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    app.router.redirect_slashes = False  # its redirects would echo the request's Host header
    app.state.hub = hub
    return Guard(app, hosts=hosts)


def environment(*folders: Path) -> jinja2.Environment:
    """The pages' templates: those in `folders` first (the club page's), then the view's own, with
    every value escaped and the view's filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*folders, HERE / "templates"]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(label=label, when=_when, lines=_lines)
    return env


def hub_of(app: Guard) -> Hub:
    """The live hub of an app made by create_app (the server ends its streams when it stops)."""
    return app.app.state.hub


class ErrorPages:
    """Errors as pages, or as JSON under the `data` paths (the live view's and the club page's).
    Subclasses render templates (`render`) and say what an outage is (`down`)."""

    down = DOWN
    data: tuple[str, ...] = ("/api/",)

    def render(self, name: str, **context: Any) -> str:
        raise NotImplementedError

    def error(self, status: int, heading: str):
        def handle(request: Request, error: Exception) -> Response:
            return self.respond_error(request, status, heading, str(error) if status != 503 else self.down)

        return handle

    def http_error(self, request: Request, error: HTTPException) -> Response:
        headings = {404: "Not found", 405: "Not allowed", 503: "Busy"}
        message = error.detail if error.status_code != 404 else f"there is no page at {request.url.path}"
        return self.respond_error(request, error.status_code, headings.get(error.status_code, "Error"), message, error.headers)

    def respond_error(self, request: Request, status: int, heading: str, message: str, headers: Any = None) -> Response:
        if request.url.path.startswith(self.data):
            return JSONResponse({"error": message}, status_code=status, headers=headers)
        retry = RETRY_S if status == 503 else None
        page = self.render("error.html", here="error", status=status, heading=heading, message=message, retry=retry)
        return HTMLResponse(page, status_code=status, headers=headers)


class View(ErrorPages):
    """The pages and JSON endpoints (plain functions: Starlette runs them in its thread pool)."""

    def __init__(self, reader: Reader):
        self.reader = reader
        self.router: Any = None
        self.env = environment()
        self.env.globals.update(path=self._path, table=reader.table)
        self._state_body: tuple[Replay | None, bytes] | None = None

    def _path(self, _name: str, **params: Any) -> str:
        return str(self.router.url_path_for(_name, **params))

    def render(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(**context)

    # -- the live panel ---------------------------------------------------------------------------

    def live_context(self) -> tuple[int, dict]:
        """What `/` and the SSE updates show: the current game, or why it cannot be shown."""
        try:
            replay = self.reader.current()
        except StoreDown:
            return 503, {"g": None, "board": None, "down": DOWN, "error": None}
        except CorruptJournal as error:
            return 500, {"g": None, "board": None, "down": None, "error": f"The current game cannot be shown: {error}"}
        if replay is None:
            return 200, {"g": None, "board": None, "down": None, "error": None}
        return 200, {"g": replay.payload(), "board": _markup(replay.board()), "down": None, "error": None}

    def snapshot(self) -> Snapshot:
        _, context = self.live_context()
        if context["down"]:
            return Snapshot("outage", "outage", DOWN)
        g = context["g"]
        return Snapshot("state", f"{g['gid']}:{g['entries']}" if g else "none", self.render("_live.html", **context))

    def live_page(self, request: Request) -> HTMLResponse:
        status, context = self.live_context()
        return HTMLResponse(self.render("live.html", here="live", **context), status_code=status)

    # -- pages --------------------------------------------------------------------------------------

    def games_page(self, request: Request) -> HTMLResponse:
        games, total = self.reader.history()
        return HTMLResponse(self.render("games.html", here="games", games=games, total=total))

    def game_page(self, request: Request) -> HTMLResponse:
        replay = self.reader.game(request.path_params["gid"])
        g = replay.payload("full")
        start = [score.total for score in replay.game.scores(replay.states[0])]
        chart = _markup(scores_chart(g["players"], start, g["timeline"]))
        return HTMLResponse(self.render("game.html", here="game", g=g, board=_markup(replay.board()), chart=chart))

    # -- JSON ---------------------------------------------------------------------------------------

    def api_state(self, request: Request) -> Response:
        replay = self.reader.current()
        cached = self._state_body
        if cached is None or cached[0] is not replay or replay is None:
            body = {"table": self.reader.table, "game": replay.payload() if replay else None}
            cached = self._state_body = (replay, _json(body))
        return Response(cached[1], media_type="application/json")

    def api_games(self, request: Request) -> Response:
        games, total = self.reader.history()
        return Response(_json({"table": self.reader.table, "total": total, "games": games}), media_type="application/json")

    def api_game(self, request: Request) -> Response:
        replay = self.reader.game(request.path_params["gid"])
        return Response(_json(replay.payload("full")), media_type="application/json")

def sse_endpoint(hub: Hub):
    async def events(request: Request) -> Response:
        """Server-sent events: the live panel now, then after every change at the table."""
        if request.method == "HEAD":
            return Response(media_type="text/event-stream")
        place = hub.slots.take(address_of(request.scope))
        if isinstance(place, str):
            raise HTTPException(503, place)

        async def stream():
            yield "retry: 2000\n\n"
            async for snapshot in hub.follow():
                yield frame(snapshot)

        return Following(stream(), place)

    return events


def _markup(svg: str | None) -> Markup | None:
    """Board and chart drawings are built with every text escaped (firmware.web.svg): safe to embed."""
    return Markup(svg) if svg else None


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _lines(value: str | list[str]) -> Markup:
    """A view value: one text, or a list of texts shown one per line (each escaped)."""
    if isinstance(value, str):
        return Markup.escape(value)
    return Markup("").join(Markup('<span class="line">{}</span>').format(line) for line in value)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
