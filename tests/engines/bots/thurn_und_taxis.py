"""A Thurn und Taxis table for random games: a shuffled deck, hands, and random legal moves."""

import random

import engines
from engines.thurn_und_taxis.board import board

game = engines.get("thurn_und_taxis")
#: (players, options) setups the random games cover
SETUPS = [(2, {}), (3, {}), (4, {})]


class Bot:
    """A table of players with a real shuffled deck, making random legal moves that push routes longer."""

    def __init__(self, n_players: int, options: dict, seed: int):
        self.rng = random.Random(seed)
        self.deck = [{"id": f"{city}-{k}", "city": city} for city in board().cities for k in range(3)]
        self.rng.shuffle(self.deck)
        self.discard: list[dict] = []
        self.hands: list[list[dict]] = [[] for _ in range(n_players)]
        self.turn_key = None
        self.target = 3
        self.discarded = False

    def draw(self, seat: int) -> None:
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
        if self.deck:
            self.hands[seat].append(self.deck.pop())

    def choose(self, s) -> dict:
        p, rng, hand = s.turn, self.rng, self.hands[s.turn]
        key = (p, s.turns_done[p])
        if key != self.turn_key:
            self.turn_key, self.discarded = key, False
            first, empty = s.turns_done[p] == 0, not hand
            self.draw(p)
            if first or empty or rng.random() < 0.2:
                self.draw(p)
                if not first:
                    return {"type": "official", "player": p, "official": "postmaster"}
            elif rng.random() < 0.1:
                return {"type": "official", "player": p, "official": "administrator"}
            self.target = min(8, max(3, (s.carriage[p] or 2) + 1 + rng.choice((-1, 0, 0, 1))))
        route = s.routes[p]
        prompt = game.prompt(s)
        if "lay" in prompt.expects and (s.lays == 0 or (len(route) < self.target and rng.random() < 0.6)):
            fits = [(c, side) for c in hand for side in ("left", "right") if not route or c["city"] in prompt.options[side]]
            if s.lays == 0 and route and (not fits or rng.random() < 0.03) and not self.discarded:
                self.discarded = True
                self.discard += [{"id": i, "city": c} for i, c in route]
                return {"type": "discard_route", "player": p}
            if fits or s.lays == 0:
                laid, side = rng.choice(fits) if fits else (rng.choice(hand), None)
                hand.remove(laid)
                both = route and len(route) > 1 and laid["city"] in prompt.options["left"] and laid["city"] in prompt.options["right"]
                action = {"type": "lay", "player": p, "card": laid}
                if both or (len(route) > 1 and rng.random() < 0.5):
                    action["side"] = side  # a one-card route has one end: the table never asks
                return action
        if "close" in prompt.expects and (len(route) >= self.target or rng.random() < 0.1):
            houses = list(rng.choice(prompt.options["house_sets"]))
            if houses and rng.random() < 0.25:
                houses = rng.sample(houses, rng.randrange(len(houses)))  # fewer houses: any subset is legal
            coachman = True in prompt.options["coachman"] and rng.random() < 0.5
            self.discard += [{"id": i, "city": c} for i, c in route]
            while len(hand) > 3:
                self.discard.append(hand.pop(rng.randrange(len(hand))))
            return {"type": "close", "player": p, "houses": houses, "coachman": coachman}
        return {"type": "end_turn", "player": p}


def closing_states(n_players: int, seed: int, placed: int = 0):
    """The states of a random game where the player to move may close a route, in order.

    Each seat starts with `placed` houses in random cities, so closings with few houses left come up.
    """
    rng = random.Random(seed)
    state = game.start(["Ana", "Ben", "Cy", "Dee"][:n_players])
    for houses in state.houses:
        houses.update(rng.sample(board().cities, placed))
    bot = Bot(n_players, {}, seed)
    while not game.is_over(state):
        if "close" in game.prompt(state).expects:
            yield state
        state = game.apply(state, bot.choose(state))


def random_placement(rng: random.Random, state) -> list[str]:
    """Houses to try at a closing: a subset of an offered choice, or any cities of the route and beyond, in any order."""
    offered = game.prompt(state).options["house_sets"]
    if rng.random() < 0.5:
        chosen = rng.choice(offered)
        return rng.sample(chosen, rng.randint(0, len(chosen)))
    pool = sorted({city for _, city in state.routes[state.turn]} | set(rng.sample(board().cities, 2)))
    return rng.sample(pool, rng.randint(0, min(len(pool), 6)))
