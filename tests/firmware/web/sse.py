"""A test-side reader of server-sent events: a thread parses the stream and queues each message
with its arrival time (the browser tests use a real browser; these serve the API tests and the bench).

It uses http.client so that `close()` can shut the socket down under the blocked read: the server
then sees the viewer leave at once, as it does when a phone closes the page.
"""

import http.client
import queue
import socket
import threading
import time
from typing import Callable, NamedTuple
from urllib.parse import urlsplit


class Message(NamedTuple):
    event: str
    id: str
    data: str
    at: float  # time.perf_counter() when the message's last line arrived


class EventReader:
    def __init__(self, url: str, timeout: float = 5.0, source: str | None = None):
        """Follow `url`, from the address `source` when given (another loopback address: 127.0.0.2)."""
        parts = urlsplit(url)
        self.url = url
        self.messages: queue.Queue[Message] = queue.Queue()
        self._connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout,
                                                      source_address=(source, 0) if source else None)
        self._connection.request("GET", parts.path, headers={"Accept": "text/event-stream"})
        self._response = self._connection.getresponse()
        self.status = self._response.status
        self.headers = self._response.headers
        self._connection.sock.settimeout(None)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fields: dict[str, list[str]] = {}
        try:
            while line := self._response.readline():
                line = line.decode().rstrip("\r\n")
                if line == "":
                    if "data" in fields:
                        data = "\n".join(fields["data"])
                        self.messages.put(Message(fields.get("event", ["message"])[-1], fields.get("id", [""])[-1], data, time.perf_counter()))
                    fields = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        except (OSError, ValueError, http.client.HTTPException):
            pass  # closed by close(), or the server went away: no more messages

    def next(self, timeout: float = 5.0) -> Message:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no server-sent event from {self.url} within {timeout} s") from None

    def until(self, wanted: Callable[[Message], bool], timeout: float = 5.0) -> Message:
        """The first message (skipping others) for which `wanted` is true."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, deadline - time.monotonic()))
            if wanted(message):
                return message

    def close(self) -> None:
        sock = self._connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=5)
        self._connection.close()
