"""Every screen against its golden image (bundled bitmap fonts: identical on every machine).

Run with UPDATE_GOLDEN=1 to write the images again after an intended change, then look at them.
"""

import os
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from firmware.screens import Screen
from firmware.views import ChooserView, FlashView, MessageView, OverView, Row, ScoreView, TapView

GOLDEN = Path(__file__).parent / "golden"
FIVE = (Row("Ana", 23), Row("Ben", 17, True), Row("Cy", 9), Row("Dee", 31), Row("Eve", 4))
GRID = tuple((r, c, (r, c) in {(1, 1), (1, 2), (4, 3)}) for r in range(8) for c in range(8) if (r, c) not in {(0, 0), (0, 7), (7, 0), (7, 7), (3, 3), (3, 4), (4, 3), (4, 4)})

TAJ = ScoreView("Taj Mahal", "Round 3/12", FIVE, "Ben: tap or withdraw", ("Ana: vizier", "Ana: crown"))
MAHARANI = ScoreView("Maharani", "Round 5, 2/4 done", FIVE[:3], "Ben: tap tile or withdraw", ("Ana: +3 gold",))

VIEWS = {
    # rare screens, each a whole screen
    "game_select": ChooserView("Which game?", ("Taj Mahal", "Maharani", "Mongols", "Thurn und Taxis"), 0),
    "setup_players": ChooserView("Taj Mahal: players?", ("3 players", "4 players", "5 players"), 2),
    "enrolment": TapView("Tap: Nürnberg 2/3", done="skip", title="Thurn und Taxis", note="15 of 66"),
    "event_flash": FlashView(("Taj Mahal", "Ana, Ben, Cy, Dee, Eve")),
    "error_flash": FlashView(("Hold undo: menu",), error=True),
    "game_over": OverView("Taj Mahal", ((1, "Dee", 61), (2, "Ana", 55), (2, "Ben", 55), (4, "Cy", 40), (5, "Eve", 12)), ("Dee",)),
    "game_over_short_title": OverView("Thurn und Taxis", ((1, "Ana", 21), (2, "Ben", 17)), ("Ana",), short="T. und Taxis"),
    "reader_trouble_chooser": ChooserView("Which game?", ("Taj Mahal", "Maharani", "Mongols", "Thurn und Taxis"), 0,
                                          notice="Reader 4: SPI1 is off"),
    "reader_trouble_tap": TapView("Tap: Nürnberg 2/3", done="skip", title="Thurn und Taxis", note="15 of 66",
                                  notice="Reader 1: no permission"),
    "reader_trouble_message": MessageView("tablemate", ("Hold undo: menu",), notice="Reader 2: not answering"),
    "journal_problem": MessageView("Journal problem", ("game 20261121-1201-ab12: entry 12-0 holds no readable action", "Hold undo: menu")),
    # a game in play: the scoreboard on top, the band below
    "scoreboard_5": TAJ,
    "scoreboard_3": ScoreView("Thurn und Taxis", "Round 4", FIVE[:3], "Ben: ok: close, pass: end", ("Ben: Ulm",)),
    "last_round_short_title": ScoreView("Thurn und Taxis", "Last round (12)", FIVE[:4], "Ben: pass: end turn", ("Last round!",),
                                        short="T. und Taxis"),
    "events_grouped": ScoreView("Taj Mahal", "Round 9/12", FIVE, "Ana: tap or withdraw",
                                ("Eve: province +6", "Eve: palaces +1", "Eve: crown", "Ben: colour change card")),
    "hint_taj_mahal": replace(TAJ, hint="Out now: monk +2"),
    "hint_thurn_und_taxis": ScoreView("Thurn und Taxis", "Round 4", FIVE[:3], "Ben: tap a card", ("Ana: Lodz",), "Fit Augsb Kempt|Innsb"),
    "hint_mongols": ScoreView("Mongols", "Round 2", FIVE[:4], "Ben: ok: roll or withdraw", ("Ben rolls 3+4",), "Bust 2d 17%"),
    "hint_maharani_space": ChooserView("Which space?", ("Q1 b1 +1", "Q1 c1 +2", "Q1 d1", "Q1 a2 +1", "Q1 b2"), 1, "Maharani",
                                       cells=GRID, marks=((0, 2),), over=MAHARANI),
    "maharani_quarter": ChooserView("Which quarter?", ("Q1 11 free +2", "Q2 14 free +1", "Q3 13 free", "Q4 14 free"), 1,
                                    "Maharani", cells=GRID, over=MAHARANI,
                                    marks=tuple((r, c) for r, c, taken in GRID if r < 4 and c >= 4 and not taken)),
    "chooser": ChooserView("Ben: palace where?", tuple(f"City {i}" for i in range(1, 6)), 3, "Taj Mahal", over=TAJ),
    "chooser_dice": ChooserView("Die 1?", ("1", "2", "3", "4", "5", "6"), 3, "Mongols",
                                over=ScoreView("Mongols", "Round 2", FIVE[:4], "Ben: ok: roll", ("Ana stops: +4",))),
    "prompt_tap": TapView("Round 3: tap province tile 3", "none", "Taj Mahal", note="Out now: 2", over=TAJ),
    "refused": FlashView(("Play red: you began in red",), error=True, over=TAJ),
    "store_warning": replace(MAHARANI, offline=True),
    "reader_trouble": replace(TAJ, notice="Reader 3: not answering"),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_screen_matches_its_golden_image(name):
    image = Screen().render(VIEWS[name])
    assert image.size == (128, 64) and image.mode == "1"
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN"):
        image.save(path)
    golden = Image.open(path)
    assert ImageChops.difference(image, golden).getbbox() is None, f"{name} differs from {path}"


def test_long_names_and_letters_outside_the_font_are_drawn_not_raised():
    """The bundled fonts are Latin-1: a Polish name or a long one must still draw (cut, with '?')."""
    for view in (
        ScoreView("Thurn und Taxis", "Round 12", (Row("Maximilian-Alexander", 123, True), Row("Łukasz", -20)), "Łukasz: lay a card", ("Łódź → Pilsen",)),
        ChooserView("Whose hand? ☺", ("Łukasz", "Zoë" * 20), 1, over=TAJ),
        FlashView(("x" * 200,)),
        ChooserView("Whose hand? ☺", ("Łukasz", "Zoë"), 0),
        TapView("Tap: Łódź", title="✓"),
    ):
        assert Screen().render(view).getbbox() is not None


def changed(before: ScoreView | ChooserView, after: ScoreView | ChooserView) -> set[tuple[int, int]]:
    """The (page, column) bytes of the panel's RAM that differ between the two screens."""
    a, b = Screen().render(before), Screen().render(after)
    diff = ImageChops.difference(a, b)
    return {(y // 8, x) for x in range(128) for y in range(64) if diff.getpixel((x, y))}


def test_the_turn_passing_moves_the_triangle_and_the_prompts_name_only():
    """The seats' names and totals and the rest of the band stay put: the bytes a turn costs on the wire."""
    ben = replace(TAJ, hint="Out now: monk +2")
    cy = replace(ben, rows=tuple(replace(row, current=row.name == "Cy") for row in FIVE), prompt="Cy: tap or withdraw")
    triangle = range(1, 1 + Screen().char)  # the margin of a seat's cell
    assert {page for page, column in changed(ben, cy) if column not in triangle} == {6}  # the prompt's line...
    assert max(column for page, column in changed(ben, cy) if page == 6) < 4 * Screen().char  # ...its name field


def test_a_question_leaves_the_scores_and_the_last_event_and_a_step_moves_only_the_triangle_and_counter():
    asked = VIEWS["chooser_dice"]
    assert {page for page, _ in changed(asked.over, asked)} == {6, 7}  # the prompt's and the hint's lines
    stepped = replace(asked, index=asked.index + 1)
    assert {page for page, _ in changed(asked, stepped)} == {7} and len(changed(asked, stepped)) <= 2 * Screen().char
    long = VIEWS["chooser"]
    moved = changed(long, replace(long, index=4))  # a page of options further back: the line turns
    assert {page for page, _ in moved} == {6, 7}
    counter = [column for page, column in moved if page == 6]  # only the counter after the question: 6/7 -> 5/7
    assert min(counter) >= len(long.question + " ") * Screen().char and max(counter) < len(long.question + " 6/7") * Screen().char + 2


def test_a_mini_map_coming_leaves_the_last_event_as_it_was_left_of_the_map():
    """The event is wrapped as on the scoreboard and cut at the map, never wrapped again narrower: the
    map's arrival rewrites the columns it covers, the question's and the options' lines only."""
    over = replace(MAHARANI, events=("Ana: +1 gold, artisan +1",))
    slot = ChooserView("From which slot?", ("Slot 1", "Slot 3", "Slot 4"), 2, "Maharani", over=over)
    quarter = replace(VIEWS["maharani_quarter"], over=over)
    edge = min(column for page, column in changed(slot, quarter) if page in (4, 5))
    assert edge > 80  # the map's left edge: the event's first 13 characters stay put
    image = Screen().render(quarter)
    assert image.crop((0, 32, edge, 40)) == Screen().render(slot).crop((0, 32, edge, 40))
