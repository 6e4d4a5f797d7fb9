"""The command-line tests' skill repo: the refunds skill, BASELINE at HEAD and CANDIDATE in
the working tree, with the test distractors beside it, as the current directory; and the
billing example (three skills) as its author keeps it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.billing_repo import billing_repo
from tests.support.cli import BASELINE, CANDIDATE
from tests.support.messages_api import FakeMessagesAPI
from tests.support.scripted_model import API_KEY
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SkillRepo,
    SkillRepos,
    write_distractors,
)


@pytest.fixture
def repo(skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SkillRepo:
    made = skill_repo(BASELINE, files=REFERENCE, candidate=CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    monkeypatch.chdir(made.root)
    return made


@pytest.fixture
def fake_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    """The local Messages API stand-in, with the SDK's environment pointed at it."""
    with FakeMessagesAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        yield api


@pytest.fixture
def billing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The billing example as its author keeps it (tests/support/billing_repo.py), the
    working directory; no key and no API address in the environment."""
    root = billing_repo(tmp_path / "billing")
    monkeypatch.chdir(root)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return root
