"""Stage A with a model on an OpenAI-compatible server (`--model openai-compatible:<id>`),
end to end: the CLI, the real `openai` SDK's Chat Completions over real HTTP to the local
stand-in (ACTIVATION_OPENAI_COMPATIBLE_BASE_URL), real git. No other key is set: none is
needed. The client's own behaviour is tested in tests/trials/providers/test_chat.py."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chat_api import Answer, ChatRequest, FakeChatAPI, Tokens
from tests.support.cli import STATUS_CASES, STATUS_EXPECTED, by_id, one_line_error, run, tallies
from tests.support.skill_repo import SKILL_ID, SkillRepo

MODEL = "openai-compatible:qwen3"
URL = "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL"
KEY = "ACTIVATION_OPENAI_COMPATIBLE_API_KEY"
STEADY = ("plain-refund", "charts-neg")
"""Cases whose answer does not depend on the description: PASS either way."""
CASES = [case for case in STATUS_CASES if case["id"] in ("stripe-dispute", *STEADY)]
TRIALS = ("--max-trials", "3")
"""Three fixed trials per case and variant: no escalation."""
NOTICE = (
    "answers from an OpenAI-compatible server: such a server may cut a prompt longer than "
    "its context window without an error, and its model then answers what is left"
)


def chooses(request: ChatRequest) -> Answer:
    """The dispute prompt picks the skill only while its description names Stripe disputes
    (the baseline); refund prompts pick it always; anything else picks a distractor."""
    if request.prompt == "a customer opened a stripe dispute, what now":
        skills = [SKILL_ID] if "Stripe disputes" in request.system else ["invoices"]
    else:
        skills = [SKILL_ID] if request.prompt.startswith("refund") else ["charts"]
    return Answer(json.dumps({"skills": skills}))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChatAPI]:
    """The stand-in, its base URL set, and no other provider's credentials."""
    with FakeChatAPI(chooses, tokens=Tokens(prompt=700, completion=9)) as api:
        monkeypatch.setenv(URL, api.base_url_v1)
        for name in (KEY, "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY",
                     "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):  # fmt: skip
            monkeypatch.delenv(name, raising=False)
        for proxy in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
            monkeypatch.delenv(proxy, raising=False)
        yield api


def test_a_regression_exits_1_with_its_cost_unknown_and_the_warning(
    tmp_path: Path, repo: SkillRepo, server: FakeChatAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    out = capsys.readouterr().out
    assert code == 1
    cases = by_id(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        case_id: STATUS_EXPECTED[case_id] for case_id in ("stripe-dispute", *STEADY)
    }
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    assert report["model"] == MODEL
    assert report["notice"] == NOTICE
    requests = server.requests
    assert len(requests) == 18  # 3 cases x 2 variants x 3 trials
    assert {(request.path, request.body["model"]) for request in requests} == {
        ("/v1/chat/completions", "qwen3")
    }
    assert {request.headers["authorization"] for request in requests} == {"Bearer not-needed"}
    assert report["usage"] == {
        "requests": 18,
        "input_tokens": 18 * 700,
        "output_tokens": 18 * 9,
        "cache_write_tokens": 0,
        "cache_read_tokens": 0,
        "from_cache": 0,
        "throttled": 0,
        "cost_usd": None,
    }
    assert f"cost unknown (no price for {MODEL}: pass --price-in and --price-out)" in out
    assert "such a server may cut a prompt longer than its context window" in out


def test_prices_given_are_counted_and_nothing_regressed_exits_0(
    tmp_path: Path, repo: SkillRepo, server: FakeChatAPI
) -> None:
    cases = [case for case in CASES if case["id"] in STEADY]
    flags = ("--price-in", "2", "--price-out", "10")
    code, report = run(tmp_path, cases, "--model", MODEL, *TRIALS, *flags)
    assert code == 0
    assert {entry["status"] for entry in report["cases"]} == {"PASS"}
    assert len(server.requests) == 12
    assert report["usage"]["cost_usd"] == pytest.approx(12 * (700 * 2 + 9 * 10) / 1_000_000)


def test_a_refused_key_exits_2_and_names_the_variable(
    tmp_path: Path,
    repo: SkillRepo,
    server: FakeChatAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(KEY, "local-test-SECRET-0123456789")
    server.key = "the-servers-own-key"
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS, "--concurrency", "2")
    captured = capsys.readouterr()
    error = f"the API refused the credentials (HTTP 401); check {KEY}"
    assert code == 2
    assert captured.err.strip().splitlines()[-1] == f"activation: error: {error}"
    assert (report["error"], report["exit_code"]) == (error, 2)
    assert "SECRET" not in json.dumps(report) + captured.out + captured.err
    assert 1 <= len(server.requests) <= 2  # the run stops at the first refusal


def test_an_unreachable_base_url_exits_2_before_any_trial(
    tmp_path: Path,
    repo: SkillRepo,
    server: FakeChatAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(URL, f"http://127.0.0.1:{port}/v1")
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    error = f"cannot reach http://127.0.0.1:{port}/v1 (Connection refused): check {URL}"
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert (report["error"], report["exit_code"]) == (error, 2)
    assert server.requests == []


def test_a_missing_base_url_exits_2_before_any_request(
    tmp_path: Path,
    repo: SkillRepo,
    server: FakeChatAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv(URL)
    code, report = run(tmp_path, CASES, "--model", MODEL, *TRIALS)
    error = f"no base URL: set {URL} for an openai-compatible: model (--dry-run needs none)"
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert report["error"] == error
    assert server.requests == []


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        (("--batch",), f"--batch is for the Messages API: --model {MODEL} is asked at once"),
        (("--real",), f"--model {MODEL}: Claude Code runs models of anthropic"),
        (("--real", "--agent", "codex"), f"--model {MODEL}: Codex runs models of openai"),
    ],
)
def test_batches_and_agents_that_cannot_run_it_are_input_errors(
    tmp_path: Path,
    repo: SkillRepo,
    server: FakeChatAPI,
    capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...],
    error: str,
) -> None:
    code, report = run(tmp_path, CASES, "--model", MODEL, *flags)
    assert code == 2
    assert one_line_error(capsys) == f"activation: error: {error}"
    assert report["error"] == error
    assert server.requests == []


def test_the_prefix_alone_names_no_model(tmp_path: Path, repo: SkillRepo) -> None:
    code, report = run(tmp_path, CASES, "--model", "openai-compatible:")
    assert code == 2
    assert report["error"] == (
        "--model openai-compatible: names no model: pass --model openai-compatible:<id>"
    )
