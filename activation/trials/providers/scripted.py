"""A scripted model, in process (as inspect_ai's `mockllm`): each request is answered from a
script a test gives, with no HTTP, no key and no SDK. It is no provider of the registry: a
test registers one as any provider is registered (a module's `PROVIDER`, one entry in
`PROVIDER_MODULES`), where what it tests is not the HTTP path (a command's flow, the one
`call`'s re-ask and cache), and reads back every request it was asked.

A script is a function of the request, or the replies in the order they are asked; a reply
is the answer's text (a Messages API text block) or a `Reply` as a client builds it (a
failed request, a cut answer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Self

from activation._models import ModelRef, Prices, Usage
from activation.trials.providers import NO_COUNTING, Uncounted
from activation.trials.providers.asking import Reply, Throttled

Said = str | Reply
Script = Callable[[dict[str, Any]], Said] | Sequence[Said]
ANSWERED = Usage(requests=1, input_tokens=10, output_tokens=5)
"""What a scripted answer counts (priced at the run's prices, as a real answer is)."""


def message(text: str, stop_reason: str = "end_turn") -> dict[str, Any]:
    """A Messages API response body holding `text`."""
    return {"type": "message", "role": "assistant", "model": "scripted",
            "content": [{"type": "text", "text": text}], "stop_reason": stop_reason}  # fmt: skip


class Scripted:
    """A provider named `name` whose every model answers from `script`; `asked` holds each
    request it was asked, in order."""

    key_variables: tuple[str, ...] = ()
    url_variable: str | None = None
    batches = False
    free: str | None = None
    proposes = True

    def __init__(self, name: str, script: Script = (), notice: str | None = None) -> None:
        self.name = name
        self.script = script
        self._notice = notice
        self.asked: list[dict[str, Any]] = []

    def check(self, model: ModelRef) -> None:
        return None

    def preflight(self, *, calls: bool) -> None:
        return None

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return self._notice

    def asker(self, prices: Prices | None) -> ScriptedClient:
        return ScriptedClient(self, prices)

    def reply(self, request: dict[str, Any]) -> Said:
        """The script's reply to the request; its list used up is a test's mistake."""
        self.asked.append(request)
        if callable(self.script):
            return self.script(request)
        position = len(self.asked) - 1
        if position >= len(self.script):
            raise AssertionError(f"the script has {len(self.script)} replies; asked again")
        return self.script[position]


class ScriptedClient:
    """The scripted provider's client: a reply as the SDK clients give one."""

    def __init__(self, provider: Scripted, prices: Prices | None) -> None:
        self.kind = f"scripted:{provider.name}"
        self.provider = provider
        self.prices = prices

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        said = self.provider.reply(request)
        if isinstance(said, Reply):
            return said
        cost = None if self.prices is None else self.prices.cost(ANSWERED)
        return Reply(replace(ANSWERED, cost_usd=cost), message=message(said))
