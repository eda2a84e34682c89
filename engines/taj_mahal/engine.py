"""Taj Mahal (Reiner Knizia, 2000): twelve rounds of card play, majorities resolved at withdraw, palaces.

Rules: rules/000 (French, full) and rules/003 (Japanese summary: which special card each pair of tokens
buys); vocabulary and actions: design/game-log.md section 2. The engine records what is played, won,
placed and declared; dealing, the face-up reserve and drawing are the table's business.

Choices where the contract is silent, as a player at the table expects them:
- A `withdraw` resolves everything the player won at once and announces it ("Ben: vizier, crown,
  province"); the owed `palace`/`crown` placements follow in any order, then (without a board) `chain`.
- Points are scored in the rule's order, each tile counting once it is scored: a bonus tile scores the
  moment its palace is placed ("marque immédiatement"), the province tile and the palaces when the
  placements are done. So a goods bonus tile counts the tiles held before and the bonus tiles taken just
  before it, not the province tile won in the same withdrawal, which in turn counts them all.
- An ordinary palace goes on a city without one; a city holding only another player's crowned palace
  counts as free, one holding the player's own does not (rules/000: "un palais ordinaire pourra
  également y être placé ... par un autre joueur"). So that an owed palace always has a city, a crown
  that would leave fewer free cities than the palaces still owed is refused: place the palaces first.
- The colour of a round is fixed by the player's first coloured card, even when that play came with the
  colour-change card; the colour-change card may be played even when the colour matches.
- Withdrawn players' cards and specials leave the table at once: the symbols no longer count and a card
  id may come back later in the round (the discard pile is reshuffled when the draw pile runs out).
- The 24 influence tokens never run short: after each round's exchange nobody holds two of a kind, so at
  most five of each are held and the sixth is there for the court.
- Without a board, provinces and cities are free labels (a label is never visited twice, a province holds
  at most 4 cities, Agra 5), the Taj Mahal can only be taken in round 12 and at most 15 other bonus tiles
  in the game; `chain` is bounded by the provinces where the player has palaces.
- Final hands may be declared in any seat order; the game is over once all are declared.

Prompt options, for the table's chooser: `province` (with a board: the provinces the visit may open),
`specials` (the special cards the player may add to a play), `palace` (with a board: the cities the
owed palace may take, fortresses with their bonus tile first, then those next to the player's palaces),
`bonus` (which of those still hold a bonus tile: tap it), `crown` (with a board: the cities the crown
may take), `provinces` (without a board: the chain counts allowed), `player` (the seats yet to declare
their hands).
"""

from dataclasses import dataclass, field

from engines.core import Game, IllegalAction, Prompt, Score, State, check, clockwise_from

from .board import AGRA, REAL_AGRA_CITIES, REAL_FORTRESSES, REAL_PROVINCE_CITIES, Board, board_for, board_from_option
from .components import (
    INFLUENCE,
    ROUNDS,
    SPECIAL_FOR_TOKEN,
    SPECIAL_LABEL,
    SPECIALS,
    WHITE,
    Card,
    Special,
    read_bonus_tile,
    read_card,
    read_item,
    read_province_tile,
)

CROWN, PROVINCE = "crown", "province"
BREAKDOWN = ("palaces", "bonus", "province", "special", "hand")
BONUS_POINTS = {"points": 2, "card": 0, "taj": 4}
#: ordinary and crowned palace slots of a city in `TajState.palaces`
ORDINARY, CROWNED = 0, 1


@dataclass(kw_only=True)
class TajState(State):
    #: the last round opened (0 before the first visit)
    round: int = 0
    #: the province of the round in progress; None between rounds
    province: str | None = None
    #: the round's province tile as (number, goods)
    tile: tuple | None = None
    #: what the court still offers this round: influence symbols, "crown", "province"
    court: list[str] = field(default_factory=list)
    visited: list[str] = field(default_factory=list)
    #: the seat to play or withdraw
    turn: int | None = None
    in_round: list[bool] = field(default_factory=list)
    colour: list[str | None] = field(default_factory=list)
    #: per seat, ids of the cards (and special cards) on the table
    table: list[list[str]] = field(default_factory=list)
    #: per seat, symbols on the table (played specials included)
    counts: list[dict[str, int]] = field(default_factory=list)
    #: per seat, special cards on the table
    specials_out: list[list[str]] = field(default_factory=list)
    #: special card -> the seat holding it (None: still beside the board)
    holder: dict[str, int | None] = field(default_factory=dict)
    tokens: list[dict[str, int]] = field(default_factory=list)
    #: per seat, goods on the province and bonus tiles held
    goods: list[dict[str, int]] = field(default_factory=list)
    #: per seat, tiles won: ("province", number, goods) and ("bonus", kind, good)
    tiles: list[list[tuple]] = field(default_factory=list)
    #: province -> city -> [ordinary palace's seat, crowned palace's seat] (None: none)
    palaces: dict[str, dict[str, list]] = field(default_factory=dict)
    points: list[dict[str, int]] = field(default_factory=list)
    bonus_taken: int = 0
    taj_taken: bool = False
    # the withdrawal being resolved
    placer: int | None = None
    owed_palaces: int = 0
    owed_crown: bool = False
    placed: bool = False
    won_tile: tuple | None = None
    # the end
    hands: list[int | None] = field(default_factory=list)
    hand_ids: set[str] = field(default_factory=set)


class TajMahal(Game):
    name = "taj_mahal"
    title = "Taj Mahal"
    min_players = 3
    max_players = 5
    option_defaults = {"board": None}

    def setup(self, players, options):
        board_from_option(options["board"])  # a bad board is refused now, naming the bad entry
        n = len(players)
        return TajState(
            players=players,
            options=options,
            in_round=[False] * n,
            colour=[None] * n,
            table=[[] for _ in range(n)],
            counts=[{} for _ in range(n)],
            specials_out=[[] for _ in range(n)],
            holder={special: None for special in SPECIALS},
            tokens=[{} for _ in range(n)],
            goods=[{} for _ in range(n)],
            tiles=[[] for _ in range(n)],
            points=[dict.fromkeys(BREAKDOWN, 0) for _ in range(n)],
            hands=[None] * n,
        )

    def board(self, s: TajState) -> Board | None:
        return board_for(s.options)

    # -- actions ---------------------------------------------------------------------------------

    def do_visit(self, s: TajState, a: dict) -> None:
        check.no_extra_keys(a, ("province", "tile"))
        province = check.field(a, "province", str)
        tile = read_province_tile(check.field(a, "tile", dict))
        if s.province is not None:
            raise IllegalAction(f"Round {s.round} is on", f"round {s.round} in {s.province!r} is not over yet")
        if s.round == ROUNDS:
            raise IllegalAction("All 12 rounds played", "the twelve provinces have been visited: declare the hands")
        k = s.round + 1
        if tile.number != k:
            raise IllegalAction(f"Round {k}: tile {k}", f"round {k} visits the province with tile {k}, not tile {tile.number}")
        if not province.strip():
            raise IllegalAction("Province: empty name", "the province needs a name")
        if province in s.visited:
            raise IllegalAction(
                f"{province[:20]} visited", f"province {province!r} was visited in round {s.visited.index(province) + 1}"
            )
        board = self.board(s)
        if board is not None:
            if province not in board.cities_of:
                raise IllegalAction(
                    f"No province {province[:18]!r}", f"the board has no province {province!r}: {', '.join(board.provinces)}"
                )
            if province == AGRA and k != ROUNDS:  # round 12 finds Agra the only province left
                raise IllegalAction("Agra is the 12th", f"Agra carries tile 12: it is visited in round {ROUNDS}, last")
        s.round, s.province, s.tile = k, province, tuple(tile)
        s.visited.append(province)
        s.court = [*INFLUENCE, CROWN, PROVINCE]
        s.palaces[province] = {}
        s.in_round = [True] * s.n_players
        s.colour = [None] * s.n_players
        s.turn = (k - 1) % s.n_players
        s.announce(f"Round {k}: {province}")

    def do_play(self, s: TajState, a: dict) -> None:
        p = self.check_turn(s, a, self._to_move(s))
        check.no_extra_keys(a, ("player", "cards"))
        items = [read_item(desc) for desc in check.list_of(a, "cards", dict)]
        if not 1 <= len(items) <= 2:
            raise IllegalAction(
                "Play 1 or 2 cards", f"a play is one coloured card, then maybe a white or special card: {len(items)} given"
            )
        first, second = items[0], items[1] if len(items) == 2 else None
        if not isinstance(first, Card) or first.color == WHITE:
            raise IllegalAction("Coloured card first", "a play begins with one coloured card (red, yellow, green or purple)")
        if isinstance(second, Card) and second.color != WHITE:
            raise IllegalAction(
                "One coloured card a turn", "the second card is a white card or a special card, not a coloured one"
            )
        if isinstance(second, Special):
            self._check_special(s, p, second.special)
        self._check_ids(s, items)
        colour = s.colour[p]
        change = isinstance(second, Special) and second.special == "color_change"
        if colour is not None and first.color != colour and not change:
            raise IllegalAction(
                f"Play {colour}: you began in {colour}",
                f"{s.players[p]} began this round in {colour}; only the colour-change card allows {first.color}",
            )
        if colour is None:
            s.colour[p] = first.color
        counts = s.counts[p]
        for item in items:
            s.table[p].append(item.id)
            for symbol in _symbols(item):
                counts[symbol] = counts.get(symbol, 0) + 1
        s.announce(f"{s.short_name(p)}: {' + '.join(_label(item) for item in items)}")
        if isinstance(second, Special):
            s.specials_out[p].append(second.special)
            if second.special == "points":
                s.points[p]["special"] += 2
        s.turn = self._next_in_round(s, p)

    def do_withdraw(self, s: TajState, a: dict) -> None:
        p = self.check_turn(s, a, self._to_move(s))
        check.no_extra_keys(a, ("player",))
        name = s.short_name(p)
        s.in_round[p] = False
        if not s.table[p]:
            s.announce(f"{name}: out, no card")
            self._next_turn(s, p)
            return
        won = self.would_win(s, p)
        s.table[p], s.counts[p], s.specials_out[p] = [], {}, []
        for what in won:
            s.court.remove(what)
            if what in INFLUENCE:
                s.tokens[p][what] = s.tokens[p].get(what, 0) + 1
                s.owed_palaces += 1
        s.owed_crown = CROWN in won
        s.won_tile = s.tile if PROVINCE in won else None
        s.announce(f"{name}: {', '.join(won) or 'nothing'}")
        s.placer, s.placed = p, False
        self._after_placement(s, p)

    def do_palace(self, s: TajState, a: dict) -> None:
        p = self._check_placer(s, a, "palace")
        check.no_extra_keys(a, ("player", "city", "bonus"))
        city = self._city(s, a)
        desc = check.field(a, "bonus", dict, optional=True)
        bonus = read_bonus_tile(desc) if desc is not None else None
        if not s.owed_palaces:
            raise IllegalAction("No palace owed", f"{s.players[p]} owes no ordinary palace")
        here = s.palaces[s.province].get(city, [None, None])
        if here[ORDINARY] is not None:
            raise IllegalAction(f"Palace in {city[:12]} already", f"{city!r} already holds {s.players[here[ORDINARY]]}'s palace")
        if here[CROWNED] == p:
            raise IllegalAction(
                f"Your crown is in {city[:10]}",
                f"{city!r} holds {s.players[p]}'s crowned palace: an ordinary palace goes elsewhere",
            )
        self._check_bonus(s, city, bonus)
        s.palaces[s.province].setdefault(city, [None, None])[ORDINARY] = p
        s.owed_palaces -= 1
        s.placed = True
        s.announce(f"{s.short_name(p)}: palace {city}")
        if bonus is not None:
            self._take_bonus(s, p, bonus)
        self._after_placement(s, p)

    def do_crown(self, s: TajState, a: dict) -> None:
        p = self._check_placer(s, a, "crown")
        check.no_extra_keys(a, ("player", "city"))
        city = self._city(s, a)
        if not s.owed_crown:
            raise IllegalAction("No crown owed", f"{s.players[p]} did not win the crown")
        if self._crown_blocked(s, p, city):
            raise IllegalAction(
                "Place the palace first" if s.owed_palaces == 1 else "Place the palaces first",
                f"the crown on {city!r} would leave too few free cities for the {s.owed_palaces} palace(s) still owed",
            )
        s.palaces[s.province].setdefault(city, [None, None])[CROWNED] = p
        s.owed_crown = False
        s.placed = True
        s.announce(f"{s.short_name(p)}: crown {city}")
        self._after_placement(s, p)

    def do_chain(self, s: TajState, a: dict) -> None:
        p = self._check_placer(s, a, "chain")
        check.no_extra_keys(a, ("player", "provinces"))
        n = check.field(a, "provinces", int)
        if not self._chain_due(s):
            why = "the board counts chains itself" if self.board(s) is not None else "the placements are not done"
            raise IllegalAction("No chain to enter now", f"no chain count is expected now: {why}")
        most = self._chain_max(s, p)
        if not 0 <= n <= most:
            raise IllegalAction(
                f"Chain: 0 to {most}", f"{s.players[p]} has palaces in {most} other provinces: the chain reaches 0 to {most}"
            )
        self._finish(s, p, n)

    def do_hand(self, s: TajState, a: dict) -> None:
        p = check.seat(a, s.n_players)
        check.no_extra_keys(a, ("player", "cards"))
        cards = [read_card(desc) for desc in check.list_of(a, "cards", dict)]
        if not self._hands_due(s):
            raise IllegalAction("Hands after round 12", "the cards left in hand are declared after the twelfth round")
        if s.hands[p] is not None:
            raise IllegalAction(f"{s.short_name(p)}: hand declared", f"{s.players[p]} has declared a hand already")
        ids = [card.id for card in cards]
        twice = next((i for i in ids if ids.count(i) > 1 or i in s.hand_ids), None)
        if twice is not None:
            raise IllegalAction(f"Card {twice[:14]!r} twice", f"card {twice!r} is declared twice")
        by_colour: dict[str, int] = {}
        for card in cards:
            by_colour[card.color] = by_colour.get(card.color, 0) + 1
        whites = by_colour.pop(WHITE, 0)
        specials = sum(1 for seat in s.holder.values() if seat == p)
        points = specials + whites + max(by_colour.values(), default=0)
        s.hands[p] = points
        s.hand_ids.update(ids)
        s.points[p]["hand"] = points
        s.announce(f"{s.short_name(p)}: hand +{points}")
        if self.is_over(s):
            s.announce("Game over")

    # -- queries ---------------------------------------------------------------------------------

    def scores(self, s: TajState) -> list[Score]:
        return [Score(name, sum(points.values()), dict(points)) for name, points in zip(s.players, s.points)]

    def is_over(self, s: TajState) -> bool:
        return self._hands_due(s) and all(points is not None for points in s.hands)

    def phase(self, s: TajState) -> str:
        if self.is_over(s):
            return "Game over"
        if self._hands_due(s):
            return "Final hands"
        return f"Round {s.round if s.province is not None else s.round + 1}/{ROUNDS}"

    def prompt(self, s: TajState) -> Prompt | None:
        if self.is_over(s):
            return None
        if self._hands_due(s):
            waiting = tuple(seat for seat, points in enumerate(s.hands) if points is None)
            return Prompt(None, ("hand",), {"player": waiting}, "Declare hands")
        if s.province is None:
            return Prompt(None, ("visit",), self._visit_options(s), f"Round {s.round + 1}: visit")
        if s.placer is not None:
            return self._placement_prompt(s, s.placer)
        p = s.turn
        playable = tuple(kind for kind in SPECIALS if s.holder[kind] == p and kind not in s.specials_out[p])
        return Prompt(p, ("play", "withdraw"), {"specials": playable}, f"{s.short_name(p)}: play or out")

    def free_cities(self, s: TajState) -> tuple[str, ...]:
        """With a board, the cities of the round's province the placer's ordinary palace may take, likeliest
        first: fortresses (a bonus tile waits there), then cities next to the placer's palaces, then the rest."""
        board = self.board(s)
        if board is None or s.placer is None:
            return ()
        free = [city for city in board.cities_of[s.province] if self._free_for(s, s.placer, city)]
        return tuple(sorted(free, key=lambda city: (city not in board.fortresses, not self._near_own(s, board, city))))

    def crown_cities(self, s: TajState) -> tuple[str, ...]:
        """With a board, the cities where the placer's crown may go, those next to the placer's palaces first."""
        board = self.board(s)
        if board is None or s.placer is None:
            return ()
        cities = [city for city in board.cities_of[s.province] if not self._crown_blocked(s, s.placer, city)]
        return tuple(sorted(cities, key=lambda city: not self._near_own(s, board, city)))

    # -- rules helpers ---------------------------------------------------------------------------

    def _to_move(self, s: TajState) -> int | None:
        """The seat that may play or withdraw now (None between rounds or while a withdrawal is resolved)."""
        return s.turn if s.province is not None and s.placer is None else None

    def _hands_due(self, s: TajState) -> bool:
        return s.round == ROUNDS and s.province is None

    @staticmethod
    def _check_ids(s: TajState, items: list) -> None:
        ids = [item.id for item in items]
        if len(set(ids)) != len(ids):
            raise IllegalAction("Same card twice", f"card {ids[0]!r} appears twice in one play")
        for seat, laid in enumerate(s.table):
            for ident in ids:
                if ident in laid:
                    raise IllegalAction(
                        f"Card on {s.short_name(seat)}'s table",
                        f"card {ident!r} is already on the table, played by {s.players[seat]}",
                    )

    @staticmethod
    def _check_special(s: TajState, p: int, kind: str) -> None:
        label = SPECIAL_LABEL[kind]
        if s.holder[kind] != p:
            holder = "nobody" if s.holder[kind] is None else s.players[s.holder[kind]]
            raise IllegalAction(f"Not your {label} card", f"the {label} card is held by {holder}, not {s.players[p]}")
        if kind in s.specials_out[p]:
            raise IllegalAction(f"{label.capitalize()} is out", f"the {label} card is already on the table this round")

    def would_win(self, s: TajState, p: int) -> list[str]:
        """What seat p would take from the court by withdrawing now: influence symbols, "crown",
        "province" (the majorities `withdraw` resolves; a seat out of the round has no cards and wins nothing)."""
        return [what for what in s.court if self._wins(s, p, what)]

    def _wins(self, s: TajState, p: int, what: str) -> bool:
        """Whether p has at least one of `what`'s symbol and strictly more than every other seat still in the
        round (the seats that withdrew have no cards left on the table)."""
        symbol = {CROWN: "mogul", PROVINCE: "elephant"}.get(what, what)
        mine = s.counts[p].get(symbol, 0)
        return mine > 0 and all(s.counts[q].get(symbol, 0) < mine for q in range(s.n_players) if q != p)

    def _next_in_round(self, s: TajState, p: int) -> int | None:
        """The next seat clockwise after p still in the round (p itself when alone); None when nobody is left."""
        return next((q for q in clockwise_from(p + 1, s.n_players) if s.in_round[q]), None)

    def _check_placer(self, s: TajState, a: dict, kind: str) -> int:
        p = check.seat(a, s.n_players)
        if s.placer is None:
            raise IllegalAction(f"No {kind} expected now", f"{kind!r} follows a withdrawal that won something")
        if p != s.placer:
            raise IllegalAction(
                f"{s.short_name(s.placer)} is placing", f"{s.players[s.placer]} is placing after withdrawing, not {s.players[p]}"
            )
        return p

    def _city(self, s: TajState, a: dict) -> str:
        city = check.field(a, "city", str)
        board = self.board(s)
        if board is not None:
            if city not in board.cities_of[s.province]:
                raise IllegalAction(
                    f"{city[:14]} not in {s.province[:12]}",
                    f"city {city!r} is not in province {s.province!r}: {', '.join(board.cities_of[s.province])}",
                )
            return city
        if not city.strip():
            raise IllegalAction("City: empty name", "the city needs a name")
        here = s.palaces[s.province]
        most = self._cities_without_board(s)
        if city not in here and len(here) >= most:
            raise IllegalAction(
                f"Only {most} cities here", f"this province has {most} cities and palaces are in {', '.join(here)} already"
            )
        return city

    def _free_for(self, s: TajState, p: int, city: str) -> bool:
        """Whether p's ordinary palace may go on `city` of the round's province."""
        ordinary, crowned = s.palaces[s.province].get(city, (None, None))
        return ordinary is None and crowned != p

    def _free_count(self, s: TajState, p: int) -> int:
        """How many cities of the round's province p's ordinary palace may take (unnamed ones too, without a board)."""
        board = self.board(s)
        here = s.palaces[s.province]
        if board is not None:
            return sum(self._free_for(s, p, city) for city in board.cities_of[s.province])
        return self._cities_without_board(s) - len(here) + sum(self._free_for(s, p, city) for city in here)

    @staticmethod
    def _cities_without_board(s: TajState) -> int:
        """How many cities the round's province has, by the rules (Agra 5, the others 4)."""
        return REAL_AGRA_CITIES if s.round == ROUNDS else REAL_PROVINCE_CITIES

    def _tight(self, s: TajState, p: int) -> bool:
        """Whether the palaces p still owes need every city free for them."""
        return bool(s.owed_palaces) and self._free_count(s, p) <= s.owed_palaces

    def _crown_blocked(self, s: TajState, p: int, city: str) -> bool:
        """Whether p's crown on `city` would leave fewer free cities than the palaces p still owes."""
        return self._free_for(s, p, city) and self._tight(s, p)

    def _crown_now(self, s: TajState, p: int) -> bool:
        """Whether p's crown has a city now, else the palaces go first (a city that is not free holds a palace)."""
        return not self._tight(s, p) or any(not self._free_for(s, p, city) for city in s.palaces[s.province])

    def _check_bonus(self, s: TajState, city: str, bonus) -> None:
        """The bonus tile the palace takes must be there: on a fortress (still holding it, since no ordinary
        palace stood there), the Taj Mahal in Agra only, at most 15 others in the game."""
        board = self.board(s)
        fortress = city in board.fortresses if board is not None else bonus is not None
        if not fortress:
            if bonus is not None:
                raise IllegalAction(f"No bonus tile in {city[:10]}", f"{city!r} is no fortress: no bonus tile lies there")
            return
        if bonus is None:
            raise IllegalAction("Tap the bonus tile", f"{city!r} is a fortress: the palace takes its bonus tile; say which")
        if bonus.kind == "taj" and s.taj_taken:
            raise IllegalAction("Taj Mahal taken already", "there is one Taj Mahal tile and it is taken already")
        if (bonus.kind == "taj") != (s.round == ROUNDS):
            raise IllegalAction(
                "Taj Mahal: Agra's fortress",
                "the Taj Mahal lies on Agra's fortress, visited in round 12, and Agra has no other fortress",
            )
        if bonus.kind != "taj" and s.bonus_taken >= REAL_FORTRESSES - 1:
            raise IllegalAction("All 15 bonus tiles taken", "the 15 square bonus tiles are all taken already")

    def _take_bonus(self, s: TajState, p: int, bonus) -> None:
        if bonus.kind == "goods":
            s.goods[p][bonus.goods] = s.goods[p].get(bonus.goods, 0) + 1
            points = s.goods[p][bonus.goods]
        else:
            points = BONUS_POINTS[bonus.kind]
        if bonus.kind == "taj":
            s.taj_taken = True
        else:
            s.bonus_taken += 1
        s.tiles[p].append(("bonus", bonus.kind, bonus.goods))
        s.points[p]["bonus"] += points
        s.announce(f"{s.short_name(p)}: {bonus.goods or bonus.kind} +{points}")

    def _chain_due(self, s: TajState) -> bool:
        return s.placer is not None and not s.owed_palaces and not s.owed_crown and s.placed and self.board(s) is None

    def _chain_max(self, s: TajState, p: int) -> int:
        """Without a board: the other provinces where p has a palace (crowned or not)."""
        return sum(
            1
            for province, cities in s.palaces.items()
            if province != s.province and any(p in owners for owners in cities.values())
        )

    def _owned(self, s: TajState, p: int) -> set[str]:
        return {city for cities in s.palaces.values() for city, owners in cities.items() if p in owners}

    def _near_own(self, s: TajState, board: Board, city: str) -> bool:
        return s.placer is not None and bool(board.neighbours[city] & self._owned(s, s.placer))

    def _after_placement(self, s: TajState, p: int) -> None:
        """Finish the withdrawal once nothing is owed, unless the players must first count the chain."""
        if s.owed_palaces or s.owed_crown or self._chain_due(s):
            return
        board = self.board(s)
        self._finish(s, p, len(board.chain(self._owned(s, p), s.province)) if board is not None and s.placed else 0)

    def _finish(self, s: TajState, p: int, chain: int) -> None:
        """Score the province tile, then the palaces; p's withdrawal is over."""
        name = s.short_name(p)
        if s.won_tile is not None:
            number, goods = s.won_tile
            for good in goods:
                s.goods[p][good] = s.goods[p].get(good, 0) + 1
            points = sum(s.goods[p][good] for good in set(goods))
            s.tiles[p].append((PROVINCE, number, goods))
            s.points[p]["province"] += points
            s.announce(f"{name}: province +{points}")
        if s.placed:
            s.points[p]["palaces"] += 1 + chain
            s.announce(f"{name}: palaces +{1 + chain}")
        s.placer, s.won_tile, s.placed = None, None, False
        self._next_turn(s, p)

    def _next_turn(self, s: TajState, p: int) -> None:
        s.turn = self._next_in_round(s, p)
        if s.turn is None:
            self._end_round(s)

    def _end_round(self, s: TajState) -> None:
        """Everybody is out: two identical tokens buy their special card, taken from wherever it is."""
        for seat in clockwise_from((s.round - 1) % s.n_players, s.n_players):
            for token in INFLUENCE:
                if s.tokens[seat].get(token, 0) >= 2:
                    s.tokens[seat][token] -= 2
                    special = SPECIAL_FOR_TOKEN[token]
                    s.holder[special] = seat
                    s.announce(f"{s.short_name(seat)}: {SPECIAL_LABEL[special]} card")
        s.province, s.tile, s.court, s.turn = None, None, [], None
        if s.round == ROUNDS:
            s.announce("Declare your hands")

    # -- prompts ---------------------------------------------------------------------------------

    def _visit_options(self, s: TajState) -> dict:
        board = self.board(s)
        if board is None:
            return {}
        if s.round + 1 == ROUNDS:
            return {"province": (AGRA,)}
        return {"province": tuple(pid for pid in board.provinces if pid != AGRA and pid not in s.visited)}

    def _placement_prompt(self, s: TajState, p: int) -> Prompt:
        name = s.short_name(p)
        if self._chain_due(s):
            return Prompt(p, ("chain",), {"provinces": tuple(range(self._chain_max(s, p) + 1))}, f"{name}: chain?")
        expects, options, owed = [], {}, []
        board = self.board(s)
        if s.owed_palaces:
            expects.append("palace")
            owed.append(f"{s.owed_palaces} palace{'s' * (s.owed_palaces > 1)}")
            if board is not None:
                options["palace"] = self.free_cities(s)
                options["bonus"] = tuple(city for city in options["palace"] if city in board.fortresses)
        if s.owed_crown:
            owed.append("crown")
        if s.owed_crown and self._crown_now(s, p):
            expects.append("crown")
            if board is not None:
                options["crown"] = self.crown_cities(s)
        return Prompt(p, tuple(expects), options, f"{name}: {', '.join(owed)}")


def _symbols(item: Card | Special) -> tuple[str, ...]:
    """The symbols a played card adds: a card's own; +1 elephant or +1 mogul for those special cards."""
    if isinstance(item, Card):
        return item.symbols
    return (item.special,) if item.special in ("elephant", "mogul") else ()


def _label(item: Card | Special) -> str:
    return item.color if isinstance(item, Card) else SPECIAL_LABEL[item.special]


game = TajMahal()
