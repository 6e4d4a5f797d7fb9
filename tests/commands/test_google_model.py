"""Stage A with a Gemini model (`--model google:<id>`), end to end: the CLI, Google's real
`google-genai` SDK over real HTTP to the local Gemini API stand-in (GOOGLE_GEMINI_BASE_URL),
real git, asked in Gemini CLI's own listing (`--agent gemini`). No Anthropic key is set:
none is needed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import STATUS_CASES, STATUS_EXPECTED, by_id, one_line_error, run, tallies
from tests.support.gemini_api import Error, FakeGeminiAPI, GeminiRequest, Text, Tokens
from tests.support.skill_repo import SkillRepo

KEY = "AIza-google-test-SECRET-0123456789"
MODEL = "google:gemini-3.1-pro-preview"
NAME = "refunds"
"""The target's frontmatter name, which Gemini CLI lists."""
TOKENS = Tokens(prompt=1500, candidates=12)
STEADY = ("plain-refund", "charts-neg")
CASES = [case for case in STATUS_CASES if case["id"] in ("stripe-dispute", *STEADY)]
TRIALS = ("--max-trials", "3")


def chooses(request: GeminiRequest) -> Text | Error:
    """The dispute prompt picks the skill only while its description names Stripe disputes
    (the baseline); refund prompts pick it always; anything else picks a distractor. Gemini
    CLI lists (and activates) a skill by its frontmatter name."""
    prompt = request.prompt
    if prompt == "a customer opened a stripe dispute, what now":
        skills = [NAME] if "Stripe disputes" in request.system else ["invoices"]
    else:
        skills = [NAME] if prompt.startswith("refund") else ["charts"]
    return Text(json.dumps({"skills": skills}))


@pytest.fixture
def google_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGeminiAPI]:
    """The stand-in (refusing any other key), the SDK's environment pointed at it, and no
    Anthropic credentials."""
    with FakeGeminiAPI(chooses, tokens=TOKENS, key=KEY) as api:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", api.base_url)
        monkeypatch.setenv("GEMINI_API_KEY", KEY)
        for name in ("GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        yield api


def test_a_regression_exits_1_asked_in_gemini_clis_listing_and_priced(
    tmp_path: Path,
    repo: SkillRepo,
    google_api: FakeGeminiAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, "--agent", "gemini", *TRIALS)
    out = capsys.readouterr().out
    assert code == 1
    cases = by_id(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        case_id: STATUS_EXPECTED[case_id] for case_id in ("stripe-dispute", *STEADY)
    }
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    requests = google_api.requests
    assert len(requests) == 18
    assert {r.path for r in requests} == {"/v1/models/gemini-3.1-pro-preview:generateContent"}
    first = requests[0]
    assert "# Available Agent Skills" in first.system and "<available_skills>" in first.system
    config = first.body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"]["properties"]["skills"]["type"] == "array"
    assert report["usage"]["input_tokens"] == 18 * 1500
    assert report["usage"]["output_tokens"] == 18 * 12
    assert report["usage"]["cost_usd"] == pytest.approx(18 * (1500 * 2.0 + 12 * 12.0) / 1e6)
    assert "list prices of 2026-11-30" in out


def test_a_refused_key_stops_the_run(
    tmp_path: Path,
    repo: SkillRepo,
    google_api: FakeGeminiAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The Gemini API answers a bad key 400 `API_KEY_INVALID`: refused credentials."""
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-wrong-key-000000")
    code, _ = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    assert code == 2
    assert "the API refused the credentials (HTTP 400); check GEMINI_API_KEY" in (
        capsys.readouterr().err
    )


def test_an_api_error_fails_the_trial_not_the_vote(
    tmp_path: Path, repo: SkillRepo, google_api: FakeGeminiAPI
) -> None:
    google_api.script = lambda request: Error(400, "scripted bad request", "BAD_REQUEST")
    cases = [case for case in CASES if case["id"] in STEADY]
    code, report = run(tmp_path, cases, "--model", MODEL, *TRIALS)
    assert {entry["status"] for entry in report["cases"]} == {"ERROR"}
    assert code != 0


def test_a_missing_key_exits_2_before_any_request(
    tmp_path: Path,
    repo: SkillRepo,
    google_api: FakeGeminiAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    code, _ = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    error = "no API key: set GEMINI_API_KEY for a google: model (--dry-run needs none)"
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert google_api.requests == []
