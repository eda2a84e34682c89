"""A Maharani table for random games: the bag of 60 tiles, the turntable, and random legal moves."""

import random

import engines
from engines.maharani.board import resolve

game = engines.get("maharani")
#: (players, options) setups the random games cover
SETUPS = [(2, {}), (3, {}), (4, {})]
COLOURS = ("blue", "orange", "green", "red", "yellow", "white")


class Bot:
    """Players drawing from a real bag onto a turntable (one slot per quarter), placing one or two tiles at
    random, sometimes refreshing their markers, and now and then calling the stuck end once the bag is empty."""

    def __init__(self, n_players: int, options: dict, seed: int):
        self.rng = random.Random(seed)
        self.bag = [{"id": f"{colour}-{k}", "color": colour} for colour in COLOURS for k in range(10)]
        self.rng.shuffle(self.bag)
        # 12 central-column tiles for 8 central-column spaces: 4 leave the game during play (the rule's
        # "cas particulier 1"); the engine never sees them, so they simply never come out of the bag.
        del self.bag[:4]
        self.slots: dict[int, dict | None] = {q: None for q in resolve(options.get("board"))[1].quarters}
        self.refill()

    def refill(self) -> None:
        """Fill the empty slots from the bag, in quarter order, as at the end of a turn."""
        for q, tile in self.slots.items():
            if tile is None and self.bag:
                self.slots[q] = self.bag.pop()

    def choose(self, s) -> dict:
        p, rng = s.turn, self.rng
        prompt = game.prompt(s)
        first = not s.placed
        if first and s.down[p] and rng.random() < 0.1:
            return self.end({"type": "refresh", "player": p})
        if first and not self.bag and rng.random() < 0.1:
            return {"type": "end_game"}
        moves = self.moves(prompt)
        if "place" in prompt.expects and moves and (first or rng.random() < 0.4):
            own = [(q, space) for q, space in moves if q == game.board(s).quarter_of[space]]
            q, space = rng.choice(own if own and rng.random() < 0.6 else moves)
            tile, self.slots[q] = self.slots[q], None
            action = {"type": "place", "player": p, "tile": tile, "from_quarter": q, "space": space, "arrow_to_player": rng.random() < 0.3}
            if action["arrow_to_player"]:
                choices = game.artisan_choices(s, space, tile["color"])
                if len(choices) > 1 or (choices and rng.random() < 0.5):
                    action["artisan"] = rng.choice(choices)
            return action
        if first:
            return self.end({"type": "refresh", "player": p} if s.down[p] else {"type": "end_game"})
        return self.end({"type": "end_turn", "player": p})

    def moves(self, prompt) -> list[tuple[int, str]]:
        """(slot, space) pairs the tiles on the turntable can legally go to now."""
        return [
            (q, space)
            for q in prompt.options.get("from_quarter", ())
            if self.slots[q] is not None
            for dest in prompt.options[f"reach_q{q}"]
            for space in prompt.options[f"spaces_q{dest}"]
        ]

    def end(self, action: dict) -> dict:
        self.refill()
        return action
