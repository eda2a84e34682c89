"""Mongols on the page: the dice board's gems, every player's plans by colour with the advisors, holdings.

The gem track (numbers 1 to 9 with their gems, lowered ones faded) is drawn only when the game records
the dice (option `dice`); with dice off the engine never sees the gems, so nothing is drawn that it does
not know. Plan colours are the players' own labels, in the order they appeared.
"""

from engines.mongols.dice import GEM_OF, NUMBERS, completed
from engines.mongols.engine import BUST, COLLECT, DONE, LOWER, N_COLOURS, SET_BONUS

from .. import svg
from . import generic

WIDTH = 400.0
NAME_W = 84.0
ROW_H = 30.0
STEPS = {BUST: "bust: discards a market card", COLLECT: "collects", DONE: "ends the turn", LOWER: "lowers the throw"}


def board(game, s) -> str:
    parts: list[str] = []
    y = 8.0
    if s.options.get("dice"):
        cell = (WIDTH - 16) / len(NUMBERS)
        for k, number in enumerate(NUMBERS):
            x = 8 + k * cell
            down = number in s.down
            title = svg.tag("title", svg.text(f"{number}: {GEM_OF[number]} gem {'lowered' if down else 'up'}"))
            parts.append(svg.tag("circle", title, cx=x + cell / 2, cy=y + 14, r=12, fill=svg.paint(GEM_OF[number]), class_="gem down" if down else "gem"))
            parts.append(svg.tag("text", svg.text(number), x=x + cell / 2, y=y + 19, class_="gem-number"))
        y += 34
        done = ", ".join(completed(s.down))
        line = f"Throw: {' + '.join(map(str, s.throw))}" if s.throw else "No throw waiting"
        parts.append(svg.tag("text", svg.text(line + (f" · complete: {done}" if done else "")), x=8, y=y + 10, class_="note"))
        y += 20
    colours = list(s.colours)
    cell = (WIDTH - NAME_W - 8) / N_COLOURS
    for k, colour in enumerate(colours):
        x = NAME_W + k * cell
        parts.append(svg.tag("rect", x=x + 3, y=y + 2, width=cell - 6, height=10, rx=2, fill=svg.paint(colour), class_="plan-colour"))
        parts.append(svg.tag("text", svg.text(colour[:9]), x=x + cell / 2, y=y + 25, class_="plan-label"))
    y += 32
    owned = [game.plan_counts(s, seat) for seat in range(len(s.players))]
    for seat, name in enumerate(s.players):
        parts.append(svg.tag("rect", x=4, y=y + 2, width=WIDTH - 8, height=ROW_H - 4, rx=3, class_=f"plan-row seat{seat}"))
        parts.append(svg.tag("text", svg.text(name[:10]), x=10, y=y + ROW_H / 2 + 4, class_="plan-name"))
        for k, colour in enumerate(colours):
            x = NAME_W + k * cell
            count = owned[seat].get(colour, 0)
            title = svg.tag("title", svg.text(f"{name}: {count} {colour} plan{'s' * (count != 1)}"))
            parts.append(svg.tag("text", svg.text(count), title, x=x + cell / 2, y=y + ROW_H / 2 + 5, class_="plan-count"))
            if s.advisors.get(colour) == seat:
                advisor = svg.tag("title", svg.text(f"{name} holds the {colour} advisor"))
                parts.append(svg.tag("circle", advisor, cx=x + cell / 2 + 14, cy=y + ROW_H / 2, r=6, fill=svg.paint(colour), class_="advisor"))
        y += ROW_H
    out = {colour: sum(1 for card, c in s.cards.items() if c == colour and card not in s.owner) for colour in colours}
    parts.append(svg.tag("text", svg.text("out"), x=10, y=y + 16, class_="plan-name muted"))
    for k, colour in enumerate(colours):
        parts.append(svg.tag("text", svg.text(out[colour]), x=NAME_W + k * cell + cell / 2, y=y + 16, class_="plan-count muted"))
    y += 24
    ground = svg.tag("rect", x=0, y=0, width=WIDTH, height=round(y), class_="ground")
    return svg.document(round(WIDTH), round(y), ground, *parts, label="Mongols: gems, plans by colour and advisors")


def view(game, s) -> dict:
    seats = []
    for seat in range(len(s.players)):
        counts = game.plan_counts(s, seat)
        sets = min(counts.values()) if len(counts) == N_COLOURS else 0
        seats.append(
            {
                "Plans": ", ".join(f"{colour} {counts[colour]}" for colour in s.colours if colour in counts) or "none",
                "Sets of five colours": f"{sets} (+{SET_BONUS * sets})",
                "Advisors": ", ".join(colour for colour, holder in s.advisors.items() if holder == seat) or "none",
            }
        )
    table = {"Turn": "game over" if s.over else f"{s.players[s.turn]} {STEPS.get(s.step, 'throws' if s.options.get('dice') else 'plays')}"}
    if s.options.get("dice"):
        table["Gems down"] = ", ".join(map(str, s.down)) or "none"
        table["Advisors used this turn"] = str(s.advisors_used)
    if s.taken or s.stolen:
        table["This turn"] = ", ".join([f"took at {gem}" for gem in s.taken] + ["stole a plan"] * s.stolen)
    table["Advisors in the centre"] = ", ".join(c for c in s.colours if c not in s.advisors) or "none"
    table["Plans out of the game"] = str(sum(1 for card in s.cards if card not in s.owner))
    table["Parchment"] = "drawn: this round is the last" if s.parchment else "not yet"
    return {"seats": seats, "table": table}


def describe(game, s, action: dict) -> str:
    who, kind = generic.player_name(s, action), action.get("type")
    card = action.get("card") if isinstance(action.get("card"), dict) else {}
    if kind == "roll" and isinstance(action.get("dice"), list):
        return f"{who} rolls {' + '.join(map(str, action['dice']))}"
    if kind == "lower" and isinstance(action.get("numbers"), list):
        adjust = action.get("adjust") or 0
        return f"{who} lowers {' + '.join(map(str, action['numbers']))}" + (f" (advisors {adjust:+d})" if isinstance(adjust, int) and adjust else "")
    if kind == "stop":
        return f"{who} stops"
    if kind == "take":
        return f"{who} takes a {card.get('color')} plan at the {action.get('gem')} gems"
    if kind == "steal":
        return f"{who} steals a {card.get('color')} plan from {generic.player_name(s, action, 'victim') or '?'}"
    if kind == "discard_market":
        return f"{who} busts: a {card.get('color')} plan leaves the market"
    if kind == "parchment":
        return "the parchment is drawn: this round is the last"
    return generic.describe(game, s, action)


def hints(game, s) -> dict[int, str]:
    """With the dice recorded, the exact chance that the next throw of the seat to play busts."""
    prompt = game.prompt(s)
    if not s.options.get("dice") or prompt is None or "roll" not in prompt.expects:
        return {}
    chances = game.bust_chances(s)
    return {s.turn: "Next throw busts: " + ", ".join(f"{n} dice {float(c):.0%}" if n > 1 else f"1 die {float(c):.0%}" for n, c in chances.items())}
