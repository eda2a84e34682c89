"""Maharani / Mosaic Palace (Wolfgang Panning, 2004): mosaic tiles, artisans, quarter evaluations.

Rules: rules/001 (French); vocabulary: design/game-log.md section 3. The engine records what is placed
and scores it on the board given by the `board` option (board.py). The bag and the turntable are the
table's business: the physical game is the random source, so `from_quarter` and `arrow_to_player` are
what the players see and are trusted.

Action markers are kept per board quarter. The rule ties a marker to the turntable section holding the
tile ("son marqueur d'action associé au quartier où se trouve la tuile dans le tourniquet"), but the
turntable is turned to point at the player at the start of each turn, so on a given player's turns each
section always lies over the same board quarter: that player's marker for a section is their marker for
that quarter.

Choices where the contract is silent, as a player at the table expects them:
- Not checked, because the contract has no words for them: the column orientation ("pas le droit de
  créer de demi-colonne") and the central-column tiles. Board spaces carry no column data and a tile
  descriptor no column kind, so these placement rules stay with the players.
- Checked, because the engine can see them: a tile id already on the board is refused; so is a
  seventh colour and an eleventh tile of one colour (the box holds 10 tiles in each of 6 colours), which
  catches a misread or misenrolled tag. The two tiles of one turn come from different turntable slots:
  the turntable is refilled only at the end of the turn, so a slot is empty after its tile is taken.
- `artisan` may be left out (or null) whenever the rules leave one outcome; with 3-4 players there is
  always one, and a given value must be that one. With 2 players it is required only when there is a
  real choice (see `artisan_choices`).
- The rule's "Important" case (two artisans of one player on same-colour tiles in one quarter) cannot
  arise: the engine moves artisans itself and never places a second one of a set on a colour that set
  already holds in that quarter, so the opponents' removal rule is never needed.
- `refresh` is accepted even when every marker is already up: the rule offers it without condition.
- `end_game` is accepted between turns whenever the game is not over: only the players can see that
  the tiles left cannot be placed (bag, columns), so the firmware should confirm it before sending it.
  Every quarter not yet evaluated is then evaluated, in quarter order, as at a normal evaluation.
- Scores are the gold so far; a second tile's 2 gold is taken at `end_turn` ("à la fin de son tour").
- A quarter filled by the turn's first tile is evaluated at `end_turn` ("dès que le tour du joueur en
  question s'achève"): until then its artisans stay, and the second tile's artisan may join their group.
  Quarters filled in one turn are all evaluated then, in quarter order (the order changes no gold).
- With 2 players, one artisan of each set on tiles of one colour in one quarter is the rule's own case
  ("soit d'y placer un nouvel artisan ... de sa deuxième couleur"), not the "Important" case, which is
  about two artisans of one set.
- Unknown keys in a tile descriptor are ignored (a tag map may know more about a tile than the rules need).
"""

import sys
from collections import Counter
from dataclasses import dataclass, field

from engines.core import Game, IllegalAction, Prompt, Score, State, check, next_seat

from .board import Board, board_of, resolve

#: Evaluation gold by number of artisans of one set in the quarter (index 0: none).
EVALUATION = (0, 4, 6, 9, 13, 18, 24)
#: Artisans per set, one entry per set, by number of players.
ARTISANS = {2: (7, 7), 3: (10,), 4: (8,)}
COLOURS = 6
TILES_PER_COLOUR = 10
SECOND_TILE_COST = 2
BREAKDOWN = ("tiles", "artisans", "quarters", "second_tiles")


@dataclass(kw_only=True)
class MaharaniState(State):
    #: the board's key for board.board_of (the Board itself is shared, not copied)
    board_key: str
    turn: int = 0
    turns_done: int = 0
    #: space -> colour of its tile (interned, so a state copy pickles few copies of each colour)
    tiles: dict[str, str] = field(default_factory=dict)
    tile_ids: set[str] = field(default_factory=set)
    #: space -> (seat, artisan set)
    artisans: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: per seat, artisans left in reserve per set
    reserve: list[list[int]] = field(default_factory=list)
    #: per seat, the quarters whose action marker is face down
    down: list[list[int]] = field(default_factory=list)
    #: the turntable slots (quarters) this turn's tiles came from, in order
    placed: list[int] = field(default_factory=list)
    evaluated: list[int] = field(default_factory=list)
    #: per seat, gold by BREAKDOWN key
    gold: list[dict[str, int]] = field(default_factory=list)
    over: bool = False
    stuck: bool = False


class Maharani(Game):
    name = "maharani"
    title = "Maharani"
    min_players = 2
    max_players = 4
    option_defaults = {"board": None}

    def setup(self, players, options):
        key, _ = resolve(options["board"])
        n = len(players)
        return MaharaniState(
            players=players,
            options=options,
            board_key=key,
            reserve=[list(ARTISANS[n]) for _ in range(n)],
            down=[[] for _ in range(n)],
            gold=[dict.fromkeys(BREAKDOWN, 0) for _ in range(n)],
        )

    def board(self, s: MaharaniState) -> Board:
        return board_of(s.board_key, s.options["board"])

    # -- actions ---------------------------------------------------------------------------------

    def do_place(self, s: MaharaniState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "tile", "from_quarter", "space", "arrow_to_player", "artisan"))
        b = self.board(s)
        tile_id, colour = self._tile(a)
        from_q = check.field(a, "from_quarter", int)
        space = check.field(a, "space", str)
        arrow = check.field(a, "arrow_to_player", bool)
        given = check.field(a, "artisan", dict, optional=True)
        if from_q not in b.quarters:
            raise IllegalAction(f"No quarter {from_q}", f"the board's quarters are {', '.join(map(str, b.quarters))}, not {from_q}")
        if space not in b.quarter_of:
            raise IllegalAction(f"No space {space!r}", f"the board {b.name!r} has no space {space!r}")
        if len(s.placed) >= 2:
            raise IllegalAction("Two tiles placed", "at most two tiles a turn: end the turn")
        if from_q in s.placed:
            raise IllegalAction(f"Slot Q{from_q} is empty", f"quarter {from_q}'s tile was taken this turn; its slot is refilled at the end of the turn")
        if space in s.tiles:
            raise IllegalAction(f"Space {space} is taken", f"space {space!r} already holds a {s.tiles[space]} tile")
        self._check_tile(s, tile_id, colour)
        quarter = b.quarter_of[space]
        if quarter != from_q and from_q in s.down[p]:
            raise IllegalAction(
                f"Marker Q{from_q} is down",
                f"{s.players[p]}'s action marker for quarter {from_q} is face down: its tile may only go to quarter {from_q} until a refresh",
            )
        artisan = self._artisan(s, p, quarter, colour, arrow, given)
        s.tiles[space] = colour
        s.tile_ids.add(tile_id)
        s.placed.append(from_q)
        if quarter != from_q:
            s.down[p] = sorted(s.down[p] + [from_q])
        tile_gold = self.zone(s, b, space)
        s.gold[p]["tiles"] += tile_gold
        text = f"{s.short_name(p)}: +{tile_gold} gold"
        if artisan is not None:
            art_set, origin = artisan
            if origin is None:
                s.reserve[p][art_set] -= 1
            else:
                del s.artisans[origin]
            s.artisans[space] = (p, art_set)
            group = self.group(s, b, space)
            s.gold[p]["artisans"] += group
            text += f", artisan +{group}"
        elif arrow:
            text += ", no artisan left"
        s.announce(text)

    def do_end_turn(self, s: MaharaniState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player",))
        if not s.placed:
            raise IllegalAction("Place a tile first", "a turn places one or two tiles, or refreshes the markers")
        if len(s.placed) == 2:
            s.gold[p]["second_tiles"] -= SECOND_TILE_COST
            s.announce(f"{s.short_name(p)}: 2nd tile -{SECOND_TILE_COST}")
        b = self.board(s)
        self._evaluate(s, b, [q for q in b.quarters if q not in s.evaluated and self._full(s, b, q)])
        self._next_turn(s, b)

    def do_refresh(self, s: MaharaniState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player",))
        if s.placed:
            raise IllegalAction("Tile placed: end turn", "a turn either places tiles or refreshes the markers, not both")
        s.down[p] = []
        s.announce(f"{s.short_name(p)}: markers up")
        self._next_turn(s, self.board(s))

    def do_end_game(self, s: MaharaniState, a: dict) -> None:
        check.no_extra_keys(a, ())
        if s.placed:
            raise IllegalAction("End the turn first", f"{s.players[s.turn]} has placed a tile this turn: end the turn, then end the game")
        b = self.board(s)
        s.stuck = True
        s.announce("Tiles stuck: last count")
        self._evaluate(s, b, [q for q in b.quarters if q not in s.evaluated])
        s.over = True
        s.announce("Game over")

    # -- queries ---------------------------------------------------------------------------------

    def scores(self, s: MaharaniState) -> list[Score]:
        return [Score(name, sum(s.gold[seat].values()), dict(s.gold[seat])) for seat, name in enumerate(s.players)]

    def is_over(self, s: MaharaniState) -> bool:
        return s.over

    def phase(self, s: MaharaniState) -> str:
        if s.over:
            return "Game over (stuck)" if s.stuck else "Game over"
        return f"Round {s.turns_done // s.n_players + 1}, {len(s.evaluated)}/{len(self.board(s).quarters)} done"

    def prompt(self, s: MaharaniState) -> Prompt | None:
        """Who plays and what: the slots a tile may come from, where each slot's tile may go, the empty spaces.

        Options: `from_quarter` (slots whose tile can still be placed), `reach_q<q>` (quarters a tile
        from slot q may go to, its own first), `space` and `spaces_q<q>` (empty spaces), and with
        2 players the artisan choices that are real choices: `artisan` for a colour the player has no
        artisan on in that quarter, `artisan_q<q>_<colour>` where the player has one.
        """
        if s.over:
            return None
        p, b = s.turn, self.board(s)
        empty = {q: tuple(sp for sp in b.spaces_in[q] if sp not in s.tiles) for q in b.quarters}
        reach: dict[int, tuple[int, ...]] = {}
        if len(s.placed) < 2:
            for q in b.quarters:
                if q in s.placed:
                    continue
                to = ((q,) if empty[q] else ()) + (() if q in s.down[p] else tuple(o for o in b.quarters if o != q and empty[o]))
                if to:
                    reach[q] = to
        options: dict[str, tuple] = {}
        if reach:
            options["from_quarter"] = tuple(reach)
            options.update({f"reach_q{q}": to for q, to in reach.items()})
            options["space"] = tuple(sp for q in b.quarters for sp in empty[q])
            options.update({f"spaces_q{q}": spaces for q, spaces in empty.items() if spaces})
            options["arrow_to_player"] = (False, True)
            options.update(self._artisan_options(s, b, p, empty))
        name = s.short_name(p)
        if not s.placed:
            return Prompt(p, ("place", "refresh", "end_game"), options, f"{name}: place or refresh")
        if reach:
            return Prompt(p, ("end_turn", "place"), options, f"{name}: 2nd tile or end")
        return Prompt(p, ("end_turn",), {}, f"{name}: end turn")

    def artisan_choices(self, s: MaharaniState, space: str, colour: str) -> tuple[dict, ...]:
        """The legal `artisan` values when the player to move puts a `colour` tile on `space`, arrow to them.

        Most likely first: moving an artisan already on that colour in the quarter, then a new one from
        a set with artisans left. Empty when no artisan can go there (reserve empty, nothing to move).
        """
        return self._choices(s, s.turn, self.board(s).quarter_of[space], colour)

    # -- rules helpers ---------------------------------------------------------------------------

    @staticmethod
    def _tile(a: dict) -> tuple[str, str]:
        tile = check.field(a, "tile", dict)
        tile_id = check.field(tile, "id", str, what="tile")
        colour = check.field(tile, "color", str, what="tile")
        if not tile_id.strip() or not colour.strip():
            raise IllegalAction("Tile: id or colour empty", f"a tile needs a non-empty id and colour: {tile!r}")
        return tile_id, sys.intern(colour)

    @staticmethod
    def _check_tile(s: MaharaniState, tile_id: str, colour: str) -> None:
        if tile_id in s.tile_ids:
            raise IllegalAction("Tile already placed", f"tile {tile_id!r} is already on the board")
        colours = Counter(s.tiles.values())
        if colour not in colours and len(colours) >= COLOURS:
            raise IllegalAction(
                "A 7th colour? Check the tag",
                f"tile {tile_id!r} is {colour!r}, but the board already shows the game's {COLOURS} colours "
                f"({', '.join(sorted(colours))}): is its tag enrolled right?",
            )
        if colours[colour] >= TILES_PER_COLOUR:
            raise IllegalAction(
                f"11 {colour} tiles? Check tag",
                f"{TILES_PER_COLOUR} {colour!r} tiles are already on the board and the game has {TILES_PER_COLOUR} "
                f"of each colour: is tile {tile_id!r}'s tag enrolled right?",
            )

    def _choices(self, s: MaharaniState, p: int, quarter: int, colour: str) -> tuple[dict, ...]:
        b = self.board(s)
        here = {
            art_set
            for space, (seat, art_set) in s.artisans.items()
            if seat == p and b.quarter_of[space] == quarter and s.tiles[space] == colour
        }
        moves = [{"set": k, "move": True} for k in sorted(here)]
        new = [{"set": k, "move": False} for k, left in enumerate(s.reserve[p]) if left and k not in here]
        return tuple(moves + new)

    def _artisan(
        self, s: MaharaniState, p: int, quarter: int, colour: str, arrow: bool, given: dict | None
    ) -> tuple[int, str | None] | None:
        """The artisan the placement puts on the tile, as (set, space it moves from or None), or None."""
        if not arrow:
            if given is not None:
                raise IllegalAction("No arrow, no artisan", "an artisan goes on a tile only when its arrow points at the player")
            return None
        choices = self._choices(s, p, quarter, colour)
        if given is None:
            if len(choices) > 1:
                raise IllegalAction("Artisan: which one?", f"say which artisan goes on the tile: one of {list(choices)}")
            chosen = choices[0] if choices else None
        else:
            chosen = self._given_artisan(s, p, quarter, colour, given, choices)
        if chosen is None:
            return None
        origin = None
        if chosen["move"]:
            b = self.board(s)
            origin = next(
                space
                for space, owner in s.artisans.items()
                if owner == (p, chosen["set"]) and b.quarter_of[space] == quarter and s.tiles[space] == colour
            )
        return chosen["set"], origin

    @staticmethod
    def _given_artisan(s: MaharaniState, p: int, quarter: int, colour: str, given: dict, choices: tuple[dict, ...]) -> dict:
        extra = sorted(set(given) - {"set", "move"})
        if extra:
            raise IllegalAction("Artisan: bad field", f"an artisan is {{'set': n, 'move': bool}}; unknown field(s) {extra}")
        wanted = {"set": check.field(given, "set", int, what="artisan"), "move": check.field(given, "move", bool, what="artisan")}
        if wanted in choices:
            return wanted
        k, sets = wanted["set"], len(s.reserve[p])
        label = f"Set {k}" if sets == 2 else "Artisan"
        if not 0 <= k < sets:
            short = f"No artisan set {k}"
        elif not choices:
            short = "No artisans left"
        elif wanted["move"]:
            short = f"{label}: none to move"
        elif {"set": k, "move": True} in choices:
            short = f"{label} on {colour}: move it"
        else:
            short = f"{label}: none left"
        raise IllegalAction(
            short,
            f"artisan {given!r} is not allowed for a {colour} tile in quarter {quarter}; the choices are {list(choices) or 'none'}",
        )

    @staticmethod
    def zone(s: MaharaniState, b: Board, space: str) -> int:
        """The size of the orthogonal same-colour zone holding the tile on `space` (across quarters)."""
        colour = s.tiles[space]
        return _connected(space, b, lambda sp: s.tiles.get(sp) == colour)

    @staticmethod
    def group(s: MaharaniState, b: Board, space: str) -> int:
        """The size of the orthogonal group of one player's artisans of one set holding `space`."""
        owner = s.artisans[space]
        return _connected(space, b, lambda sp: s.artisans.get(sp) == owner)

    @staticmethod
    def _full(s: MaharaniState, b: Board, quarter: int) -> bool:
        return all(sp in s.tiles for sp in b.spaces_in[quarter])

    def _evaluate(self, s: MaharaniState, b: Board, quarters: list[int]) -> None:
        """Pay each set's artisans in `quarters` by the evaluation table; they go back to their reserves."""
        for q in quarters:
            counts = Counter(s.artisans.pop(sp) for sp in b.spaces_in[q] if sp in s.artisans)
            paid: dict[int, list[int]] = {}
            for (seat, art_set), n in sorted(counts.items()):
                s.reserve[seat][art_set] += n
                s.gold[seat]["quarters"] += EVALUATION[n]
                paid.setdefault(seat, []).append(EVALUATION[n])
            s.evaluated.append(q)
            ranked = sorted(paid.items(), key=lambda item: (-sum(item[1]), item[0]))
            who = ", ".join(f"{s.short_name(seat)} {'+'.join(map(str, golds))}" for seat, golds in ranked)
            s.announce(f"Q{q} done: {who or 'no artisans'}")

    @staticmethod
    def _next_turn(s: MaharaniState, b: Board) -> None:
        s.placed = []
        s.turns_done += 1
        if len(s.evaluated) == len(b.quarters):
            s.over = True
            s.announce("Game over")
        else:
            s.turn = next_seat(s.turn, s.n_players)

    def _artisan_options(self, s: MaharaniState, b: Board, p: int, empty: dict[int, tuple[str, ...]]) -> dict[str, tuple]:
        if len(s.reserve[p]) < 2:
            return {}
        options: dict[str, tuple] = {}
        fresh = tuple({"set": k, "move": False} for k, left in enumerate(s.reserve[p]) if left)
        if len(fresh) > 1:
            options["artisan"] = fresh
        for space, (seat, _) in s.artisans.items():
            q, colour = b.quarter_of[space], s.tiles[space]
            if seat == p and empty[q]:
                choices = self._choices(s, p, q, colour)
                if len(choices) > 1:
                    options[f"artisan_q{q}_{colour}"] = choices
        return options


def _connected(start: str, b: Board, member) -> int:
    """How many spaces satisfying `member` are orthogonally connected to `start` (itself included)."""
    seen = {start}
    stack = [start]
    while stack:
        for near in b.neighbours[stack.pop()]:
            if near not in seen and member(near):
                seen.add(near)
                stack.append(near)
    return len(seen)


game = Maharani()
