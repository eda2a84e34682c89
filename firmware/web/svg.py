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
