"""Mongols at the table: tap the plans taken or stolen; withdraw stops throwing, pass ends the turn.

With the dice assistant on, ok enters a throw (the dice values), the chooser offers the legal
lowerings, and a bust asks for the market card to discard. With it off, a plan tapped before stopping
records a bust (after a confirmation), since the table cannot see the dice.
"""

from engines import IllegalAction

from ..flows import Choose, Tap, yes_no
from .base import Adapter

FACES = tuple(range(1, 7))


def _lowering_label(option: dict) -> str:
    numbers = "+".join(map(str, option["numbers"]))
    adjust = option["adjust"]
    return numbers if not adjust else f"{numbers} (adv {adjust:+d})"


class MongolsAdapter(Adapter):
    game_name = "mongols"
    kinds = ("plan", "parchment")
    buttons = {
        "withdraw": "stop throwing and collect",
        "pass": "end the turn",
        "ok": "enter a throw (dice assistant on)",
    }
    #: "roll" and "roll or stop" are asked with the dice assistant only, "stop or bust" without
    asks = {
        "roll or stop": "ok: roll or withdraw",
        "roll": "ok: roll",
        "stop": "withdraw: stop",
        "stop or bust": "withdraw; bust: tap",
        "collect, end turn": "tap plans, pass: end",
        "discard a card": "tap card to discard",
        "end turn": "pass: end turn",
    }

    def setup(self, n_players):
        dice = yield yes_no("Dice assistant?", field="dice")
        return {"dice": dice}

    def tag(self, state, entry, seat):
        card = self.descriptor(entry)
        if entry.kind == "parchment":
            return {"type": "parchment", "card": card}
        p = yield from self.acting_seat(state, seat)
        prompt = self.game.prompt(state)
        expects = prompt.expects if prompt else ()
        if "take" in expects or "steal" in expects:
            owner = state.owner.get(card.get("id"))
            if owner is not None and owner != p:
                return {"type": "steal", "player": p, "card": card, "victim": owner}
            gems = prompt.options.get("gem", ())
            if not gems:
                raise IllegalAction("No market gem complete", "no blue, white or pink pair is complete this turn")
            gem = gems[0] if len(gems) == 1 else (yield Choose.of("Beside which gem?", [(g.capitalize(), g) for g in gems], field="gem"))
            return {"type": "take", "player": p, "card": card, "gem": gem}
        if "discard_market" in expects:
            if not state.options["dice"] and not (yield yes_no("Bust: discard it?", default=True, field="confirm")):
                return None
            return {"type": "discard_market", "player": p, "card": card}
        raise IllegalAction("Stop first, then tap", "plans are taken after stopping (withdraw button)")

    def press(self, state, role, seat):
        p = yield from self.acting_seat(state, seat)
        if role == "withdraw":
            return {"type": "stop", "player": p}
        if role == "pass":
            return {"type": "end_turn", "player": p}
        if role == "ok" and state.options["dice"]:
            prompt = self.game.prompt(state)
            counts = prompt.options.get("dice_count", ()) if prompt else ()
            if not counts:
                raise IllegalAction("No throw now", "a throw is entered when the player may roll")
            n = counts[0] if len(counts) == 1 else (yield Choose.of("How many dice?", [(f"{c} dice" if c > 1 else "1 die", c) for c in counts], field="dice.len"))
            faces = []
            for i in range(n):
                faces.append((yield Choose.of(f"Die {i + 1}?", [(str(f), f) for f in FACES], field=f"dice.{i}")))
            return {"type": "roll", "player": p, "dice": faces}
        raise self.unused(role)

    def follow_up(self, state):
        prompt = self.game.prompt(state)
        if prompt is None or not state.options["dice"]:
            return None
        if "lower" in prompt.expects:
            return self._lower(prompt)
        if prompt.expects[0] == "discard_market":
            return self._bust_discard(prompt.player)
        return None

    def _lower(self, prompt):
        options = prompt.options["lowerings"]
        chosen = yield Choose.of(f"Lower which? ({sum(options[0]['numbers']) - options[0]['adjust']})", [(_lowering_label(o), o) for o in options], field="numbers+adjust")
        return {"type": "lower", "player": prompt.player, **chosen}

    def _bust_discard(self, p):
        entry = yield Tap("Bust! Tap a market card to discard", ("plan",), field="card")
        return {"type": "discard_market", "player": p, "card": self.descriptor(entry)}

    def hint(self, state):
        """With the dice assistant, the exact chance that the next throw busts (two dice, and one die when allowed)."""
        prompt = self.game.prompt(state)
        if not state.options["dice"] or prompt is None or "roll" not in prompt.expects:
            return ""
        chances = self.game.bust_chances(state)
        return "Bust " + " ".join(f"{n}d {float(chance):.0%}" for n, chance in chances.items())
