"""The systemd notify protocol (sd_notify): one datagram of KEY=value lines to $NOTIFY_SOCKET.

Ten lines of socket code instead of a dependency. An address starting with "@" is an abstract
socket. Outside systemd (no NOTIFY_SOCKET) every call does nothing, so the same loop runs anywhere.
"""

import os
import socket


class Notifier:
    def __init__(self, address: str | None = None, watchdog_usec: str | None = None, watchdog_pid: str | None = None):
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        usec = watchdog_usec if watchdog_usec is not None else os.environ.get("WATCHDOG_USEC", "")
        pid = watchdog_pid if watchdog_pid is not None else os.environ.get("WATCHDOG_PID", "")
        for_us = not pid or pid == str(os.getpid())
        #: seconds between WATCHDOG=1 pings (half systemd's WatchdogSec), or None without a watchdog
        self.watchdog_interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 and for_us else None

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def notify(self, *lines: str) -> bool:
        """Send `lines` (KEY=value) as one datagram; False when not under systemd or the send failed."""
        if not self.address:
            return False
        address = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(address)
                sock.sendall("\n".join(lines).encode())
            return True
        except OSError:
            return False

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str = "") -> bool:
        return self.notify("STOPPING=1", *([f"STATUS={status}"] if status else []))
