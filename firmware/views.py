"""What the screen shows, as plain data: the table decides the view, firmware.screens draws it.

Keeping views separate from drawing lets the controller be tested without pixels and lets the same
views feed the small OLED, the terminal, and the PNG captures. `notice` is a part of the table in
trouble ("Reader 3: not answering"), kept on every screen but the short flashes and the final one.

While a game is played, its scoreboard (a `ScoreView`) stays on screen: a question the game asks
(`ChooserView`, `TapView`) or a refused input (an error `FlashView`) is shown `over` it, in the
band below the scores, so the scores, whose turn it is and the last event stay in view.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Row:
    name: str
    total: int
    current: bool = False


@dataclass(frozen=True)
class ScoreView:
    title: str
    phase: str
    rows: tuple[Row, ...]
    #: what the table waits for, naming the button or tap that answers it ("Ben: tap or withdraw")
    prompt: str = ""
    #: what the last action did, one line an event ("Ben: vizier", "Ben: crown")
    events: tuple[str, ...] = ()
    hint: str = ""
    offline: bool = False
    notice: str = ""
    #: the game's title when the whole one leaves the phase too little room ("T. und Taxis")
    short: str = ""


@dataclass(frozen=True)
class ChooserView:
    question: str
    options: tuple[str, ...]
    index: int
    title: str = ""
    offline: bool = False
    #: a mini-map: every cell (row, col, occupied), and the cells of the option under the cursor
    cells: tuple[tuple[int, int, bool], ...] = ()
    marks: tuple[tuple[int, int], ...] = ()
    notice: str = ""
    #: the game's scoreboard the question is asked over (None: a whole screen of its own)
    over: ScoreView | None = None


@dataclass(frozen=True)
class TapView:
    question: str
    done: str | None = None
    title: str = ""
    offline: bool = False
    note: str = ""
    notice: str = ""
    over: ScoreView | None = None


@dataclass(frozen=True)
class FlashView:
    lines: tuple[str, ...]
    error: bool = False
    offline: bool = False
    #: the game's scoreboard a refusal is shown over (None: the flash fills the screen)
    over: ScoreView | None = None


@dataclass(frozen=True)
class OverView:
    title: str
    ranking: tuple[tuple[int, str, int], ...]  # (place, name, total)
    winners: tuple[str, ...] = field(default_factory=tuple)
    offline: bool = False
    short: str = ""


@dataclass(frozen=True)
class MessageView:
    title: str
    lines: tuple[str, ...]
    offline: bool = False
    notice: str = ""


View = ScoreView | ChooserView | TapView | FlashView | OverView | MessageView
