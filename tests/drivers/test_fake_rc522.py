"""The fake RC522's own rules, on raw register traffic: those no driver path of ours reaches."""

from .fake_rc522 import (BIT_FRAMING, COLL, COLL_ERR, COM_IRQ, COMMAND, CONTROL, ERROR, FIFO_DATA, FIFO_LEVEL, IDLE,
                         MODE, PARITY_ERR, POWER_DOWN, RX_IRQ, SOFT_RESET, START_SEND, STATUS2, T_MODE, T_PRESCALER,
                         T_RELOAD_L, T_START_NOW, T_STOP_NOW, TEMP_ERR, TEMP_SENS_CLEAR, TIMER_IRQ, TRANSCEIVE, TX_ASK,
                         TX_CONTROL, TX_IRQ, TX_WAIT_RF, WR_ERR, FakeBus, FakeCard)


def chip_on(clock, transaction_cost=30e-6):
    """A strict fake chip, started long ago, and an open spidev handle on it at 10 MHz."""
    bus = FakeBus(clock, transaction_cost)
    chip = bus.add_chip(0, 0, miss=0, garble=0)
    clock.advance(0.1)
    return chip, bus.connect(0, 0, 10_000_000)


def write(spi, register, *values):
    spi.xfer2([register << 1, *values])


def read(spi, register):
    return spi.xfer2([register << 1 | 0x80, 0])[1]


def test_after_a_soft_reset_powerdown_reads_1_and_writes_are_lost_for_td(clock):
    chip, spi = chip_on(clock, transaction_cost=0)
    write(spi, COMMAND, SOFT_RESET)
    assert read(spi, COMMAND) & POWER_DOWN
    write(spi, TX_ASK, 0x40)
    assert read(spi, TX_ASK) == 0x00  # lost: the chip was not ready
    clock.advance(40e-6)  # td = 1024 / 27.12 MHz = 37.74 µs (datasheet 8.8.2)
    assert not read(spi, COMMAND) & POWER_DOWN
    write(spi, TX_ASK, 0x40)
    assert read(spi, TX_ASK) == 0x40


def test_temperr_keeps_the_field_off_until_cleared_once_cool_and_txwaitrf_holds_frames_back(clock):
    chip, spi = chip_on(clock)
    write(spi, TX_CONTROL, 0x83)
    card = chip.place(FakeCard("a1b2c3d4"))
    chip.overheat()
    assert read(spi, ERROR) & TEMP_ERR and not chip.field and card.state == "off"
    assert read(spi, MODE) & TX_WAIT_RF  # its reset value: no frame without a field
    write(spi, T_MODE, 0x80)
    write(spi, COM_IRQ, 0x7F)
    write(spi, FIFO_LEVEL, 0x80)
    write(spi, FIFO_DATA, 0x52)
    write(spi, BIT_FRAMING, 0x07)
    write(spi, COMMAND, TRANSCEIVE)
    write(spi, BIT_FRAMING, START_SEND | 0x07)
    clock.advance(0.01)
    assert not read(spi, COM_IRQ) & (TX_IRQ | TIMER_IRQ)  # held back: nothing sent, no timer
    write(spi, STATUS2, TEMP_SENS_CLEAR)
    assert read(spi, ERROR) & TEMP_ERR  # still hot: not cleared
    chip.cool_down()
    assert read(spi, ERROR) & TEMP_ERR and not chip.field  # cool, but the error stays until cleared
    write(spi, STATUS2, TEMP_SENS_CLEAR)
    assert not read(spi, ERROR) & TEMP_ERR and chip.field and card.state == "idle"
    clock.advance(0.01)
    assert read(spi, COM_IRQ) & TX_IRQ  # the frame held back went out once the field was on


def transceive(spi, *frame, last_bits=0):
    write(spi, COMMAND, IDLE)
    write(spi, COM_IRQ, 0x7F)
    write(spi, FIFO_LEVEL, 0x80)
    write(spi, FIFO_DATA, *frame)
    write(spi, BIT_FRAMING, last_bits)
    write(spi, COMMAND, TRANSCEIVE)
    write(spi, BIT_FRAMING, START_SEND | last_bits)


def ready_to_poll(spi, clock):
    """The antenna on with 100 % ASK, TAuto and a 1 ms timer (40 kHz, 40 ticks), the field on for 10 ms."""
    write(spi, TX_CONTROL, 0x83)
    write(spi, TX_ASK, 0x40)
    write(spi, T_MODE, 0x80)
    write(spi, T_PRESCALER, 169)
    write(spi, T_RELOAD_L, 39)
    clock.advance(0.01)


def test_the_timer_runs_on_through_a_new_command_until_tstopnow_and_an_answer_stops_it(clock):
    """TModeReg TAuto: the timer starts at the end of a frame and stops at an answer's 5th bit; nothing
    else stops it but TStopNow (or a reset): Idle does not, so a command cut short sets TimerIRq late."""
    chip, spi = chip_on(clock, transaction_cost=0)
    ready_to_poll(spi, clock)
    transceive(spi, 0x52, last_bits=7)  # WUPA into an empty field
    clock.advance(0.0002)
    write(spi, COMMAND, IDLE)  # cut short: the timer runs on
    write(spi, COM_IRQ, 0x7F)
    clock.advance(0.0005)
    assert not read(spi, COM_IRQ) & TIMER_IRQ
    clock.advance(0.0005)
    assert read(spi, COM_IRQ) & TIMER_IRQ  # 1 ms after the WUPA's end, under no command at all
    write(spi, COM_IRQ, 0x7F)
    write(spi, CONTROL, T_START_NOW)
    clock.advance(0.0005)
    write(spi, CONTROL, T_STOP_NOW)
    clock.advance(0.002)
    assert not read(spi, COM_IRQ) & TIMER_IRQ and read(spi, CONTROL) & 0xC0 == 0  # stopped; the bits read 0
    chip.place(FakeCard("a1b2c3d4"))
    clock.advance(0.01)
    transceive(spi, 0x52, last_bits=7)
    clock.advance(0.003)
    assert read(spi, COM_IRQ) & (RX_IRQ | TIMER_IRQ) == RX_IRQ  # the ATQA stopped it


def test_the_fifo_written_while_an_answer_may_come_is_wrerr_and_a_violation(clock):
    chip, spi = chip_on(clock, transaction_cost=0)
    write(spi, TX_CONTROL, 0x83)
    write(spi, TX_ASK, 0x40)
    chip.place(FakeCard("a1b2c3d4"))
    clock.advance(0.01)
    transceive(spi, 0x52, last_bits=7)
    clock.advance(0.0001)  # the WUPA is out (about 85 µs), the ATQA not yet in
    write(spi, FIFO_DATA, 0x93)
    assert read(spi, ERROR) & WR_ERR and "WrErr" in chip.violations[-1]
    clock.advance(0.001)
    transceive(spi, 0x52, last_bits=7)  # Idle first, as a driver must: no error
    assert not read(spi, ERROR) & WR_ERR and len(chip.violations) == 1


def test_an_answer_that_breaks_off_stops_the_timer_and_sets_neither_rxirq_nor_timerirq(clock):
    """TModeReg TAuto: the timer stops at an answer's 5th bit; ComIrqReg RxIRq: set only at the end of a
    valid data stream. An answer that breaks off (or noise in an empty field) leaves the chip listening
    with neither bit set; once a command ends the Transceive, a timer started anew runs out as usual."""
    chip, spi = chip_on(clock, transaction_cost=0)
    ready_to_poll(spi, clock)
    card = chip.place(FakeCard("a1b2c3d4"))
    clock.advance(0.01)
    for field in ("a card", "empty"):
        chip.disturb("broken")
        transceive(spi, 0x52, last_bits=7)
        clock.advance(0.01)
        assert read(spi, COM_IRQ) & (RX_IRQ | TIMER_IRQ) == 0, field
        assert read(spi, COM_IRQ) & TX_IRQ and read(spi, FIFO_LEVEL) == 0
        write(spi, COMMAND, IDLE)
        write(spi, COM_IRQ, 0x7F)
        write(spi, CONTROL, T_START_NOW)
        clock.advance(0.0011)
        assert read(spi, COM_IRQ) & TIMER_IRQ, field
        chip.lift()
    chip.disturb("parity", frame=1)  # the frame after next
    for error in (0, PARITY_ERR):
        chip.place(card)
        clock.advance(0.01)
        transceive(spi, 0x52, last_bits=7)
        clock.advance(0.002)
        assert read(spi, COM_IRQ) & RX_IRQ and read(spi, ERROR) == error
        chip.lift()


def test_every_command_clears_errorreg_but_temperr(clock):
    chip, spi = chip_on(clock, transaction_cost=0)
    ready_to_poll(spi, clock)
    chip.place(FakeCard("a1b2c3d4"))
    chip.place(FakeCard("04a1b2c3d4e5f6"))
    clock.advance(0.01)
    transceive(spi, 0x52, last_bits=7)
    clock.advance(0.002)
    assert read(spi, ERROR) == COLL_ERR and read(spi, COLL) & 0x1F == 7  # the ATQAs 04 00 and 44 00: bit 7
    chip.overheat()
    assert read(spi, ERROR) == COLL_ERR | TEMP_ERR
    write(spi, COMMAND, IDLE)
    assert read(spi, ERROR) == TEMP_ERR


def test_a_stalled_oscillator_sends_nothing_and_runs_no_timer_until_a_reset(clock, mock_factory):
    chip, spi = chip_on(clock, transaction_cost=0)
    chip.wire_reset(mock_factory, 25, pull_up=True)
    ready_to_poll(spi, clock)
    chip.stall()
    transceive(spi, 0x52, last_bits=7)
    write(spi, CONTROL, T_START_NOW)
    clock.advance(0.01)
    assert read(spi, COM_IRQ) & (TX_IRQ | RX_IRQ | TIMER_IRQ) == 0 and read(spi, T_MODE) == 0x80
    pin = mock_factory.pin(25)
    pin.drive_low()
    pin.drive_high()
    clock.advance(0.05)
    ready_to_poll(spi, clock)
    write(spi, CONTROL, T_START_NOW)
    clock.advance(0.0011)
    assert read(spi, COM_IRQ) & TIMER_IRQ


def test_a_module_that_pulls_its_reset_line_up_runs_when_the_line_is_released(clock, mock_factory):
    from gpiozero import DigitalOutputDevice

    pulled, floating = (chip_on(clock)[0] for _ in range(2))
    pulled.wire_reset(mock_factory, 25, pull_up=True)
    floating.wire_reset(mock_factory, 24)
    assert (pulled.power, floating.power) == ("running", "hard power-down")  # nobody drives them yet
    lines = [DigitalOutputDevice(gpio, initial_value=False, pin_factory=mock_factory) for gpio in (25, 24)]
    assert (pulled.power, floating.power) == ("hard power-down", "hard power-down")
    for line in lines:
        line.close()  # gpiozero makes it an input without a pull of its own
    assert (pulled.power, floating.power) == ("running", "hard power-down")
