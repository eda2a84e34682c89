"""A Taj Mahal table for random games: a synthetic full-size board, the 96-card deck, hands, the reserve.

The real board is unknown (notes/game-data.md), so the table plays on SYNTHETIC_BOARD, clearly made up:
12 provinces in a 3x4 grid, Agra 5 cities and the others 4 joined in rings, 16 fortresses, one road
between neighbouring provinces. The deck follows the manifest; where the manifest asks the owner (the
pairs without an elephant, each colour's 21st card, province goods, bonus kinds) the table makes up
plausible components. The players deal, keep hands, refill the face-up reserve (5/7/9 cards), draw
when they withdraw (two from the reserve, a card from the deck first when they played none) and on a
"card" bonus tile, exactly as rules/000 says.

The table plays the same physical game whether or not the engine has the board: cities are the
synthetic board's ids, and without a board the players count their palace chains on it. So a seed gives
the same game in both modes, apart from the `chain` entries.
"""

import random

import engines
from engines.taj_mahal.board import AGRA, parse_board
from engines.taj_mahal.components import GOODS, INFLUENCE, SPECIALS
from engines.taj_mahal.manifest import manifest

game = engines.get("taj_mahal")
GRID_ROWS, GRID_COLUMNS = 3, 4


def synthetic_board() -> dict:
    """A made-up board with the real counts (12 provinces, 49 cities, 16 fortresses): NOT the real map."""
    ids = [f"s{k:02d}" for k in range(1, 12)]
    ids.insert(5, AGRA)  # Agra in the middle of the grid
    provinces, roads = [], []
    for index, pid in enumerate(ids):
        cities = [f"{pid}-{c}" for c in range(1, (5 if pid == AGRA else 4) + 1)]
        double = index < 4  # four provinces with two fortresses: 1 + 4*2 + 7 = 16
        fortresses = [cities[1]] if pid == AGRA else [cities[0], cities[2]] if double else [cities[0]]
        provinces.append({"id": pid, "cities": cities, "fortresses": fortresses})
        roads += [[a, b] for a, b in zip(cities, cities[1:] + cities[:1])]
    for index, pid in enumerate(ids):
        row, column = divmod(index, GRID_COLUMNS)
        if column + 1 < GRID_COLUMNS:
            roads.append([f"{pid}-2", f"{ids[index + 1]}-4"])
        if row + 1 < GRID_ROWS:
            roads.append([f"{pid}-3", f"{ids[index + GRID_COLUMNS]}-1"])
    return {"name": "synthetic full-size board for tests (not the real map)", "provinces": provinces, "roads": roads}


SYNTHETIC_BOARD = synthetic_board()
#: (players, options) setups the random games cover
SETUPS = [(n, options) for options in ({"board": SYNTHETIC_BOARD}, {}) for n in (3, 4, 5)]


def deck(rng: random.Random) -> list[dict]:
    """The 96 cards: the manifest's known ones, and plausible symbols where the manifest asks the owner."""
    cards = []
    for group in manifest():
        if group.kind != "card":
            continue
        if "symbols" not in group.ask:
            cards += [{"id": ident, **group.known} for ident in group.ids()]
        elif group.count == 4:  # two different non-elephant symbols: each influence symbol twice
            cycle = rng.sample(INFLUENCE, 4)
            cards += [
                {"id": ident, **group.known, "symbols": [cycle[k], cycle[(k + 1) % 4]]} for k, ident in enumerate(group.ids())
            ]
        else:
            cards += [{"id": ident, **group.known, "symbols": rng.sample(INFLUENCE + ("mogul",), 2)} for ident in group.ids()]
    return cards


def special(kind: str) -> dict:
    return {"id": f"special-{kind}", "special": kind}


class Bot:
    """The players at a table with shuffled components, making random legal moves."""

    def __init__(self, n_players: int, options: dict, seed: int):
        self.rng = rng = random.Random(seed)
        self.board = parse_board(SYNTHETIC_BOARD)
        self.deck = deck(rng)
        rng.shuffle(self.deck)
        self.discard: list[dict] = []
        self.hands = [[self.deck.pop() for _ in range(6)] for _ in range(n_players)]
        self.reserve: list[dict] = []
        self.reserve_size = 2 * n_players - 1  # rules/000: 5, 7, 9 cards for 3, 4, 5 players
        self.played: list[list[dict]] = [[] for _ in range(n_players)]
        others = [pid for pid in self.board.provinces if pid != AGRA]
        rng.shuffle(others)
        self.province_for = {k: pid for k, pid in enumerate(others + [AGRA], start=1)}
        self.tile_for = {k: {"number": k, "goods": rng.sample(GOODS, 1 if k == 1 else 2)} for k in range(1, 13)}
        squares = (
            [{"kind": "points"}] * 5 + [{"kind": "card"}] * 5 + [{"kind": "goods", "goods": rng.choice(GOODS)} for _ in range(5)]
        )
        rng.shuffle(squares)
        fortresses = sorted(self.board.fortresses - set(self.board.cities_of[AGRA]))
        self.bonus_on = dict(zip(fortresses, squares))
        self.bonus_on.update({city: {"kind": "taj"} for city in self.board.fortresses & set(self.board.cities_of[AGRA])})

    def draw(self) -> dict | None:
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
        return self.deck.pop() if self.deck else None

    def choose(self, s) -> dict:
        prompt = game.prompt(s)
        if "visit" in prompt.expects:
            return self.visit(s)
        if "hand" in prompt.expects:
            seat = self.rng.choice(prompt.options["player"])
            return {"type": "hand", "player": seat, "cards": self.hands[seat]}
        if "chain" in prompt.expects:
            owned = {city for cities in s.palaces.values() for city, owners in cities.items() if prompt.player in owners}
            return {"type": "chain", "player": prompt.player, "provinces": len(self.board.chain(owned, s.province))}
        if "palace" in prompt.expects or "crown" in prompt.expects:
            return self.place(s, prompt.player, self.rng.choice(prompt.expects))
        return self.turn(s, prompt.player)

    def visit(self, s) -> dict:
        k = s.round + 1
        while len(self.reserve) < self.reserve_size and (card := self.draw()) is not None:
            self.reserve.append(card)
        return {"type": "visit", "province": self.province_for[k], "tile": self.tile_for[k]}

    def place(self, s, p: int, kind: str) -> dict:
        here = s.palaces[s.province]
        cities = self.board.cities_of[s.province]
        free = [c for c in cities if here.get(c, [None, None])[0] is None and here.get(c, [None, None])[1] != p]
        if kind == "crown":  # never on the last free cities the owed palaces need
            tight = s.owed_palaces and len(free) <= s.owed_palaces
            return {"type": "crown", "player": p, "city": self.rng.choice([c for c in cities if not (tight and c in free)])}
        city = self.rng.choice(free)
        bonus = self.bonus_on.pop(city, None)
        if bonus is not None and bonus["kind"] == "card" and (card := self.draw()) is not None:
            self.hands[p].append(card)
        return {"type": "palace", "player": p, "city": city, "bonus": bonus}

    def turn(self, s, p: int) -> dict:
        rng, hand, colour = self.rng, self.hands[p], s.colour[p]
        held = [kind for kind in SPECIALS if s.holder[kind] == p and kind not in s.specials_out[p]]
        change = "color_change" in held
        firsts = [c for c in hand if c["color"] != "white" and (colour is None or c["color"] == colour or change)]
        played = len(self.played[p])
        alone = sum(s.in_round) == 1
        out = 0.08 if not played else 0.4 if alone else 0.15 + 0.05 * played
        if not firsts or rng.random() < out:
            return self.withdraw(s, p)
        first = rng.choice(firsts)
        seconds = [c for c in hand if c["color"] == "white"] + [special(kind) for kind in held]
        second = None
        if colour is not None and first["color"] != colour:
            second = special("color_change")
        elif seconds and rng.random() < 0.4:
            second = rng.choice(seconds)
        cards = [first] if second is None else [first, second]
        for card in cards:
            if "special" not in card:
                hand.remove(card)
                self.played[p].append(card)
        return {"type": "play", "player": p, "cards": cards}

    def withdraw(self, s, p: int) -> dict:
        hand = self.hands[p]
        if not self.played[p] and (card := self.draw()) is not None:
            hand.append(card)
        self.discard += self.played[p]
        self.played[p] = []
        for _ in range(min(2, len(self.reserve))):
            hand.append(self.reserve.pop(self.rng.randrange(len(self.reserve))))
        return {"type": "withdraw", "player": p}
