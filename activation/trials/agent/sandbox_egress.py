"""The one way out of a sandboxed run: a forwarding proxy on the host that reaches the model
API and nothing else, and the relay inside the sandbox that leads to it.

A sandboxed run has its own network namespace with only a loopback in it. Inside, a few
lines of Node (`RELAY`, run in the same sandbox before the agent CLI, which it then starts)
listen on 127.0.0.1 at the API's own port and pipe each connection to a unix socket bound
into the sandbox; the API's host name resolves to 127.0.0.1 there (the sandbox's own
/etc/hosts), so the agent's base URL needs no change and HTTPS stays end to end (the relay
and the proxy pipe bytes). Outside, `Egress` accepts on that socket and connects only to
the base URL's host and port, counting the trial's requests: over the budget it stops
forwarding, and the trial is an error of its own kind ("request budget").

Counting: over plain HTTP each request is counted (`RequestCounter` reads the heads and
skips the bodies); over TLS the bytes are opaque, so each connection counts as one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, SocketStream, TaskGroup

from activation._errors import InputError

REQUEST_BUDGET_PER_TURN = 4
"""Requests one agent turn may take (its answer, a retry, a side call such as a title)."""
REQUEST_BUDGET_FLOOR = 16
"""Requests any run may take, whatever its turns: start-up calls and a few retries."""
_HEAD_LIMIT = 65536
"""Bytes of a request head kept while waiting for its end; more is not HTTP we count."""
_CHUNK = 65536
_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)\s*$", re.IGNORECASE | re.MULTILINE)
_CHUNKED = re.compile(rb"^transfer-encoding:[^\r\n]*chunked", re.IGNORECASE | re.MULTILINE)

THEN = "then"
"""What ends the relay's routes and starts the CLI's command line: a word, not `--`, which
Node takes for its own end of options when no route comes before it."""
RELAY = """
const net = require("net"), { spawn } = require("child_process");
const args = process.argv.slice(1), cut = args.indexOf("then");
const routes = args.slice(0, cut).map((route) => route.split("="));
const [command, ...rest] = args.slice(cut + 1);
let listening = 0;
for (const [port, socket] of routes) {
  net.createServer((inner) => {
    const outer = net.connect(socket);
    inner.pipe(outer).on("error", () => inner.destroy());
    outer.pipe(inner).on("error", () => outer.destroy());
    inner.on("error", () => outer.destroy());
    outer.on("error", () => inner.destroy());
  }).listen(Number(port), "127.0.0.1", () => { if (++listening === routes.length) start(); });
}
if (!routes.length) start();
function start() {
  const child = spawn(command, rest, { stdio: "inherit" });
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => { console.error(String(error)); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (signal === "SIGKILL" ? 9 : 15)));
}
"""
"""The relay: `node -e RELAY PORT=SOCKET... then CLI ARGS...` listens on each PORT of the
sandbox's 127.0.0.1, pipes it to its SOCKET, then runs the CLI and exits with its code."""


@dataclass(frozen=True)
class Target:
    """Where a base URL's requests go: a host and port, and whether they are TLS."""

    host: str
    port: int
    tls: bool

    @property
    def loopback(self) -> bool:
        return self.host in ("127.0.0.1", "localhost")


def target_of(url: str, variable: str) -> Target:
    """The host and port a base URL names (its scheme's port by default); InputError for an
    address no sandbox can route to."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"{variable} must be an http(s) URL for a sandboxed run; got {url!r}")
    tls = parts.scheme == "https"
    try:
        port = parts.port or (443 if tls else 80)
    except ValueError:
        raise InputError(f"{variable} has a bad port: {url!r}") from None
    return Target(parts.hostname, port, tls)


def targets(urls: Mapping[str, str]) -> tuple[Target, ...]:
    """The distinct places of the run's base URLs (variable -> URL), in order; InputError
    when two need one port of the sandbox's loopback for different hosts."""
    found: dict[int, Target] = {}
    for variable, url in urls.items():
        target = target_of(url, variable)
        other = found.setdefault(target.port, target)
        if other.host != target.host:
            raise InputError(
                f"{variable} and another API address both use port {target.port} "
                f"({other.host}, {target.host}): a sandboxed run reaches one host per port"
            )
    return tuple(found.values())


def hosts_file(routes: Sequence[Target]) -> str:
    """The sandbox's /etc/hosts: the loopback, and each API host at 127.0.0.1 (the relay)."""
    names = ["localhost", *dict.fromkeys(t.host for t in routes if not t.loopback)]
    return "".join(f"127.0.0.1 {name}\n" for name in names)


def request_budget(max_turns: int) -> int:
    """The requests one trial may send to the API."""
    return max(REQUEST_BUDGET_FLOOR, REQUEST_BUDGET_PER_TURN * max_turns)


@dataclass
class RequestCounter:
    """Counts the HTTP/1.x requests in one connection's client-to-server bytes."""

    requests: int = 0
    _buffer: bytearray = field(default_factory=bytearray)
    _body: int = 0
    """Body bytes still to skip."""
    _chunked: bool = False
    _opaque: bool = False
    """A head too long to be HTTP: nothing more is counted in this connection."""

    def feed(self, data: bytes) -> None:
        if self._opaque:
            return
        self._buffer += data
        while self._step():
            pass

    def _step(self) -> bool:
        """Consume one piece (a body's bytes, a chunk's size line, a head); False: more
        bytes are needed."""
        if self._body:
            taken = min(self._body, len(self._buffer))
            del self._buffer[:taken]
            self._body -= taken
            return bool(taken) and bool(self._buffer)
        if self._chunked:
            end = self._buffer.find(b"\r\n")
            if end < 0:
                return False
            size = int(self._buffer[:end].split(b";")[0].strip() or b"0", 16)
            del self._buffer[: end + 2]
            self._body = size + 2  # the chunk and its CRLF; the last one has no data
            self._chunked = size > 0
            return True
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            self._opaque = len(self._buffer) > _HEAD_LIMIT
            return False
        head = bytes(self._buffer[:end])
        del self._buffer[: end + 4]
        self.requests += 1
        if _CHUNKED.search(head):
            self._chunked = True
        elif length := _CONTENT_LENGTH.search(head):
            self._body = int(length.group(1))
        return True


@dataclass
class Egress:
    """One trial's way out: a unix socket per target, connecting only there, and the
    requests it let through."""

    routes: tuple[tuple[Target, Path], ...]
    budget: int
    requests: int = 0
    refused: int = 0
    """Requests (or connections) beyond the budget, not forwarded."""

    @property
    def over_budget(self) -> str | None:
        """The trial's error when it went over its budget."""
        if not self.refused:
            return None
        return (
            f"request budget: the agent sent more than {self.budget} requests to the API "
            f"in one trial ({self.refused} more were not forwarded)"
        )

    async def serve(self, group: TaskGroup) -> None:
        """Listen on every socket until the group is cancelled."""
        for target, socket in self.routes:
            listener = await anyio.create_unix_listener(socket)
            group.start_soon(listener.serve, lambda inner, t=target: self._forward(inner, t))

    async def _forward(self, inner: SocketStream, target: Target) -> None:
        async with inner:
            if target.tls and not self._take(1):
                return
            try:
                outer = await anyio.connect_tcp(target.host, target.port)
            except OSError:
                return
            async with outer, anyio.create_task_group() as group:
                counter = None if target.tls else RequestCounter()
                group.start_soon(self._pipe, outer, inner, None, group)
                await self._pipe(inner, outer, counter, group)

    def _take(self, count: int) -> bool:
        """Whether `count` more requests fit the budget (counted either way)."""
        if self.requests + count > self.budget:
            self.refused += count
            return False
        self.requests += count
        return True

    async def _pipe(
        self,
        source: ByteReceiveStream,
        sink: ByteSendStream,
        counter: RequestCounter | None,
        group: TaskGroup,
    ) -> None:
        """Copy `source` to `sink`, taking each request the counter sees (a TLS connection
        was taken when it opened). Either side ending ends both."""
        try:
            async for chunk in source:
                if counter is not None:
                    before = counter.requests
                    counter.feed(chunk)
                    if counter.requests > before and not self._take(counter.requests - before):
                        break
                await sink.send(chunk)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        group.cancel_scope.cancel()
