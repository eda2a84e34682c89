"""What every game's table adapter does: turn taps and presses into actions, asking when needed.

An adapter's `tag`, `press`, `follow_up` and `setup` are flows (generators, see firmware.flows): they
may ask the chooser or wait for a tap, and finally return an action (or `Replace`, or None). Refusals
the adapter can see itself raise `IllegalAction`; everything else is left to the engine.
"""

from typing import Any, ClassVar, Sequence

import engines
from engines import IllegalAction

from ..boards import Offer
from ..flows import Choose, Flow
from ..tagmap import TagEntry


class Adapter:
    game_name: ClassVar[str]
    #: the descriptor kinds of this game's components, as enrolled in the tag map
    kinds: ClassVar[tuple[str, ...]]
    #: what each button does in this game (shown in help and the README)
    buttons: ClassVar[dict[str, str]]
    #: the engine's words for what it waits for ("end turn") in the table's, naming the button or
    #: tap that answers ("pass: end turn"), in the 20 columns the screen leaves after a short name
    asks: ClassVar[dict[str, str]] = {}
    #: the title on the screen's top line when the game's own leaves its phase too little room
    short_title: ClassVar[str] = ""

    def __init__(self, hints: bool = True, boards: Sequence[Offer] = ()) -> None:
        self.game = engines.get(self.game_name)
        #: whether this table shows what moves would do (some tables play without)
        self.hints = hints
        #: the boards set-up may offer (games played on a board file)
        self.boards = tuple(boards)

    def setup(self, n_players: int) -> Flow:
        """Ask the game's options at set-up; the default game has none."""
        yield from ()
        return {}

    def tag(self, state: engines.State, entry: TagEntry, seat: int | None) -> Flow:
        raise NotImplementedError

    def press(self, state: engines.State, role: str, seat: int | None) -> Flow:
        raise NotImplementedError

    def waiting(self, prompt: engines.Prompt) -> str:
        """What the table waits for, as the scoreboard says it ("Ben: pass: end turn")."""
        who, colon, words = prompt.text.rpartition(": ")
        return f"{who}{colon}{self.asks.get(words, words)}"

    def hint(self, state: engines.State) -> str:
        """A one-line hint for the scoreboard ("" for none); only asked when hints are on."""
        return ""

    def follow_up(self, state: engines.State) -> Flow | None:
        """A flow the engine's prompt demands by itself now (e.g. placements after a withdraw)."""
        return None

    # -- helpers for subclasses ------------------------------------------------------------------

    def acting_seat(self, state: engines.State, seat: int | None) -> Flow:
        """The seat acting: the reader's or button's seat, else whose turn it is, else asked."""
        if seat is not None:
            if seat >= state.n_players:
                raise IllegalAction(f"Seat {seat + 1} is not playing", f"this game has {state.n_players} players; the reader or button is seat {seat + 1}'s")
            return seat
        prompt = self.game.prompt(state)
        if prompt is not None and prompt.player is not None:
            return prompt.player
        return (yield Choose.of("Whose is it?", [(name, i) for i, name in enumerate(state.players)], field="player"))

    def gain(self, state: engines.State, seat: int, action: dict) -> str:
        """" +3": what `action` would add to `seat`'s score, for a chooser label; "" with hints off or no change."""
        return self.points(self.change(state, seat, action)) if self.hints else ""

    def change(self, state: engines.State, seat: int, action: dict) -> int:
        """What `action` would add to `seat`'s score (0 when the rules refuse it)."""
        preview = self.game.preview(state, action)
        return preview.totals[seat] if preview.legal else 0

    @staticmethod
    def points(change: int) -> str:
        """A score change as a label's tail: " +3", "" for none."""
        return f" {change:+d}" if change else ""

    def unused(self, role: str) -> IllegalAction:
        return IllegalAction(f"'{role}' does nothing here", f"the {role} button has no use in {self.game.title} now")

    @staticmethod
    def descriptor(entry: TagEntry) -> dict[str, Any]:
        return dict(entry.descriptor)
