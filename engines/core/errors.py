"""The two errors of the engine API."""

#: The longest `IllegalAction.short`: two lines of 21 characters on the 128x64 screen.
SHORT_MAX = 42


class IllegalAction(ValueError):
    """An action the rules refuse, or a malformed one.

    `short` fits two lines of the table's 128x64 screen (longer text is cut); `str()` explains fully. The state the
    action was applied to is untouched and stays usable.
    """

    def __init__(self, short: str, detail: str | None = None):
        self.short = short if len(short) <= SHORT_MAX else short[: SHORT_MAX - 1] + "…"
        super().__init__(detail or short)


class UnknownGame(LookupError):
    """`engines.get()` was asked for a game that is not installed."""

    def __init__(self, name: object, known: list[str]):
        self.name = name
        super().__init__(f"unknown game {name!r}; the games are: {', '.join(known)}")
