"""Web view speed: the delay from an action the table accepts to its SSE message reaching a viewer,
and requests per second for /api/state with 20 concurrent clients.

As on the Pi: a real redis-server (AOF, appendfsync always) on loopback, the view in its own process
(`firmware.web.serve`), the table's writes through `firmware.session.Session` in this one. The delay
runs from just before `Session.apply` (engine, journal write, publish) to the arrival of the message
naming that entry, one action at a time. Without redis-server the figures come from an in-process
`memory://` store and say so. Target on the 2-core dev machine: p99 delay <= 50 ms.
"""

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.journal import Journal  # noqa: E402
from firmware.session import Session  # noqa: E402
from firmware.store import connect  # noqa: E402
from firmware.web import Background  # noqa: E402
from tests.firmware.web.sse import EventReader  # noqa: E402
from tests.redis_server import RedisServer, free_port  # noqa: E402

TABLE = "bench"
DEMO = ROOT / "tests" / "firmware" / "thurn_und_taxis.log.json"
CLIENTS = 20
RPS_SECONDS = 3.0
GAMES = 2  # the recorded game played this many times: about 630 actions


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def sse_delays(store_url: str, base_url: str) -> list[float]:
    log = json.loads(DEMO.read_text(encoding="utf-8"))
    journal = Journal(connect(store_url), TABLE)
    viewer = EventReader(base_url + "/events")
    delays = []
    try:
        viewer.next()  # the panel as it is now
        for number in range(GAMES):
            session = Session.start(journal, log["game"], log["players"], log["options"], gid=f"bench-{number}")
            viewer.until(lambda m: m.id == f"bench-{number}:0")
            for n, action in enumerate(log["actions"], start=1):
                started = time.perf_counter()
                session.apply(action)
                arrived = viewer.until(lambda m: m.id == f"bench-{number}:{n}").at
                delays.append(arrived - started)
    finally:
        viewer.close()
    return sorted(delays)


async def _hammer(port: int) -> tuple[int, int, list[float]]:
    """CLIENTS keep-alive connections asking for /api/state in a loop for RPS_SECONDS.

    The load generator speaks just enough HTTP/1.1 (one fixed request, Content-Length bodies) to
    cost the server's core far more than its own: an HTTP client library here would be what is
    measured.
    """
    done, failed, times = 0, 0, []
    request = b"GET /api/state HTTP/1.1\r\nHost: bench\r\n\r\n"
    deadline = time.perf_counter() + RPS_SECONDS

    async def one_client() -> None:
        nonlocal done, failed
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
                await reader.readexactly(length)
                times.append(time.perf_counter() - started)
                if head.startswith(b"HTTP/1.1 200 "):
                    done += 1
                else:
                    failed += 1
        finally:
            writer.close()

    await asyncio.gather(*(one_client() for _ in range(CLIENTS)))
    return done, failed, sorted(times)


def _serve_in_process(store_url: str, port: int) -> subprocess.Popen:
    code = f"from firmware.web import serve; serve({store_url!r}, {TABLE!r}, '127.0.0.1', {port})"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=1)
            return process
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("the web view did not start") from None
            time.sleep(0.05)


def run() -> dict:
    with tempfile.TemporaryDirectory() as directory:
        try:
            redis = RedisServer(Path(directory)).start()
        except RuntimeError:
            redis = None
        if redis is not None:
            store, port = redis.url, free_port()
            view, stop = _serve_in_process(store, port), None
        else:
            store = "memory://bench-web"
            background = Background(store, TABLE, port=0).start()
            view, stop, port = None, background.stop, background.port
        try:
            delays = sse_delays(store, f"http://127.0.0.1:{port}")
            done, failed, times = asyncio.run(_hammer(port))
        finally:
            if view is not None:
                view.terminate()
                view.wait(timeout=10)
            if stop is not None:
                stop()
            if redis is not None:
                redis.stop()
    return {
        "store": "redis-server (AOF, fsync always)" if redis is not None else "memory:// in this process (no redis-server)",
        "sse_actions": len(delays),
        "sse_delay_median_ms": _ms(statistics.median(delays)),
        "sse_delay_p99_ms": _ms(_percentile(delays, 0.99)),
        "sse_delay_max_ms": _ms(delays[-1]),
        "api_state_clients": CLIENTS,
        "api_state_requests_per_second": round(done / RPS_SECONDS, 1),
        "api_state_failed": failed,
        "api_state_latency_p99_ms": _ms(_percentile(times, 0.99)),
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
