"""The club's ACL on a real redis-server, set up as docs/club.md says (conftest.py): nobody gets in as
the default user, a table runs what its uplink needs on its own keys and nothing else (no scripts,
no listing of other tables' keys), the page reads. Run with Redis 8 first on PATH too (tests/platform)."""

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from firmware.club.acl import page_line, table_line
from firmware.club.health import open_door
from firmware.club.players import card, player_id
from firmware.club.roster import registry_key
from firmware.club.uplink import ClubTrouble, Uplink
from firmware.config import ClubConfig
from firmware.journal import Journal
from firmware.store import connect
from firmware.tagmap import TagMap

SPIN = "#!lua name=spin\nredis.register_function('spin', function() local i = 0 while true do i = i + 1 end end)"


def test_redis_as_installed_lets_anyone_in_and_the_doctor_says_so(redis_server):
    assert open_door(redis_server.url)[0][0] is False
    assert "ACL SETUSER default reset" in open_door(redis_server.url)[0][1]


def test_the_default_user_is_refused_and_the_owner_has_an_admin(club):
    nobody = redis.Redis(port=club.server.port, retry=Retry(NoBackoff(), 0))
    with pytest.raises(redis.AuthenticationError):
        nobody.ping()
    with pytest.raises(redis.AuthenticationError):
        nobody.execute_command("AUTH", "default", "")
    assert open_door(club.url) == []
    admin = club.as_admin()
    assert admin.acl_whoami() == "admin" and admin.dbsize() == 0
    club.server.stop()  # CONFIG REWRITE kept the users
    club.server.start()
    with pytest.raises(redis.AuthenticationError):
        nobody.ping()
    assert club.table("t1").ping()


@pytest.mark.parametrize("command", [
    ("FUNCTION", "LOAD", SPIN), ("FUNCTION", "FLUSH"), ("FUNCTION", "DELETE", "spin"), ("EVAL", "return 1", "0"),
    ("SCAN", "0"), ("RANDOMKEY",), ("DBSIZE",), ("KEYS", "*"), ("FLUSHALL",), ("CONFIG", "SET", "dir", "/tmp"),
    ("CLIENT", "TRACKING", "ON", "BCAST"), ("CLIENT", "LIST"), ("SET", "tablemate:{t2}:current", "g1"),
    ("GET", "tablemate:{t2}:current"), ("PUBLISH", "tablemate:{t2}:updates", "{}"), ("RESTORE", "tablemate:{t1}:x", "0", "x"),
    ("SET", registry_key("p-000000000001"), "t1"), ("DEL", registry_key("p-000000000001")),
])
def test_a_table_cannot_run_scripts_list_keys_or_touch_what_is_not_its_own(club, command):
    club.as_admin().set(registry_key("p-000000000001"), "t2")
    with pytest.raises(redis.exceptions.NoPermissionError):
        club.table("t1").execute_command(*command)


def test_the_uplink_runs_under_its_acl_without_one_refusal(club, memory_url):
    """Copies, a copy replaced whole, the lease taken and given back, the roster and its claims."""
    source = Journal(connect(memory_url), "t1")
    TagMap(source.client, "t1").set("0c0c0c01", card("0c0c0c01", "Zoé"))
    source.begin_game("g1", "mongols", ["Ana", "Ben"], {})
    source.append("g1", 1, None)
    admin = club.as_admin()
    admin.xadd("tablemate:{t1}:game:g1:log", {"kind": "action", "action": "{}"}, id="0-1")  # not the table's: replaced whole
    uplink = Uplink(memory_url, "t1", ClubConfig(club.url, "t1", "table-t1", club.passwords["t1"]))
    uplink.sync()
    source.append("g1", 2, None)
    assert uplink.sync({"g1"}) == 1
    uplink.release()
    assert [entry for entry in admin.acl_log() if entry["username"] == "table-t1"] == []
    assert admin.get(registry_key(player_id("0c0c0c01"))) == "t1"
    assert admin.xrange("tablemate:{t1}:game:g1:log") == source.client.xrange(source.log_key("g1"))
    assert admin.exists("tablemate:{t1}:writer") == 0
    page = connect(club.url, username="club-page", password=club.page)
    assert Journal(page, "t1").load("g1").players == ["Ana", "Ben"]
    with pytest.raises(redis.exceptions.NoPermissionError):
        page.set("tablemate:{t1}:current", "x")


def test_a_table_copying_with_another_tables_login_is_refused_in_words(club, memory_url):
    Journal(connect(memory_url), "t1").begin_game("g1", "mongols", ["Ana", "Ben"], {})
    with pytest.raises(ClubTrouble) as refused:
        Uplink(memory_url, "t1", ClubConfig(club.url, "t1", "table-t2", club.passwords["t2"])).sync()
    assert refused.value.short == "Club: Redis denies access"


def test_a_wrong_password_is_a_club_trouble_in_words(redis_server, memory_url):
    redis.Redis(port=redis_server.port).execute_command(*table_line("t1", "right").split())
    with pytest.raises(ClubTrouble) as refused:
        Uplink(memory_url, "t1", ClubConfig(redis_server.url, "t1", "table-t1", "wrong")).sync()
    assert refused.value.short == "Club: Redis password refused"


def test_the_acl_lines_split_as_redis_cli_splits_them(redis_server):
    """An aclfile takes the same lines (the selector's parentheses unquoted, as redis-cli passes them)."""
    admin = redis.Redis(port=redis_server.port, decode_responses=True)
    for line in (table_line("t1", "pw1"), page_line("pw2")):
        assert admin.execute_command(*line.split()) == "OK"
    assert admin.execute_command("ACL", "DRYRUN", "table-t1", "SETNX", registry_key("p-1"), "t1") == "OK"
