"""Thurn und Taxis at the table: tap a city card to lay it; buttons close, end, discard, officials.

Closing (ok) asks where the houses go: the chooser lists the best few of the engine's largest
choices with their points, no houses, and "House by house", where a tap on a route card (or a pick)
adds one city at a time, the engine checking each step, and ok on "Done" ends. So every placement
the rules allow can be recorded: a subset of a largest choice, however many there are.
"""

from engines import IllegalAction
from engines.thurn_und_taxis.board import board

from ..flows import STEPWISE, Choose, yes_no
from .base import Adapter

#: largest house choices listed on the closing chooser, the best first; the others are built house by house
SETS_LISTED = 6


def _short(city: str) -> str:
    return board().city_name[city][:5]


def _close(p: int, houses) -> dict:
    return {"type": "close", "player": p, "houses": list(houses)}


class ThurnUndTaxisAdapter(Adapter):
    game_name = "thurn_und_taxis"
    kinds = ("card",)
    buttons = {
        "ok": "close the route (choose the houses)",
        "pass": "end the turn",
        "withdraw": "discard the route (before laying)",
        "next": "record an official (postmaster, administrator)",
    }
    short_title = "T. und Taxis"
    asks = {"lay a card": "tap a card", "close or end": "ok: close, pass: end", "end turn": "pass: end turn"}

    def tag(self, state, entry, seat):
        p = yield from self.acting_seat(state, seat)
        card = self.descriptor(entry)
        action = {"type": "lay", "player": p, "card": card}
        route = state.routes[p]
        city = card.get("city")
        if p == state.turn and len(route) > 1 and city in board().city_name:
            left, right = self.game.fitting(route, "left"), self.game.fitting(route, "right")
            if city in left and city in right:
                first, last = board().city_name[route[0][1]], board().city_name[route[-1][1]]
                action["side"] = yield Choose.of(
                    f"{board().city_name[city]}: which end?", [(f"before {first}", "left"), (f"after {last}", "right")], field="side"
                )
        return action

    def press(self, state, role, seat):
        p = yield from self.acting_seat(state, seat)
        prompt = self.game.prompt(state)
        if role == "pass":
            return {"type": "end_turn", "player": p}
        if role == "withdraw":
            return {"type": "discard_route", "player": p}
        if role == "next":
            officials = prompt.options.get("official", ()) if prompt else ()
            if not officials:
                raise IllegalAction("No official now", "one official a turn, recorded before the turn's first card")
            official = yield Choose.of("Which official?", [(o.capitalize(), o) for o in officials], field="official")
            return {"type": "official", "player": p, "official": official}
        if role == "ok":
            if prompt is None or "close" not in prompt.expects or prompt.player != p:
                raise IllegalAction("Nothing to close now", "a route of 3+ cards closes after laying this turn")
            houses = yield from self._houses(state, p, prompt)
            coachman = False
            if True in prompt.options["coachman"]:
                coachman = yield yes_no("Coachman's help?", field="coachman")
            return {**_close(p, houses), "coachman": coachman}
        raise self.unused(role)

    def _houses(self, state, p, prompt):
        """Where the closing's houses go: one of the best few largest choices, none, or house by house."""
        sets = prompt.options["house_sets"]  # the largest choices, then "no houses"
        changes = {houses: self.change(state, p, _close(p, houses)) for houses in sets} if self.hints else {}
        largest = sorted(sets[:-1], key=lambda houses: -changes.get(houses, 0))
        options = [(self._label(houses, changes.get(houses, 0)), list(houses)) for houses in largest[:SETS_LISTED] + [()]]
        if len(largest) > SETS_LISTED or any(len(houses) > 1 for houses in largest):
            options.append(("House by house", STEPWISE))
        houses = yield Choose.of("Houses where?", options, field="houses")
        if houses is STEPWISE:
            houses = yield from self._house_by_house(state, p, prompt.options["cities"])
        return houses

    def _house_by_house(self, state, p, cities):
        """Houses one city at a time: tap a route card or pick a city, ok on Done when done.

        The engine checks each step (a closing with the houses so far): the chooser offers only the
        cities that may follow, and a tap the rules refuse says why and changes nothing.
        """
        chosen: list[str] = []
        while True:
            after = {city: self.game.preview(state, _close(p, chosen + [city])) for city in cities if city not in chosen}
            steps = [(self._label((city,), preview.totals[p] if self.hints else 0), city) for city, preview in after.items() if preview.legal]
            done = ("Done" if chosen else "No houses") + self.gain(state, p, _close(p, chosen))
            question = f"Houses: {' '.join(map(_short, chosen))}" if chosen else "Houses? Tap or pick"
            city = yield Choose.of(question, [(done, None)] + steps, field="houses[]", tap=lambda entry: self._tapped(state, p, chosen, entry))
            if city is None:
                return chosen
            chosen.append(city)

    def _tapped(self, state, p, chosen: list[str], entry) -> str:
        """The city of a route card tapped while choosing houses, when the engine allows a house there next."""
        city = entry.descriptor.get("city")
        refused = self.game.preview(state, _close(p, chosen + [city])).refused
        if refused:
            raise IllegalAction(refused, f"a house in {city!r} after {', '.join(chosen) or 'none'} is refused: {refused}")
        return city

    def _label(self, houses, change: int) -> str:
        return (" ".join(map(_short, houses)) or "No houses") + self.points(change)

    def hint(self, state):
        """The cities that fit at each end of the route of the player to move."""
        route = state.routes[state.turn]
        prompt = self.game.prompt(state)
        if not route or prompt is None or "lay" not in prompt.expects:
            return ""
        left, right = prompt.options["left"], prompt.options["right"]
        if not left and not right:
            return "Nothing fits: discard?"
        return f"Fit {' '.join(map(_short, left))}|{' '.join(map(_short, right))}"
