from firmware.report import counted


def test_a_count_is_said_as_a_person_would():
    assert counted(1, "game") == "1 game"
    assert counted(0, "game") == "0 games"
    assert counted(3, "tag") == "3 tags"
    assert counted(1, "journal entry", "journal entries") == "1 journal entry"
    assert counted(2, "journal entry", "journal entries") == "2 journal entries"
