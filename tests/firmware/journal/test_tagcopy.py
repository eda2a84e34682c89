"""The tag map's local copy (firmware/journal/tagcopy.py): written before Redis, it gives back the
enrolled tags and enrolment's places a Redis lost, never overwrites a newer map in Redis, and a
damaged or unwritable file changes nothing in Redis. A "start" is a new TagMap that reconciles."""

import json

import pytest

from firmware.enrolment import Progress
from firmware.journal.tagcopy import NO_COPY, TagCopy
from firmware.store import connect, table_key
from firmware.tagmap import TagEntry, TagMap

TAGS = {f"04a1b2{n:02x}": TagEntry("taj_mahal", "card", {"id": f"card-{n}"}, f"Card {n}") for n in range(130)}
TAGS_KEY, ENROL_KEY = table_key("t1", "tags"), table_key("t1", "enrol")


class Table:
    def __init__(self, url: str, directory):
        self.url, self.directory = url, directory
        self.client = connect(url)

    def start(self, local: bool = True) -> TagMap:
        tags = TagMap(connect(self.url), "t1", self.directory if local else None)
        tags.reconcile()
        tags.load()
        return tags

    def enrolled(self) -> TagMap:
        """130 tags imported and enrolment of Mongols stopped at 17."""
        tags = self.start()
        tags.set_many(TAGS)
        Progress(tags, "t1").set("mongols", 17)
        return tags

    @property
    def file(self):
        return self.directory / "t1.tags.json"

    def stored(self) -> tuple[dict, dict]:
        return self.client.hgetall(TAGS_KEY), self.client.hgetall(ENROL_KEY)


@pytest.fixture
def table(store_url, tmp_path):
    return Table(store_url, tmp_path / "state")


def texts(entries: dict[str, TagEntry]) -> dict[str, str]:
    return {uid: entry.to_json() for uid, entry in entries.items()}


def test_a_redis_that_lost_everything_gets_the_tag_map_and_enrolment_places_back_at_the_next_start(table):
    table.enrolled()
    table.client.flushall()

    tags = table.start()
    assert table.stored() == (texts(TAGS), {"mongols": "17"})
    assert tags.get("04:A1:B2:05") == TAGS["04a1b205"] and Progress(tags, "t1").get("mongols") == 17
    assert tags.take_notices()[-1][0] == ("Tags restored", "From local copy")
    assert not table.start().take_notices()  # once


def test_a_change_written_to_the_file_but_killed_before_redis_got_it_is_written_at_the_next_start(table, monkeypatch):
    tags = table.enrolled()
    ahead = TagCopy.ahead

    def ahead_then_killed(self, *args):
        ahead(self, *args)
        raise KeyboardInterrupt  # the process dies: the transaction never runs

    for change in (lambda tags: tags.forget("04a1b200"), lambda tags: Progress(tags, "t1").set("mongols", 18)):
        monkeypatch.setattr(TagCopy, "ahead", ahead_then_killed)
        with pytest.raises(KeyboardInterrupt):
            change(tags)
        monkeypatch.undo()
        assert "04a1b200" in table.stored()[0] or table.stored()[1] == {"mongols": "17"}  # Redis never got it
        tags = table.start()
    assert table.stored() == (texts({uid: e for uid, e in TAGS.items() if uid != "04a1b200"}), {"mongols": "18"})
    assert tags.get("04a1b200") is None


def test_a_newer_map_in_redis_is_never_overwritten_by_an_older_local_copy(table):
    table.enrolled()
    old = table.file.read_bytes()
    other = table.start(local=False)  # a run without the copy (a desktop's `tablemate tags forget`)
    other.forget("04a1b200")
    Progress(other, "t1").clear("mongols")
    assert table.start().take_notices() == [] and table.stored() == (texts({u: e for u, e in TAGS.items() if u != "04a1b200"}), {})

    later = table.start()  # the copy goes on; an older image of it (an old SD card) comes back
    later.set("04ffffff", TagEntry("taj_mahal", "card", {"id": "card-x"}, "Card X"))
    table.file.write_bytes(old)
    table.start()
    assert "04ffffff" in table.stored()[0] and "04a1b200" not in table.stored()[0] and table.stored()[1] == {}
    assert json.loads(table.file.read_text())["tags"] == table.stored()[0]  # the file is written again from Redis


def test_a_change_made_after_redis_lost_the_map_starts_from_the_local_copy_not_from_nothing(table):
    tags = table.enrolled()
    table.client.flushall()
    tags.set("04ffffff", TagEntry("taj_mahal", "card", {"id": "card-x"}, "Card X"))  # before the table noticed
    assert len(table.stored()[0]) == 131 and table.stored()[1] == {"mongols": "17"}


def test_an_emptied_hash_redis_lost_while_the_file_holds_it_comes_back_while_the_table_runs(table):
    tags = table.enrolled()
    table.client.delete(TAGS_KEY)
    assert tags.restore() and table.stored()[0] == texts(TAGS)
    assert not tags.restore()


DAMAGE = {
    "not JSON": lambda text: text[: len(text) // 2],
    "an entry that is no tag": lambda text: text.replace('"{\\"game', '"{\\"gam', 1),
    "another table's": lambda text: text.replace('"table": "t1"', '"table": "t2"'),
    "a place that is no number": lambda text: text.replace('"17"', '"x"'),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_tag_copy_is_said_and_kept_aside_and_redis_keeps_its_map(table, damage):
    table.enrolled()
    table.client.hdel(TAGS_KEY, "04a1b201")  # Redis's map differs from the file's
    table.client.delete(ENROL_KEY)  # and lacks a hash the file holds: still nothing comes from a damaged file
    before = table.stored()
    table.file.write_text(DAMAGE[damage](table.file.read_text()))

    tags = table.start()
    assert table.stored() == before
    (lines, said), = tags.take_notices()
    assert lines == ("Local tags damaged", "Kept aside; play on") and "Redis's tag map is kept" in said
    assert len(list(table.directory.glob("t1.tags.json.damaged-*"))) == 1
    assert json.loads(table.file.read_text())["tags"] == before[0]  # a whole copy again, from Redis


def test_an_unwritable_directory_is_said_once_and_redis_alone_keeps_the_map(table, tmp_path):
    (tmp_path / "a-file").write_text("")
    tags = TagMap(table.client, "t1", tmp_path / "a-file" / "state")
    tags.reconcile()
    tags.set_many(TAGS)
    (lines, said), = tags.take_notices()
    assert lines == ("Local tags failed", "Play goes on") and "a-file/state" in said
    assert table.stored()[0] == texts(TAGS) and table.client.get(table_key("t1", "local", "tags")) == NO_COPY


def test_unreadable_fields_in_redis_never_reach_the_file(table, caplog):
    tags = table.enrolled()
    extra = TagEntry("taj_mahal", "card", {"id": "card-extra"}, "Extra")
    table.client.hset(TAGS_KEY, "0badc0de", "not json")  # no readable version of it anywhere
    table.client.hset(ENROL_KEY, "maharani", "seventeen")
    tags.set("04a1b2ff", extra)  # a change copies Redis's map to the file: its unreadable fields stay out
    held = json.loads(table.file.read_text())
    assert "0badc0de" not in held["tags"] and held["tags"]["04a1b2ff"] == extra.to_json() and held["enrol"] == {"mongols": "17"}
    assert table.client.hget(TAGS_KEY, "0badc0de") == "not json"  # Redis's is left as it is, and said
    assert "cannot mend (it goes without them): tags 0badc0de, enrol maharani" in caplog.text

    table.client.flushall()
    tags = table.start()  # the file is readable: it gives the map back
    assert tags.get("04a1b2ff") == extra and len(tags.items()) == len(TAGS) + 1 and not list(table.directory.glob("*.damaged-*"))


def test_unreadable_fields_in_redis_are_mended_from_the_file_and_said(table):
    table.enrolled()
    table.client.hset(TAGS_KEY, mapping={"04a1b200": "{oops", "04a1b201": '{"game": "taj_mahal"}'})
    table.client.hset(ENROL_KEY, "mongols", "seventeen")

    tags = table.start()
    assert table.stored() == (texts(TAGS), {"mongols": "17"})
    assert tags.get("04a1b200") == TAGS["04a1b200"] and Progress(tags, "t1").get("mongols") == 17
    (notice,) = tags.take_notices()
    assert notice == (("Tags mended", "From local copy"), "Redis held unreadable tag 04a1b200, tag 04a1b201, enrolment place of "
                                                           f"mongols: mended from the local copy {table.file}")
    assert not table.start().take_notices()  # once


def test_a_tag_map_key_of_another_type_is_kept_aside_and_written_again_from_the_file(table):
    table.enrolled()
    for key in (TAGS_KEY, ENROL_KEY, table_key("t1", "local", "tags")):
        table.client.delete(key)
        table.client.rpush(key, "not a hash")
    bare = TagMap(connect(table.url), "t1")  # a command without the copy: says so, never a traceback
    assert bare.load() == [f"{TAGS_KEY} holds a list, not the tag map: no tag is known until it is written again (a restart "
                           "with the local copy, tablemate tags import FILE, or tablemate restore BACKUP)"]

    tags = table.start()
    assert table.stored() == (texts(TAGS), {"mongols": "17"}) and tags.get("04a1b205") == TAGS["04a1b205"]
    assert tags.take_notices()[-1][0] == ("Tags restored", "From local copy")
    aside = [key for key in table.client.scan_iter(match="tablemate:{t1}:*:damaged-*")]
    assert sorted(table.client.lrange(key, 0, -1)[0] for key in aside) == ["not a hash", "not a hash"]
