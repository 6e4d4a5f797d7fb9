"""Stage A end to end: the CLI, the real SDK, real HTTP to the local stand-in, real git.

What is about HTTP and the SDK is tested here: a full run, errors and re-asks, retries,
refused credentials, the menu as the requests show it, the concurrency the server sees, the
credentials check, the console script and Ctrl-C. The command line's own behaviour runs on
the in-memory fake, in test_run.py.
"""

from __future__ import annotations

import itertools
import signal
import threading
import time
from pathlib import Path

import pytest

import activation
from activation.store import cache_info
from activation.trials.agents.claude_code.listing import packaged_rules
from tests.support.cli import (
    BASELINE,
    CANDIDATE,
    STATUS_CASES,
    STATUS_EXPECTED,
    Spawn,
    by_id,
    hang_on,
    one_line_error,
    read_report,
    run,
    tallies,
    wait_until,
)
from tests.support.messages_api import (
    Answer,
    Error,
    FakeMessagesAPI,
    FakeRequest,
    MaxTokens,
    Raw,
    Refusal,
    Reply,
)
from tests.support.scripted_model import API_KEY, Rule, Scripted, always, fires_when
from tests.support.skill_repo import DISTRACTORS, SKILL_ID, SKILL_PATH, SkillRepo, case, write_cases


def status_rules() -> dict[str, Rule]:
    return {
        "a customer opened a stripe dispute, what now": fires_when("Stripe"),
        "refund order 1234": always([SKILL_ID]),
        # The negative fires with the baseline (which names chargebacks), not the candidate.
        "what is a chargeback, explain for my essay": fires_when("chargebacks"),
        "partial refund for a coupon order": lambda d, n: Answer(
            [SKILL_ID] if d == BASELINE or n == 0 else []
        ),
        "give money back to the buyer": always(["invoices"]),
        "plot monthly revenue": always(["charts"]),
    }


def test_every_status_and_exit_1(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_api.script = Scripted(status_rules())
    code, report = run(tmp_path, STATUS_CASES, "--max-trials", "3")  # fixed trials
    out = capsys.readouterr().out
    assert code == 1
    cases = by_id(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == STATUS_EXPECTED
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    assert tallies(cases["flaky"]) == ((3, 3, 0), (1, 3, 0))
    assert cases["stripe-dispute"]["p_value"] == pytest.approx(0.015625)
    assert cases["flaky"]["p_value"] == pytest.approx(0.109375)
    assert cases["plain-refund"]["p_value"] == 1.0  # the correct counts did not move
    assert cases["stripe-dispute"]["baseline"]["verdict"] is True
    assert cases["stripe-dispute"]["candidate"]["verdict"] is False
    summary = report["summary"]
    assert summary["regressed"] == ["stripe-dispute"]
    assert summary["improved"] == ["chargeback-neg"]
    assert summary["unstable"] == ["flaky"]
    assert summary["errors"] == []
    assert summary["baseline"]["recall"] == [3, 4]
    assert summary["candidate"]["recall"] == [1, 4]
    assert summary["baseline"]["false_positives"] == [1, 2]
    assert summary["candidate"]["false_positives"] == [0, 2]
    low, high = summary["candidate"]["recall_interval"]
    assert (round(low, 4), round(high, 4)) == (0.0456, 0.6994)
    assert report["schema"] == "activation-report/4"
    assert report["stage"] == "A"
    assert report["model"] == "claude-sonnet-5-5"
    assert report["trials"] == 3
    assert report["alpha"] == 0.05
    assert report["skill"] == {"id": SKILL_ID, "path": SKILL_PATH}
    assert report["baseline"]["spec"] == "git:HEAD"
    assert report["baseline"]["description"] == BASELINE
    assert report["candidate"]["chars"] == len(CANDIDATE)
    assert report["usage"]["requests"] == 36
    assert report["usage"]["input_tokens"] > 0
    assert report["exit_code"] == 1
    assert len(fake_api.message_requests) == 36
    assert "REGRESSED (1)" in out
    assert (
        "stripe-dispute 3/3 -> 0/3: went to invoices 3/3: "
        "a customer opened a stripe dispute, what now"
    ) in out
    assert "activation --real --only stripe-dispute,chargeback-neg,flaky" in out
    assert "FAILED: the candidate regressed." in out


def test_errors_are_kept_apart_and_exit_3(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = "refund failed with a 500"
    garbled = "refund a gift card"
    rules = status_rules()
    rules[broken] = lambda d, n: (
        Error(500, retry_after=0.001) if d == CANDIDATE else Answer([SKILL_ID])
    )
    rules[garbled] = lambda d, n: (
        Raw("I think refunds") if d == CANDIDATE and n < 2 else (Answer([SKILL_ID]))
    )
    fake_api.script = Scripted(rules)
    cases = [STATUS_CASES[1], case("broken", broken, True), case("garbled", garbled, True)]
    # One at a time, so "the first ask and its re-ask" are the first two calls of the pair.
    code, report = run(tmp_path, cases, "--concurrency", "1")
    assert code == 3
    entries = by_id(report)
    assert entries["broken"]["status"] == "ERROR"
    assert tallies(entries["broken"]) == ((3, 3, 0), (0, 0, 3))
    assert entries["broken"]["candidate"]["verdict"] is None
    # The first candidate trial of "garbled" is unusable twice (an ERROR); the others
    # answer properly on their first ask or after one re-ask.
    assert entries["garbled"]["status"] == "ERROR"
    assert tallies(entries["garbled"]) == ((3, 3, 0), (2, 2, 1))
    errors = [t["error"] for t in entries["garbled"]["trials"] if t["reading"] == "error"]
    assert errors == ["unusable answer after a re-ask (not JSON: 'I think refunds')"]
    summary = report["summary"]
    assert summary["errors"] == ["broken", "garbled"]
    assert summary["candidate"]["recall"] == [1, 1]
    # 9 trials x 2 variants, plus garbled's one re-ask: 19 requests counted. The fake also
    # saw the SDK's own 4 retries of each of broken's 3 candidate trials.
    assert report["usage"]["requests"] == 19
    assert len(fake_api.message_requests) == 19 + 3 * 4
    out = capsys.readouterr().out
    assert "    candidate error: API error HTTP 500\n" in out
    assert "baseline error" not in out
    assert "INCOMPLETE" in out


def test_refusal_and_truncation_are_reasked_then_error(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = Scripted(
        {
            "refuse": lambda d, n: Refusal() if d == CANDIDATE else Answer([]),
            "cut": lambda d, n: MaxTokens('{"skills": [') if n == 0 else Answer([SKILL_ID]),
        }
    )
    code, report = run(
        tmp_path, [case("refuse", "refuse", False), case("cut", "cut", True)], "--trials", "1"
    )
    entries = by_id(report)
    assert entries["refuse"]["status"] == "ERROR"
    (error_trial,) = [t for t in entries["refuse"]["trials"] if t["reading"] == "error"]
    assert error_trial["error"] == "unusable answer after a re-ask (stop reason refusal)"
    assert entries["cut"]["status"] == "PASS"
    assert code == 3


def test_transient_429_529_and_5xx_leave_no_trace(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    faults = itertools.cycle([Error(429, 0.001), Error(529, 0.002), Error(503, 0.001)])
    scripted = Scripted(status_rules())
    failed_once: set[tuple[str, str]] = set()
    lock = threading.Lock()

    def flaky(request: FakeRequest) -> Reply:
        """Every prompt and description pair fails once before it is answered."""
        pair = (request.prompt, request.menu[SKILL_ID])
        with lock:
            first = pair not in failed_once
            failed_once.add(pair)
            fault = next(faults)
        return fault if first else scripted(request)

    fake_api.script = flaky
    code, report = run(tmp_path, STATUS_CASES, "--max-trials", "3")
    assert code == 1
    assert [e["status"] for e in report["cases"]] == [
        "REGRESSED",
        "PASS",
        "IMPROVED",
        "UNSTABLE",
        "FAIL",
        "PASS",
    ]
    assert report["summary"]["errors"] == []
    assert report["usage"]["requests"] == 36
    assert len(fake_api.message_requests) == 36 + 12


def test_auth_failure_aborts_at_once_without_echoing_the_key(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_api.script = Error(401, message=f"invalid x-api-key {API_KEY}")
    code, report = run(tmp_path, STATUS_CASES, "--concurrency", "2", "--trials", "5")
    captured = capsys.readouterr()
    assert code == 2
    message = "the API refused the credentials (HTTP 401); check ANTHROPIC_API_KEY"
    assert report == {
        "schema": "activation-report/4",
        "version": activation.__version__,
        "exit_code": 2,
        "error": message,
    }
    assert captured.err.strip().splitlines()[-1] == f"activation: error: {message}"
    assert API_KEY not in captured.out + captured.err
    assert len(fake_api.message_requests) <= 2


def test_forbidden_also_aborts(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_api.script = Error(403)
    code, _report = run(tmp_path, STATUS_CASES[:1], "--trials", "1", "--concurrency", "1")
    assert code == 2
    assert "(HTTP 403)" in capsys.readouterr().err


BUILTINS = [skill.id for skill in packaged_rules().builtins]


def test_menu_is_shuffled_by_seed_and_paired_across_variants(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = Scripted({"refund order 1234": always([SKILL_ID])})
    code, _report = run(tmp_path, [STATUS_CASES[1]], "--trials", "6", "--seed", "11")
    assert code == 0
    orders: dict[str, list[tuple[str, ...]]] = {BASELINE: [], CANDIDATE: []}
    for request in fake_api.message_requests:
        orders[request.menu[SKILL_ID]].append(tuple(request.menu))
        assert set(request.menu) == {SKILL_ID, *DISTRACTORS, *BUILTINS}  # as the agent lists
        assert request.prompt == "refund order 1234"
        assert request.schema is not None
    assert sorted(orders[BASELINE]) == sorted(orders[CANDIDATE])
    assert len(set(orders[BASELINE])) > 1


def test_concurrency_is_bounded_by_one_limiter(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.latency = 0.05
    fake_api.script = Scripted(status_rules())
    code, _report = run(tmp_path, STATUS_CASES, "--concurrency", "3")
    assert code == 1
    assert fake_api.max_in_flight == 3


def test_dry_run_needs_no_key_and_makes_no_call(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    code, report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "4")
    assert code == 0
    assert report == {}
    assert fake_api.requests == []


def test_missing_api_key_exits_2(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    code, _ = run(tmp_path, STATUS_CASES)
    assert code == 2
    assert one_line_error(capsys) == (
        "activation: error: no API key: set ANTHROPIC_API_KEY (--dry-run needs none)"
    )


def test_ctrl_c_stops_a_large_mock_run_at_once(
    tmp_path: Path, repo: SkillRepo, cache_dir: Path, spawn_activation: Spawn
) -> None:
    """The mock answers without waiting: Ctrl-C once let its whole first round run (18,000
    trials on 3,000 cases, 19.5 s). Now the run stops where the signal found it: the partial
    report holds about the trials that were in the response cache when the signal went
    (each is cached as it is recorded), far from the round's 120,000, and the process ends
    130 well within the bound (generous: the machine may be busy)."""
    matrix = [case(f"c{i}", f"refund order {i}" if i % 2 else f"plot chart {i}", bool(i % 2))
              for i in range(3000)]  # fmt: skip
    cases_file = write_cases(tmp_path / "cases.json", matrix)
    report = tmp_path / "partial.json"
    flags = ("--model", "mock", "--trials", "20", "--max-trials", "20")
    process = spawn_activation(repo.root, tmp_path, cases_file, report, *flags)
    wait_until(lambda: cache_info(cache_dir).entries >= 2_000)
    cached = cache_info(cache_dir).entries
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    took = time.monotonic() - sent
    assert process.returncode == 130, err.decode()
    assert took < 10
    data = read_report(report)
    assert (data["interrupted"], data["exit_code"]) == (True, 130)
    ran = sum(len(entry["trials"]) for entry in data["cases"])
    assert cached <= ran <= cached + 10_000  # the mock's pace: about 40,000 trials a second
    assert ran == cache_info(cache_dir).entries


def test_console_script_and_ctrl_c_writes_a_partial_report(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    cache_dir: Path,
    spawn_activation: Spawn,
) -> None:
    """`python -m activation` in a real process; SIGINT mid-run gives 130 and a report of
    what finished. The last trial of one case hangs, so that case is judged from the trials
    it finished (partial), and the requests in flight still count as sent."""
    fake_api.latency = hang_on("give money back to the buyer", after=4)
    fake_api.script = Scripted(status_rules())
    cases_file = write_cases(tmp_path / "cases.json", STATUS_CASES)
    report = tmp_path / "partial.json"
    flags = ("--concurrency", "4", "--max-trials", "3")
    process = spawn_activation(repo.root, tmp_path, cases_file, report, *flags)
    # Every trial but the two hanging ones answered and recorded: each is in the response
    # cache the moment the run records it (the same step, with no wait between).
    wait_until(lambda: cache_info(cache_dir).entries >= 34 and fake_api.in_flight <= 2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    data = read_report(report)
    assert data["interrupted"] is True
    assert data["exit_code"] == 130
    assert data["summary"]["unfinished"] == []
    assert [(case["id"], case["status"], case["partial"]) for case in data["cases"]] == [
        ("stripe-dispute", "REGRESSED", False),
        ("plain-refund", "PASS", False),
        ("chargeback-neg", "IMPROVED", False),
        ("flaky", "UNSTABLE", False),
        ("never", "FAIL", True),
        ("charts-neg", "PASS", False),
    ]
    # The first four asks of its prompt were answered (which trials they were depends on
    # the order the requests reached the stand-in), none activated; the last two hang.
    (base, cand) = tallies(by_id(data)["never"])
    assert (base[0], cand[0], base[1] + cand[1], base[2] + cand[2]) == (0, 0, 4, 0)
    assert data["usage"]["requests"] == 36
    assert data["summary"]["candidate"]["recall"] == [1, 4]
    text = out.decode()
    assert "INTERRUPTED" in text
    assert "FAIL (partial)" in text
    assert "Not finished" not in text
    assert "--only stripe-dispute,chargeback-neg,flaky" in text
    assert API_KEY not in text + err.decode()
