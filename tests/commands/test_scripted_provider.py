"""A command test with no HTTP stand-in: Stage A through the CLI on the in-process
scripted provider (`--model scripted:<id>`), registered in the test with no other edit,
every trial asked twice through the one `call` (its first answer cut)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from activation.trials.classifier.prompt import system_text, user_prompt
from activation.trials.providers.asking import Reply
from activation.trials.providers.scripted import ANSWERED, message
from tests.support.cli import STATUS_CASES, by_id, one_line_error, run, tallies
from tests.support.scripted_provider import registered
from tests.support.skill_repo import SKILL_ID, SkillRepo


def test_stage_a_runs_on_the_scripted_provider_through_the_cli(
    tmp_path: Path, repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command test with no HTTP stand-in: the dispute prompt picks the skill only while
    its description names Stripe disputes (the baseline); the first answer to each request
    is cut, so every trial is asked twice."""
    provider = registered(monkeypatch)
    seen: dict[str, int] = {}

    def script(request: dict[str, Any]) -> Reply | str:
        key = json.dumps(request, sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 1:
            return Reply(ANSWERED, message=message("{", "max_tokens"))
        knows = "Stripe disputes" in system_text(request)
        return json.dumps({"skills": [SKILL_ID] if knows else []})

    provider.script = script
    cases = [case for case in STATUS_CASES if case["id"] == "stripe-dispute"]
    code, report = run(tmp_path, cases, "--model", "scripted:router", "--max-trials", "3")
    assert code == 1
    entry = by_id(report)["stripe-dispute"]
    assert entry["status"] == "REGRESSED"
    assert tallies(entry) == ((3, 3, 0), (0, 3, 0))
    assert len(provider.asked) == 12  # 2 variants x 3 trials, each asked twice
    assert {user_prompt(request) for request in provider.asked} == {cases[0]["prompt"]}
    assert report["usage"]["requests"] == 12
    assert report["usage"]["cost_usd"] is None  # no price for scripted:router


def test_a_cost_ceiling_needs_prices_for_a_scripted_model_but_not_for_the_mock(
    tmp_path: Path,
    repo: SkillRepo,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The mock is free (its cost is known: nothing); a model without a price is refused a
    ceiling it could not keep, before any call."""
    provider = registered(monkeypatch)
    cases = [case for case in STATUS_CASES if case["id"] == "plain-refund"]
    code, _report = run(tmp_path, cases, "--model", "scripted:model-1", "--max-cost-usd", "5")
    assert code == 2
    assert one_line_error(capsys) == (
        "activation: error: cannot enforce a cost ceiling: no price for scripted:model-1: "
        "pass --price-in and --price-out"
    )
    assert provider.asked == []
    code, report = run(tmp_path, cases, "--model", "mock", "--max-cost-usd", "5")
    assert code == 0
    assert report["max_cost_usd"] == 5.0
    assert report["usage"]["cost_usd"] == 0.0
    assert "cost $0.0000 (the mock model is free)" in capsys.readouterr().out
