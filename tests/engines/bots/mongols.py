"""A Mongols table for random games: the plan deck with the parchment, the six-card market, real dice.

The per-player-count deck table is not in the rule text, so this table keeps a plausible number of
cards per colour (7 with 2 players, 9 with 3, all 11 with 4 or 5) and puts 3 cards per player under
the parchment: enough for the last round to refill the market every turn (a turn removes at most
three cards), so the market is never empty. With dice off the table still throws real dice (seeded)
and records only the outcome, as players would.
"""

import random

import engines
from engines.mongols.dice import MARKET_GEMS, STEAL_GEM, completed, legal_lowerings, one_die_allowed

game = engines.get("mongols")
#: (players, options) setups the random games cover
SETUPS = [(n, {"dice": dice}) for dice in (False, True) for n in (2, 3, 4, 5)]
COLOURS = ("green", "yellow", "purple", "orange", "black")
PER_COLOUR = {2: 7, 3: 9, 4: 11, 5: 11}
PARCHMENT = {"id": "parchment", "parchment": True}


class Bot:
    """Players who throw until a random urge to stop, take what they completed and steal at random."""

    def __init__(self, n_players: int, options: dict, seed: int):
        self.rng = random.Random(seed)
        self.dice = options.get("dice", False)
        cards = [{"id": f"{c}-{k:02d}", "color": c} for c in COLOURS for k in range(PER_COLOUR[n_players])]
        self.rng.shuffle(cards)
        under = 3 * n_players
        # the top of the deck is the end of the list
        self.deck: list[dict] = cards[:under] + [PARCHMENT] + cards[under:]
        self.market: dict[str, list[dict]] = {gem: [] for gem in MARKET_GEMS}
        self.parchment_drawn = self._refill()
        self.turn_key = None
        #: with dice off: the gem colours this turn's simulated throws completed
        self.completed: list[str] = []

    def _refill(self) -> bool:
        """Fill the market to two cards per gem; True when the parchment came up."""
        parchment = False
        for cards in self.market.values():
            while len(cards) < 2 and self.deck:
                card = self.deck.pop()
                if card is PARCHMENT:
                    parchment = True
                else:
                    cards.append(card)
        return parchment

    def choose(self, s) -> dict:
        p, rng = s.turn, self.rng
        if (s.round, p) != self.turn_key:
            self.turn_key = (s.round, p)
            self.parchment_drawn |= self._refill()
        if self.parchment_drawn:
            self.parchment_drawn = False
            return {"type": "parchment", "card": PARCHMENT} if rng.random() < 0.5 else {"type": "parchment"}
        prompt = game.prompt(s)
        if s.step == "throw":
            return self._throw(s, p) if self.dice else self._simulate_turn(s, p)
        if s.step == "lower":
            choices = prompt.options["lowerings"]
            plain = [c for c in choices if c["adjust"] == 0]
            choice = rng.choice(plain if plain and rng.random() < 0.7 else choices)
            return {"type": "lower", "player": p, **choice}
        if s.step == "collect":
            return self._collect(s, p, prompt)
        if s.step == "bust":
            return self._discard(p)
        return {"type": "end_turn", "player": p}

    def _wants_to_stop(self, down: list[int]) -> bool:
        """Never before a colour is complete (the rule), always once every gem is down, else at random."""
        done = completed(down)
        return len(down) == 9 or (bool(done) and self.rng.random() < 0.15 * len(done))

    def _faces(self, down: list[int]) -> list[int]:
        count = 1 if one_die_allowed(down) and self.rng.random() < 0.5 else 2
        return [self.rng.randint(1, 6) for _ in range(count)]

    def _throw(self, s, p: int) -> dict:
        if self._wants_to_stop(s.down):
            return {"type": "stop", "player": p}
        return {"type": "roll", "player": p, "dice": self._faces(s.down)}

    def _simulate_turn(self, s, p: int) -> dict:
        """With dice off: throw real dice at the table, then record the outcome (a stop or a bust)."""
        down: list[int] = []
        advisors = sum(1 for holder in s.advisors.values() if holder == p)
        while not self._wants_to_stop(down):
            choices = legal_lowerings(sum(self._faces(down)), set(range(1, 10)) - set(down), advisors)
            if not choices:
                return self._discard(p)
            numbers, adjust = self.rng.choice(choices)
            down += numbers
            advisors -= abs(adjust)
        self.completed = completed(down)
        return {"type": "stop", "player": p}

    def _collect(self, s, p: int, prompt) -> dict:
        possible = [
            gem for gem in prompt.options.get("gem", ())
            if self.market[gem] and (self.dice or gem in self.completed)
        ]
        steal = "steal" in prompt.expects and (self.dice or STEAL_GEM in self.completed)
        if self.rng.random() < 0.1 or not (possible or steal):
            return {"type": "end_turn", "player": p}
        if possible and (not steal or self.rng.random() < 0.7):
            gem = self.rng.choice(possible)
            cards = self.market[gem]
            card = cards.pop(self.rng.randrange(len(cards)))
            return {"type": "take", "player": p, "card": card, "gem": gem}
        victim = self.rng.choice(prompt.options["victim"])
        card_id = self.rng.choice(sorted(i for i, seat in s.owner.items() if seat == victim))
        return {"type": "steal", "player": p, "card": {"id": card_id, "color": s.cards[card_id]}, "victim": victim}

    def _discard(self, p: int) -> dict:
        cards = self.rng.choice([cards for cards in self.market.values() if cards])
        return {"type": "discard_market", "player": p, "card": cards.pop(self.rng.randrange(len(cards)))}
