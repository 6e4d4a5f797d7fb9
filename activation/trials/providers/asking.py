"""Asking a model: every provider's client, and the one path every model call takes.

Each provider's client takes the same request (a Messages API request) and gives back a
response body in the Messages API's shape. `call` is the one way to ask one: Stage A's
trials (one by one and in batches), the proposer, the Stage C judge and its `llm` arm all go
through it, so the response cache, the single re-ask, the usage and the pushback count and
the reading of the answer are one code.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

import orjson

from activation._models import Prices, Usage

if TYPE_CHECKING:
    from activation.trials.cache import Store

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


class Asks(Protocol):
    """What `call` needs of a client: one request asked."""

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        """One request; `throttled` is told of every 429 or 529 on the way."""
        ...


class Provider(Asks, Protocol):
    """A provider's client: entered once for a run, asked by every trial of it."""

    kind: str
    """Names the provider in cache keys: answers of one are never served for another."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


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


class Unanswered(Exception):
    """The response holds no usable answer (refusal, truncation, malformed JSON)."""


def answer_payload(content: Sequence[Mapping[str, object]]) -> object:
    """The answer object: a tool call's input, else the JSON in the text blocks.

    Thinking blocks come first and are skipped; JSON wrapped in prose or a code fence is
    still read, since some models and gateways ignore the output format.
    """
    for block in content:
        if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            return block["input"]
    text = text_of(content)
    start, end = text.find("{"), text.rfind("}")
    for candidate in (text, text[start : end + 1] if 0 <= start < end else None):
        if candidate is None:
            continue
        try:
            return orjson.loads(candidate)
        except orjson.JSONDecodeError:
            continue
    raise Unanswered(f"not JSON: {text[:80]!r}")


def text_of(content: Sequence[Mapping[str, object]]) -> str:
    """A response's text: its text blocks, joined (thinking and tool calls skipped)."""
    return "".join(str(block.get("text", "")) for block in content if block.get("type") == "text")


def reply_text(message: Mapping[str, Any]) -> str:
    """The text of a response body, whatever it says (Stage C's `llm` arm grades it)."""
    return text_of(message.get("content") or ())


Value = TypeVar("Value")


@dataclass(frozen=True)
class Answer(Generic[Value]):
    """What one call brought: the answer read out of the response, or why there is none;
    `usage` counts every attempt (nothing when `cached`)."""

    value: Value | None
    usage: Usage
    problem: str = ""
    cached: bool = False


@dataclass(frozen=True)
class Kept(Generic[Value]):
    """Where a call's answer is kept between runs: under `key` (the request's digest) in
    `store`, as `field` of the entry; `load` reads it back (None: not a valid answer) and
    `dump` writes it as plain data."""

    store: Store
    key: str
    field: str
    load: Callable[[object], Value | None]
    dump: Callable[[Value], object] = lambda value: value


def ignored(sent_at: float) -> None:
    """A call whose pushback tells no limit (a single request, not a run's trials)."""


async def call(
    asker: Asks,
    request: dict[str, Any],
    read: Callable[[Mapping[str, Any]], Value],
    *,
    throttled: Throttled = ignored,
    kept: Kept[Value] | None = None,
) -> Answer[Value]:
    """`request` asked of `asker` and its answer `read` out: from `kept` when an earlier run
    asked it (free), else asked, and asked once more when the response holds no usable
    answer (`read` raises Unanswered) or is not JSON; a failed request is not asked again.
    A usable answer is kept; an error never is, so it is asked again next time."""
    if kept is not None:
        entry = kept.store.get(kept.key)
        value = None if entry is None else kept.load(entry.get(kept.field))
        if value is not None:
            return Answer(value, Usage(cost_usd=0.0), cached=True)
    usage = Usage()
    problem = ""
    for _attempt in range(2):
        reply = await asker.ask(request, throttled)
        usage += reply.usage
        if reply.message is None:
            if not reply.again:
                return Answer(None, usage, reply.problem)
            problem = reply.problem
            continue
        try:
            value = read(reply.message)
        except Unanswered as error:
            problem = str(error)
            continue
        if kept is not None:
            kept.store.put(kept.key, {kept.field: kept.dump(value), "usage": asdict(usage)})
        return Answer(value, usage)
    return Answer(None, usage, f"unusable answer after a re-ask ({problem})")
