"""Where Stage A's requests go: the Messages API, or the offline mock model.

Both take the same request (the menu in the agent's listing format and the case prompt) and
give back a response body in the Messages API's shape, so everything around them (the
request, the answer's parsing, the re-ask, the cache) is the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, Self

from activation._models import Usage

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
