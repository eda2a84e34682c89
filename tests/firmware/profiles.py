"""Profile texts for tests: the desktop profile with another store."""

import re


def with_store(text: str, url: str) -> str:
    """`text` (a profile) with its [store] section replaced by one naming only `url`."""
    changed, count = re.subn(r"\[store\]\n(?:[^\[\n][^\n]*\n|\n)*", f'[store]\nurl = "{url}"\n\n', text)
    assert count == 1, "the profile has no [store] section"
    return changed


def with_local_dir(text: str, url: str, directory) -> str:
    """`text` on store `url`, keeping the journal's local copy in `directory`."""
    return with_store(text, url).replace(f'url = "{url}"', f'url = "{url}"\nlocal_dir = "{directory}"')
