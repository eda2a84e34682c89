"""The score chart of a game's page: each seat's total after every journal entry, as an SVG."""

from . import svg

WIDTH, HEIGHT = 600, 220
LEFT, TOP, RIGHT, BOTTOM = 34, 12, 10, 24


def scores_chart(players: list[str], start: list[int], steps: list[dict]) -> str | None:
    """Lines of totals from the `start` totals through the timeline (undo entries included: the chart
    shows what happened)."""
    if not steps:
        return None
    totals = [start] + [step["totals"] for step in steps]
    low = min(0, *(min(t) for t in totals))
    high = max(1, *(max(t) for t in totals))
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def at(i: int, value: int) -> tuple[float, float]:
        return LEFT + span_x * i / (len(totals) - 1), TOP + span_y * (high - value) / (high - low)

    parts = [
        svg.tag("line", x1=LEFT, y1=at(0, 0)[1], x2=WIDTH - RIGHT, y2=at(0, 0)[1], class_="axis"),
        svg.tag("line", x1=LEFT, y1=TOP, x2=LEFT, y2=HEIGHT - BOTTOM, class_="axis"),
        svg.tag("text", svg.text(high), x=LEFT - 4, y=TOP + 4, text_anchor="end", class_="axis-label"),
        svg.tag("text", svg.text(low), x=LEFT - 4, y=HEIGHT - BOTTOM + 4, text_anchor="end", class_="axis-label"),
        svg.tag("text", svg.text(f"{len(steps)} entries"), x=WIDTH - RIGHT, y=HEIGHT - 6, text_anchor="end", class_="axis-label"),
    ]
    for seat, name in enumerate(players):
        line = [at(i, t[seat]) for i, t in enumerate(totals)]
        parts.append(svg.tag("polyline", svg.tag("title", svg.text(name)), points=svg.points(line), class_=f"line seat{seat}"))
    return svg.document(WIDTH, HEIGHT, *parts, label="Each player's total after every entry of the game", kind="chart")
