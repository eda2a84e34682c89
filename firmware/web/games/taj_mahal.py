"""Taj Mahal on the page: the provinces with their palaces, and what each player holds.

The real board's layout is not known (notes/game-data.md), so the drawing is a plan, not a picture:
one box per province in the board file's order, its cities on a ring, roads as lines, fortresses
dark with a gold mark while their bonus tile is still there, ordinary palaces as squares and crowned
ones as rings in the owner's colour. Without a board file only the visited provinces are drawn, with
the cities the players named and empty places for the others; the table lists palaces per province.
"""

import math

from engines.taj_mahal.board import AGRA, REAL_AGRA_CITIES, REAL_PROVINCE_CITIES
from engines.taj_mahal.components import ROUNDS, SPECIAL_LABEL
from engines.taj_mahal.engine import CROWNED, ORDINARY

from ...report import counted
from .. import svg
from . import generic

BOX = 100.0
GAP = 6.0
RING = 27.0
CITY_R = 8.0


def board(game, s) -> str:
    b = game.board(s)
    if b is not None:
        provinces = list(b.provinces)
        cities_of = {p: list(b.cities_of[p]) for p in provinces}
        roads = {(a, c) for a, near in b.neighbours.items() for c in near if a < c}
        fortresses = b.fortresses
        label = f"Taj Mahal provinces: {b.name or 'board file'}"
    else:
        provinces = list(s.visited)
        cities_of = {p: _named_or_blank(s, p) for p in provinces}
        roads, fortresses = set(), frozenset()
        label = "Taj Mahal provinces visited (no board file: cities as the players named them)"
    if not provinces:
        return svg.document(400, 40, svg.tag("text", svg.text("No province visited yet"), x=200, y=25, class_="province-label"), label=label)
    columns = 4 if len(provinces) > 6 else max(1, min(3, len(provinces)))
    rows = math.ceil(len(provinces) / columns)
    width, height = columns * (BOX + GAP) + GAP, rows * (BOX + GAP) + GAP
    at: dict[str, tuple[float, float]] = {}
    boxes = []
    for index, province in enumerate(provinces):
        row, column = divmod(index, columns)
        x, y = GAP + column * (BOX + GAP), GAP + row * (BOX + GAP)
        state = "current" if province == s.province else "visited" if province in s.visited else "later"
        number = f"{s.visited.index(province) + 1}. " if province in s.visited else ""
        boxes.append(svg.tag("rect", x=x, y=y, width=BOX, height=BOX, rx=6, class_=f"province {state}"))
        boxes.append(svg.tag("text", svg.text(f"{number}{province}"[:16]), x=x + BOX / 2, y=y + 13, class_="province-label"))
        cities = cities_of[province]
        for k, city in enumerate(cities):
            angle = -math.pi / 2 + 2 * math.pi * k / len(cities)
            at[city] = (x + BOX / 2 + RING * math.cos(angle), y + BOX / 2 + 8 + RING * math.sin(angle))
    parts = [svg.tag("rect", x=0, y=0, width=width, height=height, class_="ground"), *boxes]
    for a, c in sorted(roads):
        (x1, y1), (x2, y2) = at[a], at[c]
        parts.append(svg.tag("line", x1=x1, y1=y1, x2=x2, y2=y2, class_="road"))
    for province in provinces:
        here = s.palaces.get(province, {})
        for city in cities_of[province]:
            parts += _city(s, city, at[city], here.get(city), city in fortresses)
    return svg.document(round(width), round(height), *parts, label=label)


def _named_or_blank(s, province: str) -> list[str]:
    """The cities the players named in `province`, then unnamed places up to the rules' count."""
    named = list(s.palaces.get(province, {}))
    agra = province == AGRA or s.visited.index(province) + 1 == ROUNDS  # without a board, the 12th is Agra too
    count = REAL_AGRA_CITIES if agra or len(named) > REAL_PROVINCE_CITIES else REAL_PROVINCE_CITIES
    return named + [f"\0{province}:{k}" for k in range(len(named), count)]


def _city(s, city: str, xy: tuple[float, float], owners: list | None, fortress: bool) -> list[str]:
    x, y = xy
    blank = city.startswith("\0")
    ordinary = owners[ORDINARY] if owners else None
    crowned = owners[CROWNED] if owners else None
    words = ["a city not named yet" if blank else city]
    if fortress:
        words.append("fortress" + (", its bonus tile still there" if ordinary is None else ""))
    if ordinary is not None:
        words.append(f"{s.players[ordinary]}'s palace")
    if crowned is not None:
        words.append(f"{s.players[crowned]}'s crowned palace")
    title = svg.tag("title", svg.text(": ".join(words[:1]) + (", " + ", ".join(words[1:]) if words[1:] else "")))
    kind = "site blank" if blank else "site fortress" if fortress else "site"
    parts = [svg.tag("circle", title, cx=x, cy=y, r=CITY_R, class_=kind)]
    if fortress and ordinary is None:
        parts.append(svg.tag("rect", x=x + 4, y=y - 11, width=6, height=6, transform=f"rotate(45 {x + 7:.1f} {y - 8:.1f})", class_="bonus"))
    if crowned is not None:
        parts.append(svg.tag("circle", cx=x, cy=y, r=CITY_R + 3, class_=f"crowned seat{crowned}"))
    if ordinary is not None:
        parts.append(svg.tag("rect", x=x - 4.5, y=y - 4.5, width=9, height=9, class_=f"palace seat{ordinary}"))
    return parts


def view(game, s) -> dict:
    seats = []
    for seat in range(len(s.players)):
        ordinary = sum(owners[ORDINARY] == seat for cities in s.palaces.values() for owners in cities.values())
        crowned = sum(owners[CROWNED] == seat for cities in s.palaces.values() for owners in cities.values())
        seats.append(
            {
                "This round": _round_status(s, seat),
                "On the table": _counts(s.counts[seat]) or "nothing",
                "Influence tokens": _counts(s.tokens[seat]) or "none",
                "Special cards": ", ".join(SPECIAL_LABEL[k] for k, holder in s.holder.items() if holder == seat) or "none",
                "Goods": _counts(s.goods[seat]) or "none",
                "Tiles": ", ".join(_tile(t) for t in s.tiles[seat]) or "none",
                "Palaces": f"{ordinary} + {crowned} crowned",
                "Hand": "not declared" if s.hands[seat] is None else f"+{s.hands[seat]}",
            }
        )
    b = game.board(s)
    table = {"Round": _round(s)}
    if s.province is not None:
        table["At the court"] = ", ".join(s.court) or "nothing left"
        table["Province tile"] = f"{s.tile[0]}: {', '.join(s.tile[1])}" if s.tile else "—"
    if s.placer is not None:
        owed = [f"{s.owed_palaces} palace{'s' * (s.owed_palaces != 1)}"] * bool(s.owed_palaces) + ["crown"] * s.owed_crown
        table["Placing"] = f"{s.players[s.placer]}: {', '.join(owed) or 'chain count'}"
    table["Bonus tiles taken"] = f"{s.bonus_taken} of 15; Taj Mahal {'taken' if s.taj_taken else 'in Agra'}"
    table["Special cards beside the board"] = ", ".join(SPECIAL_LABEL[k] for k, holder in s.holder.items() if holder is None) or "none"
    table["Palaces by province"] = [_province_line(s, number, province) for number, province in enumerate(s.visited, start=1)] or "none yet"
    table["Board"] = (b.name or "a board file") if b is not None else "none: the players count the palace chains"
    return {"seats": seats, "table": table}


def _round(s) -> str:
    if s.province is not None:
        return f"{s.round}/12 in {s.province}"
    if s.round == 12:
        return "the twelve rounds are played: final hands"
    return f"round {s.round} done, next: {s.round + 1}/12" if s.round else "not started"


def _round_status(s, seat: int) -> str:
    if s.province is None:
        return "—"
    if not s.in_round[seat]:
        return "out"
    return f"in, {s.colour[seat]}" if s.colour[seat] else "in, no card yet"


def _counts(counts: dict) -> str:
    return ", ".join(f"{k} {n}" for k, n in counts.items() if n)


def _tile(tile: tuple) -> str:
    kind, what, goods = tile
    if kind == "province":
        return f"province {what} ({', '.join(goods)})"
    return f"bonus {goods}" if what == "goods" else f"bonus {what}"


def _province_line(s, number: int, province: str) -> str:
    cities = s.palaces.get(province, {})
    held = []
    for city, (ordinary, crowned) in cities.items():
        who = ([s.players[ordinary]] if ordinary is not None else []) + ([f"{s.players[crowned]} (crown)"] if crowned is not None else [])
        if who:
            held.append(f"{_in(city, province)}: {' + '.join(who)}")
    return f"{number}. {province}: {'; '.join(held) or 'no palace'}"


def _in(city: str, province: str) -> str:
    """A city under its province's heading: "city 2", not "city 2 of province 3" again."""
    tail = f" of {province}"
    return city[: -len(tail)] if city.lower().endswith(tail.lower()) else city


def describe(game, s, action: dict) -> str:
    who, kind = generic.player_name(s, action), action.get("type")
    if kind == "visit" and isinstance(action.get("tile"), dict):
        tile = action["tile"]
        goods = tile.get("goods")
        return f"round {tile.get('number')}: {action.get('province')} (tile: {', '.join(map(str, goods)) if isinstance(goods, list) else goods})"
    if kind == "play" and isinstance(action.get("cards"), list):
        return f"{who} plays {' + '.join(_card(card) for card in action['cards'])}"
    if kind == "withdraw":
        return f"{who} withdraws"
    if kind == "palace":
        bonus = action.get("bonus")
        taken = f", takes bonus {bonus.get('goods') or bonus.get('kind')}" if isinstance(bonus, dict) else ""
        return f"{who}: palace in {action.get('city')}{taken}"
    if kind == "crown":
        return f"{who}: crowned palace in {action.get('city')}"
    if kind == "chain":
        reached = action.get("provinces")
        if isinstance(reached, int):
            reached = "no other province" if reached == 0 else counted(reached, "other province")
        return f"{who}: the chain reaches {reached}"
    if kind == "hand" and isinstance(action.get("cards"), list):
        return f"{who} declares a hand of {len(action['cards'])} card{'s' * (len(action['cards']) != 1)}"
    return generic.describe(game, s, action)


def _card(card) -> str:
    if not isinstance(card, dict):
        return "?"
    if "special" in card:
        return f"the {SPECIAL_LABEL.get(card['special'], card['special'])} card"
    symbols = card.get("symbols")
    return f"{card.get('color')} ({', '.join(map(str, symbols)) if isinstance(symbols, list) else '?'})"


def hints(game, s) -> dict[int, str]:
    """For every seat still in the round: what withdrawing now would take from the court."""
    if s.province is None or s.placer is not None:
        return {}
    return {seat: "Out now wins: " + (", ".join(game.would_win(s, seat)) or "nothing") for seat in range(len(s.players)) if s.in_round[seat]}
