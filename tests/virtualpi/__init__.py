"""The virtual Pi: the real driver stack (spidev, smbus2 under luma, lgpio under gpiozero) against real
Linux device interfaces inside a Debian trixie VM, with only the silicon modelled (docs/virtual-pi.md).

In the VM (as root; a process must never open a device it serves itself: its ioctl would wait for
its own server thread):
- cuse.py: the CUSE protocol (a character device served from user space);
- spidev.py: /dev/spidevB.D as spidev answers it, an RC522 model (tests/drivers/fake_rc522.py) behind it;
- i2cdev.py: /dev/i2c-N as i2c-dev answers it, the panel model (tests/drivers/i2c_oled.py) on the bus;
- gpiosim.py: the header's GPIO lines as a kernel GPIO chip (gpio-sim);
- board.py: all of them, as config/pi.toml wires them, and a control socket to tap, press and look;
- hands.py: a recorded game played on the board, every screen awaited on the panel.
On this machine: plan.py (what the panel must show, from the game played here in virtual time),
image.py (the VM's disk) and system.py (`make virtual-pi`).
"""
