"""Running the view under uvicorn: in the foreground (`tablemate web`) or in a thread beside the table.

The same limits everywhere: HTTP/1.1 through h11 with a bounded header size, a cap on open
connections (SSE viewers included), no proxy headers trusted, short keep-alive, and a quick
graceful stop: the live streams are ended first (they never end by themselves).

`Background` binds its socket itself before the thread starts, so a port in use is a clear
`RuntimeError` naming the address, and a server that dies later calls `on_failure` with the reason:
the table beside it notes the failure and plays on.
"""

import ipaddress
import logging
import socket
import threading
from typing import Callable

import uvicorn

from .app import create_app, hub_of

log = logging.getLogger(__name__)

DEFAULT_BIND = "127.0.0.1"
DEFAULT_PORT = 8080
#: Largest request head (request line + headers) accepted, in bytes.
MAX_HEAD = 16 * 1024
#: Open connections at once; past that uvicorn answers 503.
MAX_CONNECTIONS = 100


def config(app, bind: str, port: int, log_level: str = "info") -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=bind,
        port=port,
        http="h11",
        ws="none",
        lifespan="on",
        h11_max_incomplete_event_size=MAX_HEAD,
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=2,
        proxy_headers=False,
        server_header=False,
        access_log=False,
        log_level=log_level,
    )


class Server(uvicorn.Server):
    """uvicorn's server, which ends the live streams first when told to stop, so the stop is quick."""

    def __init__(self, config: uvicorn.Config):
        super().__init__(config)
        self.hub = hub_of(config.app)

    def handle_exit(self, sig, frame) -> None:
        self.hub.release()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Stop from another thread."""
        self.hub.release()
        self.should_exit = True


def serve(store_url: str, table: str, bind: str = DEFAULT_BIND, port: int = DEFAULT_PORT, hosts: tuple[str, ...] = ()) -> None:
    """Serve the view of `table` until SIGINT/SIGTERM (blocking), only at `hosts` when there are any;
    RuntimeError when the port cannot be bound."""
    foreground(create_app(store_url, table, hosts=hosts), bind, port, "tablemate web: the live view")


def foreground(app, bind: str, port: int, title: str) -> None:
    """Serve `app` until SIGINT/SIGTERM (blocking), after saying "<title> is at <address>". The socket
    is bound first, so a port in use is a RuntimeError naming the address, not uvicorn's log line and
    its exit status 3 (the CLI's for Redis)."""
    sock = listen(bind, port)
    try:
        print(f"{title} is at {address(bind, port)}/  (Ctrl-C stops it)", flush=True)
        Server(config(app, bind, port)).run(sockets=[sock])
    finally:
        sock.close()


def address(host: str, port: int) -> str:
    """The page's address: "http://127.0.0.1:8080", an IPv6 host in brackets."""
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def listen(bind: str, port: int) -> socket.socket:
    """A TCP socket bound to `bind`:`port` (0: any free port); RuntimeError says why it cannot be."""
    family = socket.AF_INET6 if ipaddress.ip_address(bind).version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind, port))
    except OSError as error:
        sock.close()
        reason = "the port is in use (another program, or another tablemate)" if error.errno == 98 else error.strerror
        raise RuntimeError(f"cannot serve on {bind}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


class Background:
    """A server run from a thread of this process: the live view beside the table's own service, a
    desktop with a `memory://` store (which only this process can see), the simulator, and the tests.
    """

    def __init__(
        self, store_url: str | None, table: str | None, bind: str = DEFAULT_BIND, port: int = DEFAULT_PORT,
        log_level: str = "warning", on_failure: Callable[[str], None] | None = None, app=None, **app_options
    ):
        """The view of `table` at `store_url`, or `app` (another app built like it: the club page, the
        simulator); `on_failure` hears why the server stopped when nobody asked it to."""
        self.server = Server(config(app or create_app(store_url, table, **app_options), bind, port, log_level))
        self.on_failure = on_failure
        self.thread = threading.Thread(target=self._serve, name="tablemate-web", daemon=True)
        self._socket: socket.socket | None = None
        self._stopping = False

    def start(self, timeout: float = 10.0) -> "Background":
        """Start serving; returns once the port is bound. RuntimeError when it cannot be (port in use...)."""
        self._socket = listen(self.server.config.host, self.server.config.port)
        self.thread.start()
        deadline = threading.Event()
        waited = 0.0
        while not self.server.started:
            if not self.thread.is_alive() or waited > timeout:
                raise RuntimeError(f"the web view did not start on {self.server.config.host}:{self.server.config.port}")
            deadline.wait(0.02)
            waited += 0.02
        return self

    def _serve(self) -> None:
        reason = "its server stopped"
        try:
            self.server.run(sockets=[self._socket])
        except BaseException as error:  # uvicorn exits with SystemExit; anything else is a crash
            reason = f"its server failed: {type(error).__name__}: {error}"
            log.exception("the web server failed")
        finally:
            self._socket.close()
        if not self._stopping and self.server.started and self.on_failure is not None:
            self.on_failure(reason)

    @property
    def port(self) -> int:
        """The bound port (the one chosen by the system when asked for port 0)."""
        return self._socket.getsockname()[1]

    @property
    def url(self) -> str:
        return address(self.server.config.host, self.port)

    def stop(self) -> None:
        self._stopping = True
        self.server.stop()
        if self.thread.is_alive():
            self.thread.join(timeout=10)
