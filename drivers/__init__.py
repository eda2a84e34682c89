"""Hardware edges of the table: RFID readers, buttons and the display, each with real and mock back ends.

Drivers know nothing of games: they turn hardware into events (readers, buttons) and images into
pixels (display). Real hardware libraries (spidev, RPi.GPIO, smbus2) are imported only inside the
back end that needs them, so a desktop never imports them.
"""
