"""Where Stage A's requests go: the Messages API, or the offline mock model.

Both take the same request (the menu in the agent's listing format and the case prompt) and
give back a response body in the Messages API's shape, so everything around them (the
request, the answer's parsing, the re-ask, the cache) is the same code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, Self, TypeVar

from activation._models import Prices, Usage

Throttled = Callable[[float], None]
"""Told of each 429 or 529, with when (`time.monotonic()`) the refused attempt was sent."""


@dataclass(frozen=True)
class Reply:
    """What one request brought: a response body, or why there is none. A body that holds
    no usable answer is asked again once, and so is a response that is not JSON (`again`);
    any other failed request is not worth asking again."""

    usage: Usage
    message: Mapping[str, Any] | None = None
    problem: str = ""
    again: bool = False


class Provider(Protocol):
    kind: str
    """Names the provider in cache keys: answers of one are never served for another."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        """One request; `throttled` is told of every 429 or 529 on the way."""
        ...


@dataclass
class Pushback:
    """The trial being asked: when its latest attempt was sent, how often the API pushed
    back, and whom to tell."""

    tell: Throttled
    sent_at: float = 0.0
    count: int = 0


_ASKING: ContextVar[Pushback | None] = ContextVar("activation_asking", default=None)
"""The trial being asked in this task: an SDK's per-attempt hook sees it."""


def asking() -> Pushback | None:
    """The trial being asked in this task, if any."""
    return _ASKING.get()


def pushed_back(sent_at: float) -> None:
    """An attempt sent at `sent_at` was answered 429 or 529: count it in the trial's usage
    and tell the run's limit at once, while the SDK's retry waits."""
    pushback = _ASKING.get()
    if pushback is not None:
        pushback.count += 1
        pushback.tell(sent_at)


async def watched(throttled: Throttled, reply: Awaitable[Reply]) -> Reply:
    """`reply` awaited as the trial being asked, its pushback counted in its usage."""
    pushback = Pushback(throttled)
    token = _ASKING.set(pushback)
    try:
        found = await reply
    finally:
        _ASKING.reset(token)
    if not pushback.count:
        return found
    return replace(found, usage=replace(found.usage, throttled=pushback.count))


class Closable(Protocol):
    async def close(self) -> None: ...


Client = TypeVar("Client", bound=Closable)


class SharedClient(Generic[Client]):
    """A provider over one SDK client shared by every trial of a run: `client` makes it when
    the provider is entered, `_ask` sends one request with it; the pushback of each request
    is counted (`watched`)."""

    def __init__(self, prices: Prices | None) -> None:
        self.prices = prices
        self._client: Client | None = None

    def client(self) -> Client:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        self._client = self.client()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        """One request and what came of it."""
        assert self._client is not None, "enter the provider before asking"
        return await watched(throttled, self._ask(self._client, request))

    async def _ask(self, client: Client, request: dict[str, Any]) -> Reply:
        raise NotImplementedError
