"""The club's ACL lines on a real redis-server: a table writes its own keys only, the page reads."""

import pytest
import redis

from firmware.club.acl import page_line, table_line
from firmware.club.uplink import ClubTrouble, Uplink
from firmware.config import ClubConfig
from firmware.journal import Journal
from firmware.store import connect


def test_a_table_user_copies_its_own_games_and_nothing_else(redis_server, memory_url):
    admin = redis.Redis(port=redis_server.port, decode_responses=True)
    for line in (table_line("t1", "pw1"), table_line("t2", "pw2"), page_line("pw3")):
        admin.execute_command(*line.split())
    source = Journal(connect(memory_url), "t1")
    source.begin_game("g1", "mongols", ["Ana", "Ben"], {})
    source.append("g1", 1, None)
    assert Uplink(memory_url, "t1", ClubConfig(redis_server.url, "t1", "table-t1", "pw1")).sync() == 2
    t1 = connect(redis_server.url, username="table-t1", password="pw1")
    for forbidden in (lambda: t1.set("tablemate:{t2}:current", "g1"), t1.flushall, lambda: t1.config_set("appendonly", "no"),
                      lambda: t1.publish("tablemate:{t2}:updates", "{}"), lambda: t1.keys("*")):
        with pytest.raises(redis.exceptions.NoPermissionError):
            forbidden()
    with pytest.raises(ClubTrouble, match="not permitted|NOPERM|denies") as refused:
        Uplink(memory_url, "t1", ClubConfig(redis_server.url, "t1", "table-t2", "pw2")).sync()
    assert refused.value.short == "Club: Redis denies access"
    page = connect(redis_server.url, username="club-page", password="pw3")
    assert Journal(page, "t1").load("g1").entries == [("undo", None)]
    with pytest.raises(redis.exceptions.NoPermissionError):
        page.set("tablemate:{t1}:current", "x")


def test_a_wrong_password_is_a_club_trouble_in_words(redis_server, memory_url):
    redis.Redis(port=redis_server.port).execute_command(*table_line("t1", "right").split())
    with pytest.raises(ClubTrouble) as refused:
        Uplink(memory_url, "t1", ClubConfig(redis_server.url, "t1", "table-t1", "wrong")).sync()
    assert refused.value.short == "Club: Redis password refused"
