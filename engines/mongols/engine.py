"""Mongols (Régis, designer's prototype): dice for plan cards, round majorities for advisors.

Rules: rules/004 (French); vocabulary: design/game-log.md section 5. The engine records the plans
each player holds and hands out the advisors at each round's end; with the option `dice` it also
checks every throw and lowering (dice.py), otherwise the players' takes are trusted within the limits.

Choices where the contract is silent, as a player at the table expects them:
- Rounds always start at seat 0: the rule text gives the first-player pawn to the youngest player
  and never moves it.
- Plan colours are free labels learned as cards appear; a sixth colour, or a twelfth card of a
  colour ("11 cartes Plan de 5 couleurs"), is refused. A card id keeps the colour it was first
  seen with. A card taken or discarded is never taken again; a discarded card is out of the game
  ("Cette carte ne pourra plus être gagnée").
- `take` names the market gem (blue, white, pink) whose pair of cards it comes from; one take per
  gem and one steal per turn, only after `stop`, in any order, each optional.
- With dice, `stop` needs a completed colour: "Si le joueur a abaissé l'ensemble des gemmes d'une
  couleur, il peut alors mettre fin à son tour"; until then the player throws on. With dice off the
  engine cannot see the gems, so a stop is always accepted (it then collects nothing).
- Dice: lowered gems stay down until the end of the turn, so several lowerings build up and a
  colour completed on any throw of the turn counts at `stop`. Once all nine gems are down a throw
  can only bust (nothing is left to lower) and lose the turn's takes: `roll` is refused, `stop` is due. A throw must be lowered when it can
  be (lowering never hurts: the player may still stop after it); a throw that cannot be lowered
  even with every unused advisor busts at once. After a bust the player discards one market card.
- Advisors: `adjust` k may use |k| of the thrower's advisors not yet used this turn, all in one
  direction (+1 and -1 together would cancel out and waste both). Advisors only change hands at a
  round's end, when each seat has had exactly one turn, so "once per turn" is also once per round.
- The parchment may be recorded at any time while the game goes on (it is drawn when a turn
  refills the market): the round in progress is the last. Recorded after a round's last turn, it
  belongs to the next round, whose first turn drew it.
- `lower` may leave out `adjust` (0). `prompt()` offers, after a throw, every legal lowering as
  {"numbers", "adjust"} (plain lowerings first); after `stop`, the gems still to take and the seats
  holding plans to steal from.
- After a bust the discard is required (the rule text says so); the engine does not see the market.
- The scores before the end are "if the game ended now": advisors count for their current holder.
  Winners: most points, then most plans among the tied, then a shared victory.
"""

from dataclasses import dataclass, field
from fractions import Fraction

from engines.core import Game, IllegalAction, Prompt, Score, State, check, leaders, strict_majority

from . import dice
from .dice import MARKET_GEMS, STEAL_GEM

#: Plan colours in the game (the labels are the players' own), and the plan cards of each colour.
N_COLOURS = 5
PLANS_PER_COLOUR = 11
#: Points for each set of five different colours.
SET_BONUS = 3

# The steps of a turn: throwing (roll, stop), lowering the last throw, collecting after stop,
# discarding after a bust, and done (end_turn).
THROW, LOWER, COLLECT, BUST, DONE = "throw", "lower", "collect", "bust", "done"


@dataclass(kw_only=True)
class MongolsState(State):
    round: int = 1
    turn: int = 0
    step: str = THROW
    #: plan colours in the order they appeared (at most five)
    colours: list[str] = field(default_factory=list)
    #: every plan card seen: id -> colour
    cards: dict[str, str] = field(default_factory=dict)
    #: plan cards in front of a player: id -> seat (cards seen but not owned were discarded)
    owner: dict[str, int] = field(default_factory=dict)
    #: advisors in front of a player: plan colour -> seat (absent: in the centre)
    advisors: dict[str, int] = field(default_factory=dict)
    parchment: bool = False
    over: bool = False
    # the turn in progress
    down: list[int] = field(default_factory=list)
    throw: list[int] = field(default_factory=list)
    advisors_used: int = 0
    taken: list[str] = field(default_factory=list)
    stolen: bool = False


class Mongols(Game):
    name = "mongols"
    title = "Mongols"
    min_players = 2
    max_players = 5
    option_defaults = {"dice": False}

    def setup(self, players, options):
        if not isinstance(options["dice"], bool):
            raise IllegalAction("Option dice: true/false", f"the option 'dice' is true or false, not {options['dice']!r}")
        return MongolsState(players=players, options=options)

    # -- actions ---------------------------------------------------------------------------------

    def do_roll(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "dice"))
        faces = check.list_of(a, "dice", int)
        self._need_dice(s, "roll")
        self._need_step(s, THROW, "roll")
        if len(s.down) == len(dice.NUMBERS):
            raise IllegalAction(
                "All gems down: stop", "all nine gems are down: a throw could only bust and lose this turn's takes and steal; stop and collect"
            )
        if len(faces) not in (1, 2) or any(face not in dice.DIE_FACES for face in faces):
            raise IllegalAction("Dice: 1 or 2 of 1..6", f"a throw is one or two dice showing 1 to 6, not {faces!r}")
        if len(faces) == 1 and not dice.one_die_allowed(s.down):
            raise IllegalAction("One die: 7, 8, 9 down", "a single die may be thrown only once 7, 8 and 9 are down")
        s.throw = faces
        s.announce(f"{s.short_name(p)} rolls {'+'.join(map(str, faces))}")
        if dice.can_lower(sum(faces), self._up(s), self._advisors_left(s, p)):
            s.step = LOWER
        else:
            s.step = BUST
            s.announce("Bust!")

    def do_lower(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "numbers", "adjust"))
        numbers = check.list_of(a, "numbers", int)
        adjust = check.field(a, "adjust", int, optional=True, default=0)
        self._need_dice(s, "lower")
        self._need_step(s, LOWER, "lower")
        if len(numbers) not in (1, 2) or len(set(numbers)) != len(numbers):
            raise IllegalAction("Lower 1 or 2 numbers", f"a throw lowers one number or two different ones, not {numbers!r}")
        for number in numbers:
            if number not in dice.NUMBERS:
                raise IllegalAction(f"No number {number}", f"the board's numbers are 1 to 9, not {number}")
            if number in s.down:
                raise IllegalAction(f"{number} is down already", f"the gem on {number} was lowered earlier this turn")
        left = self._advisors_left(s, p)
        if abs(adjust) > left:
            raise IllegalAction(f"{left} advisor(s) left", f"an adjust of {adjust:+d} needs {abs(adjust)} unused advisors; {s.players[p]} has {left}")
        total = sum(s.throw) + adjust
        if sum(numbers) != total:
            raise IllegalAction(f"{'+'.join(map(str, numbers))} is not {total}", f"the throw totals {total} (dice {sum(s.throw)}, adjust {adjust:+d}), not {sum(numbers)}")
        before = dice.completed(s.down)
        s.down = sorted(s.down + numbers)
        s.advisors_used += abs(adjust)
        s.throw = []
        s.step = THROW
        shown = "+".join(map(str, numbers)) + (f" ({adjust:+d})" if adjust else "")
        s.announce(f"{s.short_name(p)}: {shown}")
        for gem in dice.completed(s.down):
            if gem not in before:
                s.announce(f"{s.short_name(p)}: {gem} done")

    def do_stop(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player",))
        self._need_step(s, THROW, "stop")
        gems = dice.completed(s.down)
        if s.options["dice"] and not gems:
            raise IllegalAction("Complete a colour first", "a player stops once all the gems of a colour are down; until then, roll")
        s.step = COLLECT
        s.announce(f"{s.short_name(p)}: {' + '.join(gems)}" if s.options["dice"] else f"{s.short_name(p)} stops")

    def do_take(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "card", "gem"))
        gem = check.one_of(check.field(a, "gem", str), MARKET_GEMS, "gem")
        card_id, colour = self._plan(s, a)
        self._need_step(s, COLLECT, "take")
        if gem in s.taken:
            raise IllegalAction(f"Took at {gem} already", f"one card per completed gem colour: {gem} was used this turn")
        if gem not in self._completed(s):
            raise IllegalAction(f"{gem.capitalize()} not complete", f"both {gem} gems must be down to take a card beside them")
        if card_id in s.owner:
            holder = s.owner[card_id]
            raise IllegalAction(f"{s.short_name(holder)} owns that card", f"card {card_id!r} is already a plan of {s.players[holder]}")
        if card_id in s.cards:
            raise IllegalAction("Card was discarded", f"card {card_id!r} was discarded from the market: no one may take it")
        self._learn(s, card_id, colour)
        s.owner[card_id] = p
        s.taken.append(gem)
        s.announce(f"{s.short_name(p)} takes {colour}")

    def do_steal(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "card", "victim"))
        victim = check.seat(a, s.n_players, "victim")
        card_id, colour = self._plan(s, a)
        self._need_step(s, COLLECT, "steal")
        if s.stolen:
            raise IllegalAction("One steal per turn", "the three red gems allow one steal a turn")
        if STEAL_GEM not in self._completed(s):
            raise IllegalAction("Red not complete", "a steal needs the three red gems (1, 8, 9) down")
        if victim == p:
            raise IllegalAction("Steal from another", "a steal takes a plan from another player")
        if s.owner.get(card_id) != victim:
            raise IllegalAction(f"Not {s.short_name(victim)}'s plan", f"card {card_id!r} is not among {s.players[victim]}'s plans")
        s.owner[card_id] = p
        s.stolen = True
        s.announce(f"{s.short_name(p)} steals {colour}")

    def do_discard_market(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player", "card"))
        card_id, colour = self._plan(s, a)
        if s.options["dice"]:
            if s.step != BUST:
                raise IllegalAction("Discard after a bust", "a market card is discarded only after a throw that busts")
        else:
            self._need_step(s, THROW, "discard_market")
        if card_id in s.cards:
            raise IllegalAction("Card not in market", f"card {card_id!r} is already a plan or discarded")
        self._learn(s, card_id, colour)
        s.step = DONE
        if not s.options["dice"]:
            s.announce("Bust!")
        s.announce(f"{s.short_name(p)} discards {colour}")

    def do_end_turn(self, s: MongolsState, a: dict) -> None:
        p = self.check_turn(s, a, s.turn)
        check.no_extra_keys(a, ("player",))
        if s.step not in (COLLECT, DONE):
            raise IllegalAction(self._next_move(s), f"{s.players[p]}'s turn is not finished: {self._next_move(s).lower()}")
        s.step, s.down, s.throw, s.advisors_used, s.taken, s.stolen = THROW, [], [], 0, [], False
        if p < s.n_players - 1:
            s.turn = p + 1
            return
        self._award_advisors(s)
        if s.parchment:
            s.over = True
            s.announce("Game over")
            return
        s.round += 1
        s.turn = 0

    def do_parchment(self, s: MongolsState, a: dict) -> None:
        check.no_extra_keys(a, ("card",))
        card = check.field(a, "card", dict, optional=True)
        if card is not None:
            check.field(card, "id", str, what="card")
            if card.get("parchment") is not True:
                raise IllegalAction("Not the parchment", f"{card!r} is not the parchment card")
        if s.parchment:
            raise IllegalAction("Parchment drawn already", "the parchment was already drawn: this round is the last")
        s.parchment = True
        s.announce("The Khan comes!")
        s.announce(f"Round {s.round} is the last")

    # -- queries ---------------------------------------------------------------------------------

    def scores(self, s: MongolsState) -> list[Score]:
        result = []
        for seat, name in enumerate(s.players):
            counts = self.plan_counts(s, seat)
            breakdown = {
                "plans": sum(counts.values()),
                "sets": SET_BONUS * (min(counts.values()) if len(counts) == N_COLOURS else 0),
                "advisors": sum(1 for holder in s.advisors.values() if holder == seat),
            }
            result.append(Score(name, sum(breakdown.values()), breakdown))
        return result

    def winners(self, s: MongolsState) -> list[int]:
        """Most points; among the tied, most plans; still tied, they share the victory."""
        scores = self.scores(s)
        best = leaders({seat: score.total for seat, score in enumerate(scores)})
        return leaders({seat: scores[seat].breakdown["plans"] for seat in best})

    def is_over(self, s: MongolsState) -> bool:
        return s.over

    def phase(self, s: MongolsState) -> str:
        if s.over:
            return "Game over"
        return f"Last round ({s.round})" if s.parchment else f"Round {s.round}"

    def prompt(self, s: MongolsState) -> Prompt | None:
        if s.over:
            return None
        p, name = s.turn, s.short_name(s.turn)
        options: dict[str, tuple] = {}
        if s.step == THROW:
            if s.options["dice"] and len(s.down) == len(dice.NUMBERS):
                expects, text = ["stop"], "stop"
            elif s.options["dice"]:
                can_stop = bool(dice.completed(s.down))
                expects = ["roll"] + ["stop"] * can_stop
                options["dice_count"] = (2, 1) if dice.one_die_allowed(s.down) else (2,)
                text = "roll or stop" if can_stop else "roll"
            else:
                expects, text = ["stop", "discard_market"], "stop or bust"
        elif s.step == LOWER:
            expects, text = ["lower"], f"lower {sum(s.throw)}"
            options["lowerings"] = tuple(
                {"numbers": list(numbers), "adjust": k}
                for numbers, k in dice.legal_lowerings(sum(s.throw), self._up(s), self._advisors_left(s, p))
            )
        elif s.step == COLLECT:
            expects, text = [], "collect, end turn"
            gems = self.gems_to_take(s)
            if gems:
                expects.append("take")
                options["gem"] = gems
            victims = self.victims(s)
            if victims:
                expects.append("steal")
                options["victim"] = victims
            expects.append("end_turn")
        elif s.step == BUST:
            expects, text = ["discard_market"], "discard a card"
        else:
            expects, text = ["end_turn"], "end turn"
        if not s.parchment:
            expects.append("parchment")
        return Prompt(player=p, expects=tuple(expects), options=options, text=f"{name}: {text}")

    def bust_chances(self, s: MongolsState) -> dict[int, Fraction]:
        """For the player to move, the exact chance that the next throw busts, by number of dice thrown."""
        up, advisors = self._up(s), self._advisors_left(s, s.turn)
        counts = (2, 1) if dice.one_die_allowed(s.down) else (2,)
        return {n: dice.bust_chance(up, advisors, n) for n in counts}

    def plan_counts(self, s: MongolsState, seat: int) -> dict[str, int]:
        """Seat's plans per colour (colours it has none of are absent)."""
        counts: dict[str, int] = {}
        for card_id, holder in s.owner.items():
            if holder == seat:
                colour = s.cards[card_id]
                counts[colour] = counts.get(colour, 0) + 1
        return counts

    def gems_to_take(self, s: MongolsState) -> tuple[str, ...]:
        """Market gems the player who stopped may still take a card beside."""
        return tuple(gem for gem in MARKET_GEMS if gem in self._completed(s) and gem not in s.taken)

    def victims(self, s: MongolsState) -> tuple[int, ...]:
        """Seats the player who stopped may steal from now: others holding plans (none if no steal is due)."""
        if s.stolen or STEAL_GEM not in self._completed(s):
            return ()
        holders = set(s.owner.values())
        return tuple(seat for seat in range(s.n_players) if seat != s.turn and seat in holders)

    # -- rules helpers ---------------------------------------------------------------------------

    def _completed(self, s: MongolsState) -> list[str]:
        """Gem colours completed this turn; with dice off every colour is trusted as completed."""
        return dice.completed(s.down) if s.options["dice"] else list(dice.GEMS)

    @staticmethod
    def _up(s: MongolsState) -> frozenset[int]:
        return frozenset(dice.NUMBERS).difference(s.down)

    @staticmethod
    def _advisors_left(s: MongolsState, seat: int) -> int:
        return sum(1 for holder in s.advisors.values() if holder == seat) - s.advisors_used

    @staticmethod
    def _need_dice(s: MongolsState, kind: str) -> None:
        if not s.options["dice"]:
            raise IllegalAction("Dice are off", f"{kind!r} needs the option dice: true; this game records cards only")

    def _need_step(self, s: MongolsState, step: str, kind: str) -> None:
        if s.step != step:
            raise IllegalAction(self._next_move(s), f"{kind!r} is not possible now: {self._next_move(s).lower()}")

    @staticmethod
    def _next_move(s: MongolsState) -> str:
        return {
            THROW: "Roll first" if s.options["dice"] else "Stop or bust first",
            LOWER: "Lower the throw first",
            COLLECT: "Collect or end turn",
            BUST: "Bust: discard a card",
            DONE: "End the turn",
        }[s.step]

    @staticmethod
    def _plan(s: MongolsState, a: dict) -> tuple[str, str]:
        """The plan card descriptor in `a["card"]`: (id, colour), its colour consistent with what is known."""
        card = check.field(a, "card", dict)
        if card.get("parchment") not in (None, False):
            raise IllegalAction("Parchment: not a plan", "the parchment is not a plan card: record it with 'parchment'")
        card_id = check.field(card, "id", str, what="card")
        colour = check.field(card, "color", str, what="card")
        if not card_id.strip() or not colour.strip():
            raise IllegalAction("Card: empty id/colour", f"a plan card needs an id and a colour: {card!r}")
        known = s.cards.get(card_id)
        if known is not None and known != colour:
            raise IllegalAction(f"Card is {known}", f"card {card_id!r} was recorded as {known}, not {colour}")
        if colour not in s.colours and len(s.colours) == N_COLOURS:
            raise IllegalAction(f"No colour '{colour}'", f"the game has five plan colours, already {', '.join(s.colours)}; not {colour!r}")
        if known is None and sum(1 for seen in s.cards.values() if seen == colour) == PLANS_PER_COLOUR:
            raise IllegalAction(
                f"No {PLANS_PER_COLOUR + 1}th {colour} plan",
                f"the game has {PLANS_PER_COLOUR} plan cards of each colour and all {PLANS_PER_COLOUR} {colour} ones are recorded; {card_id!r} is not one of them",
            )
        return card_id, colour

    @staticmethod
    def _learn(s: MongolsState, card_id: str, colour: str) -> None:
        s.cards[card_id] = colour
        if colour not in s.colours:
            s.colours.append(colour)

    def _award_advisors(self, s: MongolsState) -> None:
        """The round's majority check: strictly most plans of a colour takes its advisor; a tie sends it back."""
        counts = [self.plan_counts(s, seat) for seat in range(s.n_players)]
        for colour in s.colours:
            winner = strict_majority({seat: counts[seat].get(colour, 0) for seat in range(s.n_players)})
            holder = s.advisors.get(colour)
            if winner == holder:
                continue
            if winner is None:
                del s.advisors[colour]
                s.announce(f"Round {s.round}: {colour} advisor back")
            else:
                s.advisors[colour] = winner
                s.announce(f"Round {s.round}: {s.short_name(winner)} takes {colour} advisor")


game = Mongols()
