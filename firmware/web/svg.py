"""Building SVG markup with every attribute and text escaped (player names come from the table)."""

from html import escape
from typing import Iterable


def attrs(**values: object) -> str:
    """` name="value"` pairs; `class_` gives `class`, `_` in other names gives `-`, None is left out."""
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        name = "class" if name == "class_" else name.replace("_", "-")
        if isinstance(value, float):
            value = f"{value:.1f}"
        parts.append(f' {name}="{escape(str(value), quote=True)}"')
    return "".join(parts)


def tag(name: str, *children: str, **values: object) -> str:
    """An element; `children` are markup already built (use `text()` for plain text)."""
    inner = "".join(children)
    return f"<{name}{attrs(**values)}>{inner}</{name}>" if inner else f"<{name}{attrs(**values)}/>"


def text(value: object) -> str:
    return escape(str(value), quote=False)


def points(xy: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)


def document(width: int, height: int, *children: str, label: str, kind: str = "board") -> str:
    """An <svg> that scales to its container's width (phone first) and says what it shows."""
    return tag(
        "svg",
        tag("title", text(label)),
        *children,
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {width} {height}",
        role="img",
        aria_label=label,
        class_=kind,
    )


#: Fills for the colour words games use as free labels (tiles, plan cards, gems).
NAMED = {
    "red": "#d64541", "orange": "#ee8a2f", "yellow": "#f2cd3c", "green": "#3f9b4f", "blue": "#3b6fd1",
    "purple": "#8650b8", "violet": "#8650b8", "pink": "#ef8fb5", "white": "#f7f7f2", "black": "#2b2b2b",
    "grey": "#9a9a9a", "gray": "#9a9a9a", "brown": "#8a5a33", "turquoise": "#3fbfbf", "cyan": "#3fbfbf",
    "beige": "#dcc9a0", "gold": "#d4a92a",
}
#: Fills for labels that name no known colour, chosen by the label so it keeps its fill.
SPARE = ("#6d8fb3", "#b36d8f", "#8fb36d", "#b3986d", "#6db3a8", "#a86db3")


def paint(label: str) -> str:
    """A fill for a colour label: the colour it names, else a stable spare one."""
    key = label.strip().lower()
    if key in NAMED:
        return NAMED[key]
    return SPARE[sum(key.encode()) % len(SPARE)]
