"""The providers' seam is real: a provider registered here, in the test, by one entry in
the registry (nothing else is edited), runs Stage A end to end through the CLI with exact
verdicts, and an agent that cannot run its models refuses it in one line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

import pytest

from activation._models import ModelRef, Prices, Usage
from activation.trials import providers
from activation.trials.classifier.prompt import system_text, user_prompt
from activation.trials.providers.asking import Provider as Asker
from activation.trials.providers.asking import Reply, Throttled
from tests.support.cli import STATUS_CASES, STATUS_EXPECTED, by_id, one_line_error, run, tallies
from tests.support.skill_repo import SKILL_ID, SkillRepo

MODEL = "fake:router-1"
CASES = [case for case in STATUS_CASES if case["id"] in ("stripe-dispute", "plain-refund")]
NOTICE = "answers from the fake provider of tests/commands/test_provider_seam.py"
ASKED: list[str] = []
"""The model of every request the fake's client answered."""
CHECKED: list[bool] = []
"""`calls` of every preflight of the fake."""


class Router:
    """The fake's client: the dispute prompt picks the skill only while its description
    names Stripe disputes (the baseline), a refund prompt always."""

    kind = "fake"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def ask(self, request: dict[str, Any], throttled: Throttled) -> Reply:
        ASKED.append(str(request["model"]))
        prompt = user_prompt(request)
        knows = "Stripe disputes" in system_text(request) or prompt.startswith("refund")
        text = json.dumps({"skills": [SKILL_ID] if knows else ["invoices"]})
        message = {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
        usage = Usage(requests=1, input_tokens=50, output_tokens=5, cost_usd=None)  # no price
        return Reply(usage, message=message)


class Fake:
    name = "fake"
    key_variables: tuple[str, ...] = ()
    url_variable: str | None = None
    default_url: str | None = None
    api = "messages"
    batches = False
    counts_tokens = False
    free: str | None = None
    proposes = False

    def check(self, model: ModelRef) -> None:
        providers.needs_id(model)

    def preflight(self, *, calls: bool) -> None:
        CHECKED.append(calls)

    def count_tokens(self, requests: Sequence[dict[str, Any]], limit: int) -> list[int]:
        raise providers.Uncounted("the fake counts nothing")

    def notice(self) -> str | None:
        return NOTICE

    def asker(self, prices: Prices | None) -> Asker:
        return Router()


PROVIDER: providers.ModelProvider = Fake()


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake provider in the registry: this module holds its `PROVIDER`."""
    monkeypatch.setattr(
        providers, "PROVIDER_MODULES", {**providers.PROVIDER_MODULES, "fake": __name__}
    )
    ASKED.clear()
    CHECKED.clear()


def test_a_provider_registered_in_a_test_runs_stage_a(
    tmp_path: Path, repo: SkillRepo, registered: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, "--max-trials", "3")
    out = capsys.readouterr().out
    assert code == 1
    cases = by_id(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        case_id: STATUS_EXPECTED[case_id] for case_id in ("stripe-dispute", "plain-refund")
    }
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    assert tallies(cases["plain-refund"]) == ((3, 3, 0), (3, 3, 0))
    assert (report["model"], report["notice"]) == (MODEL, NOTICE)
    assert ASKED == [MODEL] * 12  # 2 cases x 2 variants x 3 trials
    assert CHECKED == [True]
    assert report["usage"]["requests"] == 12
    assert report["usage"]["input_tokens"] == 12 * 50
    assert report["usage"]["cost_usd"] is None
    assert f"cost unknown (no price for {MODEL}: pass --price-in and --price-out)" in out


def test_an_agent_refuses_a_provider_it_cannot_run(
    tmp_path: Path, repo: SkillRepo, registered: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, "--real", "--agent", "codex")
    assert code == 2
    error = f"--model {MODEL}: Codex runs models of openai"
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert report["error"] == error
    assert ASKED == []


def test_without_its_entry_the_name_is_an_anthropic_id() -> None:
    assert providers.parse_model(MODEL) == ModelRef("anthropic", MODEL)
