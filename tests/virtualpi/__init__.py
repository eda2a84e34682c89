"""The virtual Pi: the real driver stack (spidev, smbus2 under luma, lgpio under gpiozero) against
real Linux device interfaces inside a Debian trixie VM, with only the silicon modelled.

- cuse.py: the CUSE protocol (a character device served from user space);
- spidev.py: /dev/spidevB.D as spidev answers it, an RC522 model (tests/drivers/fake_rc522.py) behind it;
- i2cdev.py: /dev/i2c-N as i2c-dev answers it, the panel model (tests/drivers/i2c_oled.py) on the bus;
- ljca.py: the header's GPIO lines as a real kernel GPIO chip (a USB GPIO adapter emulated on dummy_hcd).

These run as root inside the VM, in a process of their own (a process must never open a device it
serves itself: its ioctl would wait for its own server thread). docs/virtual-pi.md says how it is
built, what was verified and what is still open.
"""
