"""The model providers: one module each, behind one interface, found by name.

`--model` is read once (`parse_model`) into the provider that asks the model and the id it
has there: `<provider>:<id>` for a registered provider (`openai:gpt-5.5`,
`openai-compatible:qwen3`), a provider's name alone for its own one model (`mock`), any
other string an id of the default provider (Anthropic's `claude-sonnet-5-5`, also a cloud
id with a colon in it). Everything that differs between providers (their credentials and
address, the client that asks them, their usage and cost, what they can do besides) lives
in their module; the code around asks the provider, never its name. The modules are
imported only when a model of theirs is read, and import nothing heavy themselves: the SDK
comes with the client (`asker`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from activation import _config
from activation._errors import InputError
from activation._models import ModelRef, Prices
from activation._registry import registered
from activation.trials.providers.asking import Provider as Asker


class Uncounted(Exception):
    """Why a provider counted no input tokens (a dry run then estimates from characters)."""


NO_COUNTING = "its provider has no token-counting endpoint"


class ModelProvider(Protocol):
    name: str
    """Its name in the registry, and the prefix of its models (`openai:<id>`)."""
    key_variables: tuple[str, ...]
    """The environment variables that hold its key, any one of them (none: it needs none)."""
    url_variable: str | None
    """The environment variable of its base URL (None: it has no address)."""
    default_url: str | None
    """Its base URL when `url_variable` is not set (None: it has none, the variable must be
    set), as an agent CLI is told it."""
    api: str
    """The HTTP API its models are asked through ("messages", "responses",
    "generate-content", "chat-completions"; "none" for the mock): what an agent CLI that
    can speak several is told to speak."""
    batches: bool
    """Whether `--batch` can ask it (the Message Batches API)."""
    free: str | None
    """Why its answers cost nothing (the mock), said where a cost is; None: they are priced."""
    proposes: bool
    """Whether it can propose descriptions for `suggest` (a real model can)."""

    def check(self, model: ModelRef) -> None:
        """InputError for a model it cannot ask, before anything else."""
        ...

    def preflight(self, *, calls: bool) -> None:
        """Its SDK, and with `calls` (not a dry run) its key and a reachable address, else
        a one-line InputError or ApiUnreachable."""
        ...

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        """Each request's input tokens, counted exactly (for free, `limit` at a time) for a
        dry run's estimate; Uncounted saying why it cannot (no endpoint, no key, a failure)."""
        ...

    def notice(self) -> str | None:
        """What every output must say about its answers (the mock's mean nothing)."""
        ...

    def asker(self, prices: Prices | None) -> Asker:
        """The client that asks it Stage A's and the proposer's requests (a Messages API
        request, answered in the Messages API's shape), with its usage priced at `prices`
        and its 429s counted."""
        ...


PROVIDER_MODULES: Mapping[str, str] = {
    "anthropic": "activation.trials.providers.anthropic",
    "openai": "activation.trials.providers.openai",
    "openai-compatible": "activation.trials.providers.openai_compatible",
    "google": "activation.trials.providers.google",
    "mock": "activation.trials.providers.mock",
}
"""Each module holds `PROVIDER`; a new provider is a new module and one line here."""


def parse_model(model: str) -> ModelRef:
    """A `--model` string as (provider, id); see the module's docstring."""
    if model in PROVIDER_MODULES:
        return ModelRef(model, model)
    name, colon, rest = model.partition(":")
    if colon and name in PROVIDER_MODULES:
        return ModelRef(name, rest)
    return ModelRef(_config.PROVIDER, model)


def provider_named(name: str) -> ModelProvider:
    provider: ModelProvider = registered(
        PROVIDER_MODULES, name, "PROVIDER", KeyError(f"no model provider {name!r}")
    )
    return provider


def provider_of(model: str) -> tuple[ModelRef, ModelProvider]:
    """The model read, and its provider, which has checked that it can ask it."""
    found = parse_model(model)
    provider = provider_named(found.provider)
    provider.check(found)
    return found, provider


def runnable(model: str, providers: Sequence[str], runner: str) -> ModelRef:
    """`model` read, if `runner` (an agent) runs the models of its provider; else one line."""
    found = parse_model(model)
    if found.provider not in providers:
        raise InputError(f"--model {model}: {runner} runs models of {', '.join(providers)}")
    return found


def needs_id(model: ModelRef) -> None:
    """A prefix names no model by itself (`openai:`)."""
    if not model.id:
        raise InputError(
            f"--model {model.provider}: names no model: pass --model {model.provider}:<id>"
        )


class PricedModels:
    """What every priced provider with models of its own says by default: a model is named
    by its id, a dry run cannot count its tokens, its answers need no notice, no batches, and
    it can propose descriptions; a provider module overrides what differs."""

    batches = False
    free: str | None = None
    proposes = True
    key_variables: tuple[str, ...]
    url_variable: str | None
    sdk: tuple[str, str]
    """Its SDK's module and the extra that installs it."""
    whom: str
    """What needs the SDK and the key, in a one-line error ("an openai: model")."""

    def check(self, model: ModelRef) -> None:
        needs_id(model)

    def preflight(self, *, calls: bool) -> None:
        """Its SDK; with `calls`, its credentials (`require_credentials`) and a reachable
        base URL."""
        from activation.trials import api_check

        api_check.require_package(*self.sdk, self.whom)
        if calls:
            self.require_credentials()
            api_check.check_reachable(str(self.url_variable))

    def require_credentials(self) -> None:
        """A key in one of `key_variables`, else a one-line InputError."""
        from activation.trials import api_check

        api_check.require_key(self.key_variables, f" for {self.whom}")

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise Uncounted(NO_COUNTING)

    def notice(self) -> str | None:
        return None
