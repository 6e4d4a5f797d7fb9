"""A scripted model behind the local Messages API stand-in: answers per case prompt and per
description, the way a real classifier would answer a menu."""

from __future__ import annotations

import threading
from collections.abc import Callable

from tests.support.messages_api import Answer, FakeRequest, Reply
from tests.support.skill_repo import SKILL_ID

API_KEY = "sk-ant-test-SECRET-0123456789"

Rule = Callable[[str, int], Reply]
"""(target description, how many times this prompt+description was asked before) -> reply"""


def refunds_fire(request: FakeRequest) -> Reply:
    """A script for any suite: prompts about refunds pick the skill, the rest a distractor.
    The skill is named as the listing shows it: its id in Claude Code's, its folder's name
    in an agent's that lists it as a project skill."""
    shown = SKILL_ID if SKILL_ID in request.menu else SKILL_ID.partition(":")[2]
    return Answer([shown] if request.prompt.startswith("refund") else ["charts"])


def fires_when(word: str) -> Rule:
    return lambda description, _n: Answer([SKILL_ID] if word in description else ["invoices"])


def always(skills: list[str]) -> Rule:
    return lambda _description, _n: Answer(skills)


class Scripted:
    """Answers per case prompt and per description, counting repeats of each pair."""

    def __init__(self, rules: dict[str, Rule]) -> None:
        self.rules = rules
        self.counts: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()

    def __call__(self, request: FakeRequest) -> Reply:
        description = request.menu[SKILL_ID]
        with self.lock:
            seen = self.counts.get((request.prompt, description), 0)
            self.counts[request.prompt, description] = seen + 1
        return self.rules[request.prompt](description, seen)
