"""Taj Mahal at the table: tap cards to play, press withdraw; the table resolves the majorities.

- A round opens by tapping its province tile (and, with a board, choosing the province it lies on).
- Tapping a coloured card plays it. A white or special card tapped right after by the same player
  joins that play (the play is replaced by the two-card play); tapped first, the table waits for the
  coloured card. The colour-change card goes either way with a card of another colour than the
  round's: tapped after it, as the rule orders a play (the table asks for it when the player holds
  it), or first. A player alone in the round plays turn after turn, so a colour-change card tapped
  after their last play starts the next turn rather than joining a play it could not change.
- Withdraw (the shared button, or a seat's own) resolves the majorities at once: the engine
  announces what was won, then the table asks where each palace and the crown go, the bonus tile on
  a fortress is tapped, and without a board the palace chain is counted by the players.
- After round 12 each player taps the cards left in hand and presses ok (specials are known).
"""

from engines import IllegalAction

from ..flows import Choose, Replace, Tap, ask, yes_no
from .base import Adapter

#: without a board, provinces are named after their tile number, the last one (Agra) by name
AGRA, ROUNDS = "Agra", 12
COLOUR_CHANGE = "color_change"
#: cities per province when no board names them: Agra has five, the others four
CITIES = {AGRA: 5}
DEFAULT_CITIES = 4


def _is_coloured(card: dict) -> bool:
    return "special" not in card and card.get("color") != "white"


class TajMahalAdapter(Adapter):
    game_name = "taj_mahal"
    kinds = ("card", "special", "province", "bonus")
    buttons = {"withdraw": "withdraw from the round (majorities resolved at once)", "ok": "done (declaring a hand)"}
    asks = {"play or out": "tap or withdraw"}

    def setup(self, n_players):
        """With board files (the owner's, checked), choose one; without, chains are counted."""
        if not self.boards:
            return {}
        board = yield Choose.of("Board?", [("No board", None)] + [(offer.name, offer.option) for offer in self.boards], field="board")
        return {"board": board} if board else {}

    # -- playing cards ---------------------------------------------------------------------------

    def tag(self, state, entry, seat):
        if entry.kind in ("province", "bonus"):
            raise IllegalAction(f"No {entry.kind} tile now", f"a {entry.kind} tile is tapped when the table asks for it")
        p = yield from self.acting_seat(state, seat)
        card = self.descriptor(entry)
        if _is_coloured(card):
            if not self._needs_change(state, p, card):
                return {"type": "play", "player": p, "cards": [card]}
            change = yield Tap(f"{state.short_name(p)}: {card['color']} needs colour change: tap it", ("special",), field="cards")
            return {"type": "play", "player": p, "cards": [card, self.descriptor(change)]}
        last = state.actions[-1] if state.actions else None
        alone = sum(state.in_round) == 1 and card.get("special") == COLOUR_CHANGE
        if last and last["type"] == "play" and last["player"] == p and len(last["cards"]) == 1 and not alone:
            return Replace({"type": "play", "player": p, "cards": [last["cards"][0], card]})
        first = yield Tap(f"{state.short_name(p)}: tap the coloured card", ("card",), field="cards")
        coloured = self.descriptor(first)
        if not _is_coloured(coloured):
            raise IllegalAction("Play a coloured card first", "a white or special card goes with a coloured card")
        return {"type": "play", "player": p, "cards": [coloured, card]}

    @staticmethod
    def _needs_change(state, p: int, card: dict) -> bool:
        """Whether `card` is of another colour than p's round colour while p holds the colour-change
        card, not yet out: then the play waits for it (without it, the engine's refusal says why)."""
        colour = state.colour[p]
        return (colour is not None and card.get("color") != colour and state.holder.get(COLOUR_CHANGE) == p
                and COLOUR_CHANGE not in state.specials_out[p])

    def press(self, state, role, seat):
        if role != "withdraw":
            raise self.unused(role)
        p = yield from self.acting_seat(state, seat)
        return {"type": "withdraw", "player": p}

    # -- what the rules demand by themselves -----------------------------------------------------

    def follow_up(self, state):
        prompt = self.game.prompt(state)
        if prompt is None:
            return None
        expects = prompt.expects
        if "visit" in expects:
            return self._visit(state, prompt)
        if "palace" in expects or "crown" in expects:
            return self._placement(state, prompt)
        if "chain" in expects:
            return self._chain(state, prompt)
        if "hand" in expects:
            return self._hand(state, prompt)
        return None

    def _visit(self, state, prompt):
        number = state.round + 1
        entry = yield Tap(f"Round {number}: tap province tile {number}", ("province",), field="tile", only=(f"province-{number}",))
        tile = self.descriptor(entry)
        provinces = prompt.options.get("province")
        if provinces is None:
            province = self.province_label(tile.get("number"))
        elif len(provinces) == 1:
            province = provinces[0]
        else:
            province = yield Choose.of("Which province?", [(p, p) for p in provinces], field="province")
        return {"type": "visit", "province": province, "tile": tile}

    def _placement(self, state, prompt):
        p = prompt.player
        kinds = [k for k in ("palace", "crown") if k in prompt.expects]
        kind = kinds[0] if len(kinds) == 1 else (yield Choose.of(f"{state.short_name(p)}: place what?", [("Palace", "palace"), ("Crown", "crown")], field="type"))
        cities = [(city, city) for city in prompt.options[kind]] if kind in prompt.options else self._free_cities(state, kind)
        if not cities:
            raise IllegalAction("No city left", f"no city of this province can take the {kind}")
        city = yield from ask(f"{state.short_name(p)}: {kind} where?", cities, field="city")
        action = {"type": kind, "player": p, "city": city}
        if kind == "palace":
            with_board = "palace" in prompt.options
            fortress = city in prompt.options.get("bonus", ()) if with_board else (yield yes_no("A bonus tile there?", field="has_bonus"))
            action["bonus"] = self.descriptor((yield Tap("Tap the bonus tile", ("bonus",), field="bonus"))) if fortress else None
        return action

    @staticmethod
    def province_label(number: object) -> str:
        """Without a board: the province whose tile shows `number` (Agra holds tile 12), as the
        players read it ("Province 3")."""
        return AGRA if number == ROUNDS else f"Province {number}"

    @staticmethod
    def city_label(province: str, k: int) -> str:
        """Without a board: the province's k-th city ("city 2 of province 3", "city 5 of Agra"); a
        game begun before the labels were words ("province-3") goes on with the cities it named then
        ("province-3-2")."""
        if province.islower():
            return f"{province}-{k}"
        return f"city {k} of {province if province == AGRA else province.lower()}"

    def _free_cities(self, state, kind: str) -> list[tuple[str, str]]:
        """Without a board, the province's cities are numbered ("City 2" in the chooser, the round's
        province being known); a palace takes one without a palace."""
        province = state.province
        count = CITIES.get(province.capitalize(), DEFAULT_CITIES)
        cities = [(f"City {k}", self.city_label(province, k)) for k in range(1, count + 1)]
        taken = state.palaces.get(province, {})
        return [(label, city) for label, city in cities if kind != "palace" or taken.get(city, (None, None))[0] is None]

    def _chain(self, state, prompt):
        counts = prompt.options["provinces"]
        n = yield from ask(f"{state.short_name(prompt.player)}: chain reaches?",
                           [(f"{k} other province{'s' * (k != 1)}", k) for k in counts], field="provinces")
        return {"type": "chain", "player": prompt.player, "provinces": n}

    def _hand(self, state, prompt):
        waiting = prompt.options["player"]
        cards, seat = [], None
        while True:
            answer = yield Tap("Hands: tap your cards, then ok", ("card",), done="done", field="cards", with_seat=True)
            if answer is None:
                break
            entry, tapped_at = answer
            seat = tapped_at if seat is None else seat
            cards.append(self.descriptor(entry))
        if seat is None or seat not in waiting:
            seat = waiting[0] if len(waiting) == 1 else (yield Choose.of("Whose hand?", [(state.players[s], s) for s in waiting], field="player"))
        return {"type": "hand", "player": seat, "cards": cards}

    def hint(self, state):
        """What the player to move would win by withdrawing now, and the points that follow at once."""
        prompt = self.game.prompt(state)
        if prompt is None or "withdraw" not in prompt.expects:
            return ""
        p = prompt.player
        won = self.game.would_win(state, p)
        points = self.gain(state, p, {"type": "withdraw", "player": p})
        return f"Out now: {', '.join(won) or 'nothing'}{points}"
