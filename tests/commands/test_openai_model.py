"""Stage A with an OpenAI model (`--model openai:<id>`), end to end: the CLI, the real
`openai` SDK over real HTTP to the local Responses API stand-in (OPENAI_BASE_URL), real git.
No Anthropic key is set: none is needed. The provider's own behaviour (errors, 429s,
refusals) is tested in tests/trials/classifier/test_responses.py."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import STATUS_CASES, STATUS_EXPECTED, by_id, one_line_error, run, tallies
from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest, Text, Tokens
from tests.support.skill_repo import SKILL_ID, SkillRepo

KEY = "sk-openai-test-SECRET-0123456789"
MODEL = "openai:gpt-5.5"
TOKENS = Tokens(input=1500, cached=1024, output=12)
STEADY = ("plain-refund", "charts-neg")
"""Cases whose answer does not depend on the description: PASS either way."""
CASES = [case for case in STATUS_CASES if case["id"] in ("stripe-dispute", *STEADY)]
TRIALS = ("--max-trials", "3")
"""Three fixed trials per case and variant: no escalation."""


def chooses(request: ResponsesRequest) -> Text:
    """The dispute prompt picks the skill only while its description names Stripe disputes
    (the baseline); refund prompts pick it always; anything else picks a distractor."""
    if request.prompt == "a customer opened a stripe dispute, what now":
        skills = [SKILL_ID] if "Stripe disputes" in request.instructions else ["invoices"]
    else:
        skills = [SKILL_ID] if request.prompt.startswith("refund") else ["charts"]
    return Text(json.dumps({"skills": skills}))


@pytest.fixture
def openai_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeResponsesAPI]:
    """The stand-in, the SDK's environment pointed at it, and no Anthropic credentials."""
    with FakeResponsesAPI(chooses, tokens=TOKENS) as api:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{api.base_url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
        yield api


def test_a_regression_exits_1_priced_from_the_table(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    out = capsys.readouterr().out
    assert code == 1
    cases = by_id(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        case_id: STATUS_EXPECTED[case_id] for case_id in ("stripe-dispute", *STEADY)
    }
    assert cases["stripe-dispute"]["status"] == "REGRESSED"
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    assert report["model"] == MODEL
    requests = openai_api.requests
    assert len(requests) == 18  # 3 cases x 2 variants x 3 trials
    assert {request.body["model"] for request in requests} == {"gpt-5.5"}
    assert {request.path for request in requests} == {"/v1/responses"}
    assert report["usage"] == {
        "requests": 18,
        "input_tokens": 18 * 476,
        "output_tokens": 18 * 12,
        "cache_write_tokens": 0,
        "cache_read_tokens": 18 * 1024,
        "from_cache": 0,
        "throttled": 0,
        "cost_usd": pytest.approx(18 * (476 * 5.0 + 12 * 30.0 + 1024 * 0.5) / 1_000_000),
    }
    assert "cost $0.0585 (list prices of 2026-11-30)" in out


def test_a_model_the_table_lacks_costs_unknown(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    unpriced = "openai:gpt-unlisted"
    cases = [case for case in CASES if case["id"] in STEADY]
    code, report = run(tmp_path, cases, "--model", unpriced, *TRIALS)
    assert code == 0
    assert report["usage"]["cost_usd"] is None
    out = capsys.readouterr().out
    assert f"cost unknown (no price for {unpriced}: pass --price-in and --price-out)" in out


def test_nothing_regressed_exits_0_and_prices_given_are_counted(
    tmp_path: Path, repo: SkillRepo, openai_api: FakeResponsesAPI
) -> None:
    cases = [case for case in CASES if case["id"] in STEADY]
    flags = ("--price-in", "2", "--price-out", "10")
    code, report = run(tmp_path, cases, "--model", MODEL, *TRIALS, *flags)
    assert code == 0
    assert {entry["status"] for entry in report["cases"]} == {"PASS"}
    assert len(openai_api.requests) == 12
    # cache reads at a tenth of the input price, as for any --price-in
    per_request = (476 * 2 + 12 * 10 + 1024 * 0.2) / 1_000_000
    assert report["usage"]["cost_usd"] == pytest.approx(12 * per_request)


def test_a_missing_key_exits_2_before_any_request(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    error = "no API key: set OPENAI_API_KEY for an openai: model (--dry-run needs none)"
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert (report["error"], report["exit_code"], "cases" in report) == (error, 2, False)
    assert openai_api.requests == []


def test_a_missing_sdk_names_the_extra(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # how Python marks a module unimportable
    code, _report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    assert code == 2
    assert one_line_error(capsys) == (
        "activation: error: an openai: model needs the openai package: "
        "pip install 'skill-activation[openai]'"
    )
    assert openai_api.requests == []


def test_an_unreachable_openai_base_url_exits_2_before_any_trial(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    for proxy in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    error = f"cannot reach http://127.0.0.1:{port}/v1 (Connection refused): check OPENAI_BASE_URL"
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert (report["error"], report["exit_code"]) == (error, 2)


def test_the_dry_run_estimates_from_characters_without_a_key(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    prices = ("--price-in", "2", "--price-out", "10")
    code, _report = run(tmp_path, CASES, "--model", MODEL, "--dry-run", *prices)
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(
        r"\n  per trial about [0-9,]+ input tokens \(estimated from characters / 4: its "
        r"provider has no token-counting endpoint\) and 100 output tokens \(assumed\)\n",
        out,
    )
    assert "The first round would make 18 model call(s) to openai:gpt-5.5" in out
    assert openai_api.requests == []


@pytest.mark.parametrize(
    ("flag", "error"),
    [
        ("--batch", f"--batch is for the Messages API: --model {MODEL} is asked at once"),
        ("--real", f"--model {MODEL}: Claude Code runs models of anthropic"),
    ],
)
def test_batches_and_stage_b_are_input_errors(
    tmp_path: Path,
    repo: SkillRepo,
    openai_api: FakeResponsesAPI,
    capsys: pytest.CaptureFixture[str],
    flag: str,
    error: str,
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, flag)
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert report["error"] == error
    assert openai_api.requests == []


def test_help_never_imports_the_sdk(fresh_python: str) -> None:
    """The SDK comes only with an openai: model's run."""
    probe = (
        "import sys\n"
        "from activation.commands.main import main\n"
        "import activation.trials.classifier.stage\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('openai' in sys.modules)\n"
    )
    done = subprocess.run(
        [fresh_python, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_an_openai_prefix_without_a_model_is_refused(tmp_path: Path, repo: SkillRepo) -> None:
    code, report = run(tmp_path, CASES, "--model", "openai:")
    assert code == 2
    assert report["error"] == "--model openai: names no model: pass --model openai:<id>"
