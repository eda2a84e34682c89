"""Profile texts for tests: the desktop profile with another store."""

import re


def with_store(text: str, url: str) -> str:
    """`text` (a profile) with its [store] section replaced by one naming only `url`."""
    changed, count = re.subn(r"\[store\]\n(?:[^\[\n][^\n]*\n|\n)*", f'[store]\nurl = "{url}"\n\n', text)
    assert count == 1, "the profile has no [store] section"
    return changed
