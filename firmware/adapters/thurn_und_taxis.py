"""Thurn und Taxis at the table: tap a city card to lay it; buttons close, end, discard, officials."""

from engines import IllegalAction
from engines.thurn_und_taxis.board import board

from ..flows import Choose, yes_no
from .base import Adapter


def _short(city: str) -> str:
    return board().city_name[city][:5]


class ThurnUndTaxisAdapter(Adapter):
    game_name = "thurn_und_taxis"
    kinds = ("card",)
    buttons = {
        "ok": "close the route (choose the houses)",
        "pass": "end the turn",
        "withdraw": "discard the route (before laying)",
        "next": "record an official (postmaster, administrator)",
    }

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
                raise IllegalAction("No official now", "an official was already used this turn")
            official = yield Choose.of("Which official?", [(o.capitalize(), o) for o in officials], field="official")
            return {"type": "official", "player": p, "official": official}
        if role == "ok":
            if prompt is None or "close" not in prompt.expects or prompt.player != p:
                raise IllegalAction("Nothing to close now", "a route of 3+ cards closes after laying this turn")
            sets = prompt.options["house_sets"]
            labels = [
                (" ".join(map(_short, s)) or "No houses") + self.gain(state, p, {"type": "close", "player": p, "houses": list(s)})
                for s in sets
            ]
            houses = yield Choose.of("Houses where?", [(label, list(s)) for label, s in zip(labels, sets)], field="houses")
            coachman = False
            if True in prompt.options["coachman"]:
                coachman = yield yes_no("Coachman's help?", field="coachman")
            return {"type": "close", "player": p, "houses": houses, "coachman": coachman}
        raise self.unused(role)

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
