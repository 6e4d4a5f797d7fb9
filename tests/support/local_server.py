"""A local HTTP server for a stand-in API: one catch-all route served by uvicorn in a thread
of its own, on a free port of 127.0.0.1, started and stopped within milliseconds; and the
lifecycle every scripted stand-in shares (`StandIn`)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Self

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

Handler = Callable[[Request], Awaitable[Response]]
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


class _Server(uvicorn.Server):
    """uvicorn's server, noticing `should_exit` within milliseconds instead of its tenth of a
    second: every test starts and stops a server, and the suite waits for each stop."""

    async def main_loop(self) -> None:
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            await asyncio.sleep(0.005)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown without its fixed tenth of a second of grace for open
        connections: a stand-in is only stopped once its test is done with it."""
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        for task in self.server_state.tasks:
            task.cancel()
        for server in self.servers:
            await server.wait_closed()


class LocalServer:
    """`handle` answers every request; `start` gives the base URL once the server accepts."""

    def __init__(self, handle: Handler, name: str) -> None:
        self.handle = handle
        self.name = name
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    def start(self) -> str:
        # proto IPPROTO_TCP, so asyncio sets TCP_NODELAY on accepted connections: without it
        # Nagle and delayed ACKs stall every keep-alive response by ~40 ms, as no real API does.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        app = Starlette(routes=[Route("/{path:path}", self.handle, methods=METHODS)])
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            loop="asyncio",
            http="h11",
            ws="none",
            timeout_graceful_shutdown=2,
        )
        server = _Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True
        )
        self._server, self._thread, self._socket = server, thread, sock
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.005)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    def stop(self) -> None:
        """Ask uvicorn to exit at once (requests still waiting out a latency are cancelled,
        not waited for), wait for its thread, release the port."""
        if self._server is not None:
            self._server.should_exit = True
            self._server.force_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None


class StandIn:
    """A scripted stand-in of an API, used as a context manager. A subclass answers in
    `_handle`; a script that raised there is noted in `_script_errors` (it answered 500),
    and `__exit__` raises, so a broken script cannot pass for an API error."""

    answers_canary = True
    """Whether it answers the agent canary's prompt itself (tests/support/canary_agent.py)."""

    def __init__(self, name: str) -> None:
        self._script_errors: list[BaseException] = []
        self.canary_requests: list[object] = []
        """The requests of the agent canary's runs it answered, out of `requests`."""
        self._local = LocalServer(self._handle, name)
        self.base_url = ""

    async def _handle(self, http: Request) -> Response:
        raise NotImplementedError

    def start(self) -> Self:
        """Bind a free port and serve until `stop`; returns once the server accepts."""
        self.base_url = self._local.start()
        return self

    def stop(self) -> None:
        self._local.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        if exc is None and self._script_errors:
            raise RuntimeError("the fake API's script raised") from self._script_errors[0]
