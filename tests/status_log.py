"""A notifier for tests: every STATUS= line the table sends, kept instead of sent."""

from firmware.sdnotify import Notifier


class StatusLog(Notifier):
    """Every STATUS= line, in order, in `lines` (without the "STATUS=")."""

    def __init__(self):
        super().__init__("@unused", "", "")
        self.lines: list[str] = []

    def notify(self, *lines: str) -> bool:
        self.lines += [line.removeprefix("STATUS=") for line in lines if line.startswith("STATUS=")]
        return True
