"""The table: every input event goes in, one view comes out (interaction.md made into a state machine).

One thread owns a Table. Tags are looked up in the tag map, presses and taps go to the game's adapter
(or answer the question on screen), actions go through the session (engine, then journal), and the
result is shown: during a game, what an action did becomes the last event on the scoreboard, and a
refused input is shown over it, framed, and changes nothing; outside a game (set-up, the menu, the
store's notices) a flash fills the screen for a moment.

Buttons everywhere: `next` (or the encoder) moves the chooser, `ok` picks, `undo` goes back one
question or undoes the last action, holding `undo` opens the menu. Any input dismisses a flash.
"""

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import engines
from engines import IllegalAction

from .adapters import Adapter, adapter_for
from .boards import Boards
from .club.players import Players, Seating, is_card
from .config import HintsConfig
from .enrolment import Progress, guided
from .flows import ANY_TAG, BACK, Choose, Flow, Replace, Running, Tap
from .journal import STORE_ERRORS, CorruptJournal, Journal, LeaseHeld, NoSuchGame, Refused, Trouble, trouble
from .journal.health import problems as store_problems
from .journal.refusal import UNREACHABLE
from .session import Session
from .store import KeyClash, migrate_keys
from .tagmap import TagEntry, TagMap
from .views import ChooserView, FlashView, MessageView, OverView, Row, ScoreView, TapView, View


log = logging.getLogger(__name__)

#: seconds between attempts to reach Redis at boot
BOOT_RETRY_S = 1.0
#: seconds between attempts to recover a game that halted the table (a `tablemate log repair` lets it play on)
HALT_RETRY_S = 5.0
#: seconds between two looks for names waiting for their player card (`tablemate players add`)
PLAYERS_S = 2.0


@dataclass
class TableSettings:
    """What the profile tells the table: default names, the preferred game, flash durations."""

    players: list[str] = field(default_factory=lambda: ["Ana", "Ben", "Cy", "Dee", "Eve"])
    game: str | None = None
    flash_s: float = 2.0
    error_s: float = 3.0
    #: hints on or off by default, and per game (the profile's [hints])
    hints: HintsConfig = field(default_factory=HintsConfig)
    #: the boards set-up offers: the owner's (the profile's [boards]), then the bundled ones
    boards: Boards = field(default_factory=Boards)
    #: the store's URL when its set-up is checked at boot (None: an in-memory store), and whether
    #: the profile requires Redis's append-only file ([store] require_aof)
    store_url: str | None = None
    require_aof: bool = False

    def names(self, n: int) -> list[str]:
        return [self.players[i] if i < len(self.players) else f"Player {i + 1}" for i in range(n)]


@dataclass
class Flash:
    lines: tuple[str, ...]
    error: bool
    until: float


class Table:
    def __init__(self, journal: Journal, tags: TagMap, settings: TableSettings | None = None, clock: Callable[[], float] = time.monotonic,
                 imports: dict[str, TagEntry] | None = None):
        self.journal = journal
        self.tags = tags
        self.settings = settings or TableSettings()
        self.clock = clock
        self.session: Session | None = None
        self.adapter: Adapter | None = None
        self.running: Running | None = None
        self._on_done: Callable[[Any], None] | None = None
        self.flash: Flash | None = None
        #: why the stored game cannot be played (its damage), the lines that say it on the screen
        self.halted: str | None = None
        self._halted_lines: tuple[str, ...] = ()
        #: the command that repairs a halted game
        self.repair: str | None = None
        #: why the table waits at boot before recovering the game (Redis does not answer, or refuses
        #: writes, or another table holds the writer lease)
        self.waiting: Trouble | None = None
        self._retry_at = 0.0
        #: what the last action of the game that had events did (or what undo took back), a line an event
        self.last_event: tuple[str, ...] = ()
        #: parts of the table in trouble (a reader), by name: what the screen says about each
        self.troubles: dict[str, str] = {}
        #: what the store did that the players were told (a game written again), while it is shown
        self.store_notice: str | None = None
        #: tag files to enrol once the store answers (`tablemate run --tags`)
        self._imports = dict(imports or {})
        self._checked_store = False
        #: how many inputs were refused, and the last refusal's words (scripts report them)
        self.refusals = 0
        self.refusal = ""
        self.players = Players(tags, journal.table)
        #: the seats player cards claimed while a game is set up
        self.seating = Seating()
        self._players_at = 0.0

    # -- start-up --------------------------------------------------------------------------------

    def boot(self) -> None:
        """Take the writer lease, list the games again if their index was damaged, write to Redis what
        the journal's local copy holds and Redis lacks
        (the games, then the tag map and enrolment's places), enrol the tag files given, load the tag map (giving
        player cards without a ticket theirs) and recover the game in progress from the journal, or start choosing one.

        While Redis does not answer, refuses writes, or another table holds the lease, the table
        says so and waits: `tick()` tries again.
        """
        try:
            self._migrate()
            self.journal.claim()
            self.journal.reindex()
            self.journal.reconcile()
            self.tags.reconcile()
            if self._imports:
                self.tags.set_many(self._imports)
                self._imports = {}
            for problem in self.tags.load():
                log.warning("tag map: %s", problem)
            ticketed = self.players.ticket_all()
            if ticketed:
                log.warning("%d player cards enrolled before tickets existed got one: export them again to this owner's other "
                            "tables, so the club counts their games there (docs/club.md)", ticketed)
            session = Session.recover(self.journal)
        except (Refused, *STORE_ERRORS) as error:
            self._wait(error)
            return
        except KeyClash as error:
            log.error("%s", error)
            self.waiting = Trouble("Redis keys clash", str(error))
            self._retry_at = self.clock() + BOOT_RETRY_S
            return
        except (CorruptJournal, NoSuchGame) as error:
            self.waiting = None
            self._halt(error)
            return
        if self.waiting:
            log.warning("%s no more: the table starts", self.waiting.detail)
        self.waiting = None
        self._check_store()
        if session is None:
            self._start_home()
        else:
            self._use(session)
            session.mend()
            self._follow_up()

    def _wait(self, error: Exception) -> None:
        """The store cannot be written yet: say why once (a second table on the same id is told how
        to part them), show it, and try again in BOOT_RETRY_S."""
        waiting = trouble(error)
        if waiting != self.waiting:
            hint = ("; this table writes nothing until that one stops: stop it, or give this table an id of its own "
                    "([table] id in its profile)") if isinstance(error, LeaseHeld) else "; trying again"
            log.warning("cannot start yet: %s%s", waiting.detail, hint)
        self.waiting = waiting
        self._retry_at = self.clock() + BOOT_RETRY_S
    def _migrate(self) -> None:
        """Keys stored before they had a hash tag move under it, once (firmware.store.migrate_keys)."""
        moved = migrate_keys(self.journal.client, self.journal.table)
        if moved:
            log.warning("table %s: %d keys moved under their Redis Cluster hash tag (%s)", self.journal.table, moved,
                        self.journal.key("..."))

    def _halt(self, error: CorruptJournal | NoSuchGame) -> None:
        """The stored game cannot be replayed: say why and which command repairs it; retry later."""
        self.halted = str(error)
        if isinstance(error, CorruptJournal):
            self.repair = error.repair
            self._halted_lines = (error.reason, f"Run: {error.repair}", "Hold undo: menu")
        else:
            self.repair = None
            self._halted_lines = (str(error), "Hold undo: menu")
        self._retry_at = self.clock() + HALT_RETRY_S
        log.error("journal problem: %s%s", error, f"; repair it with: {self.repair}" if self.repair else "")

    def _retry_halted(self) -> bool:
        """Try the halted game again (it may have been repaired); True when it plays on."""
        self._retry_at = self.clock() + HALT_RETRY_S
        try:
            session = Session.recover(self.journal)
        except (CorruptJournal, NoSuchGame) as error:
            self._halt(error)
            return False
        except (Refused, *STORE_ERRORS):
            return False
        if session is None:
            return False
        log.warning("game %s is readable again: play goes on", session.gid)
        self._use(session)
        session.mend()
        self._show(("Game repaired", "Play on"), error=False)
        self._follow_up()
        return True

    def _check_store(self) -> None:
        """Once, at boot: warn (log and screen) when Redis is set up to lose games."""
        if self._checked_store or self.settings.store_url is None:
            return
        self._checked_store = True
        try:
            found = store_problems(self.journal.client, self.settings.store_url, self.settings.require_aof)
        except STORE_ERRORS as error:
            log.warning("Redis's set-up was not checked: %s", trouble(error).detail)
            return
        for problem in found:
            log.warning("Redis set-up: %s%s", problem.text, f"; fix: {problem.fix}" if problem.fix else "")
        if found:
            self._show((found[0].short, "Run tablemate doctor"), error=True)

    # -- input -----------------------------------------------------------------------------------

    def tag(self, uid: str, seat: int | None = None) -> None:
        """A tag arrived on a reader (seat None: a shared reader)."""
        self._guard(self._on_tag, uid, seat)

    def unreadable(self, why: str) -> None:
        """A reader's field stayed unreadable (two cards at once, a phone): say `why`, as for an
        unknown tag; nothing changes."""
        self._guard(self._on_unreadable, why)

    def press(self, role: str, seat: int | None = None) -> None:
        self._guard(self._on_press, role, seat)

    def hold(self, role: str, seat: int | None = None) -> None:
        self._guard(self._on_hold, role, seat)

    def hardware(self, part: str, trouble: str | None) -> None:
        """A part of the table (a reader) is in `trouble` ("Reader 3: not answering"), or well again
        (None): the screen says so while play goes on with the rest."""
        if trouble is None:
            self.troubles.pop(part, None)
        else:
            self.troubles[part] = trouble

    @property
    def notice(self) -> str:
        """What is in trouble, in one line ("" when all is well)."""
        return "; ".join(self.troubles.values())

    def turn(self, steps: int) -> None:
        """The rotary encoder turned `steps` detents (negative: back)."""
        self.flash = None
        if self.running and isinstance(self.running.request, Choose):
            self.running.move(steps)

    def tick(self) -> bool:
        """Time passes: expire the flash and retry the store; True when the view may have changed."""
        changed = False
        if self.flash and self.clock() >= self.flash.until:
            self.flash = None
            changed = True
        if self.flash is None and self.store_notice:
            self.store_notice = None
            changed = True
        if self.waiting:
            if self.clock() < self._retry_at:
                return changed
            waited = self.waiting
            self.boot()
            return changed or self.waiting != waited
        if self.halted and self.session is None and self.running is None and self.clock() >= self._retry_at:
            changed = self._retry_halted() or changed
        changed = self.journal.tick(self.clock()) or changed
        changed = self._ask_for_cards() or changed
        return self._take_notices() or changed

    def _take_notices(self) -> bool:
        """Flash what the journal did to keep the game (written again, as a new game) and what the
        tag map's local copy did; the tag map is written again when the store lost it as well."""
        if self.journal.notices:
            try:
                if self.tags.restore():  # the store lost the game: it may have lost the tag map with it
                    log.warning("the tag map was gone from Redis: written again (%d tags)", len(self.tags.items()))
            except (Refused, *STORE_ERRORS) as error:
                log.warning("the tag map could not be checked: %s", trouble(error).detail)
        notices = self.tags.take_notices() + self.journal.notices  # the game's last: the screen shows the last
        self.journal.notices.clear()
        if not notices:
            return False
        lines, self.store_notice = notices[-1]
        self._show(lines, error=False)
        return True

    def _ask_for_cards(self) -> bool:
        """When a name waits for its player card and no question is on screen (set-up aside), ask for
        the card; True when the screen changed."""
        if (self.halted or self.flash or self.journal.offline or self.clock() < self._players_at
                or not (self.running is None or self.setting_up)):
            return False
        self._players_at = self.clock() + PLAYERS_S
        try:
            waiting = self.players.pending()
        except STORE_ERRORS:
            return False
        if not waiting:
            return False
        setting_up = self.setting_up
        if setting_up:
            self.running.cancel()
        self._run(self._enrol_player(waiting[0]), lambda message: self._player_enrolled(message, setting_up))
        return True

    # -- what to show ----------------------------------------------------------------------------

    def view(self) -> View:
        """What the screen shows now; a refusal during a game is shown over its scoreboard."""
        offline = self.journal.offline
        shown = self._view(offline, self.notice)
        if self.flash is None:
            return shown
        over = shown if isinstance(shown, ScoreView) else getattr(shown, "over", None)
        return FlashView(self.flash.lines, self.flash.error, offline, over if self.flash.error else None)

    def _view(self, offline: bool, notice: str) -> View:
        title = self.session.game.title if self.session else "tablemate"
        if self.running:
            request = self.running.request
            over = self._scores(offline, notice, hint=False) if self._playing() else None
            if isinstance(request, Choose):
                labels, index, board = tuple(o.label for o in request.options), self.running.index, request.map
                cells, marks = (board.cells, board.marks[index]) if board else ((), ())
                return ChooserView(request.question, labels, index, title, offline, cells, marks, notice, over)
            return TapView(request.question, request.done, request.title or title, offline, request.note, notice, over)
        if self.waiting == UNREACHABLE:
            return MessageView("Store unreachable", ("Waiting for Redis.", "The game is kept there."), True, notice)
        if self.waiting:
            return MessageView("Waiting for Redis", (self.waiting.short, "Trying again; the game is kept there."), True,
                               notice)
        if self.halted:
            return MessageView("Journal problem", self._halted_lines, offline, notice)
        if self.session is None:
            return MessageView("tablemate", ("Hold undo: menu",), offline, notice)
        if self.session.game.is_over(self.session.state):
            return self._over_view(offline)
        return self._scores(offline, notice)

    def _playing(self) -> bool:
        """A game is played and the question on screen is one of its own (not set-up, the menu or a
        player card's): the scoreboard stays on screen."""
        return (self.session is not None and not self.halted and self._on_done == self._apply_outcome
                and not self.session.game.is_over(self.session.state))

    def _scores(self, offline: bool, notice: str, *, hint: bool = True) -> ScoreView:
        """The game's scoreboard; the hint only when it is shown (not while a question is asked)."""
        game, state = self.session.game, self.session.state
        prompt = game.prompt(state)
        current = prompt.player if prompt else None
        rows = tuple(Row(s.player, s.total, seat == current) for seat, s in enumerate(game.scores(state)))
        said = self.adapter.hint(state) if hint and self.session.hints else ""
        if self.journal.trouble:
            said = f"! {self.journal.trouble.short}"
        return ScoreView(game.title, game.phase(state), rows, self.adapter.waiting(prompt) if prompt else "", self.last_event, said,
                         offline, notice, self.adapter.short_title)

    def _over_view(self, offline: bool) -> OverView:
        game, state = self.session.game, self.session.state
        totals = [(s.total, seat, s.player) for seat, s in enumerate(game.scores(state))]
        ranking, place = [], 0
        for position, (total, _, name) in enumerate(sorted(totals, key=lambda t: (-t[0], t[1]))):
            if position == 0 or total != ranking[-1][2]:
                place = position + 1
            ranking.append((place, name, total))
        winners = tuple(state.players[seat] for seat in game.winners(state))
        return OverView(game.title, tuple(ranking), winners, offline, self.adapter.short_title)

    # -- handlers --------------------------------------------------------------------------------

    def _guard(self, handler: Callable[..., None], *args: Any) -> None:
        self.flash = None
        if self.waiting:
            self._error(self.waiting.short)
            return
        try:
            handler(*args)
        except IllegalAction as refused:
            self._recover_from(refused.short)
        except (Refused, *STORE_ERRORS) as error:  # a write of the tag map or of enrolment's place
            self._recover_from(trouble(error).short)
        self._take_notices()

    def _recover_from(self, message: str) -> None:
        """After a refusal: say why, drop a flow that ended with it, re-ask what the rules demand."""
        self._error(message)
        if self.running is not None and self.running.done:
            self.running = None
        self._follow_up()

    def _on_tag(self, uid: str, seat: int | None) -> None:
        entry = self.tags.get(uid)
        request = self.running.request if self.running else None
        if isinstance(request, Tap) and request.kinds == ANY_TAG:
            self._answer((uid, entry))
            return
        if is_card(entry):  # set-up's questions are on screen while player cards claim their seats
            self._claim(entry, seat)
            return
        if isinstance(request, Choose) and request.tap is None:
            raise IllegalAction("Answer first (undo=back)", f"a question is on screen: {request.question}")
        if entry is None:
            raise IllegalAction(f"Unknown tag {uid[:8]}", f"tag {uid} is not enrolled")
        if self.session is None or self.halted:
            raise IllegalAction("No game in progress", f"tag {uid} ({entry.label or entry.kind}) arrived with no game")
        if entry.game != self.session.name:
            other = _title(entry.game)
            raise IllegalAction(f"Tag of {other}", f"tag {uid} belongs to {other}, not {self.session.game.title}")
        if isinstance(request, Tap):
            if entry.kind not in request.kinds:
                raise IllegalAction(f"Tap: {request.question}", f"a {entry.kind} is not what the table asks for")
            if request.only and entry.descriptor.get("id") not in request.only:
                raise IllegalAction(f"Tap: {request.question}", f"{entry.label or entry.descriptor.get('id')} is not what the table asks for")
            self._answer((entry, seat) if request.with_seat else entry)
            return
        if isinstance(request, Choose) and request.tap is not None:
            self._answer(request.tap(entry))
            return
        if request is not None:
            raise IllegalAction("Answer first (undo=back)", "a question is on screen")
        if self.session.game.is_over(self.session.state):
            raise IllegalAction("Game over: ok=new game", "the game is over")
        self._run(self.adapter.tag(self.session.state, entry, seat), self._apply_outcome)

    def _on_unreadable(self, why: str) -> None:
        raise IllegalAction(why, "a reader could not read what is on it")

    def _on_press(self, role: str, seat: int | None) -> None:
        if self.running:
            self._press_in_flow(role)
            return
        if self.halted or self.session is None:
            raise IllegalAction("Hold undo: menu", "no game is in progress")
        if role == "undo":
            self._undo()
        elif self.session.game.is_over(self.session.state):
            if role != "ok":
                raise IllegalAction("Game over: ok=new game", "the game is over; ok starts a new one, undo goes back")
            self._start_home()
        else:
            self._run(self.adapter.press(self.session.state, role, seat), self._apply_outcome)

    def _press_in_flow(self, role: str) -> None:
        running = self.running
        request = running.request
        if role == "undo" and isinstance(request, Tap) and request.back:
            self._answer(BACK)
            return
        if role == "undo":
            running.cancel()
            self.running = None
            if running.undo_undoes:
                self._undo()
            elif self.session is None and not self.halted:
                self._start_home()
            return
        if isinstance(request, Choose):
            if role == "next":
                running.move(1)
            elif role == "ok":
                self._answer(running.chosen())
            else:
                raise IllegalAction("Answer first (undo=back)", f"{role} does nothing while a question is on screen")
        elif role == "ok" and request.done:
            self._answer(None)
        else:
            raise IllegalAction(request.question[:42], f"the table waits for a tap: {request.question}")

    def _on_hold(self, role: str, seat: int | None) -> None:
        if role != "undo":
            self._on_press(role, seat)
            return
        if self.running:
            self.running.cancel()
            self.running = None
        self._run(self._menu(), self._menu_done)

    # -- flows -----------------------------------------------------------------------------------

    def _run(self, flow: Flow, on_done: Callable[[Any], None], *, undo_undoes: bool = False) -> None:
        self.running = Running(flow, undo_undoes=undo_undoes)
        self._on_done = on_done
        self._settle()

    def _answer(self, value: Any) -> None:
        self.running.answer(value)
        self._settle()

    def _settle(self) -> None:
        """When the running flow has finished, hand its result on."""
        if self.running is not None and self.running.done:
            result, on_done = self.running.result, self._on_done
            self.running = None
            on_done(result)

    def _follow_up(self) -> None:
        if self.running is None and self.session is not None and not self.halted:
            flow = self.adapter.follow_up(self.session.state)
            if flow is not None:
                self._run(flow, self._apply_outcome, undo_undoes=True)

    # -- game actions ----------------------------------------------------------------------------

    def _apply_outcome(self, outcome: dict | Replace | None) -> None:
        if outcome is None:
            self._follow_up()
            return
        session = self.session
        state = session.replace(outcome.action) if isinstance(outcome, Replace) else session.apply(outcome)
        if state.events:  # an action that only passes the turn (no events) shows as the triangle moving on
            self.last_event = tuple(state.events)
        if session.game.is_over(state):  # the ranking follows at once: what the last action did is flashed first
            self._show(self.last_event, error=False)
        self._follow_up()

    def _undo(self) -> None:
        session = self.session
        before = session.states[-2] if len(session.states) > 1 else None
        action = session.actions[-1] if session.actions else None
        if not session.undo():
            raise IllegalAction("Nothing to undo", "the game is back at its start")
        self.last_event = (f"Undone: {_undone(session.name, session.game, before, action)}",)
        self._follow_up()

    def _use(self, session: Session) -> None:
        self.session = session
        self.adapter = adapter_for(session.name, session.hints)
        self.halted = self.repair = None
        self.last_event = ()

    # -- players ---------------------------------------------------------------------------------

    @property
    def setting_up(self) -> bool:
        """A game is being set up (game, players, options: the home questions are on screen)."""
        return self.running is not None and self._on_done == self._new_game

    def _claim(self, entry: TagEntry, seat: int | None) -> None:
        """A player card tapped: at set-up it claims the seat of its reader for that player."""
        name = entry.descriptor["name"]
        if not self.setting_up:
            raise IllegalAction(f"{name}: tap at set-up", "a player card claims a seat while a game is set up")
        if seat is None:
            raise IllegalAction("Tap on your seat", "a player card claims the seat of the reader it is tapped on")
        self.seating.claim(seat, entry)
        self._show((name, f"takes seat {seat + 1}"), error=False)

    def _enrol_player(self, name: str) -> Flow:
        """Ask for `name`'s card (`tablemate players add`): the next tag tapped becomes it; ok: later
        (it is asked again), undo: no card after all."""
        answer = yield Tap(f"Card of {name}?", ANY_TAG, done="later", note="Tap a player card", back=True)
        if answer is BACK:
            self.players.cancel(name)
            return f"{name}: no card"
        if answer is None:
            self._players_at = self.clock() + 60 * PLAYERS_S
            return f"{name}: card later"
        uid, existing = answer
        if existing is not None:
            keep = yield Choose.of(f"Already: {existing.label or existing.kind}", [("Keep it", True), (f"Make it {name}'s", False)])
            if keep:
                return f"{name}: no card yet"
        self.players.enrol(uid, name)
        return f"{name}: card enrolled"

    def _player_enrolled(self, message: str, setting_up: bool) -> None:
        """Back to what the table did before it asked for the card: the set-up, or the game."""
        self._show((message,), error=False)
        if setting_up or self.session is None:
            self._start_home()
        else:
            self._follow_up()

    # -- home and menu ---------------------------------------------------------------------------

    def _start_home(self) -> None:
        self._run(self._home(), self._new_game)

    def _home(self) -> Flow:
        names = engines.names()
        if self.settings.game in names:
            names.remove(self.settings.game)
            names.insert(0, self.settings.game)
        name = yield Choose.of("Which game?", [(engines.get(n).title, n) for n in names])
        game = engines.get(name)
        counts = list(range(game.min_players, game.max_players + 1))
        preferred = min(max(len(self.settings.players), game.min_players), game.max_players)
        n = yield Choose.of(f"{game.title}: players?", [(f"{k} players", k) for k in counts], counts.index(preferred))
        options = yield from adapter_for(name, boards=self.settings.boards.offered(name)).setup(n)
        hints = yield Choose.of("Hints?", [("Hints on", True), ("Hints off", False)], 0 if self.settings.hints.enabled_for(name) else 1)
        return name, self.settings.names(n), options, hints

    def _new_game(self, choice: tuple[str, list[str], dict, bool]) -> None:
        name, defaults, options, hints = choice
        players, cards = self.seating.seat(defaults)
        self.new_game(name, players, options, hints, cards=cards)

    def new_game(self, name: str, players: list[str], options: dict, hints: bool = True, gid: str | None = None,
                 cards: list[str | None] | None = None) -> None:
        """Start game `name` (abandoning an unfinished one, closing any open question) and ask what
        its first move needs; `cards`: the seats player cards claimed."""
        if self.running is not None:
            self.running.cancel()
            self.running = None
        if self.session is not None and not self.session.game.is_over(self.session.state):
            self.journal.set_status(self.session.origin, "abandoned")
        self._use(Session.start(self.journal, name, players, options, gid, hints, cards))
        self.seating = Seating()
        self._show((f"{self.session.game.title}", ", ".join(players)), error=False)
        self._follow_up()

    def _menu(self) -> Flow:
        choices = [("Back", "back"), ("New game", "new"), ("Enrol a game", "enrol"), ("Identify a tag", "identify")]
        choice = yield Choose.of("Menu", choices)
        if choice == "identify":
            answer = yield Tap("Tap a tag to identify", ANY_TAG, done="back")
            return ("identify", *answer) if answer else "back"
        if choice == "enrol":
            game = yield Choose.of("Enrol which game?", [(engines.get(n).title, n) for n in engines.names()])
            progress = Progress(self.tags, self.journal.table)
            start = progress.get(game)
            if start and not (yield Choose.of(f"Resume at {start + 1}?", [("Resume", True), ("Start over", False)])):
                start = 0
            return ("enrolled", (yield from guided(self.tags, progress, game, start)))
        return choice

    def _menu_done(self, choice: Any) -> None:
        if isinstance(choice, tuple) and choice[0] == "identify":
            self._show(self._describe(*choice[1:]), error=False)
        elif isinstance(choice, tuple) and choice[0] == "enrolled":
            self._show((choice[1],), error=False)
        elif choice == "new":
            self._start_home()
            return
        if self.session is None and not self.halted:
            self._start_home()
        else:
            self._follow_up()

    def _describe(self, uid: str, entry: TagEntry | None) -> tuple[str, ...]:
        if entry is None:
            return (f"Tag {uid[:14]}", "not enrolled")
        return (f"Tag {uid[:14]}", entry.label or entry.kind, _title(entry.game))

    # -- flashes ---------------------------------------------------------------------------------

    def _show(self, lines: Iterable[str], *, error: bool) -> None:
        seconds = self.settings.error_s if error else self.settings.flash_s
        self.flash = Flash(tuple(lines), error, self.clock() + seconds)

    def _error(self, short: str) -> None:
        self.refusals += 1
        self.refusal = short
        self._show((short,), error=True)


def _title(game: str) -> str:
    """A game's title, also for a tag enrolled for a game this table does not have."""
    return engines.get(game).title if game in engines.names() else game.replace("_", " ").title()


def _undone(name: str, game: engines.Game, before: Any, action: dict | None) -> str:
    """What an undone action was, in the words of the game's timeline ("Ben plays red")."""
    from .web.games import renderer  # the live view's wording, one for every screen

    if action is None or before is None:
        return "the last action"
    return renderer(name).describe(game, before, action)
