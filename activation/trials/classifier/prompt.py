"""Stage A's request: the skill menu in the agent's own listing format, and the question.

The menu is shuffled per trial; the permutation depends only on the seed, the case and the
trial index, never on the variant, so both variants of a trial see the same order and
position bias cancels out in the comparison.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from activation import _config
from activation._models import VARIANTS, Case, Inputs, RunSpec, Skill, TrialKey, VariantName

HEADING = "The following skills are available for use with the Skill tool:"

INSTRUCTIONS = """\
You are the skill router of an AI coding agent. The agent has skills: packaged instructions \
it loads with the Skill tool when a user's request matches what a skill says it is for. \
The user's request follows. Decide which skills the agent would invoke with the Skill tool \
before doing anything else for this request: only skills whose description fits the \
request, possibly none. Answer with the names exactly as listed.

{menu}"""


def one_line(text: str) -> str:
    return " ".join(text.split())


def menu_entries(system: str) -> list[tuple[str, str]]:
    """The (name, description) entries of the menu in a system prompt, in listed order."""
    _head, found, listing = system.partition(HEADING)
    if not found:
        return []
    entries = []
    for line in listing.strip().splitlines():
        if not line.startswith("- "):
            break
        name, _colon, description = line[2:].partition(": ")
        entries.append((name, description))
    return entries


def user_prompt(request: Mapping[str, Any]) -> str:
    """The case prompt of a request: its one user message."""
    messages = request.get("messages") or [{}]
    return str(messages[0].get("content", ""))


def permutation(seed: int, case_id: str, trial: int, size: int) -> tuple[int, ...]:
    order = list(range(size))
    random.Random(f"{seed}\x00{case_id}\x00{trial}").shuffle(order)
    return tuple(order)


def answer_schema(names: Sequence[str]) -> dict[str, object]:
    """The structured answer: the chosen names, from the menu only (none is an answer too)."""
    return {
        "type": "object",
        "properties": {
            "skills": {"type": "array", "items": {"type": "string", "enum": sorted(set(names))}}
        },
        "required": ["skills"],
        "additionalProperties": False,
    }


class Requests:
    """Stage A's requests of one run, with what is constant built once: the menu lines of
    both variants, the answer format and the names an answer may use. Both the backend and
    the dry-run's token count build requests here, so what is counted, cached and sent is
    the same request."""

    def __init__(
        self,
        model: str,
        max_tokens: int,
        seed: int,
        target: Mapping[VariantName, Skill],
        distractors: Sequence[Skill],
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.seed = seed
        self.size = len(distractors) + 1
        others = [f"- {entry.name}: {one_line(entry.description)}" for entry in distractors]
        self._lines = {
            variant: (f"- {skill.name}: {one_line(skill.description)}", *others)
            for variant, skill in target.items()
        }
        self.names = tuple(sorted({skill.name for skill in (*target.values(), *distractors)}))
        self._format = {"format": {"type": "json_schema", "schema": answer_schema(self.names)}}
        head, _, tail = INSTRUCTIONS.partition("{menu}")
        self._head = f"{head}{HEADING}\n\n"
        self._tail = tail

    @classmethod
    def for_run(cls, spec: RunSpec, inputs: Inputs) -> Requests:
        target_id = inputs.target.skill_id
        return cls(
            spec.model or _config.MODEL,
            _config.MAX_TOKENS,
            spec.seed,
            {name: Skill(target_id, inputs.variant(name).description) for name in VARIANTS},
            inputs.distractors,
        )

    def first_requests(self, cases: Sequence[Case]) -> list[dict[str, Any]]:
        """One request per case and variant (trial 0): what a cost estimate counts; later
        trials differ only in the menu's order."""
        return [self.request(TrialKey(case, variant, 0)) for case in cases for variant in VARIANTS]

    def system(self, key: TrialKey) -> str:
        """The system prompt: the instructions and the menu in this trial's order."""
        lines = self._lines[key.variant]
        order = permutation(self.seed, key.case.id, key.index, self.size)
        return self._head + "\n".join(lines[i] for i in order) + self._tail

    def request(self, key: TrialKey) -> dict[str, Any]:
        """The exact Messages API request of a trial."""
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system(key),
            "messages": [{"role": "user", "content": key.case.prompt}],
            "output_config": self._format,
        }
