"""The GPIO adapter's firmware answers usb-ljca's and gpio-ljca's messages (no USB needed here)."""

import struct

from .ljca import (CONF_INPUT, CONF_INTERRUPT, CONF_OUTPUT, CONF_PULLUP, GPIO, GPIO_CONFIG, GPIO_INT_EVENT,
                   GPIO_INT_UNMASK, GPIO_READ, GPIO_WRITE, LINES, MNG, MNG_ENUM_GPIO, MNG_ENUM_I2C, MNG_RESET,
                   Header)


def header(outputs=None):
    board = Header(lambda line, level: outputs.append((line, level)) if outputs is not None else None)
    board.sent = []
    board._send = lambda kind, command, data, flags: board.sent.append((kind, command, data))
    return board


def test_enumeration_offers_one_bank_of_gpio_lines_and_no_i2c_or_spi():
    board = header()
    assert board._answer(MNG, MNG_RESET, struct.pack("<I", 7)) == struct.pack("<I", 7)
    answer = board._answer(MNG, MNG_ENUM_GPIO, b"")
    assert len(answer) == 2 + 6 * answer[1]  # struct_size(desc, bank_desc, bank_num), as the driver checks
    assert answer[0] * answer[1] == LINES >= 28  # BCM 0-27 of the header
    assert board._answer(MNG, MNG_ENUM_I2C, b"") == b"\0"


def test_an_output_written_high_reaches_what_is_wired_to_it():
    outputs = []
    board = header(outputs)
    board._answer(GPIO, GPIO_CONFIG, bytes([1, 25, CONF_OUTPUT]))
    board._answer(GPIO, GPIO_WRITE, bytes([1, 25, 1]))
    assert outputs == [(25, 0), (25, 1)]  # an RC522 held in reset as an output, then released: it starts


def test_a_button_to_ground_reads_low_over_the_pull_up_and_raises_one_event_until_unmasked():
    board = header()
    board._answer(GPIO, GPIO_CONFIG, bytes([1, 5, CONF_INPUT | CONF_PULLUP]))
    assert board._answer(GPIO, GPIO_READ, bytes([1, 5, 0])) == bytes([1, 5, 1])
    board._answer(GPIO, GPIO_CONFIG, bytes([1, 5, CONF_INTERRUPT]))
    board._answer(GPIO, GPIO_INT_UNMASK, bytes([1, 5, 0]))
    board.wire(5, 0)
    board.wire(5, None)  # released before the driver unmasked it again: no second event
    assert board.sent == [(GPIO, GPIO_INT_EVENT, bytes([1, 5, 0]))]
    assert board._answer(GPIO, GPIO_READ, bytes([1, 5, 0])) == bytes([1, 5, 1])
