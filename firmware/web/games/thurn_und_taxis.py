"""Thurn und Taxis on the page: the map with every player's houses and current route, and the holdings.

City positions and region colours come from thurn_und_taxis.json beside this module (checked against
the engine's map at first use); the map's cities, regions and roads come from the engine itself.
"""

import math
from functools import lru_cache

from engines.core import load_data
from engines.thurn_und_taxis.board import GAME_END
from engines.thurn_und_taxis.board import board as tnt_board

from .. import svg
from . import generic

SCALE = 100.0  # SVG units per degree of latitude
MARGIN = (24.0, 28.0, 30.0, 30.0)  # left, top, right, bottom: room for labels and houses
CITY_R = 7.5
HOUSE = 6.5


class Layout:
    """Every city's place on the drawing and every region's colour."""

    def __init__(self, data: dict):
        b = tnt_board()
        positions, colours = data["positions"], data["region_colours"]
        if set(positions) != set(b.cities):
            raise ValueError(f"thurn_und_taxis.json: positions differ from the map's cities: {sorted(set(positions) ^ set(b.cities))}")
        if set(colours) != set(b.region_name):
            raise ValueError(f"thurn_und_taxis.json: colours differ from the map's regions: {sorted(set(colours) ^ set(b.region_name))}")
        lons = [lon for lon, _ in positions.values()]
        lats = [lat for _, lat in positions.values()]
        squash = math.cos(math.radians((min(lats) + max(lats)) / 2))
        left, top, right, bottom = MARGIN
        self.xy = {
            city: (left + (lon - min(lons)) * squash * SCALE, top + (max(lats) - lat) * SCALE)
            for city, (lon, lat) in positions.items()
        }
        self.width = round(left + (max(lons) - min(lons)) * squash * SCALE + right)
        self.height = round(top + (max(lats) - min(lats)) * SCALE + bottom)
        self.colour = colours


@lru_cache(maxsize=1)
def layout() -> Layout:
    return Layout(load_data(__package__, "thurn_und_taxis.json"))


def board(game, s) -> str:
    b, at = tnt_board(), layout()
    parts = [svg.tag("rect", x=0, y=0, width=at.width, height=at.height, class_="ground")]
    drawn = set()
    for city, near in b.neighbours.items():
        for other in near:
            if (other, city) not in drawn:
                drawn.add((city, other))
                (x1, y1), (x2, y2) = at.xy[city], at.xy[other]
                parts.append(svg.tag("line", x1=x1, y1=y1, x2=x2, y2=y2, class_="road"))
    for seat, route in enumerate(s.routes):
        if not route:
            continue
        shift = (seat - 1.5) * 2.5
        line = [(at.xy[c][0] + shift, at.xy[c][1] + shift) for _, c in route]
        title = svg.tag("title", svg.text(f"{s.players[seat]}'s route"))
        if len(line) > 1:
            parts.append(svg.tag("polyline", title, points=svg.points(line), class_=f"route seat{seat}"))
        for _, city in {route[0], route[-1]}:
            x, y = at.xy[city]
            parts.append(svg.tag("circle", title, cx=x, cy=y, r=CITY_R + 3 + seat * 1.5, class_=f"route-end seat{seat}"))
    for city in b.cities:
        x, y = at.xy[city]
        name, region = b.city_name[city], b.region_of[city]
        title = svg.tag("title", svg.text(f"{name} ({b.region_name[region]})"))
        parts.append(svg.tag("circle", title, cx=x, cy=y, r=CITY_R, fill=at.colour[region], class_="city"))
        parts.append(svg.tag("text", svg.text(name), x=x, y=y - CITY_R - 4, class_="city-label"))
        for seat, houses in enumerate(s.houses):
            if city in houses:
                hx = x - 2 * (HOUSE + 1) + seat * (HOUSE + 1)
                house_title = svg.tag("title", svg.text(f"{s.players[seat]}'s house in {name}"))
                parts.append(svg.tag("rect", house_title, x=hx, y=y + CITY_R + 3, width=HOUSE, height=HOUSE, class_=f"house seat{seat}"))
    return svg.document(at.width, at.height, *parts, label="Thurn und Taxis map: houses and current routes")


def view(game, s) -> dict:
    b = tnt_board()
    seats = []
    for seat in range(len(s.players)):
        route, houses, carriage = s.routes[seat], s.houses[seat], s.carriage[seat]
        placed = sorted(b.city_name[c] for c in houses)
        seats.append(
            {
                "Route": f"{' – '.join(b.city_name[c] for _, c in route)} ({len(route)} card{'s' * (len(route) != 1)})" if route else "none",
                "Houses": f"{len(houses)} placed, {b.houses_per_player - len(houses)} left" + (f": {', '.join(placed)}" if placed else ""),
                "Carriage": f"{carriage} ({b.carriage_points[carriage]} points)" if carriage else "none",
                "Bonus tiles": ", ".join(f"{b.stack_label[stack]} {value}" for stack, value in s.tiles[seat]) or "none",
                "Turns played": str(s.turns_done[seat]),
            }
        )
    left = [f"{b.stack_label[stack]}: {' '.join(map(str, values)) or 'none'}" for stack, values in s.stacks.items() if stack != GAME_END]
    table = {"Turn": _turn(s), "Bonus tiles left": left}
    table["Game end"] = f"taken by {s.players[s.end_holder]}" if s.end_holder is not None else "not yet"
    return {"seats": seats, "table": table}


def _turn(s) -> str:
    if s.over:
        return "game over"
    laid = f"{s.lays} card{'s' * (s.lays != 1)} laid"
    helper = f", {s.official}" if s.official else ""
    return f"{s.players[s.turn]}: {laid}{helper}{', route closed' if s.closed else ''}"


def describe(game, s, action: dict) -> str:
    b = tnt_board()
    kind, who = action.get("type"), generic.player_name(s, action)
    if kind == "lay" and isinstance(action.get("card"), dict) and action["card"].get("city") in b.city_name:
        side = f" ({action['side']})" if action.get("side") else ""
        return f"{who} lays {b.city_name[action['card']['city']]}{side}"
    if kind == "close" and isinstance(action.get("houses"), list):
        houses = [b.city_name.get(c, str(c)) for c in action["houses"]]
        where = f"houses in {', '.join(houses)}" if houses else "no house"
        return f"{who} closes the route: {where}{' (coachman)' if action.get('coachman') else ''}"
    if kind == "official":
        return f"{who}: {action.get('official')}"
    if kind == "discard_route":
        return f"{who} discards the route"
    return generic.describe(game, s, action)


def hints(game, s) -> dict[int, str]:
    """For every seat with a route: the cities that fit at each of its ends."""
    found = {}
    for seat, route in enumerate(s.routes):
        if route:
            names = tnt_board().city_name
            ends = [", ".join(names[c] for c in game.fitting(route, side)) or "nothing" for side in ("left", "right")]
            found[seat] = f"Fits before {names[route[0][1]]}: {ends[0]}; after {names[route[-1][1]]}: {ends[1]}"
    return found
