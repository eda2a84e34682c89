"""The end of a Thurn und Taxis game by its last houses, through the mocked hardware and the real loop.

Ana places 18 houses over six routes, then closes Nürnberg, Regensburg, Ingolstadt (three cities of
Baiern) with 2 houses left: the table offers every pair, placing both is her last house, she takes
the game-end tile, Ben plays the last turn and the game is over (rules/002: "posé toutes ses maisons").
"""

import engines
from firmware.views import ChooserView, OverView

from .autopilot import Autopilot
from .games import components, enrol
from .rig import Rig

game = engines.get("thurn_und_taxis")
#: Ana's routes before the last one, each with the houses it places (18 in all)
ROUTES = [
    (["freiburg", "carlsruhe", "mannheim"], ["freiburg", "carlsruhe", "mannheim"]),
    (["kempten", "augsburg", "muenchen", "passau"], ["kempten", "augsburg", "muenchen", "passau"]),
    (["lodz", "pilsen", "budweis", "linz", "salzburg", "innsbruck"], ["lodz", "pilsen", "linz", "innsbruck"]),
    (["basel", "zuerich", "sigmaringen", "ulm", "stuttgart", "wuerzburg"], ["basel", "sigmaringen", "ulm", "wuerzburg"]),
    (["budweis", "linz", "salzburg"], ["budweis", "salzburg"]),
    (["zuerich", "basel", "freiburg"], ["zuerich"]),
]
LAST = ["nuernberg", "regensburg", "ingolstadt"]


def card(city: str, copy: int) -> dict:
    return {"id": f"{city}-{copy}", "city": city}


class Log:
    """Builds the game's actions, each checked by the engine as it is added."""

    def __init__(self):
        self.state = game.start(["Ana", "Ben"])
        self.actions: list[dict] = []
        self.laid: dict[str, int] = {}

    def add(self, action: dict) -> None:
        self.state = game.apply(self.state, action)
        self.actions.append(action)

    def ana_lays(self, city: str) -> None:
        """Ana's card of `city`: her routes use copies 1 and 2 in turn, Ben's copy 3."""
        copy = self.laid[city] = 2 if self.laid.get(city) == 1 else 1
        self.add({"type": "lay", "player": 0, "card": card(city, copy), "side": "right" if self.state.routes[0] else None})

    def ben_turn(self) -> None:
        """Ben lays the first city that fits the right end of his route (a new route when none does)."""
        route = self.state.routes[1]
        fits = game.fitting(route, "right") if route else ("lodz",)
        if not fits:
            self.add({"type": "discard_route", "player": 1})
            fits = ("lodz",)
        self.add({"type": "lay", "player": 1, "card": card(fits[0], 3), "side": "right" if route and len(route) > 1 else None})
        self.add({"type": "end_turn", "player": 1})

    def ana_route(self, cities: list[str], houses: list[str] | None) -> None:
        """Ana builds `cities`, one card a turn, and closes it with `houses` (None: leaves it open)."""
        for i, city in enumerate(cities):
            self.ana_lays(city)
            if i == len(cities) - 1 and houses is not None:
                self.add({"type": "close", "player": 0, "houses": houses, "coachman": False})
            self.add({"type": "end_turn", "player": 0})
            self.ben_turn()


def test_two_houses_left_on_three_baiern_cities_end_the_game(memory_url):
    log = Log()
    for cities, houses in ROUTES:
        log.ana_route(cities, houses)
    assert len(log.state.houses[0]) == 18
    log.ana_route(LAST, ["regensburg", "ingolstadt"])
    assert game.is_over(log.state)
    closing = next(i for i, action in enumerate(log.actions) if action["type"] == "close" and action["houses"] == ["regensburg", "ingolstadt"])

    rig = Rig(memory_url)
    uids = enrol(rig.table.tags, components("thurn_und_taxis", log.actions))
    for label in ("Thurn und Taxis", "2 players", "Hints on"):
        rig.choose(label)
    pilot = Autopilot(rig.table, rig, lambda d: uids[d["id"]])
    pilot.play(log.actions[:closing])
    table = rig.table
    assert 20 - len(table.session.state.houses[0]) == 2

    rig.press("ok")  # close the route
    view = table.view()
    assert isinstance(view, ChooserView) and view.question == "Houses where?"
    # every pair of the three cities, each placing the last two houses (+2) and taking the game-end tile (+1)
    assert view.options == ("Nürnb Ingol +3", "Nürnb Regen +3", "Regen Ingol +3", "No houses", "House by house")
    rig.choose("Regen Ingol +3")
    rig.choose("No")  # no coachman
    state = table.session.state
    assert len(state.houses[0]) == 20 and state.end_holder == 0 and ("game_end", 1) in state.tiles[0]
    assert game.phase(state).startswith("Last round") and not game.is_over(state)

    pilot.play(log.actions[closing + 1 :])  # Ana ends her turn; Ben, right of the first player, plays the last
    state = table.session.state
    assert game.is_over(state) and game.scores(state)[0].breakdown["unplaced_houses"] == 0
    rig.step("wait", "5000")  # the event flash goes
    over = table.view()
    assert isinstance(over, OverView) and over.ranking[0][1] == "Ana"
    assert engines.replay("thurn_und_taxis", ["Ana", "Ben"], {}, table.journal.load(table.session.gid).actions) == state
    assert game.scores(state) == game.scores(log.state)
    rig.close()
