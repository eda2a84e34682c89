"""The property test of undo through the table, in all four games: random games played through the
appliance on its mocked hardware (taps on the mock readers, presses on gpiozero MockFactory pins,
turns of the encoder), with undo pressed at random moments and the undone inputs entered again.

A game starts from a random point of its recorded demo (firmware/demos: the set-up, then a prefix
of the game), so the late questions (the hands of Taj Mahal, Thurn und Taxis's last round) come up
as well as the first. Each input is chosen from what the table takes at that moment: a component
the table would take on the chosen reader (Table.refuses, the check the virtual table greys by), a
button of the game, the chooser's next, ok or a turn of the encoder. A press the table refuses
must change nothing; a greyed component tapped must be refused, with the words the page gave.

The model keeps, for each input that completed an action, the session before it, the inputs since
the previous such input (its batch) and the session and screen after it. Then:
- undo, with no question open or one the table asked by itself: the session (actions, inputs,
  scores, prompt) is the one before the last such input, the screen says "Undone: ...", and the
  journal replayed from Redis is the same session (inputs included: the next undo after a restart
  takes back the same); with nothing left to undo, "Nothing to undo" and nothing changes;
- undo while a question the player's own input opened is on screen: the question closes, nothing
  else changes (no action is taken back);
- the undone batches entered again, the last undone first: the same session and the same screen.

`make test` runs, a game, EXAMPLES examples from a random point of its demo, ENDED from its end (the
game over, undone at once), AT right after one of the first inputs that ended a round (and, in Taj
Mahal, that replaced a play, and that the table followed with an action of its own), undone at once,
and, for Taj Mahal on a board and Mongols without the dice assistant (what the demos leave out),
ENDED from the start: 78 examples of STEPS inputs, derandomized (the same every run), on fakeredis,
each game held to meet its questions and undos of every kind (QUESTIONS, KINDS); and 2 a game on a
real redis-server, the journal written by its writer thread with a local copy, as the appliance
writes it (about 90 s of each of the two workers, on a busy machine). `make undo-soak` runs many
more with fresh random seeds. A failing example's steps become a named regression test in
tests/e2e/test_undo.py.
"""

import dataclasses
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test

from drivers.readers import ReaderTiming
from firmware import script, tagfile
from firmware.app import App
from firmware.flows import Choose, Tap
from firmware.journal import Journal
from firmware.script import Hands, Step, VirtualClock, VirtualTime
from firmware.session import Session
from firmware.sim import catalogue
from firmware.store import connect

from tests.engines.bots.taj_mahal import SYNTHETIC_BOARD

from .rig import mocked_profile
from .test_undo import scoreboard

DEMOS = Path(__file__).parents[2] / "firmware" / "demos"
GAMES = ("taj_mahal", "maharani", "thurn_und_taxis", "mongols")
#: examples a game in `make test`, and inputs an example makes after its start (UNDO_SOAK=N: N examples, random seeds)
SOAK = int(os.environ.get("UNDO_SOAK", "0"))
EXAMPLES = SOAK or 12
#: and examples that start from the demo's last input, the game over, undone at once
ENDED = SOAK // 4 or 4
#: and examples that start right after an input of the demo that did one of MOMENTS, undone at once
AT = SOAK // 8 or 1
STEPS = 40
ENCODER = (20, 21)
#: the virtual time after an input
TICK_S = 0.05
#: what each game's examples met: the questions (Choose/Tap fields, and "*" for any question) and the undos
MET: dict[str, set[str]] = {game: set() for game in GAMES}
UNDOS: dict[str, dict[str, int]] = {game: {} for game in GAMES}


@dataclass(frozen=True)
class Seen:
    """The session at one moment, as undo must give it back."""

    actions: tuple
    inputs: tuple
    scores: tuple
    prompt: object
    phase: str = dataclasses.field(compare=False)
    over: bool = dataclasses.field(compare=False)

    @classmethod
    def of(cls, session: Session) -> "Seen":
        game, state = session.game, session.state
        return cls(session.actions, tuple(session.inputs), tuple(game.scores(state)), game.prompt(state), game.phase(state),
                   game.is_over(state))


@dataclass
class Done:
    """An input that completed an action: the session before it, the inputs since the previous such
    input, the session and the screen after it."""

    before: Seen
    batch: list[Step]
    after: Seen
    view: object

    @property
    def kind(self) -> str:
        """What the input did, as the test reports its undos."""
        if self.after.over:
            return "ended the game"
        if self.after.phase != self.before.phase:
            return "ended a round"
        added = len(self.after.actions) - len(self.before.actions)
        return "replaced an action" if added == 0 else "and the table went on" if added > 1 else "an action"


class QuickHands(VirtualTime):
    """Quick players in virtual time: a card lifted after 1.5 gaps (of 30 ms here), the next input a
    tick later (the demos' 0.3 s of thought cost the test many ticks of the loop and nothing else)."""

    def do(self, step: Step) -> None:
        Hands.do(self, step)
        self.passes(TICK_S)


class UndoAtTheTable(RuleBasedStateMachine):
    def __init__(self, game: str, url: str, moment: str | None, options: dict | None, writer: bool):
        super().__init__()
        self.game = game
        self.url = url
        #: the journal's writes made on the writer thread with a local copy, as the appliance makes them
        self.writer = writer
        self.local_dir = Path(tempfile.mkdtemp(prefix="undo-local-")) if writer else None
        #: start right after an input of the demo that did this (a Done.kind), undone at once (else
        #: from a random point of the demo)
        self.moment = moment
        #: the options of a game started without its demo (the demo's have none, or dice on)
        self.options = options
        self.app: App | None = None

    # -- the appliance ---------------------------------------------------------------------------

    @initialize(data=st.data())
    def start(self, data) -> None:
        profile = mocked_profile(self.url, table=f"t{os.urandom(4).hex()}", local_dir=self.local_dir)
        profile = dataclasses.replace(profile, buttons=dataclasses.replace(profile.buttons, encoder=ENCODER, bounce_ms=5),
                                      reader_timing=ReaderTiming(poll_ms=10, gap_ms=30))
        self.clock = VirtualClock()
        self.app = App.build(profile, clock=self.clock, web=False)
        self.hands = QuickHands(self.app, self.clock)
        self.table = self.app.loop.table
        if self.writer:
            self.table.journal.start()
        self.app.loop.start()
        self.table.tags.set_many(tagfile.load(DEMOS / f"{self.game}.tags.toml"))
        self.components = catalogue.catalogue(self.table.tags, self.game)
        self.seats = {name: reader.seat for name, reader in self.app.readers.readers.items()}
        self.done: list[Done] = []
        self.undone: list[Done] = []
        self.batch: list[Step] = []
        #: the question on screen was asked by the table itself (after an action, or an undo)
        self.asked_by_table = False
        lines = script.load(DEMOS / f"{self.game}.script") if self.options is None else []
        if self.options is not None:
            self.table.new_game(self.game, ["Ana", "Ben", "Cy", "Dee"], self.options)
        while self.table.session is None:  # the demo's set-up
            self.hands.do(lines.pop(0))
        self.asked_by_table = self._question() is not None
        self.demo = [(step.verb, step.args) for step in lines]
        if self.moment is None:
            start = st.one_of(st.integers(0, len(lines) // 4), st.integers(0, len(lines)))
            for step in lines[:data.draw(start, label="demo inputs played first")]:
                self._input(step)
        else:
            self._start_after(lines, data.draw(st.integers(0, MOMENTS[self.moment] - 1), label=f"which input that {self.moment}"))
        assert self.table.refusals == 0

    def _start_after(self, lines: list[Step], nth: int) -> None:
        """Play the demo up to its `nth` input (from 0) that did `moment`, and undo it at once."""
        for step in lines:
            done = len(self.done)
            self._input(step)
            if len(self.done) > done and self.done[-1].kind == self.moment:
                if nth == 0:
                    self.undo()
                    return
                nth -= 1
        raise AssertionError(f"the {self.game} demo has too few inputs that {self.moment}")

    def teardown(self) -> None:
        if self.app is not None:
            self.app.close()
        if self.local_dir is not None:
            shutil.rmtree(self.local_dir)

    @property
    def session(self) -> Session:
        return self.table.session

    def _question(self):
        """The question on screen (None: none); always the game's here: no input opens set-up or the menu."""
        running = self.table.running
        return running.request if running is not None else None

    def _turn(self, steps: int) -> None:
        factory = self.app.buttons.factory
        a, b = (factory.pin(pin) for pin in ENCODER)
        first, second = (a, b) if steps > 0 else (b, a)
        first.drive_low()
        second.drive_low()
        first.drive_high()
        second.drive_high()
        self.hands.passes(TICK_S)

    # -- inputs and what they must do ------------------------------------------------------------

    def _input(self, step: Step) -> None:
        """A player's input (a tap, a press, a turn), with the model kept: a new batch when it
        completed an action, the batch going on while a question is open."""
        session, refusals = self.session, self.table.refusals
        before, asked = Seen.of(session), self._question()
        if step.verb == "turn":
            self._turn(int(step.args[0]))
        else:
            self.hands.do(step)
        request = self._question()
        if request is not None:
            MET[self.game].add(request.field or "*")
        if self.table.refusals > refusals:
            assert Seen.of(session) == before, f"{step}: a refused input changed the game ({self.table.refusal})"
            if request is None:
                self.batch = []
            return
        self.undone.clear()  # the table moved on: what undo took back is no longer the next input
        self.batch.append(step)
        if session.actions != before.actions:
            self.done.append(Done(before, self.batch, Seen.of(session), self.table.view()))
            self.batch, self.asked_by_table = [], request is not None
        elif request is None:
            self.batch = []
        elif asked is None:
            self.asked_by_table = False

    def _on_the_demo(self) -> int | None:
        """How many of the demo's inputs the inputs standing are (None: they left it): the next one
        of the demo can then be played."""
        standing = [(step.verb, step.args) for done in self.done for step in done.batch] + [(s.verb, s.args) for s in self.batch]
        return len(standing) if self.demo[:len(standing)] == standing else None

    @precondition(lambda self: self._on_the_demo() not in (None, len(self.demo)))
    @rule()
    def follow_the_demo(self) -> None:
        """The demo's next input, while the game is still the demo's: rounds and the game end come."""
        verb, args = self.demo[self._on_the_demo()]
        refusals = self.table.refusals
        self._input(Step(verb, args, 0))
        assert self.table.refusals == refusals, self.table.refusal

    def _target(self, data) -> str:
        target = catalogue.target(self.table, self.seats)
        readers = [name for name, seat in self.seats.items() if seat is None or seat < len(self.session.players)]
        return data.draw(st.one_of(st.just(target), st.sampled_from(readers)), label="reader")

    @precondition(lambda self: not self.session.game.is_over(self.session.state))
    @rule(data=st.data())
    def tap(self, data) -> None:
        """A component the table would take on the drawn reader: it takes it."""
        reader = self._target(data)
        taken = [c for c in self.components if self.table.refuses(c.uid, self.seats[reader]) is None]
        if not taken:
            return
        component = data.draw(st.sampled_from(taken), label="component")
        refusals = self.table.refusals
        self._input(Step("tap", (reader, component.uid), 0))
        assert self.table.refusals == refusals, f"{component.label} on {reader} was offered, then refused: {self.table.refusal}"

    @rule(data=st.data())
    def tap_greyed(self, data) -> None:
        """A component the table would refuse: refused with the words it gave, nothing changed."""
        reader = self._target(data)
        component = data.draw(st.sampled_from(self.components), label="component")
        said = self.table.refuses(component.uid, self.seats[reader])
        if said is None:
            return
        refusals = self.table.refusals
        self._input(Step("tap", (reader, component.uid), 0))
        assert self.table.refusals == refusals + 1 and self.table.refusal == said

    @precondition(lambda self: not self.session.game.is_over(self.session.state))
    @rule(data=st.data())
    def press(self, data) -> None:
        """A button of the game, next or ok, or a turn of the encoder on a chooser."""
        request = self._question()
        choices = [("press", ("next",)), ("press", ("ok",)), ("turn", ("1",)), ("turn", ("-1",))] if isinstance(request, Choose) else (
            [("press", ("ok",))] if isinstance(request, Tap) and request.done else
            [("press", (role,)) for role in self.table.adapter.buttons] if request is None else [])
        if choices:
            verb, args = data.draw(st.sampled_from(choices), label="input")
            self._input(Step(verb, args, 0))

    @rule()
    def undo(self) -> None:
        session, refusals = self.session, self.table.refusals
        before = Seen.of(session)
        if self._question() is not None and not self.asked_by_table:
            self.hands.do(Step("press", ("undo",), 0))  # a question the player's input opened: it closes
            assert self.table.running is None and Seen.of(session) == before and self.table.refusals == refusals
            self.batch = []
            UNDOS[self.game]["a question closed"] = UNDOS[self.game].get("a question closed", 0) + 1
            return
        self.hands.do(Step("press", ("undo",), 0))
        self.batch = []
        self.asked_by_table = self._question() is not None
        if not self.done:
            assert self.table.refusal == "Nothing to undo" and self.table.refusals == refusals + 1 and Seen.of(session) == before
            return
        last = self.done.pop()
        assert Seen.of(session) == last.before, "undo did not give back the session before the input"
        met = UNDOS[self.game]
        for kind in (last.kind, "right after an undo") if self.undone else (last.kind,):
            met[kind] = met.get(kind, 0) + 1
        events = scoreboard(self.table.view()).events
        assert events and events[0].startswith("Undone: ") and len(events[0]) > len("Undone: ")
        self.table.journal.flush()
        stored = Session.recover(Journal(connect(self.url), self.table.journal.table))
        assert Seen.of(stored) == Seen.of(session) and stored.entries == session.entries, "the journal replays to another session"
        self.undone.append(last)

    @precondition(lambda self: self._question() is not None)
    @rule()
    def undo_during_a_question(self) -> None:
        """Undo while a question is on screen (the table's, or one the player's input opened)."""
        self.undo()

    @precondition(lambda self: bool(self.undone))
    @rule()
    def enter_again(self) -> None:
        """The inputs undo took back, entered again: the same game and the same screen."""
        last = self.undone.pop()
        for step in last.batch:
            if step.verb == "turn":
                self._turn(int(step.args[0]))
            else:
                self.hands.do(step)
        assert Seen.of(self.session) == last.after and self.table.view() == last.view, "entered again, the game differs"
        self.done.append(last)
        self.asked_by_table = self._question() is not None


def run(game: str, url: str, examples: int, moment: str | None = None, options: dict | None = None, writer: bool = False) -> None:
    run_state_machine_as_test(
        lambda: UndoAtTheTable(game, url, moment, options, writer),
        settings=settings(max_examples=examples, stateful_step_count=STEPS, deadline=None, derandomize=not SOAK,
                          database=None, suppress_health_check=list(HealthCheck), print_blob=True))


#: options the demos leave out, played from the start without a demo: Taj Mahal on a board (the
#: province and the fortresses are the board's), Mongols without the dice assistant (a bust confirmed)
OTHER_OPTIONS = {"taj_mahal": {"board": SYNTHETIC_BOARD}, "mongols": {"dice": False}}
#: what each game's examples must meet: its questions, and undos of every kind
QUESTIONS = {
    "taj_mahal": {"tile", "province", "type", "city", "has_bonus", "bonus", "provinces", "cards", "player"},
    "maharani": {"from_quarter", "quarter", "space", "arrow_to_player", "confirm"},
    "thurn_und_taxis": {"side", "official", "houses", "houses[]", "coachman"},
    "mongols": {"dice.len", "dice.0", "dice.1", "numbers+adjust", "gem", "card", "confirm"},
}
KINDS = {"an action", "ended a round", "ended the game", "a question closed", "right after an undo"}
TAJ_MAHAL_KINDS = {"replaced an action", "and the table went on"}
#: the moments an example may start after (undone at once): how many of the first such inputs of a
#: demo it draws from (every demo has at least these; the game ends once)
MOMENTS = {"ended the game": 1, "ended a round": 3, "replaced an action": 3, "and the table went on": 3}


@pytest.mark.parametrize("game", GAMES)
def test_undo_at_random_moments_takes_back_the_last_input_and_the_same_inputs_give_the_same_game(game, memory_url):
    kinds = KINDS | (TAJ_MAHAL_KINDS if game == "taj_mahal" else set())
    run(game, memory_url, EXAMPLES)
    run(game, memory_url, ENDED, moment="ended the game")
    for moment in sorted((kinds & set(MOMENTS)) - {"ended the game"}):
        run(game, memory_url, AT, moment=moment)
    if game in OTHER_OPTIONS:
        run(game, memory_url, ENDED, options=OTHER_OPTIONS[game])
    if not SOAK:  # the derandomized examples of make test, always the same: what they must meet
        assert QUESTIONS[game] <= MET[game] and kinds <= set(UNDOS[game]), f"the examples met {sorted(MET[game])} and {UNDOS[game]}"


@pytest.mark.parametrize("game", GAMES)
def test_on_a_real_redis_server_written_by_the_writer_thread_the_journal_replays_to_the_session_after_every_undo(game, redis_server):
    run(game, redis_server.url, 2, writer=True)
