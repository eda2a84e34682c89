"""The wiring diagram of a profile: the Pi's 40-pin header with what each pin connects to, drawn from
the profile's own pin table, so it cannot drift from it (`tablemate wiring`, docs/wiring.svg).

    connections(profile)   physical pin -> (part, what the pin is, where it goes) for every pin used
    wires(profile)         how many jumper wires the build takes, by part
    svg(profile)           the diagram

Readers share their bus's SCK, MOSI and MISO and, from three readers on, a 3.3 V regulator of their
own fed from the Pi's 5 V (docs/owner.md, section 2); each has its own chip select and reset line.
Shared lines go through a perfboard strip: one wire from the Pi to the strip, one from the strip to
each part.
"""

from dataclasses import dataclass

from drivers.pins import BUS_PINS, HEADER

from ..config import Profile
from ..web import svg as markup

#: power and ground pins of the 40-pin header
POWER = {1: "3.3 V", 17: "3.3 V", 2: "5 V", 4: "5 V"}
GROUND = (6, 9, 14, 20, 25, 30, 34, 39)
GPIO_AT = {pin: gpio for gpio, pin in HEADER.items()}
#: readers a Pi's own 3.3 V pin may feed; more take a regulator (docs/owner.md, section 2)
OWN_SUPPLY_READERS = 2
#: the pins power and ground take, in the order they are handed out
SUPPLY_PINS = {"display VCC": 1, "regulator IN": 2, "readers' 3.3 V rail": 17}
GROUND_PINS = {"display GND": 6, "readers' ground rail": 9, "buttons' ground rail": 14}
COLOURS = {"reader": "#2d5aa0", "button": "#2f9a46", "display": "#8a4fc4", "power": "#d1382f", "ground": "#3b3b3b"}


@dataclass(frozen=True)
class Connection:
    part: str  # "reader", "button", "display", "power", "ground"
    signal: str  # what the pin is: "GPIO8 (SPI0 CE0)", "5 V", "GND"
    to: str  # where it goes: "reader 1 SDA"


def _readers(profile: Profile) -> list[tuple[int, object]]:
    return [(n, spec) for n, spec in enumerate((r for r in profile.readers if r.driver == "mfrc522"), start=1)]


def _select(bus: int, device: int) -> tuple[int, str]:
    """The GPIO of a chip select on SPI `bus`, and its name ("SPI1 CS2")."""
    name = ("CE", "CS")[bus] + str(device)
    return next(number for number, role in BUS_PINS[f"SPI{bus}"].items() if role == name), f"SPI{bus} {name}"


def _panel(profile: Profile) -> bool:
    return profile.display.driver in ("ssd1306", "sh1106")


def _regulated(profile: Profile) -> bool:
    return len(_readers(profile)) > OWN_SUPPLY_READERS


def connections(profile: Profile) -> dict[int, Connection]:
    """Every header pin the profile uses: its part, what it is, and where its wire goes."""
    found: dict[int, Connection] = {}

    def gpio(number: int, bus_role: str, part: str, to: str) -> None:
        signal = f"GPIO{number}" + (f" ({bus_role})" if bus_role else "")
        found[HEADER[number]] = Connection(part, signal, to)

    readers = _readers(profile)
    for bus in sorted({spec.bus for _, spec in readers}):
        on_bus = [n for n, spec in readers if spec.bus == bus]
        names = f"reader{'s' * (len(on_bus) > 1)} {', '.join(map(str, on_bus))}"
        for number, role in BUS_PINS[f"SPI{bus}"].items():
            if role in ("SCLK", "MOSI", "MISO"):
                gpio(number, f"SPI{bus} {role}", "reader", f"{names} {'SCK' if role == 'SCLK' else role}")
    for n, spec in readers:
        gpio(*_select(spec.bus, spec.device), "reader", f"reader {n} SDA (chip select)")
        if spec.rst is not None:
            gpio(spec.rst, "", "reader", f"reader {n} RST")
    for role, number in profile.buttons.pins.items():
        gpio(number, "", "button", f"{role} button")
    for seat, number in profile.buttons.seat_withdraw.items():
        gpio(number, "", "button", f"seat {seat + 1} withdraw button")
    if profile.buttons.encoder:
        for name, number in zip("AB", profile.buttons.encoder):
            gpio(number, "", "button", f"encoder {name}")
    display = profile.display
    if _panel(profile) and display.interface == "i2c":
        gpio(2, "I2C1 SDA", "display", "display SDA")
        gpio(3, "I2C1 SCL", "display", "display SCL")
    elif _panel(profile):  # SPI: its own chip select, data/command and reset lines, the bus's SCLK and MOSI
        gpio(*_select(display.bus, display.device), "display", "display CS")
        gpio(display.dc, "", "display", "display DC")
        gpio(display.rst, "", "display", "display RES")
        for number, role in BUS_PINS[f"SPI{display.bus}"].items():
            if role in ("SCLK", "MOSI") and HEADER[number] not in found:
                gpio(number, f"SPI{display.bus} {role}", "display", f"display {'CLK' if role == 'SCLK' else 'DIN'}")
    supplies = {"display VCC": _panel(profile), "regulator IN": _regulated(profile),
                "readers' 3.3 V rail": bool(readers) and not _regulated(profile)}
    for to, pin in SUPPLY_PINS.items():
        if supplies[to]:
            found[pin] = Connection("power", POWER[pin], to)
    grounds = {"display GND": supplies["display VCC"], "readers' ground rail": bool(readers),
               "buttons' ground rail": bool(profile.buttons.pins or profile.buttons.encoder)}
    for to, pin in GROUND_PINS.items():
        if grounds[to]:
            found[pin] = Connection("ground", "GND", to)
    return found


def wires(profile: Profile) -> dict[str, int]:
    """Jumper wires by part: a direct line is one wire, a shared one a wire to its strip and one from
    the strip to each part on it."""
    readers = _readers(profile)
    count = {"readers": 0, "reader power": 0, "buttons": 0, "display": 0}
    for bus in {spec.bus for _, spec in readers}:
        count["readers"] += 3 * (1 + sum(spec.bus == bus for _, spec in readers))  # SCK, MOSI, MISO
    count["readers"] += sum(1 + (spec.rst is not None) for _, spec in readers)  # chip select, reset
    if readers:  # 3.3 V and ground: the Pi (or the regulator) to the rails, the rails to each reader
        count["reader power"] = (4 if _regulated(profile) else 2) + 2 * len(readers)
    presses = len(profile.buttons.pins) + len(profile.buttons.seat_withdraw)
    count["buttons"] = 2 * presses + (3 if profile.buttons.encoder else 0) + (1 if presses else 0)
    count["display"] = (4 if profile.display.interface == "i2c" else 7) if _panel(profile) else 0
    return count


ROW, TOP, MIDDLE, WIDTH = 22.0, 70.0, 480.0, 960


def svg(profile: Profile, source: str = "") -> str:
    """The diagram: the header seen from above (pin 1 top left), each used pin labelled with its wire;
    below, the readers' power and the parts list."""
    used = connections(profile)
    notes = _power(profile, TOP + 20 * ROW + 10)
    height = round(TOP + 20 * ROW + 30 + 18 * len(notes))
    parts = [markup.tag("rect", x=0, y=0, width=WIDTH, height=height, fill="#ffffff"),
             _text(24, 30, f"tablemate wiring: {source or profile.path}", size=18, weight="bold"),
             _text(24, 52, "Raspberry Pi 40-pin header from above, pin 1 top left. GPIO numbers are BCM numbers.", size=13)]
    for pin in range(1, 41):
        row, right = (pin - 1) // 2, pin % 2 == 0
        x, y = MIDDLE + (14 if right else -14), TOP + row * ROW
        connection = used.get(pin)
        colour = COLOURS[connection.part] if connection else "#c8c8c8"
        parts.append(markup.tag("circle", cx=x, cy=y, r=7, fill=colour))
        parts.append(_text(x, y + 3.5, str(pin), size=8, fill="#ffffff", anchor="middle"))
        if connection:
            label = f"{connection.signal} → {connection.to}" if right else f"{connection.to} ← {connection.signal}"
            colour_text = colour
        else:
            label, colour_text = _idle(pin), "#8a8a8a"
        parts.append(_text(x + (14 if right else -14), y + 4, label, size=12, fill=colour_text, anchor="start" if right else "end"))
    return markup.document(WIDTH, height, *parts, *notes, label=f"Wiring of {source or profile.path}", kind="wiring")


def _idle(pin: int) -> str:
    if pin in POWER:
        return f"{POWER[pin]} (spare)"
    if pin in GROUND:
        return "GND (spare)"
    return f"GPIO{GPIO_AT[pin]} free"


def _power(profile: Profile, top: float) -> list[str]:
    readers = _readers(profile)
    count = wires(profile)
    lines = []
    if _regulated(profile):
        lines += [f"Readers' power: {len(readers)} readers draw more than the Pi's 3.3 V pins should give (docs/owner.md, section 2):",
                  "  Pi 5 V (pin 2) → a 3.3 V regulator of 1 A or more, IN; its OUT → the readers' 3.3 V rail → each reader's 3.3V pin;",
                  "  its GND → the readers' ground rail, joined to the Pi's GND (pin 9) → each reader's GND.",
                  "  Never join the regulator's OUT to the Pi's 3.3 V pins."]
    elif readers:
        lines.append("Readers' power: the Pi's 3.3 V (pin 17) → the readers' 3.3 V rail; GND (pin 9) → their ground rail.")
    if readers:
        lines.append("  A 10 uF capacitor across 3.3 V and GND at each reader. IRQ stays unconnected; never feed a reader 5 V.")
    lines += ["Buttons: one leg to its GPIO, the other to the buttons' ground rail (GND, pin 14); the Pi's pull-ups are used.",
              f"Jumper wires: {sum(count.values())} ({', '.join(f'{part} {n}' for part, n in count.items() if n)}),",
              "  shared lines (SCK, MOSI, MISO, 3.3 V, GND) through a perfboard strip: a wire in, a wire out to each part."]
    return [_text(48 if line.startswith("  ") else 24, top + 18 * k, line.strip(), size=13) for k, line in enumerate(lines)]


def _text(x: float, y: float, value: str, *, size: int, fill: str = "#1d1d1f", anchor: str = "start", weight: str | None = None) -> str:
    return markup.tag("text", markup.text(value), x=x, y=y, font_size=size, fill=fill, text_anchor=anchor,
                      font_family="DejaVu Sans, Arial, sans-serif", font_weight=weight)
