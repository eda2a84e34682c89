"""Maharani at the table: tap a tile, say which turntable slot it came from, pick the quarter and
then the space on a mini-map, and whether its arrow points at the player. Pass ends the turn, withdraw refreshes the
action markers, next (outside a question) ends a stuck game after a confirmation.
"""

from engines import IllegalAction
from engines.maharani.board import DEFAULT

from ..flows import Choose, MiniMap, yes_no
from .base import Adapter


def _artisan_label(choice: dict) -> str:
    verb = "Move" if choice["move"] else "New"
    return f"{verb} artisan, set {choice['set'] + 1}"


class MaharaniAdapter(Adapter):
    game_name = "maharani"
    kinds = ("tile",)
    buttons = {
        "pass": "end the turn",
        "withdraw": "refresh the action markers (instead of placing)",
        "next": "end a stuck game (asks to confirm)",
    }
    asks = {"place or refresh": "tap tile or withdraw", "2nd tile or end": "tap 2nd tile or pass", "end turn": "pass: end turn"}

    def setup(self, n_players):
        """With board files besides the default bundled one (an owner's corrected board), choose one; an
        owner's board that replaces the default is used without asking."""
        if len(self.boards) > 1:
            return {"board": (yield Choose.of("Which board?", [(offer.name, offer.option) for offer in self.boards], field="board"))}
        if self.boards and self.boards[0].option != DEFAULT:
            return {"board": self.boards[0].option}
        return {}

    def tag(self, state, entry, seat):
        p = yield from self.acting_seat(state, seat)
        tile = self.descriptor(entry)
        prompt = self.game.prompt(state)
        if prompt is None or "place" not in prompt.expects or prompt.player != p:
            raise IllegalAction(f"{state.short_name(prompt.player if prompt else p)}: no tile now", "no tile can be placed now")
        slots = prompt.options["from_quarter"]
        slot = slots[0] if len(slots) == 1 else (yield Choose.of("From which slot?", [(f"Slot {q}", q) for q in slots], field="from_quarter"))
        board = self.game.board(state)
        free = {q: prompt.options[f"spaces_q{q}"] for q in prompt.options[f"reach_q{slot}"] if f"spaces_q{q}" in prompt.options}
        cells = tuple((*board.position[sp], sp in state.tiles) for sp in board.spaces)
        base = {"type": "place", "player": p, "tile": tile, "from_quarter": slot, "arrow_to_player": False}
        gains = {sp: self.change(state, p, {**base, "space": sp}) if self.hints else 0 for q in free for sp in free[q]}
        quarter = next(iter(free))
        if len(free) > 1:
            quarter = yield Choose.of(
                "Which quarter?",
                [(f"Q{q} {len(spaces)} free{self.points(max(gains[sp] for sp in spaces))}", q) for q, spaces in free.items()],
                field="quarter",
                map=MiniMap(cells, tuple(tuple(board.position[sp] for sp in spaces) for spaces in free.values())),
            )
        spaces = free[quarter]
        space = yield Choose.of(
            "Which space?",
            [(f"Q{quarter} {sp}{self.points(gains[sp])}", sp) for sp in spaces],
            field="space",
            map=MiniMap(cells, tuple((board.position[sp],) for sp in spaces)),
        )
        arrow = yield yes_no("Arrow at you?", field="arrow_to_player")
        action = {"type": "place", "player": p, "tile": tile, "from_quarter": slot, "space": space, "arrow_to_player": arrow}
        if arrow:
            choices = self.game.artisan_choices(state, space, tile.get("color"))
            if len(choices) > 1:
                action["artisan"] = yield Choose.of("Which artisan?", [(_artisan_label(c), c) for c in choices], field="artisan")
        return action

    def press(self, state, role, seat):
        p = yield from self.acting_seat(state, seat)
        if role == "pass":
            return {"type": "end_turn", "player": p}
        if role == "withdraw":
            return {"type": "refresh", "player": p}
        if role == "next":
            if (yield yes_no("Tiles stuck: end game?", field="confirm")):
                return {"type": "end_game"}
            return None
        raise self.unused(role)
