"""A Taj Mahal game at the rig, played by the autopilot up to a chosen action (the bad-input and
hostile-store tests)."""

from pathlib import Path

from firmware.tagmap import TagEntry
from firmware.views import FlashView, ScoreView

from .autopilot import Autopilot
from .games import bot_game, components, enrol
from .rig import Rig

PLAYERS, SEED = 5, 7
#: a Thurn und Taxis card, enrolled at this table too
OTHER_GAME_TAG = "0e0e0e0e"


class Playing:
    """A Taj Mahal game at the rig, played by the autopilot up to a chosen action."""

    def __init__(self, url: str, local_dir: Path | None = None):
        self.actions = bot_game("taj_mahal", PLAYERS, {}, SEED)
        self.rig = Rig(url, local_dir=local_dir)
        self.uids = enrol(self.rig.table.tags, components("taj_mahal", self.actions))
        self.rig.table.tags.set(OTHER_GAME_TAG, TagEntry("thurn_und_taxis", "card", {"id": "ulm-1", "city": "ulm"}, "Ulm"))
        for label in ("Taj Mahal", f"{PLAYERS} players", "Hints on"):
            self.rig.choose(label)
        self.pilot = Autopilot(self.rig.table, self.rig, lambda d: self.uids[d["id"]])
        self.done = 0

    @property
    def session(self):
        return self.rig.table.session

    def play_until(self, ready) -> dict:
        """Play on until `ready(next action)`; return that next action (not played)."""
        while not ready(self.actions[self.done]):
            self.play_next()
        return self.actions[self.done]

    def play_next(self) -> None:
        self.pilot.perform(self.actions[self.done], self.done + 1)
        self.done += 1

    def stored(self) -> list:
        """The game's journal stream as Redis holds it: ids and fields."""
        return self.rig.table.journal.client.xrange(self.rig.table.journal.log_key(self.session.gid))

    def refused(self, reason: str, do) -> None:
        """`do()` is refused with `reason`, framed in the band over the game's scoreboard, shown on the
        display and drawn unlike the scoreboard it covers; nothing changes."""
        state, entries, stored = self.session.state, self.session.entries, self.stored()
        do()
        view = self.rig.table.view()
        assert view == FlashView((reason,), error=True, over=view.over) and isinstance(view.over, ScoreView)
        screen = self.rig.app.loop.screen
        assert self.rig.image.tobytes() == screen.render(view).tobytes() != screen.render(view.over).tobytes()
        assert self.session.state is state and self.session.entries == entries and self.stored() == stored

    def close(self) -> None:
        self.rig.close()
