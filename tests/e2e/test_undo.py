"""Undo through the mocked hardware: one press takes back what the last input did (the action it
completed and what the table then did by itself), again and again, and the same inputs entered
again give the same game. The random games of tests/e2e/test_undo_property.py check it everywhere;
these are the scenarios and every recorded demo, point by point."""

from pathlib import Path

import pytest

from firmware import script, tagfile
from firmware.journal import Journal
from firmware.session import Session
from firmware.store import connect
from firmware.views import ChooserView, ScoreView

from .rig import Rig

DEMOS = Path(__file__).parents[2] / "firmware" / "demos"
TAJ = tagfile.load(DEMOS / "taj_mahal.tags.toml")
UID = {entry.descriptor["id"]: uid for uid, entry in TAJ.items()}


def recovered(rig: Rig) -> Session:
    """The game as a table starting now would recover it from the store."""
    rig.table.journal.flush()
    return Session.recover(Journal(connect(rig.app.store.url), "t1"))


def same_session(one: Session, other: Session) -> None:
    assert other.actions == one.actions and other.inputs == one.inputs
    assert other.game.scores(other.state) == one.game.scores(one.state)
    assert other.game.prompt(other.state) == one.game.prompt(one.state)


@pytest.fixture
def taj(memory_url):
    """Taj Mahal for five through the chooser, the demo's tags enrolled."""
    rig = Rig(memory_url)
    rig.table.tags.set_many(TAJ)
    for label in ("Taj Mahal", "5 players", "Hints on"):
        rig.choose(label)
    rig.tap(UID["province-1"], None)
    yield rig
    rig.close()


def test_undo_takes_back_the_palace_and_the_chain_the_table_counted_then_the_withdrawal_then_the_play(taj):
    """The newcomer's walkthrough (issue 28): the palace chain's question has one answer, so the table
    answers it; undo takes the palace and the chain back together, and never applies the chain again."""
    for seat, card in ((0, "red-eg-1"), (1, "red-ev-1"), (2, "red-ee-1")):
        taj.tap(UID[card], seat)
    taj.press("withdraw")  # Dee, with no card played
    before_eve = taj.table.session.actions
    taj.tap(UID["red-ep-1"], 4)
    taj.press("withdraw")  # Ana wins the general: where does her palace go?
    assert isinstance(taj.table.view(), ChooserView) and "palace" in taj.table.view().question
    taj.press("ok")
    taj.press("ok")  # no bonus tile there; the chain (0 other provinces) follows by itself
    session = taj.table.session
    assert [a["type"] for a in session.actions[-2:]] == ["palace", "chain"]
    entries = session.entries

    taj.press("undo")
    assert not any(session.state.palaces.values()) and session.actions[-1]["type"] == "withdraw"
    assert session.entries == entries + 2  # a marker for the palace, one for the chain; nothing applied again
    view = taj.table.view()
    assert isinstance(view, ChooserView) and view.over.events[0].startswith("Undone: Ana: palace in ")
    same_session(session, recovered(taj))

    taj.press("undo")  # the palace question goes with the withdrawal it followed
    assert isinstance(taj.table.view(), ScoreView) and taj.table.view().events[0] == "Undone: Ana withdraws"
    taj.press("undo")
    assert session.actions == before_eve and taj.table.view().events[0].startswith("Undone: Eve plays red")
    same_session(session, recovered(taj))
    assert taj.table.refusals == 0


def test_a_card_added_to_a_play_is_undone_alone(taj):
    """The white card tapped after Ana's red one replaces her play by a two-card play; undo takes the
    white card back and leaves the red one played, here and after a restart."""
    taj.tap(UID["red-eg-1"], 0)
    one_card = taj.table.session.actions
    taj.tap(UID["white-vizier"], 0)
    assert taj.table.session.actions[-1]["cards"][1]["id"] == "white-vizier"
    taj.press("undo")
    assert taj.table.session.actions == one_card
    assert taj.table.view().events[0].startswith("Undone: Ana plays white")  # the card, not the play
    taj.tap(UID["white-vizier"], 0)  # entered again: the same two-card play
    assert taj.table.session.actions[-1]["cards"][1]["id"] == "white-vizier"
    same_session(taj.table.session, recovered(taj))
    restarted = recovered(taj)  # a table started now: the same undo, a card at a time
    assert restarted.undo().replaced == one_card[-1] and restarted.actions == one_card
    assert restarted.undo().action == one_card[-1] and restarted.actions == one_card[:-1]


def scoreboard(view) -> ScoreView | None:
    """The scoreboard on screen: the view itself, or the one a question or a refusal is shown over."""
    return view if isinstance(view, ScoreView) else getattr(view, "over", None)


def totals(view) -> tuple[tuple[str, int], ...]:
    board = scoreboard(view)
    return tuple((row.name, row.total) for row in board.rows) if board else ()


def totals_of(session: Session) -> tuple[tuple[str, int], ...]:
    return tuple((score.player, score.total) for score in session.game.scores(session.state))


@pytest.mark.parametrize("game", sorted(p.name.removesuffix(".script") for p in DEMOS.glob("*.script")))
def test_every_input_of_a_recorded_demo_undone_and_entered_again_gives_the_same_game(memory_url, game):
    """After every input that completed an action in the recorded demo: undo shows the scores from
    before that input and says what it took back; the inputs since the previous such input entered
    again give the same actions and the same screen as the first time, so the demo plays on as
    recorded, to its end."""
    rig = Rig(memory_url)
    rig.table.tags.set_many(tagfile.load(DEMOS / f"{game}.tags.toml"))
    batch, points = [], 0
    try:
        for step in script.load(DEMOS / f"{game}.script"):
            session = rig.table.session
            actions = session.actions if session else None
            scores = totals_of(session) if session else ()
            rig.hands.do(step)
            batch.append(step)
            session = rig.table.session
            if actions is None and session is not None:
                batch = []  # the set-up's inputs started the game: no action to take back
            if actions is None or session.actions == actions:
                continue
            where = f"{game}, line {step.line}"
            after, view = session.actions, rig.table.view()
            rig.press("undo")
            undone = rig.table.view()
            assert session.actions == actions and totals(undone) == scores, f"{where}: undo did not go back before the input"
            assert scoreboard(undone).events[0].startswith("Undone: "), f"{where}: {undone}"
            for again in batch:
                rig.hands.do(again)
            assert session.actions == after and rig.table.view() == view, f"{where}: entered again, the game differs"
            batch, points = [], points + 1
        session = rig.table.session
        assert session.game.is_over(session.state) and rig.table.refusals == 0 and points == len(session.inputs)
    finally:
        rig.close()
