"""The table's state machine with Thurn und Taxis: taps, presses, choosers, flashes, undo, menu, recovery."""

import pytest

from engines.thurn_und_taxis.board import board
from firmware.journal import Journal
from firmware.store import connect
from firmware.table import Table, TableSettings
from firmware.tagmap import TagEntry, TagMap
from firmware.views import ChooserView, FlashView, MessageView, ScoreView, TapView


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def uid(city: str, copy: int = 0) -> str:
    return f"{board().cities.index(city) * 3 + copy:08x}"


@pytest.fixture
def store(memory_url):
    client = connect(memory_url)
    tags = TagMap(client, "t1")
    for city in board().cities:
        for copy in range(3):
            tags.set(uid(city, copy), TagEntry("thurn_und_taxis", "card", {"id": f"{city}-{copy + 1}", "city": city}, board().city_name[city]))
    tags.set("deadbeef", TagEntry("mongols", "plan", {"id": "red-1", "color": "red"}, "Red plan"))
    return client, tags


def make_table(store, clock=None):
    client, tags = store
    table = Table(Journal(client, "t1"), tags, TableSettings(players=["Ana", "Ben", "Cy"], game="thurn_und_taxis"), clock or Clock())
    table.boot()
    return table


def choose(table, label):
    """Move the chooser to `label` with next, then ok."""
    view = table.view()
    assert isinstance(view, ChooserView), view
    for _ in range(view.index, view.options.index(label) + (len(view.options) if view.options.index(label) < view.index else 0)):
        table.press("next")
    assert table.view().options[table.view().index] == label
    table.press("ok")


def new_game(store, players="2 players", clock=None):
    table = make_table(store, clock)
    choose(table, "Thurn und Taxis")
    choose(table, players)
    choose(table, "Hints on")
    table.flash = None
    return table


def test_first_boot_asks_for_the_game_and_players(store):
    table = make_table(store)
    view = table.view()
    assert isinstance(view, ChooserView) and view.question == "Which game?" and view.options[0] == "Thurn und Taxis"
    choose(table, "Thurn und Taxis")
    assert table.view().options[table.view().index] == "3 players"  # three names in the profile
    choose(table, "2 players")
    assert table.view().question == "Hints?" and table.view().index == 0
    choose(table, "Hints on")
    assert isinstance(table.view(), FlashView)
    table.flash = None
    view = table.view()
    assert isinstance(view, ScoreView) and [r.name for r in view.rows] == ["Ana", "Ben"] and view.rows[0].current


def test_a_tap_lays_the_card_and_shows_it_as_the_last_event_on_the_scoreboard(store):
    table = new_game(store)
    table.tag(uid("ulm"))
    view = table.view()
    assert isinstance(view, ScoreView) and view.events == ("Ana: Ulm",) and view.prompt == "Ana: pass: end turn"
    assert table.session.state.routes[0][0][1] == "ulm"


def test_unknown_tag_and_other_games_tag_change_nothing(store):
    table = new_game(store)
    before = table.session.state
    table.tag("0badc0de")
    assert table.view().error and "Unknown tag" in table.view().lines[0]
    table.tag("deadbeef")
    assert table.view().lines == ("Tag of Mongols",)
    assert table.session.state is before and table.session.entries == 0


def test_a_card_on_the_wrong_players_reader_is_refused(store):
    table = new_game(store)
    table.tag(uid("ulm"), seat=1)
    assert table.view().error and table.view().lines == ("Ana's turn",)
    assert table.session.entries == 0


def test_the_same_card_twice_is_refused(store):
    table = new_game(store)
    table.tag(uid("ulm"))
    table.press("pass")
    table.tag(uid("ulm"))
    assert table.view().error and "route" in table.view().lines[0]


def test_side_is_asked_only_when_both_ends_fit_and_undo_backs_out(store):
    table = new_game(store)
    for city in ("ulm", "lodz", "augsburg", "pilsen"):
        table.tag(uid(city))
        table.press("pass")
    table.tag(uid("kempten"))
    view = table.view()
    assert isinstance(view, ChooserView) and view.options == ("before Ulm", "after Augsburg")
    table.press("undo")  # closes the question, undoes nothing
    assert isinstance(table.view(), ScoreView) and len(table.session.state.routes[0]) == 2
    table.tag(uid("kempten"))
    choose(table, "after Augsburg")
    assert [c for _, c in table.session.state.routes[0]] == ["ulm", "augsburg", "kempten"]


def closing(store):
    """A table where Ana closes (ok) her route Sigmaringen, Ulm, Stuttgart on her third turn."""
    table = new_game(store)
    for city, other in (("ulm", "lodz"), ("stuttgart", "pilsen")):
        table.tag(uid(city))
        table.press("pass")
        table.tag(uid(other))
        table.press("pass")
    table.tag(uid("sigmaringen"))  # fits after Stuttgart and before Ulm
    choose(table, "before Ulm")
    table.press("ok")
    return table


def test_closing_asks_houses_then_coachman(store):
    table = closing(store)
    view = table.view()
    # every largest choice (two houses: +2, and carriage 3: +2), none, and house by house for the others
    assert view.question == "Houses where?"
    assert view.options == ("Sigma Stutt +4", "Sigma Ulm +4", "Ulm Stutt +4", "No houses +2", "House by house")
    choose(table, "Sigma Stutt +4")
    assert table.view().question == "Coachman's help?"
    choose(table, "No")
    assert table.session.state.houses[0] == {"sigmaringen", "stuttgart"}
    assert "carriage 3" in table.view().events[-1]


def test_houses_one_by_one_taps_checked_by_the_engine_ok_when_done(store):
    table = closing(store)
    choose(table, "House by house")
    view = table.view()
    assert view.question == "Houses? Tap or pick" and view.options == ("No houses +2", "Sigma +3", "Ulm +3", "Stutt +3")
    table.tag(uid("ulm", 1))  # a route card's city, tapped: another copy of the card says the same
    table.flash = None
    view = table.view()
    assert view.question == "Houses: Ulm" and view.options == ("Done +3", "Sigma +4", "Stutt +4") and view.index == 0
    for refused, why in (("lodz", "Lodz not on route"), ("ulm", "A city named twice")):
        table.tag(uid(refused))
        refused = table.view()  # shown in the band, over the scoreboard the question is asked over
        assert refused == FlashView((why,), error=True, over=view.over) and view.over is not None
        table.flash = None
    choose(table, "Sigma +4")
    assert table.view().options == ("Done +4",)  # Stuttgart now would be a second house in Württemberg
    table.tag(uid("stuttgart"))
    assert table.view().lines == ("One per region or 1 region",) and table.session.entries == 9
    table.flash = None
    table.press("ok")  # done
    choose(table, "No")  # no coachman
    assert table.session.state.houses[0] == {"ulm", "sigmaringen"}
    assert table.session.state.actions[-1]["houses"] == ["ulm", "sigmaringen"]


def test_a_press_that_means_nothing_now_is_explained(store):
    table = new_game(store)
    table.press("ok")
    assert table.view().error and table.view().lines == ("Nothing to close now",)
    table.flash = None
    table.press("pass")  # no card laid yet
    assert table.view().error and table.session.entries == 0


def test_undo_is_repeatable_and_says_so(store):
    table = new_game(store)
    table.tag(uid("ulm"))
    table.press("pass")
    table.press("undo")
    assert table.view().events == ("Undone: Ana ends the turn",)  # what was undone, in the timeline's words
    table.press("undo")
    assert table.view().events[0].startswith("Undone: ") and "ulm" in table.view().events[0].lower()
    assert table.session.state.routes[0] == []
    table.press("undo")
    assert table.view().lines == ("Nothing to undo",) and table.view().error


def test_flashes_expire_with_time(store):
    clock = Clock()
    table = new_game(store, clock=clock)
    table.tag("0badc0de")
    scores = table.view().over
    assert table.view() == FlashView(("Unknown tag 0badc0de",), error=True, over=scores) and scores is not None
    clock.now += 1.0
    assert not table.tick()
    clock.now += 5.0
    assert table.tick() and table.view() == scores


def test_menu_identifies_a_tag_and_starts_a_new_game(store):
    table = new_game(store)
    table.hold("undo")
    choose(table, "Identify a tag")
    assert isinstance(table.view(), TapView)
    table.tag(uid("ulm"))
    assert table.view().lines[1:] == ("Ulm", "Thurn und Taxis")
    table.flash = None
    table.hold("undo")
    choose(table, "New game")
    old = table.session.gid
    choose(table, "Thurn und Taxis")
    choose(table, "3 players")
    choose(table, "Hints on")
    assert table.session.gid != old and table.session.players == ["Ana", "Ben", "Cy"]


def test_a_restart_shows_the_same_game_and_turn(store):
    table = new_game(store)
    table.tag(uid("ulm"))
    table.press("pass")
    table.tag(uid("lodz"))
    again = make_table(store)
    assert again.session.state == table.session.state
    view = again.view()
    assert isinstance(view, ScoreView) and view.phase == "Round 1" and view.prompt == "Ben: pass: end turn"
    assert [row.current for row in view.rows] == [False, True]


def test_a_corrupt_journal_halts_with_its_reason(store):
    table = new_game(store)
    table.tag(uid("ulm"))
    client, _ = store
    client.xadd(f"tablemate:{{t1}}:game:{table.session.gid}:log", {"kind": "action", "action": "{oops"}, id="2-0")
    halted = make_table(store)
    view = halted.view()
    assert isinstance(view, MessageView) and "entry 2-0" in view.lines[0]
    halted.tag(uid("lodz"))
    assert halted.view().error


def test_a_reader_of_a_seat_not_in_the_game_is_refused(store):
    table = new_game(store)  # two players
    table.tag(uid("ulm"), seat=3)
    assert table.view() == FlashView(("Seat 4 is not playing",), error=True, over=table.view().over)
    assert isinstance(table.view().over, ScoreView)
    assert table.session.entries == 0


def test_the_hints_question_starts_on_the_profiles_choice_for_the_game(store):
    from firmware.config import HintsConfig

    client, tags = store
    table = Table(Journal(client, "t1"), tags, TableSettings(players=["Ana", "Ben"], hints=HintsConfig(True, {"thurn_und_taxis": False})))
    table.boot()
    choose(table, "Thurn und Taxis")
    choose(table, "2 players")
    assert table.view().question == "Hints?" and table.view().options[table.view().index] == "Hints off"
    choose(table, "Hints off")
    table.flash = None
    assert table.session.hints is False and table.view().hint == ""


def test_a_tap_while_a_question_is_on_screen_says_answer_first(store):
    table = make_table(store)  # the game chooser is on screen
    table.tag(uid("ulm"))
    assert table.view().lines == ("Answer first (undo=back)",) and table.view().error


def test_the_enrolment_screen_names_the_game(store):
    table = make_table(store)
    table.hold("undo")
    choose(table, "Enrol a game")
    choose(table, "Mongols")
    view = table.view()
    assert view.title == "Enrol Mongols" and view.question.startswith("Tap: ")
