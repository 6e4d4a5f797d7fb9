"""What the engine needs from a stage: run one trial, and hold what the trials share.

The engine takes any backend, as httpx takes a transport: the Stage A classifier and the
Stage B agent are two, the in-memory fake a third, for tests and benchmarks. A backend is
entered once per run (a client to open, plugin copies to make) and then runs trials
concurrently. Only backends know which stage they are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol, Self, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

import orjson

from activation._models import Trial, TrialKey


class Backend(Protocol):
    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    async def run(self, key: TrialKey) -> Trial:
        """One trial. Whatever goes wrong with it is an error Trial, never an exception,
        except AuthError and ApiUnreachable, which no later trial could survive."""
        ...


@runtime_checkable
class Keyed(Protocol):
    """A backend whose trials can be cached: it names each trial's cache key, a digest of
    the exact request it would send (built by the code that sends it) and of the trial's
    identity (case, variant role, trial index)."""

    def cache_key(self, key: TrialKey) -> str: ...


def request_digest(kind: str, request: Mapping[str, Any], key: TrialKey) -> str:
    """A trial's cache key: the backend kind, the exact request and the trial's identity (the
    case, the variant role and the trial index), so repeats stay independent samples and the
    two sides of an A/A run never share an answer. Nothing secret is in a request."""
    identity = {
        "kind": kind,
        "request": request,
        "case": key.case.id,
        "variant": key.variant,
        "index": key.index,
    }
    return hashlib.sha256(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS)).hexdigest()


@runtime_checkable
class Priced(Protocol):
    """A backend that can tell, before a trial starts, that it will cost nothing (the cache
    holds its answer), so a cost ceiling never refuses a free trial."""

    def is_free(self, key: TrialKey) -> bool: ...


BatchProgress = Callable[[int, int], None]
"""(requests finished, requests submitted) over a run's batches."""


@runtime_checkable
class Watched(Protocol):
    """A backend whose trials wait on something slower than a request (a batch), and that
    reports its progress in the meantime."""

    def watch(self, on_progress: BatchProgress) -> None: ...


def shown_url(url: object) -> str:
    """An API address as it may be shown: without credentials embedded in it."""
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    try:
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        netloc = host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
