"""Counting Stage A's input tokens with the API's token-counting endpoint, for `--dry-run`.

Imported only when a dry run has a key to count with, so a dry run without one never loads
the SDK. Counting is free and makes no message; each request is counted as it would be sent
(`max_tokens` is not a parameter of the count).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic
import anyio

from activation import _config


async def count_input_tokens(requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
    """Input tokens of each request, counted `limit` at a time."""
    counts = [0] * len(requests)
    limiter = anyio.CapacityLimiter(limit)
    async with anthropic.AsyncAnthropic(
        max_retries=_config.API_RETRIES, timeout=_config.REQUEST_TIMEOUT
    ) as client:

        async def one(position: int) -> None:
            params = {k: v for k, v in requests[position].items() if k != "max_tokens"}
            async with limiter:
                counted = await client.messages.count_tokens(**params)
            counts[position] = counted.input_tokens

        async with anyio.create_task_group() as group:
            for position in range(len(requests)):
                group.start_soon(one, position)
    return counts


def counting_failed(error: Exception) -> str | None:
    """Why counting failed, for a dry run that then estimates from characters; None for an
    error that is not the API's (a bug: let it surface). The requests are counted in a task
    group, so the API's error comes wrapped in an exception group."""
    while isinstance(error, ExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, anthropic.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, anthropic.APIConnectionError):
        return "the API could not be reached"
    return None
