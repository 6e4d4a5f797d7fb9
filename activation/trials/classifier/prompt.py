"""Stage A's request: the agent's own skill listing, and the question.

The listing is the one Claude Code would show (trials/listing): each variant's skill set,
the distractors, the catalog and the agent's built-ins, with its per-entry cut and its
budget. Only its order changes between trials, and never between the variants of a trial,
so position bias cancels in the comparison: a seeded base order of every id either variant
lists is rotated into `MENU_ORDERS` orders, each skill in a different place in each; a
case's trials take them in turn from a place of their own, so any `MENU_ORDERS`
consecutive trials of a case see every order once. Each variant's listing in each order is
the same text for every case, so it is a prefix the API can cache (`cache_control`): the
instructions and the listing come first, the case prompt last.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from activation import _config
from activation._models import VARIANTS, Case, Inputs, RunSpec, TrialKey, VariantName
from activation.trials.agents import agent_named, every
from activation.trials.listing.menu import variant_listings
from activation.trials.listing.model import Listing

CACHED = {"type": "ephemeral"}
"""The prompt-caching mark on the prefix: instructions and listing."""


def system_text(request: Mapping[str, Any]) -> str:
    """A request's system prompt as text (it may be a list of text blocks)."""
    system = request.get("system", "")
    if isinstance(system, str):
        return system
    return "".join(str(block.get("text", "")) for block in system)


def menu_entries(system: str) -> list[tuple[str, str]]:
    """The (name, text) entries of the listing in a system prompt, in listed order, read
    back by the agent whose listing it is (each agent says how: `Agent.read_back`)."""
    for agent in every():
        found = agent.read_back(system)
        if found is not None:
            return found
    return []


def user_prompt(request: Mapping[str, Any]) -> str:
    """The case prompt of a request: its one user message."""
    messages = request.get("messages") or [{}]
    return str(messages[0].get("content", ""))


def base_order(seed: int, ids: Sequence[str]) -> tuple[str, ...]:
    """Every id in a seeded order (the same on every machine and in every run)."""
    order = sorted(set(ids))
    random.Random(f"{seed}\x00menu").shuffle(order)
    return tuple(order)


def rotations(order: Sequence[str], count: int) -> tuple[tuple[str, ...], ...]:
    """`count` rotations of `order`, spread evenly: each skill stands in a different part
    of the listing in each (`count` capped at the number of skills)."""
    size = len(order)
    count = max(1, min(count, size))
    step = math.ceil(size / count) if size else 0
    return tuple(tuple(order[i * step :]) + tuple(order[: i * step]) for i in range(count))


def order_index(seed: int, case_id: str, trial: int, count: int) -> int:
    """Which order a case's trial takes: the case's own starting place, then in turn."""
    start = hashlib.blake2b(f"{seed}\x00{case_id}".encode(), digest_size=8).digest()
    return (int.from_bytes(start) + trial) % count


def answer_schema(ids: Sequence[str]) -> dict[str, object]:
    """The structured answer: the chosen ids, from the listing only (none is an answer too)."""
    return {
        "type": "object",
        "properties": {
            "skills": {"type": "array", "items": {"type": "string", "enum": sorted(set(ids))}}
        },
        "required": ["skills"],
        "additionalProperties": False,
    }


class Requests:
    """Stage A's requests of one run, with what is constant built once: both variants'
    listings, their orders, the answer format and the ids an answer may use. The backend,
    the batches and the dry-run's token count all build requests here, so what is counted,
    cached and sent is the same request."""

    def __init__(
        self,
        model: str,
        max_tokens: int,
        seed: int,
        listings: Mapping[VariantName, Listing],
        orders: int = _config.MENU_ORDERS,
        agent: str = _config.AGENT,
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.seed = seed
        self.listings = dict(listings)
        self.instructions = agent_named(agent).instructions
        every = [skill for shown in listings.values() for skill in shown.ids]
        self.orders = rotations(base_order(seed, every), orders)
        self._ids = {entry.name: entry.id for shown in listings.values() for entry in shown.entries}
        """What an answer names -> the skill's id (the first listed of a name); a skill a
        listing names without an entry (Copilot CLI's overflow line) may be chosen too."""
        for shown in listings.values():
            for name, skill_id in shown.named:
                self._ids.setdefault(name, skill_id)
        self.names = tuple(sorted(self._ids))
        self._format = {"format": {"type": "json_schema", "schema": answer_schema(self.names)}}
        self._systems: dict[tuple[str, int], list[dict[str, Any]]] = {
            (variant, index): [self._block(variant, order)]
            for variant in listings
            for index, order in enumerate(self.orders)
        }

    @classmethod
    def for_run(cls, spec: RunSpec, inputs: Inputs) -> Requests:
        model = spec.model or _config.MODEL
        agent = spec.coding_agent
        listings = variant_listings(inputs, model, agent=agent)
        return cls(model, _config.MAX_TOKENS, spec.seed, listings, agent=agent)

    def ids_of(self, names: Sequence[str]) -> tuple[str, ...]:
        """The skill ids an answer's names stand for, in its order."""
        return tuple(self._ids[name] for name in names)

    def _block(self, variant: VariantName, order: Sequence[str]) -> dict[str, Any]:
        """The cached prefix: the instructions and the variant's listing in this order."""
        shown = self.listings[variant]
        listed = Counter(shown.ids)  # twice: a user's copy listed beside the project's
        text = shown.text_in_order([skill for skill in order for _ in range(listed[skill])])
        return {"type": "text", "text": self.instructions + text, "cache_control": CACHED}

    def order_of(self, key: TrialKey) -> int:
        return order_index(self.seed, key.case.id, key.index, len(self.orders))

    def first_requests(self, cases: Sequence[Case]) -> list[dict[str, Any]]:
        """One request per case and variant (trial 0): what a cost estimate counts; later
        trials differ only in the listing's order."""
        return [self.request(TrialKey(case, variant, 0)) for case in cases for variant in VARIANTS]

    def prefixes(self) -> int:
        """How many different cached prefixes a run's requests start with (variants whose
        listings are the same share theirs)."""
        return len({block[0]["text"] for block in self._systems.values()})

    def system(self, key: TrialKey) -> list[dict[str, Any]]:
        """The system prompt: the instructions and the listing in this trial's order."""
        return self._systems[key.variant, self.order_of(key)]

    def request(self, key: TrialKey) -> dict[str, Any]:
        """The exact Messages API request of a trial."""
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system(key),
            "messages": [{"role": "user", "content": key.case.prompt}],
            "output_config": self._format,
        }
