"""`tablemate club`: the club server's read-only page, over the club's Redis (what the tables' uplinks
copy there). Built like the live view (firmware.web): Starlette, Jinja2, server-sent events, the
same guard (read-only methods, no bodies, bounded requests, strict headers) and the same limits.

Routes: `/` every table live (SSE from `/events`, one snapshot for all tables, sent after any table's
update); `/games` every finished game; `/tables/{table}/games/{gid}` one game with its whole timeline;
`/players` each player's record; `/tournament` the standings over chosen games; the same as JSON under
`/api/` (`/api/tables`, `/api/games`, `/api/players`, `/api/tournament`) and as CSV under `/export/`
(`results.csv`: one row per seat of every finished game, `players.csv`, `tournament.csv`).
"""

import csv
import datetime
import io
from pathlib import Path
from typing import Any

import redis
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..journal import OUTAGE, CorruptJournal
from ..store import connect, table_key
from ..web.app import ErrorPages, environment, guarded, sse_endpoint
from ..web.chart import scores_chart
from ..web.guard import Guard
from ..web.live import Hub, Snapshot
from ..web.reader import GID, NoSuchGame, StoreDown
from .results import BadFilter, Club, Selection

HERE = Path(__file__).parent
STATIC = HERE.parent / "web" / "static"
DOWN = "The club's Redis is not answering: this page carries on by itself when it is back."
#: the finished games the games page lists, newest first
GAMES_SHOWN = 200


def create_app(url: str, user: str | None = None, password: str | None = None, max_viewers: int = 50,
               hosts: tuple[str, ...] = ()) -> Guard:
    """The ASGI app of the club page over the club's Redis at `url` (its read-only ACL user); with
    `hosts`, it answers only requests naming one of them in their Host header."""
    def client() -> redis.Redis:
        return connect(url, username=user, password=password)

    club = Club(client())
    page = Page(club)
    hub = Hub(url, table_key("*", "updates"), page.snapshot, max_viewers, pattern=True, client=client, heard=club.heard)
    routes = [
        Route("/", page.live, name="live"),
        Route("/events", sse_endpoint(hub), name="events"),
        Route("/games", page.games, name="games"),
        Route("/tables/{table}/games/{gid}", page.game, name="game"),
        Route("/players", page.players, name="players"),
        Route("/tournament", page.tournament, name="tournament"),
        Route("/api/tables", page.api_tables, name="api_tables"),
        Route("/api/games", page.api_games, name="api_games"),
        Route("/api/players", page.api_players, name="api_players"),
        Route("/api/tournament", page.api_tournament, name="api_tournament"),
        Route("/export/results.csv", page.results_csv, name="results_csv"),
        Route("/export/players.csv", page.players_csv, name="players_csv"),
        Route("/export/tournament.csv", page.tournament_csv, name="tournament_csv"),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {
        StoreDown: page.error(503, "Club Redis unreachable"),
        NoSuchGame: page.error(404, "No such game"),
        CorruptJournal: page.error(500, "Unreadable game"),
        BadFilter: page.error(400, "Bad filter"),
        HTTPException: page.http_error,
    }
    app = guarded(routes, handlers, hub, hosts)
    page.router = app.app.router
    return app


class Page(ErrorPages):
    """The pages, JSON and CSV (plain functions: Starlette runs them in its thread pool)."""

    down = DOWN
    data = ("/api/", "/export/")

    def __init__(self, club: Club):
        self.club = club
        self.router: Any = None
        self.env = environment(HERE / "templates")
        self.env.globals.update(path=lambda _name, **params: str(self.router.url_path_for(_name, **params)), table="club")

    def render(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(**context)

    def _read(self, read):
        try:
            return read()
        except OUTAGE as error:
            raise StoreDown(str(error)) from None

    # -- every table, live ---------------------------------------------------------------------------

    def tables(self) -> list[dict]:
        """Each table's game now: title, phase, who acts, the scores; whether its uplink copies."""
        def read() -> list[dict]:
            online = self.club.online()
            tables = []
            for name in self.club.tables():
                entry = {"table": name, "online": online.get(name, False), "game": None, "error": None}
                try:
                    replay = self.club.reader(name).current()
                except CorruptJournal as error:
                    entry["error"] = str(error)
                else:
                    if replay is not None:
                        g = replay.payload()
                        entry["game"] = {k: g[k] for k in ("gid", "game", "title", "status", "phase", "prompt", "scores", "winners", "entries",
                                                           "created", "players")}
                tables.append(entry)
            return tables

        return self._read(read)

    def snapshot(self) -> Snapshot:
        try:
            tables = self.tables()
        except StoreDown:
            return Snapshot("outage", "outage", DOWN)
        version = ",".join(f"{t['table']}:{t['game']['gid']}:{t['game']['entries']}" if t["game"] else t["table"] for t in tables)
        return Snapshot("state", str(abs(hash(version))), self.render("_tables.html", tables=tables, down=None))

    def live(self, request: Request) -> HTMLResponse:
        try:
            tables, down = self.tables(), None
        except StoreDown:
            tables, down = [], DOWN
        return HTMLResponse(self.render("tables.html", here="live", tables=tables, down=down), status_code=503 if down else 200)

    # -- games and players ---------------------------------------------------------------------------

    def finished(self) -> list[dict]:
        """Every finished game of every table, newest first, its seats with their placings."""
        games: dict[tuple[str, str], dict] = {}
        for seat in self._read(self.club.seats):
            game = games.setdefault((seat.table, seat.gid), {"table": seat.table, "gid": seat.gid, "game": seat.game, "title": seat.title,
                                                             "created": seat.created, "seats": []})
            game["seats"].append({"seat": seat.seat, "player": seat.name, "card": seat.player, "total": seat.total,
                                  "place": seat.place, "winner": seat.winner})
        return sorted(games.values(), key=lambda g: -g["created"])

    def games(self, request: Request) -> HTMLResponse:
        games = self.finished()
        return HTMLResponse(self.render("club_games.html", here="games", games=games[:GAMES_SHOWN], total=len(games)))

    def game(self, request: Request) -> HTMLResponse:
        table, gid = request.path_params["table"], request.path_params["gid"]
        reader = self._read(lambda: self.club.reader(table)) if GID.fullmatch(table) else None
        if reader is None:
            raise NoSuchGame(f"no table {table!r} at the club")
        replay = reader.game(gid)
        g = replay.payload("full")
        start = [score.total for score in replay.game.scores(replay.states[0])]
        chart = scores_chart(g["players"], start, g["timeline"])
        board = replay.board()
        return HTMLResponse(self.render("game.html", here="game", g=g, board=Markup(board) if board else None,
                                        chart=Markup(chart) if chart else None))

    def players(self, request: Request) -> HTMLResponse:
        return HTMLResponse(self.render("players.html", here="players", players=self._read(self.club.records)))

    def tournament(self, request: Request) -> HTMLResponse:
        selection = Selection.parse(request.query_params)
        result = self._read(lambda: self.club.tournament(selection))
        seats = self._read(self.club.seats)
        choices = {"games": sorted({(s.game, s.title) for s in seats}), "tables": sorted({s.table for s in seats}),
                   "days": sorted({_day(s.created) for s in seats}, reverse=True)}
        return HTMLResponse(self.render("tournament.html", here="tournament", result=result, selection=selection, choices=choices,
                                        query=str(request.query_params)))

    # -- JSON and CSV ----------------------------------------------------------------------------------

    def api_tables(self, request: Request) -> JSONResponse:
        return JSONResponse({"tables": self.tables()})

    def api_games(self, request: Request) -> JSONResponse:
        return JSONResponse({"games": self.finished()})

    def api_players(self, request: Request) -> JSONResponse:
        return JSONResponse({"players": self._read(self.club.records)})

    def api_tournament(self, request: Request) -> JSONResponse:
        return JSONResponse(self._read(lambda: self.club.tournament(Selection.parse(request.query_params))))

    def results_csv(self, request: Request) -> Response:
        rows = [{"table": g["table"], "gid": g["gid"], "game": g["game"], "date": _day(g["created"]), **seat}
                for g in self.finished()[::-1] for seat in g["seats"]]
        return _csv("results.csv", ["table", "gid", "game", "date", "seat", "player", "card", "total", "place", "winner"], rows)

    def players_csv(self, request: Request) -> Response:
        rows = [{"player": r["player"], "name": r["name"], "game": game, "played": g["played"], "won": g["won"],
                 "average": g["average"], "best": g["best"], "last_played": _day(g["last_played"])}
                for r in self._read(self.club.records) for game, g in r["games"].items()]
        return _csv("players.csv", ["player", "name", "game", "played", "won", "average", "best", "last_played"], rows)

    def tournament_csv(self, request: Request) -> Response:
        result = self._read(lambda: self.club.tournament(Selection.parse(request.query_params)))
        return _csv("tournament.csv", ["rank", "name", "player", "games", "placings", "scores", "wins"], result["standings"])

def _day(stamp: float) -> str:
    return datetime.date.fromtimestamp(stamp).isoformat()


def _csv(name: str, columns: list[str], rows: list[dict]) -> Response:
    """A CSV file; a text that a spreadsheet would take for a formula (=, +, -, @ first) is quoted
    with a leading apostrophe, so a player's name never runs as one."""
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, extrasaction="ignore", lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: f"'{v}" if isinstance(v, str) and v[:1] in ("=", "+", "-", "@") else v for k, v in row.items()})
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers={"content-disposition": f'attachment; filename="{name}"'})
