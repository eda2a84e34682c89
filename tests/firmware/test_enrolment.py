"""Guided enrolment from the manifests, and tag files: export, import, refusals."""

import pytest

import engines
from firmware import tagfile
from firmware.enrolment import slots
from firmware.journal import Journal
from firmware.store import connect
from firmware.table import Table, TableSettings
from firmware.tagmap import TagEntry, TagMap
from firmware.views import ChooserView, FlashView, ScoreView, TapView


@pytest.fixture
def client(memory_url):
    return connect(memory_url)


def make_table(client):
    table = Table(Journal(client, "t1"), TagMap(client, "t1"), TableSettings())
    table.boot()
    return table


def choose(table, label):
    view = table.view()
    assert isinstance(view, ChooserView), view
    while table.view().options[table.view().index] != label:
        table.press("next")
    table.press("ok")


def open_enrolment(table, title):
    table.hold("undo")
    choose(table, "Enrol a game")
    choose(table, title)


def uid(n: int) -> str:
    return f"e0{n:06x}"


def tap_through(table, first: int, count: int) -> None:
    """Tap `count` new tags, answering "it shows?" questions with their first option."""
    for n in range(first, first + count):
        assert isinstance(table.view(), TapView), table.view()
        table.tag(uid(n))
        while isinstance(table.view(), ChooserView):
            table.press("ok")


@pytest.mark.parametrize("name", engines.names())
def test_complete_guided_enrolment_of_each_game(client, name):
    table = make_table(client)
    open_enrolment(table, engines.get(name).title)
    todo = slots(name)
    first = table.view()
    assert first.question == f"Tap: {todo[0].label}" and first.note == f"1 of {len(todo)}" and first.done == "skip"
    tap_through(table, 0, len(todo))
    assert table.view() == FlashView((f"{engines.get(name).title}: all {len(todo)} enrolled",))
    entries = table.tags.items()
    assert len(entries) == len(todo)
    assert {e.descriptor["id"] for _, e in entries} == {s.id for s in todo}
    package = __import__(f"engines.{name}", fromlist=["COMPONENTS"])
    for _, entry in entries:
        assert entry.game == name and package.COMPONENTS.descriptor_problem(entry.kind, entry.descriptor) is None


def test_asked_fields_are_picked_with_the_chooser(client):
    table = make_table(client)
    open_enrolment(table, "Taj Mahal")
    position = next(i for i, s in enumerate(slots("taj_mahal")) if s.group.ask)
    for _ in range(position):
        table.press("ok")  # skip to the first component whose content is asked
    table.tag(uid(1))
    view = table.view()
    assert isinstance(view, ChooserView) and view.question.endswith("it shows?") and len(view.options) == 16
    choose(table, "vizier+monk")
    assert table.tags.get(uid(1)).descriptor["symbols"] == ["vizier", "monk"]


def test_duplicate_tap_keep_replace_skip_back_and_resume_after_restart(client):
    table = make_table(client)
    open_enrolment(table, "Thurn und Taxis")
    todo = slots("thurn_und_taxis")
    tap_through(table, 0, 3)
    table.tag(uid(1))  # the second card tapped again for the fourth
    assert table.view().question == f"Already: {todo[1].label}"
    choose(table, "Keep it")
    assert table.view().note == "4 of 66" and table.tags.get(uid(1)).descriptor["id"] == todo[1].id
    table.tag(uid(1))
    choose(table, f"Make it {todo[3].label}")
    assert table.tags.get(uid(1)).descriptor["id"] == todo[3].id
    assert table.view().note == "5 of 66"
    table.press("ok")  # skip the fifth
    assert table.view().note == "6 of 66" and table.tags.find("thurn_und_taxis", todo[4].id) is None
    table.press("undo")  # back to the fifth
    assert table.view().note == "5 of 66"
    tap_through(table, 10, 3)
    table.hold("undo")  # leave; the position is kept
    choose(table, "Back")

    again = make_table(client)  # a restart
    open_enrolment(again, "Thurn und Taxis")
    assert again.view().question == "Resume at 8?"
    choose(again, "Resume")
    assert again.view().question == f"Tap: {todo[7].label}"
    tap_through(again, 20, len(todo) - 7)
    assert again.view().lines == ("Thurn und Taxis: all 66 enrolled",)


def test_enrolled_tags_then_play(client):
    table = make_table(client)
    open_enrolment(table, "Thurn und Taxis")
    tap_through(table, 0, 66)
    table.flash = None
    table.hold("undo")
    choose(table, "New game")
    choose(table, "Thurn und Taxis")
    choose(table, "2 players")
    choose(table, "Hints on")
    ulm = next(u for u, e in table.tags.items() if e.descriptor["city"] == "ulm")
    table.tag(ulm)
    assert table.view().events == ("Ana: Ulm",)
    assert table.session.state.routes[0][0] == (table.tags.get(ulm).descriptor["id"], "ulm")


# -- tag files -------------------------------------------------------------------------------------


def enrolled(client, name="maharani"):
    table = make_table(client)
    open_enrolment(table, engines.get(name).title)
    tap_through(table, 0, len(slots(name)))
    return table.tags


def test_export_then_import_gives_the_same_map(client, memory_url):
    tags = enrolled(client)
    text = tagfile.export_text(tags.items(), "t1")
    other = TagMap(connect(memory_url + "-other"), "t1")
    other.set_many(tagfile.parse(text))
    assert other.items() == tags.items()
    assert TagMap(other.client, "t1").load() == [] and other.items() == tags.items()


BAD_FILES = [
    ("[tags.e0000001]\ngame = 'chess'\nkind = 'card'\ndescriptor = { id = 'x' }\n", "line 1 ([tags.e0000001]): unknown game 'chess'"),
    (
        "[tags.e0000001]\ngame = 'taj_mahal'\nkind = 'card'\ndescriptor = { id = 'r', color = 'crimson', symbols = ['monk', 'vizier'] }\n",
        "colour 'crimson' is not one of",
    ),
    (
        "[tags.e0000001]\ngame = 'taj_mahal'\nkind = 'card'\ndescriptor = { id = 'r', color = 'red', symbols = ['monk'] }\n",
        "a coloured card shows exactly two symbols",
    ),
    (
        "[tags.e0000001]\ngame = 'maharani'\nkind = 'tile'\ndescriptor = { id = 'a', color = 'blue' }\n"
        "[tags.E0:00:00:01]\n",
        "not valid TOML",
    ),
    (
        "[tags.e0000001]\ngame = 'maharani'\nkind = 'tile'\ndescriptor = { id = 'a', color = 'blue' }\n"
        "[tags.E0000001]\ngame = 'maharani'\nkind = 'tile'\ndescriptor = { id = 'b', color = 'blue' }\n",
        "line 5 ([tags.E0000001]): UID e0000001 appears twice",
    ),
    (
        "[tags.e0000001]\ngame = 'maharani'\nkind = 'tile'\ndescriptor = { id = 'a', color = 'blue' }\n"
        "[tags.e0000002]\ngame = 'maharani'\nkind = 'tile'\ndescriptor = { id = 'a', color = 'blue' }\n",
        "component 'a' of maharani is already on tag e0000001",
    ),
    ("[tags.zz]\ngame = 'maharani'\nkind = 'tile'\ndescriptor = { id = 'a', color = 'blue' }\n", "not a tag UID"),
    ("[other]\nx = 1\n", "holds one table, [tags]"),
]


@pytest.mark.parametrize("text, message", BAD_FILES)
def test_a_bad_tag_file_is_refused_whole_naming_the_line(client, text, message):
    tags = enrolled(client, "mongols")
    before = tags.items()
    with pytest.raises(tagfile.BadTagFile, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        tags.set_many(tagfile.parse(text, "mine.toml"))
    assert tags.items() == before


def test_a_tag_of_another_game_is_refused_at_play(client):
    tags = TagMap(client, "t1")
    tags.set("e0000001", TagEntry("mongols", "plan", {"id": "plan1-1", "color": "colour-1"}, "Plans, colour 1 1/11"))
    table = make_table(client)
    choose(table, "Thurn und Taxis")
    choose(table, "2 players")
    choose(table, "Hints on")
    table.flash = None
    scores = table.view()
    table.tag("e0000001")
    assert table.view() == FlashView(("Tag of Mongols",), error=True, over=scores) and isinstance(scores, ScoreView)
