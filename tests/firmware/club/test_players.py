"""Player cards: enrolled like components, managed by name, and claiming seats at set-up."""

import pytest

from firmware import tagfile
from firmware.club.players import TICKET, BadPlayer, Players, player_id
from firmware.journal import Journal
from firmware.tagmap import TagEntry
from firmware.views import FlashView, ScoreView, TapView
from tests.firmware.test_table import Clock, choose, make_table, store, uid  # noqa: F401 (fixture)


def test_add_then_tap_at_the_table_enrols_the_card(store):
    client, tags = store
    players = Players(tags, "t1")
    players.add("Zoé")
    with pytest.raises(BadPlayer, match="already waits"):
        players.add("zoé")
    clock = Clock()
    table = make_table(store, clock)
    clock.now = 5.0
    assert table.tick()
    assert isinstance(table.view(), TapView) and table.view().question == "Card of Zoé?"
    table.tag("04A1B2C3D4")
    assert table.view() == FlashView(("Zoé: card enrolled",))
    assert players.pending() == [] and players.find("zoé") == "04a1b2c3d4"
    descriptor = tags.get("04a1b2c3d4").descriptor
    assert descriptor == {"id": player_id("04a1b2c3d4"), "name": "Zoé", "ticket": descriptor["ticket"]} and TICKET.fullmatch(descriptor["ticket"])
    table.flash = None
    assert table.view().question == "Which game?"  # the set-up it interrupted starts again


def test_undo_at_the_card_question_drops_the_name(store):
    client, tags = store
    Players(tags, "t1").add("Max")
    clock = Clock()
    table = make_table(store, clock)
    clock.now = 5.0
    table.tick()
    table.press("undo")
    assert table.view() == FlashView(("Max: no card",)) and Players(tags, "t1").pending() == []


def test_rename_keeps_the_id_forget_removes_the_card_and_bad_names_are_refused(store):
    _, tags = store
    players = Players(tags, "t1")
    players.enrol("0a0b0c0d", "Ana")
    ticket = tags.get("0a0b0c0d").descriptor["ticket"]
    players.rename("ana", "Anna")
    assert tags.get("0a0b0c0d").descriptor == {"id": player_id("0a0b0c0d"), "name": "Anna", "ticket": ticket}
    players.enrol("0a0b0c0d", "Anna")  # the same card tapped again: the same ticket
    assert tags.get("0a0b0c0d").descriptor["ticket"] == ticket
    for bad in ("", " Ana", "x" * 21, "A\tB"):
        with pytest.raises(BadPlayer):
            players.add(bad)
    with pytest.raises(BadPlayer, match="no player card for 'Bob'; the players are: Anna"):
        players.forget("Bob")
    assert players.forget("Anna") == "0a0b0c0d" and players.cards() == []


def test_cards_go_through_a_tag_file_and_a_forged_id_is_refused(store):
    _, tags = store
    Players(tags, "t1").enrol("0a0b0c0d", "Ana")
    text = tagfile.export_text([(u, e) for u, e in tags.items() if e.kind == "player"], "t1")
    assert tagfile.parse(text) == {"0a0b0c0d": tags.get("0a0b0c0d")}  # the ticket travels with the card
    with pytest.raises(tagfile.BadTagFile, match=r"line \d+.*made from the UID"):
        tagfile.parse(text.replace(player_id("0a0b0c0d"), "p-000000000000"))
    with pytest.raises(tagfile.BadTagFile, match="ticket is 32 hex digits"):
        tagfile.parse(text.replace(tags.get("0a0b0c0d").descriptor["ticket"], "guess"))


def test_cards_enrolled_before_tickets_get_one_when_the_table_starts(store):
    client, tags = store
    tags.set("0a0b0c0d", TagEntry("", "player", {"id": player_id("0a0b0c0d"), "name": "Ana"}, "Ana"))
    table = make_table(store)
    assert TICKET.fullmatch(table.tags.get("0a0b0c0d").descriptor["ticket"])
    assert Players(table.tags, "t1").ticket_all() == 0


def test_cards_tapped_on_seat_readers_at_set_up_name_those_seats_in_the_stored_game(store):
    client, tags = store
    players = Players(tags, "t1")
    players.enrol("0a0b0c0d", "Zoé")
    players.enrol("0a0b0c0e", "Ana")
    table = make_table(store)
    choose(table, "Thurn und Taxis")
    table.tag("0a0b0c0d", 0)
    assert table.view() == FlashView(("Zoé", "takes seat 1"))
    table.tag("0a0b0c0d", None)
    assert table.view() == FlashView(("Tap on your seat",), error=True)
    table.flash = None
    table.tag("0a0b0c0e", 2)
    table.flash = None
    choose(table, "3 players")
    choose(table, "Hints on")
    table.flash = None
    view = table.view()
    assert isinstance(view, ScoreView) and [r.name for r in view.rows] == ["Zoé", "Ben", "Ana"]
    record = Journal(client, "t1").load(table.session.gid)
    assert record.players == ["Zoé", "Ben", "Ana"] and record.cards == [player_id("0a0b0c0d"), None, player_id("0a0b0c0e")]
    table.tag("0a0b0c0d", 0)
    assert table.view() == FlashView(("Zoé: tap at set-up",), error=True, over=view)  # over the scoreboard


def test_a_default_name_a_card_took_elsewhere_is_not_repeated(store):
    _, tags = store
    Players(tags, "t1").enrol("0a0b0c0d", "Ben")
    table = make_table(store)
    choose(table, "Thurn und Taxis")
    table.tag("0a0b0c0d", 0)
    table.flash = None
    choose(table, "2 players")
    choose(table, "Hints on")
    assert table.session.players == ["Ben", "Player 2"]


def test_a_backup_carries_the_cards_and_the_seats_they_claimed(store):
    from firmware.backup.fileformat import Contents, dump, parse
    from firmware.journal import GameRecord

    _, tags = store
    Players(tags, "t1").enrol("0a0b0c0d", "Zoé")
    game = GameRecord("g1", "mongols", ["Zoé", "Ben"], {}, 1795000000.0, "playing", [], None, True, [player_id("0a0b0c0d"), None])
    plain = GameRecord("g2", "mongols", ["Ana", "Ben"], {}, 1795000001.0, "playing")
    contents = Contents("t1", "2026-11-23T20:00:00+00:00", "tablemate", tags={"0a0b0c0d": tags.get("0a0b0c0d")}, games=[game, plain])
    back = parse(dump(contents), "backup")
    assert back.tags == {"0a0b0c0d": tags.get("0a0b0c0d")}
    assert [g.cards for g in back.games] == [[player_id("0a0b0c0d"), None], None]
