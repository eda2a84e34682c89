"""The Raspberry Pi's 40-pin header: which GPIOs (BCM numbers) each bus takes, and where each GPIO is,
so that a message can tell a person which wire to check."""

BUS_PINS = {
    "SPI0": {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"},
    "SPI1": {16: "CS2", 17: "CS1", 18: "CS0", 19: "MISO", 20: "MOSI", 21: "SCLK"},
    "I2C1": {2: "SDA", 3: "SCL"},
}
#: GPIO (BCM) -> physical pin on the 40-pin header
HEADER = {2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21, 25: 22,
          11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40}


def gpio(number: int) -> str:
    """"GPIO18 (pin 12)"."""
    return f"GPIO{number} (pin {HEADER[number]})"


def spi_line(bus: int, role: str, device: int | None = None) -> str:
    """The GPIO of an SPI bus line: role SCLK, MOSI, MISO, or the chip select of `device`."""
    wanted = (("CE", "CS")[bus] + str(device)) if role == "CS" else role
    return next(gpio(number) for number, name in BUS_PINS[f"SPI{bus}"].items() if name == wanted)
