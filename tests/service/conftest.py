"""Fixtures of the service tests: notify sockets and `tablemate run` processes, cleaned up after."""

import pytest

from .support import NotifySocket, Tablemate


@pytest.fixture
def notify_socket():
    """Binds notify sockets ("path" or "abstract") for one test and closes them after it."""
    sockets: list[NotifySocket] = []

    def bind(kind: str = "path") -> NotifySocket:
        sockets.append(NotifySocket(kind))
        return sockets[-1]

    yield bind
    for sock in sockets:
        sock.close()


@pytest.fixture
def tablemate():
    """Starts `tablemate run` processes (arguments as Tablemate's); any still running after the test
    is killed, so a failed test leaves nothing behind."""
    processes: list[Tablemate] = []

    def start(*args, **kwargs) -> Tablemate:
        processes.append(Tablemate(*args, **kwargs))
        return processes[-1]

    yield start
    for process in processes:
        process.kill()
