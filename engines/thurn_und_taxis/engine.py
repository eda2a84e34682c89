"""Thurn und Taxis (Karen & Andreas Seyfarth, 2006): routes, houses, bonus tiles, carriages.

Rules: rules/002 (French, v1.1); vocabulary: design/game-log.md section 4. The engine records what is
laid and closed; the drawing of cards is the table's business (the deck is the random source).

Choices where the contract is silent, as a player at the table expects them:
- `official` (postmaster, administrator) is recorded before the turn's first card and before a
  `discard_route`: they help in the draw, and "un joueur exécute les actions suivantes dans l'ordre
  indiqué" puts the draw before the laying (a route is discarded in the laying step).
- "Si, au début de son tour, un joueur n'a plus de carte en main, il doit demander l'aide du chef de
  poste": the table does not see draws, so the engine keeps, per seat, the most cards the hand can
  hold (a turn draws 2 with the postmaster, recorded or not, 1 when another official helps; the lays
  are seen; a close cuts the hand to 3). When that bound is 0 at the start of a turn (every first
  turn, and e.g. the turn after a second turn that laid two cards) the postmaster is in force by
  itself: recording it is accepted once, any other official (postillion, administrator, coachman) is
  refused. When the bound is above 0 the hand may still be empty; the players keep that rule.
- There are three cards of each city: a lay whose city already lies in three routes is a mistaken tag.
- A route of one card has a single end: `side` may be omitted and the card goes to the right.
- A closing may place any subset of the allowed houses, including none: the rule says "may" ("il
  peut poser"), and a player with fewer houses left than the choice needs places as many as remain,
  choosing which. `house_sets` lists every largest choice; every legal placement is a subset of one.
- The coachman counts for the carriage only: the rule gives his help under "Récupérer de nouvelles
  calèches", so the route-length tiles still go by the cards laid.
- Carriages: each value exists four times, so with at most four players the next carriage is always
  there; the engine does not count copies.
- Before the game ends the scores are "if the game ended now" (unplaced houses already count
  against), and `winners()` without a game-end tile holder returns every tied leader.
"""

from dataclasses import dataclass, field
from itertools import combinations, product

from engines.core import Game, IllegalAction, Prompt, Score, State, check, clockwise_from, leaders

from .board import GAME_END, ROUTE_STACKS, board

OFFICIALS = ("postmaster", "administrator")
SIDES = ("left", "right")
#: "il défausse ... et doit réduire son nombre de cartes en main à 3"
HAND_LIMIT = 3


@dataclass(kw_only=True)
class TnTState(State):
    turn: int = 0
    #: per seat, the route being built, left to right, as (card id, city) pairs
    routes: list[list[tuple[str, str]]] = field(default_factory=list)
    houses: list[set[str]] = field(default_factory=list)
    #: per seat, the best carriage taken (0: none yet)
    carriage: list[int] = field(default_factory=list)
    #: per seat, bonus tiles taken as (stack id, value)
    tiles: list[list[tuple[str, int]]] = field(default_factory=list)
    #: bonus stacks still on the board, top value first
    stacks: dict[str, list[int]] = field(default_factory=dict)
    turns_done: list[int] = field(default_factory=list)
    #: per seat, the most cards its hand can hold at the start of its next turn (0: surely empty)
    hand_most: list[int] = field(default_factory=list)
    # the turn in progress
    lays: int = 0
    discarded: bool = False
    official: str | None = None
    official_recorded: bool = False
    closed: bool = False
    # the end
    end_holder: int | None = None
    over: bool = False


class ThurnUndTaxis(Game):
    name = "thurn_und_taxis"
    title = "Thurn und Taxis"
    min_players = 2
    max_players = 4

    def setup(self, players, options):
        n = len(players)
        state = TnTState(
            players=players,
            options=options,
            routes=[[] for _ in range(n)],
            houses=[set() for _ in range(n)],
            carriage=[0] * n,
            tiles=[[] for _ in range(n)],
            stacks={stack: list(values) for stack, values in board().stacks.items()},
            turns_done=[0] * n,
            hand_most=[0] * n,
        )
        self._begin_turn(state, 0)
        return state

    # -- actions ---------------------------------------------------------------------------------

    def do_official(self, s: TnTState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "official"))
        official = check.one_of(check.field(a, "official", str), OFFICIALS, "official")
        if s.lays or s.discarded:
            raise IllegalAction(
                "Officials: before laying",
                f"the {official} helps in the draw, which comes before laying a card or discarding the route: "
                "a turn draws, then lays, then may close, in that order",
            )
        if self._hand_empty(s, p):
            if official != "postmaster":
                raise IllegalAction("Empty hand: postmaster", self._empty_hand_rule(s, p))
            if s.official_recorded:
                raise IllegalAction("Postmaster noted already", "the postmaster is already recorded this turn")
        elif s.official is not None:
            raise IllegalAction("One official per turn", f"the {s.official} already helps {s.players[p]} this turn")
        s.official = official
        s.official_recorded = True
        s.announce(f"{s.short_name(p)}: {official}")

    def do_lay(self, s: TnTState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "card", "side"))
        card_id, city = self._card(a)
        side = check.field(a, "side", str, optional=True)
        if side is not None:
            check.one_of(side, SIDES, "side")
        if s.closed:
            raise IllegalAction("Route closed this turn", "a closed route ends the laying for this turn")
        if s.lays >= 2:
            raise IllegalAction("Two cards laid already", "at most two cards a turn (the second with the postillion)")
        if s.lays == 1:
            if self._hand_empty(s, p):
                raise IllegalAction("Empty hand: one card only", f"{self._empty_hand_rule(s, p)}: no postillion")
            if s.official is not None:
                raise IllegalAction("One official per turn", f"a second card needs the postillion; the {s.official} already helps")
        for seat, route in enumerate(s.routes):
            if any(card_id == laid for laid, _ in route):
                raise IllegalAction(f"Card in {s.short_name(seat)}'s route", f"card {card_id!r} already lies in {s.players[seat]}'s route")
        self._check_copies(s, card_id, city)
        route = s.routes[p]
        if not route:
            route.append((card_id, city))
        else:
            route.insert(0 if self._side(s, route, city, side) == "left" else len(route), (card_id, city))
        if s.lays == 1:
            s.official = "postillion"
        s.lays += 1
        s.announce(f"{s.short_name(p)}: {board().city_name[city]}")

    def do_discard_route(self, s: TnTState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player",))
        if s.lays:
            raise IllegalAction("Discard before laying", "a route is discarded before the turn's first card")
        if not s.routes[p]:
            raise IllegalAction("No route to discard", f"{s.players[p]} has no route in front of them")
        s.routes[p] = []
        s.discarded = True
        s.announce(f"{s.short_name(p)}: route discarded")

    def do_close(self, s: TnTState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "houses", "coachman"))
        houses = check.list_of(a, "houses", str)
        coachman = check.field(a, "coachman", bool, optional=True, default=False)
        route = s.routes[p]
        if not s.lays:
            raise IllegalAction("Lay a card first", "a route is closed after laying this turn's card")
        if len(route) < 3:
            raise IllegalAction("Route needs 3 cards", f"a route closes with at least 3 cards; it has {len(route)}")
        if coachman and self._hand_empty(s, p):
            raise IllegalAction("Empty hand: no coachman", f"{self._empty_hand_rule(s, p)}: no coachman")
        if coachman and s.official is not None:
            raise IllegalAction("One official per turn", f"the coachman cannot help: the {s.official} already did")
        self._check_houses(s, p, houses)
        s.houses[p].update(houses)
        if coachman:
            s.official = "coachman"
        name, length = s.short_name(p), len(route)
        s.announce(f"{name}: {len(houses)} house{'s' * (len(houses) != 1)}")
        self._take_route_tile(s, p, length)
        self._take_region_tiles(s, p)
        took_seven = self._take_carriage(s, p, length + (2 if coachman else 0))
        if s.end_holder is None and (took_seven or len(s.houses[p]) == board().houses_per_player):
            s.end_holder = p
            s.tiles[p].append((GAME_END, s.stacks[GAME_END].pop(0)))
            s.announce("Last round!")
        s.routes[p] = []
        s.closed = True

    def do_end_turn(self, s: TnTState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player",))
        if not s.lays:
            raise IllegalAction("Lay a card first", "every turn lays at least one card")
        s.turns_done[p] += 1
        drawn = 1 if s.official not in (None, "postmaster") else 2
        s.hand_most[p] += drawn - s.lays
        if s.closed:
            s.hand_most[p] = min(s.hand_most[p], HAND_LIMIT)
        if s.end_holder is not None and p == s.n_players - 1:
            s.over = True
            s.announce("Game over")
            return
        self._begin_turn(s, (p + 1) % s.n_players)

    # -- queries ---------------------------------------------------------------------------------

    def scores(self, s: TnTState) -> list[Score]:
        b = board()
        result = []
        for seat, name in enumerate(s.players):
            tiles = s.tiles[seat]
            route = sum(v for stack, v in tiles if stack.startswith("route_"))
            end = sum(v for stack, v in tiles if stack == GAME_END)
            breakdown = {
                "carriage": b.carriage_points.get(s.carriage[seat], 0),
                "route": route,
                "regions": sum(v for _, v in tiles) - route - end,
                "end": end,
                "unplaced_houses": -(b.houses_per_player - len(s.houses[seat])),
            }
            result.append(Score(name, sum(breakdown.values()), breakdown))
        return result

    def winners(self, s: TnTState) -> list[int]:
        """The one winner: among the tied leaders, the game-end tile holder, else the first clockwise from it."""
        best = leaders({seat: score.total for seat, score in enumerate(self.scores(s))})
        if len(best) == 1 or s.end_holder is None:
            return best
        return [next(seat for seat in clockwise_from(s.end_holder, s.n_players) if seat in best)]

    def is_over(self, s: TnTState) -> bool:
        return s.over

    def phase(self, s: TnTState) -> str:
        round_ = s.turns_done[s.turn] + 1
        if s.over:
            return "Game over"
        return f"Last round ({round_})" if s.end_holder is not None else f"Round {round_}"

    def prompt(self, s: TnTState) -> Prompt | None:
        if s.over:
            return None
        p, route = s.turn, s.routes[s.turn]
        expects: list[str] = []
        options: dict[str, tuple] = {}
        if not s.closed and (s.lays == 0 or (s.lays == 1 and s.official is None)):
            expects.append("lay")
            if route:
                options["left"] = self.fitting(route, "left")
                options["right"] = self.fitting(route, "right")
        if s.lays == 0 and route:
            expects.append("discard_route")
        if s.lays and not s.closed and len(route) >= 3:
            expects.append("close")
            options["cities"] = self._eligible(s, p)
            options["house_sets"] = self.house_sets(s, p)
            options["coachman"] = (False, True) if s.official is None else (False,)
        if s.lays:
            expects.append("end_turn")
        official = self._officials_allowed(s, p)
        if official:
            expects.append("official")
            options["official"] = official
        text = "lay a card" if not s.lays else ("close or end" if "close" in expects else "end turn")
        return Prompt(player=p, expects=tuple(expects), options=options, text=f"{s.short_name(p)}: {text}")

    def fitting(self, route: list[tuple[str, str]], side: str) -> tuple[str, ...]:
        """The cities that fit at `side` of `route`: joined by a road to that end, not yet in the route."""
        end = route[0][1] if side == "left" else route[-1][1]
        in_route = {city for _, city in route}
        return tuple(sorted(board().neighbours[end] - in_route))

    def house_sets(self, s: TnTState, p: int) -> tuple[tuple[str, ...], ...]:
        """Every largest legal house placement for closing p's route now, most houses first, then none.

        The two ways of rules/002 on the route's cities where p has no house yet: every such city of
        one region, or one such city in each region; with fewer houses left than that, every choice
        of as many as p has. Every subset of a listed set is legal, and every legal placement is a
        subset of a listed one. Nothing is cut off, however long the route.
        """
        by_region: dict[str, list[str]] = {}
        for city in self._eligible(s, p):
            by_region.setdefault(board().region_of[city], []).append(city)
        supply = board().houses_per_player - len(s.houses[p])
        sets = {chosen for cities in by_region.values() for chosen in combinations(cities, min(supply, len(cities)))}
        for regions in combinations(by_region.values(), min(supply, len(by_region))):
            sets.update(product(*regions))
        sets.discard(())
        if any(len(houses) > 1 for houses in sets):  # then each single city lies in a larger set
            sets = {houses for houses in sets if len(houses) > 1}
        return tuple(sorted(sets, key=lambda houses: (-len(houses), houses))) + ((),)

    # -- rules helpers ---------------------------------------------------------------------------

    def _begin_turn(self, s: TnTState, seat: int) -> None:
        s.turn = seat
        s.lays = 0
        s.closed = False
        s.discarded = False
        s.official_recorded = False
        s.official = "postmaster" if self._hand_empty(s, seat) else None

    @staticmethod
    def _hand_empty(s: TnTState, seat: int) -> bool:
        """Whether seat's hand is surely empty at the start of its turn (the postmaster is then compulsory)."""
        return s.hand_most[seat] == 0

    @staticmethod
    def _empty_hand_rule(s: TnTState, seat: int) -> str:
        why = "on a first turn" if s.turns_done[seat] == 0 else "after laying every card drawn"
        return f"{s.players[seat]} began this turn with no card in hand ({why}): the postmaster is compulsory and no other official helps"

    def _officials_allowed(self, s: TnTState, p: int) -> tuple[str, ...]:
        if s.lays or s.discarded:
            return ()
        if self._hand_empty(s, p):
            return () if s.official_recorded else ("postmaster",)
        return OFFICIALS if s.official is None else ()

    @staticmethod
    def _card(a: dict) -> tuple[str, str]:
        card = check.field(a, "card", dict)
        card_id = check.field(card, "id", str, what="card")
        city = check.one_of(check.field(card, "city", str, what="card"), board().cities, "city")
        return card_id, city

    def _side(self, s: TnTState, route: list[tuple[str, str]], city: str, side: str | None) -> str:
        name = board().city_name[city]
        if any(city == laid for _, laid in route):
            raise IllegalAction(f"{name} is in the route", f"{name} is already in the route: no city twice")
        fits = [end for end in SIDES if city in self.fitting(route, end)]
        if not fits:
            ends = " or ".join(dict.fromkeys(board().city_name[c] for c in (route[0][1], route[-1][1])))
            raise IllegalAction(f"{name} does not fit", f"no road joins {name} to {ends} at the ends of the route")
        if side is None:
            if len(fits) == 2 and len(route) > 1:
                raise IllegalAction(f"{name}: left or right?", f"{name} fits at both ends: say which side")
            return fits[-1]
        if side not in fits:
            raise IllegalAction(f"{name} doesn't fit {side}", f"no road joins {name} to the {side} end of the route")
        return side

    @staticmethod
    def _check_copies(s: TnTState, card_id: str, city: str) -> None:
        """Refuse a card of a city whose every copy already lies in a route: a mistaken tag."""
        b = board()
        holders = [s.players[seat] for seat, route in enumerate(s.routes) if any(city == laid for _, laid in route)]
        if len(holders) >= b.copies_per_city:
            name = b.city_name[city]
            raise IllegalAction(
                f"{name}: only {b.copies_per_city} cards exist",
                f"the {b.copies_per_city} {name} cards all lie in routes ({', '.join(holders)}): card {card_id!r} "
                "cannot be one more; check how its tag is enrolled",
            )

    def _eligible(self, s: TnTState, p: int) -> tuple[str, ...]:
        """Route cities where p has no house yet, in route order."""
        return tuple(city for _, city in s.routes[p] if city not in s.houses[p])

    def _check_houses(self, s: TnTState, p: int, houses: list[str]) -> None:
        b = board()
        if len(set(houses)) != len(houses):
            raise IllegalAction("A city named twice", "one house per city: a city appears twice")
        route_cities = {city for _, city in s.routes[p]}
        for city in houses:
            name = b.city_name.get(city, city)
            if city not in route_cities:
                raise IllegalAction(f"{name} not on route", f"houses go on cities of the closed route; {city!r} is not one")
            if city in s.houses[p]:
                raise IllegalAction(f"House in {name} already", f"{s.players[p]} already has a house in {name}")
        supply = b.houses_per_player - len(s.houses[p])
        if len(houses) > supply:
            left = f"{supply} house{'s' * (supply != 1)} left"
            raise IllegalAction(f"Only {left}", f"{s.players[p]} has {left}, not {len(houses)}")
        regions = {b.region_of[city] for city in houses}
        if len(regions) not in (1, len(houses)) and houses:
            raise IllegalAction("One per region or 1 region", "houses go one per region of the route, or all in one region")

    def _take(self, s: TnTState, p: int, stack: str) -> int:
        value = s.stacks[stack].pop(0)
        s.tiles[p].append((stack, value))
        s.announce(f"{s.short_name(p)}: {board().stack_label[stack]} {value}")
        return value

    def _take_route_tile(self, s: TnTState, p: int, length: int) -> None:
        for needed, stack in ROUTE_STACKS:
            if length >= needed and s.stacks[stack]:
                self._take(s, p, stack)
                return

    def _take_region_tiles(self, s: TnTState, p: int) -> None:
        b = board()
        held = {stack for stack, _ in s.tiles[p]}
        for bonus in b.region_bonuses:
            if bonus.id not in held and s.stacks[bonus.id] and bonus.qualifies(s.houses[p], b.region_of):
                self._take(s, p, bonus.id)

    def _take_carriage(self, s: TnTState, p: int, counted_length: int) -> bool:
        """Take the next carriage if the route is long enough; True when it was the 7."""
        current = s.carriage[p]
        wanted = 3 if current == 0 else current + 1
        if wanted > 7 or counted_length < wanted:
            return False
        s.carriage[p] = wanted
        s.announce(f"{s.short_name(p)}: carriage {wanted}")
        return wanted == 7


game = ThurnUndTaxis()
