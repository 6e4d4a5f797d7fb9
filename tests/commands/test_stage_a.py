"""Stage A end to end: the CLI, the real SDK, real HTTP to the local stand-in, real git."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

import activation
from activation.commands.main import main
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
from tests.support.skill_repo import (
    DISTRACTORS,
    SKILL_ID,
    SKILL_PATH,
    SkillRepo,
    case,
    make_skill_repo,
    write_cases,
    write_distractors,
)

API_KEY = "sk-ant-test-SECRET-0123456789"
BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."

Rule = Callable[[str, int], Reply]
"""(target description, how many times this prompt+description was asked before) -> reply"""


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


@pytest.fixture
def fake_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        yield api


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SkillRepo:
    skill = make_skill_repo(tmp_path / "repo", BASELINE, CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    monkeypatch.chdir(skill.root)
    return skill


def run(
    tmp_path: Path, cases: list[dict[str, object]], *flags: str
) -> tuple[int, dict[str, object]]:
    cases_file = write_cases(tmp_path / "cases.json", cases)
    report = tmp_path / "report.json"
    code = main(
        [
            "--cases",
            str(cases_file),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(report),
            *flags,
        ]
    )
    return code, orjson.loads(report.read_bytes()) if report.exists() else {}


def by_id(report: dict[str, object]) -> dict[str, dict[str, object]]:
    return {entry["id"]: entry for entry in report["cases"]}  # type: ignore[index,union-attr]


def tallies(entry: dict[str, object]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    def one(side: dict[str, int]) -> tuple[int, int, int]:
        return (side["activated"], side["valid"], side["errors"])

    return one(entry["baseline"]), one(entry["candidate"])  # type: ignore[arg-type]


STATUS_CASES = [
    case("stripe-dispute", "a customer opened a stripe dispute, what now", True, ["kw"]),
    case("plain-refund", "refund order 1234", True, ["kw"]),
    case("chargeback-neg", "what is a chargeback, explain for my essay", False, ["negative"]),
    case("flaky", "partial refund for a coupon order", True, ["indirect"]),
    case("never", "give money back to the buyer", True, ["indirect"]),
    case("charts-neg", "plot monthly revenue", False, ["negative"]),
]


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
    code, report = run(tmp_path, STATUS_CASES)
    out = capsys.readouterr().out
    assert code == 1
    cases = by_id(report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        "stripe-dispute": "REGRESSED",
        "plain-refund": "PASS",
        "chargeback-neg": "IMPROVED",
        "flaky": "UNSTABLE",
        "never": "FAIL",
        "charts-neg": "PASS",
    }
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    assert tallies(cases["flaky"]) == ((3, 3, 0), (1, 3, 0))
    assert cases["stripe-dispute"]["p_value"] == pytest.approx(0.015625)
    assert cases["flaky"]["p_value"] == pytest.approx(0.109375)
    assert cases["plain-refund"]["p_value"] is None
    assert cases["stripe-dispute"]["baseline"]["verdict"] is True  # type: ignore[index]
    assert cases["stripe-dispute"]["candidate"]["verdict"] is False  # type: ignore[index]
    summary = report["summary"]
    assert summary["regressed"] == ["stripe-dispute"]  # type: ignore[index]
    assert summary["improved"] == ["chargeback-neg"]  # type: ignore[index]
    assert summary["unstable"] == ["flaky"]  # type: ignore[index]
    assert summary["errors"] == []  # type: ignore[index]
    assert summary["baseline"]["recall"] == [3, 4]  # type: ignore[index]
    assert summary["candidate"]["recall"] == [1, 4]  # type: ignore[index]
    assert summary["baseline"]["false_positives"] == [1, 2]  # type: ignore[index]
    assert summary["candidate"]["false_positives"] == [0, 2]  # type: ignore[index]
    low, high = summary["candidate"]["recall_interval"]  # type: ignore[index]
    assert (round(low, 4), round(high, 4)) == (0.0456, 0.6994)
    assert report["schema"] == "activation-report/2"
    assert report["stage"] == "A"
    assert report["model"] == "claude-sonnet-5-5"
    assert report["trials"] == 3
    assert report["alpha"] == 0.05
    assert report["skill"] == {"id": SKILL_ID, "path": SKILL_PATH}
    assert report["baseline"]["spec"] == "git:HEAD"  # type: ignore[index]
    assert report["baseline"]["description"] == BASELINE  # type: ignore[index]
    assert report["candidate"]["chars"] == len(CANDIDATE)  # type: ignore[index]
    assert report["usage"]["requests"] == 36  # type: ignore[index]
    assert report["usage"]["input_tokens"] > 0  # type: ignore[index]
    assert report["exit_code"] == 1
    assert len(fake_api.message_requests) == 36
    assert "REGRESSED (1)" in out
    assert "stripe-dispute: a customer opened a stripe dispute, what now" in out
    assert "activation --real --only stripe-dispute,chargeback-neg,flaky" in out
    assert "FAILED: the candidate regressed." in out


def test_identical_descriptions_pass_with_exit_0(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    repo.write_description(BASELINE)
    fake_api.script = Scripted(status_rules())
    code, report = run(tmp_path, STATUS_CASES[:3] + STATUS_CASES[5:], "--trials", "2")
    assert code == 0
    statuses = {entry["id"]: entry["status"] for entry in report["cases"]}  # type: ignore[union-attr]
    assert statuses == {
        "stripe-dispute": "PASS",
        "plain-refund": "PASS",
        "chargeback-neg": "FAIL",
        "charts-neg": "PASS",
    }
    assert report["usage"]["requests"] == 16  # type: ignore[index]
    assert report["summary"]["baseline"]["recall"] == [2, 2]  # type: ignore[index]


def test_five_trials_non_unanimous_significant_drop_regresses(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    prompt = "partial refund for a coupon order"
    fake_api.script = Scripted(
        {prompt: lambda d, n: Answer([SKILL_ID] if d == BASELINE or n == 2 else [])}
    )
    code, report = run(tmp_path, [case("drop", prompt, True)], "--trials", "5")
    (entry,) = report["cases"]  # type: ignore[misc]
    assert tallies(entry) == ((5, 5, 0), (1, 5, 0))
    assert entry["status"] == "REGRESSED"
    assert entry["p_value"] == pytest.approx(0.0107421875)
    assert code == 1


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
    assert entries["broken"]["candidate"]["verdict"] is None  # type: ignore[index]
    # The first candidate trial of "garbled" is unusable twice (an ERROR); the others
    # answer properly on their first ask or after one re-ask.
    assert entries["garbled"]["status"] == "ERROR"
    assert tallies(entries["garbled"]) == ((3, 3, 0), (2, 2, 1))
    errors = [t["error"] for t in entries["garbled"]["trials"] if t["reading"] == "error"]  # type: ignore[union-attr,index]
    assert errors == ["unusable answer after a re-ask (not JSON: 'I think refunds')"]
    summary = report["summary"]
    assert summary["errors"] == ["broken", "garbled"]  # type: ignore[index]
    assert summary["candidate"]["recall"] == [1, 1]  # type: ignore[index]
    # 9 trials x 2 variants, plus garbled's one re-ask: 19 requests counted. The fake also
    # saw the SDK's own 4 retries of each of broken's 3 candidate trials.
    assert report["usage"]["requests"] == 19  # type: ignore[index]
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
    (error_trial,) = [t for t in entries["refuse"]["trials"] if t["reading"] == "error"]  # type: ignore[union-attr,index]
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
    code, report = run(tmp_path, STATUS_CASES)
    assert code == 1
    assert [e["status"] for e in report["cases"]] == [  # type: ignore[union-attr,index]
        "REGRESSED",
        "PASS",
        "IMPROVED",
        "UNSTABLE",
        "FAIL",
        "PASS",
    ]
    assert report["summary"]["errors"] == []  # type: ignore[index]
    assert report["usage"]["requests"] == 36  # type: ignore[index]
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
        "schema": "activation-report/2",
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


def test_menu_is_shuffled_by_seed_and_paired_across_variants(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = Scripted({"refund order 1234": always([SKILL_ID])})
    code, _report = run(tmp_path, [STATUS_CASES[1]], "--trials", "6", "--seed", "11")
    assert code == 0
    orders: dict[str, list[tuple[str, ...]]] = {BASELINE: [], CANDIDATE: []}
    for request in fake_api.message_requests:
        orders[request.menu[SKILL_ID]].append(tuple(request.menu))
        assert set(request.menu) == {SKILL_ID, *DISTRACTORS}
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


def test_only_selects_cases(tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.script = Scripted(status_rules())
    code, report = run(tmp_path, STATUS_CASES, "--only", "charts-neg,plain-refund")
    assert code == 0
    assert [e["id"] for e in report["cases"]] == ["plain-refund", "charts-neg"]  # type: ignore[union-attr,index]
    assert len(fake_api.message_requests) == 12


def test_git_ref_and_path_specs(tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI) -> None:
    first = repo.repo.head.commit.hexsha
    repo.commit("candidate")
    other = tmp_path / "draft.md"
    other.write_text(
        repo.skill_file.read_text().replace(CANDIDATE, "Use when issuing Stripe refunds.")
    )
    fake_api.script = Scripted(status_rules())
    code, report = run(
        tmp_path, STATUS_CASES[:1], "--baseline", f"git:{first}", "--candidate", str(other)
    )
    assert report["baseline"]["description"] == BASELINE  # type: ignore[index]
    assert report["candidate"]["description"] == "Use when issuing Stripe refunds."  # type: ignore[index]
    assert code == 0


def test_dry_run_needs_no_key_and_makes_no_call(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    code, report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "4")
    out = capsys.readouterr().out
    assert code == 0
    assert report == {}
    assert fake_api.requests == []
    assert "kw (2): stripe-dispute, plain-refund" in out
    assert "negative (2): chargeback-neg, charts-neg" in out
    assert f"baseline git:HEAD ({len(BASELINE)} chars)" in out
    assert (
        "  Use when issuing [-refunds, handling chargebacks, or answering Stripe disputes.-] "
        "{+refunds.+}\n"
    ) in out
    assert "48 model call(s)" in out
    assert "menu: billing:refunds and 3 distractor(s): charts, invoices, tax-rules\n" in out


def test_long_description_warns(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write_description("Use when issuing refunds. " + "x" * 1100)
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run")
    assert code == 0
    err = capsys.readouterr().err
    spec = str(repo.skill_file)
    assert (
        f"warning: {spec}: the description is 1,126 characters, over the agent's limit of 1,024"
        in err
    )


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


BAD_CASE_FILES: list[tuple[str, bytes, str]] = [
    ("not-json", b"{cases: [", "not valid JSON"),
    ("wrong-shape", b'{"items": []}', "expected a 'cases' list or a bare list of cases"),
    ("not-a-list", b'{"cases": {"a": 1}}', "'cases' must be a list"),
    (
        "duplicate",
        orjson.dumps([case("a", "p", True), case("a", "q", False)]),
        "case 'a': duplicate id: 2 cases share it",
    ),
    (
        "missing-prompt",
        orjson.dumps([{"id": "x", "should_activate": True, "why": "w"}]),
        "case 'x': missing 'prompt'",
    ),
    (
        "missing-why",
        orjson.dumps([{"id": "x", "prompt": "p", "should_activate": True}]),
        "case 'x': missing 'why'",
    ),
    (
        "wrong-type",
        orjson.dumps([{"id": "x", "prompt": "p", "should_activate": "yes", "why": "w"}]),
        "case 'x': 'should_activate' must be true or false",
    ),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_CASE_FILES)
def test_bad_cases_files_exit_2_before_any_call(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
    message: str,
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(content)
    code = main(["--cases", str(path), "--distractors", str(tmp_path / "distractors")])
    assert code == 2
    assert message in one_line_error(capsys)
    assert fake_api.requests == []


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--only", "nope,plain-refund,zzz"], "--only names unknown case ids: nope, zzz"),
        (["--baseline", "git:no-such-branch"], "git fetch"),
        (["--trials", "0"], "--trials: must be at least 1, got 0"),
        (["--candidate", "missing/SKILL.md"], "missing/SKILL.md"),
        (["--alpha", "2"], "--alpha: must be between 0 and 1"),
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
    ],
)
def test_bad_flags_exit_2_before_any_call(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    code, _report = run(tmp_path, STATUS_CASES, *flags)
    assert code == 2
    assert message in one_line_error(capsys)
    assert fake_api.requests == []


def test_missing_skill_at_ref_and_missing_description(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = repo.repo.git.commit_tree(repo.repo.tree("HEAD").trees[0].hexsha, m="x")
    code, _ = run(tmp_path, STATUS_CASES, "--baseline", f"git:{empty}")
    assert code == 2
    assert "SKILL.md" in one_line_error(capsys)
    repo.skill_file.write_text("---\nname: refunds\n---\nbody\n")
    code, _ = run(tmp_path, STATUS_CASES)
    assert code == 2
    assert "no 'description'" in one_line_error(capsys)
    repo.skill_file.write_text("# no frontmatter\n")
    code, _ = run(tmp_path, STATUS_CASES)
    assert code == 2
    assert "no YAML frontmatter" in one_line_error(capsys)
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


def test_console_script_and_ctrl_c_writes_a_partial_report(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    """`python -m activation` in a real process; SIGINT mid-run gives 130 and a report of
    what finished. The last trial of one case hangs, so that case is judged from the trials
    it finished (partial), and the requests in flight still count as sent."""
    hanging = "give money back to the buyer"
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def latency(request: FakeRequest) -> float:
        with lock:
            asked[request.prompt] = asked.get(request.prompt, 0) + 1
            return 60.0 if request.prompt == hanging and asked[hanging] > 4 else 0.0

    fake_api.latency = latency
    fake_api.script = Scripted(status_rules())
    cases_file = write_cases(tmp_path / "cases.json", STATUS_CASES)
    report = tmp_path / "partial.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "activation",
            "--cases",
            str(cases_file),
            "--distractors",
            str(tmp_path / "distractors"),
            "--json",
            str(report),
            "--concurrency",
            "4",
        ],
        cwd=repo.root,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while len(fake_api.message_requests) < 36 and time.monotonic() < deadline:
        time.sleep(0.05)
    while fake_api.in_flight > 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    data = orjson.loads(report.read_bytes())
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
    assert tallies(by_id(data)["never"]) == ((0, 2, 0), (0, 2, 0))
    assert data["usage"]["requests"] == 36
    assert data["summary"]["candidate"]["recall"] == [1, 4]
    text = out.decode()
    assert "INTERRUPTED" in text
    assert "FAIL (partial)" in text
    assert "Not finished" not in text
    assert "--only stripe-dispute,chargeback-neg,flaky" in text
    assert API_KEY not in text + err.decode()


def test_too_few_trials_to_ever_regress_warns(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "2")
    assert code == 0
    assert (
        "warning: with 2 trial(s) per variant no case can reach p < 0.05, so nothing can be "
        "REGRESSED and the gate cannot fail on a regression: use --trials 3 or more"
    ) in capsys.readouterr().err
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "3")
    assert "warning" not in capsys.readouterr().err
