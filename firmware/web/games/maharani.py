"""Maharani on the page: the palace grid with its tiles and artisans, quarter by quarter, and the holdings.

The grid is the game's board file (the bundled default is an unverified reconstruction, and says so in
its name, which the drawing's title repeats): each space at its row and column, filled with its tile's
colour, an artisan as a disc in its player's colour (the second set of a two-player seat with a ring),
thick lines where quarters meet, and each quarter's number, ticked once it has been evaluated.
"""

from collections import Counter

from engines.maharani.engine import EVALUATION

from .. import svg
from . import generic

CELL = 40.0
PAD = 6.0


def board(game, s) -> str:
    b = game.board(s)
    rows = [r for r, _ in b.position.values()]
    cols = [c for _, c in b.position.values()]
    top, left = min(rows), min(cols)
    width, height = (max(cols) - left + 1) * CELL + 2 * PAD, (max(rows) - top + 1) * CELL + 2 * PAD

    def corner(space: str) -> tuple[float, float]:
        r, c = b.position[space]
        return PAD + (c - left) * CELL, PAD + (r - top) * CELL

    parts = [svg.tag("rect", x=0, y=0, width=width, height=height, class_="ground")]
    for space in b.spaces:
        x, y = corner(space)
        colour = s.tiles.get(space)
        what = f"{space}: {colour} tile" if colour else f"{space}: empty"
        owner = s.artisans.get(space)
        if owner is not None:
            what += f", {s.players[owner[0]]}'s artisan" + (f" (set {owner[1] + 1})" if len(s.reserve[owner[0]]) > 1 else "")
        parts.append(
            svg.tag(
                "rect",
                svg.tag("title", svg.text(what)),
                x=x + 1, y=y + 1, width=CELL - 2, height=CELL - 2, rx=3,
                fill=svg.paint(colour) if colour else None,
                class_="space" if colour else "space empty",
            )
        )
        if owner is not None:
            seat, art_set = owner
            parts.append(svg.tag("circle", cx=x + CELL / 2, cy=y + CELL / 2, r=CELL * 0.24, class_=f"artisan seat{seat}"))
            if art_set:
                parts.append(svg.tag("circle", cx=x + CELL / 2, cy=y + CELL / 2, r=CELL * 0.11, class_="artisan-set"))
    at = {pos: space for space, pos in b.position.items()}
    for space, (r, c) in b.position.items():
        x, y = corner(space)
        for (dr, dc), edge in (((0, 1), (x + CELL, y, x + CELL, y + CELL)), ((1, 0), (x, y + CELL, x + CELL, y + CELL))):
            near = at.get((r + dr, c + dc))
            if near is not None and b.quarter_of[near] != b.quarter_of[space]:
                parts.append(svg.tag("line", x1=edge[0], y1=edge[1], x2=edge[2], y2=edge[3], class_="quarter-edge"))
    for q in b.quarters:
        corners = [corner(space) for space in b.spaces_in[q]]
        cx = sum(x for x, _ in corners) / len(corners) + CELL / 2
        cy = sum(y for _, y in corners) / len(corners) + CELL / 2
        done = q in s.evaluated
        parts.append(svg.tag("text", svg.text(f"Q{q}{' ✓' if done else ''}"), x=cx, y=cy + 5, class_="quarter-label done" if done else "quarter-label"))
    return svg.document(round(width), round(height), *parts, label=f"Maharani palace: {b.name}")


def view(game, s) -> dict:
    b = game.board(s)
    seats = []
    for seat in range(len(s.players)):
        on_board = Counter(art_set for owner_seat, art_set in s.artisans.values() if owner_seat == seat)
        sets = len(s.reserve[seat])
        seats.append(
            {
                "Artisans in reserve": " / ".join(f"set {k + 1}: {n}" for k, n in enumerate(s.reserve[seat])) if sets > 1 else str(s.reserve[seat][0]),
                "Artisans on the board": " / ".join(f"set {k + 1}: {on_board[k]}" for k in range(sets)) if sets > 1 else str(on_board[0]),
                "Action markers down": ", ".join(f"Q{q}" for q in s.down[seat]) or "none (all up)",
            }
        )
    colours = Counter(s.tiles.values())
    table = {
        "Turn": "game over" if s.over else f"{s.players[s.turn]}: {len(s.placed)} tile{'s' * (len(s.placed) != 1)} placed"
        + (f" (from {', '.join(f'Q{q}' for q in s.placed)})" if s.placed else ""),
        "Tiles placed": f"{len(s.tiles)} of {len(b.spaces)} spaces",
        "Tiles by colour": ", ".join(f"{colour} {n}" for colour, n in sorted(colours.items())) or "none yet",
        "Quarters evaluated": ", ".join(f"Q{q}" for q in s.evaluated) or "none yet",
        "Evaluation": ", ".join(f"{n}: {gold}" for n, gold in enumerate(EVALUATION) if n),
        "Board": b.name,
    }
    return {"seats": seats, "table": table}


def describe(game, s, action: dict) -> str:
    who = generic.player_name(s, action)
    kind = action.get("type")
    tile = action.get("tile")
    if kind == "place" and isinstance(tile, dict):
        line = f"{who} places a {tile.get('color')} tile on {action.get('space')} (from Q{action.get('from_quarter')})"
        return line + (", arrow to them" if action.get("arrow_to_player") else "")
    if kind == "refresh":
        return f"{who} turns the action markers up"
    if kind == "end_game":
        return "the tiles left cannot be placed: last count"
    return generic.describe(game, s, action)
