"""The web view's outer wall: read-only methods, no request bodies, bounded URLs, protective headers.

It wraps the whole app (error pages included), so every response carries the headers and nothing
that could change a game, or make the app handle a large request, gets past it. (uvicorn bounds
what it buffers of a request head that arrives slowly: see server.py.)

With `hosts`, every request must name one of them in its `Host` header, read exactly as RFC 9110
writes it (a name or an IPv4 address, or an IPv6 address in brackets, then an optional port;
anything else, `evil.example@127.0.0.1` included, names no host): a page of another site that a
DNS name of its own points at this address (DNS rebinding) reads nothing. The simulator always
gives its loopback names; `tablemate web` and the club page take a list (`[web] hosts`, `tablemate
club --allow-host`).

The live view is read-only. The simulator (firmware.sim) wraps its page in the same wall with
`inputs`: bodiless POSTs to the paths under that prefix, and only from its own page: they must
carry the header `x-tablemate: sim` (a page of another site cannot send it without a preflight,
which is never granted) and, when the browser sends one, an `Origin` of the same host.
"""

import ipaddress
import json
import re
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

METHODS = ("GET", "HEAD")
#: The longest path plus query string accepted; the view's own URLs are far shorter.
MAX_TARGET = 1024
#: The most header bytes (names and values) accepted; a phone's browser sends well under 2 KB.
MAX_HEADERS = 8 * 1024

HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


#: a Host header: a name (or an IPv4 address), or an IPv6 address in brackets; then an optional port
_HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9.-]+))(?::[0-9]{1,5})?", re.IGNORECASE)


def host_named(header: str) -> str | None:
    """The host a Host header names, lower-case (an IPv6 address compressed); None when the header
    is not a host and an optional port."""
    found = _HOST.fullmatch(header)
    if found is None:
        return None
    if found["v6"]:
        try:
            return ipaddress.IPv6Address(found["v6"]).compressed
        except ValueError:
            return None
    return found["name"].lower()


def host_key(host: str) -> str:
    """An allowed host as host_named gives it: "::1" stays "::1", "Tablemate.LOCAL" is "tablemate.local"."""
    return ipaddress.ip_address(host).compressed if ":" in host else host.lower()


class Guard:
    def __init__(self, app: ASGIApp, inputs: str | None = None, hosts: tuple[str, ...] = ()):
        """`app` behind the wall; POSTs under `inputs` taken (the simulator); with `hosts`, only
        requests naming one of them in their Host header answered."""
        self.app = app
        self.inputs = inputs
        self.hosts = tuple(dict.fromkeys(host_key(host) for host in hosts))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                headers = list(message.get("headers", [])) + [h for h in HEADERS if h[0] not in names]
                if b"cache-control" not in names:
                    static = scope["path"].startswith("/static/")
                    headers.append((b"cache-control", b"no-cache" if static else b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        refusal = self._host_refusal(scope) or (_refusal(scope) if not self._input(scope) else _input_refusal(scope))
        if refusal is not None:
            status, text, extra = refusal
            await _respond(scope, send_guarded, status, text, extra)
            return
        await self.app(scope, receive, send_guarded)


    def _input(self, scope: Scope) -> bool:
        return self.inputs is not None and scope["method"] == "POST" and scope["path"].startswith(self.inputs)

    def _host_refusal(self, scope: Scope) -> tuple[int, str, list] | None:
        """Why a request is refused for its Host header (None: no list of hosts, or one of them)."""
        if not self.hosts:
            return None
        host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1")
        if host_named(host) in self.hosts:
            return None
        return 403, f"this page answers only at {', '.join(self.hosts)}, not {host!r}", []


def _input_refusal(scope: Scope) -> tuple[int, str, list] | None:
    """Why an input (a POST to the simulator) is refused, or None when it comes from its own page."""
    headers = dict(scope.get("headers", []))
    if headers.get(b"x-tablemate") != b"sim":
        return 403, "inputs come from the simulator's own page (header x-tablemate: sim)", []
    origin = headers.get(b"origin")
    if origin is not None and urlsplit(origin.decode("latin-1")).netloc != headers.get(b"host", b"").decode("latin-1"):
        return 403, "inputs from another site are refused", []
    return _refusal({**scope, "method": "GET"})


def _refusal(scope: Scope) -> tuple[int, str, list] | None:
    if scope["method"] not in METHODS:
        return 405, f"this view is read-only: {scope['method']} is refused, only GET and HEAD", [(b"allow", b"GET, HEAD")]
    headers = dict(scope.get("headers", []))
    length = headers.get(b"content-length", b"0").strip()
    if b"transfer-encoding" in headers or length not in (b"", b"0"):
        return 413, "requests to this view carry no body", []
    if sum(len(name) + len(value) for name, value in scope.get("headers", [])) > MAX_HEADERS:
        return 431, f"the request's headers are too large (more than {MAX_HEADERS} bytes)", []
    target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
    if target > MAX_TARGET:
        return 414, f"the address is too long (more than {MAX_TARGET} characters)", []
    return None


async def _respond(scope: Scope, send: Send, status: int, text: str, extra: list) -> None:
    """A short refusal: JSON under /api/, plain text elsewhere. The body is never read."""
    if scope["path"].startswith("/api/"):
        body, kind = json.dumps({"error": text}).encode(), b"application/json"
    else:
        body, kind = text.encode() + b"\n", b"text/plain; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode()), (b"connection", b"close"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
