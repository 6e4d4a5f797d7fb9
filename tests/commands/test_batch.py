"""`--batch` end to end: the CLI, the real SDK's batches API, real HTTP to the local stand-in
with its batch endpoints (create, retrieve, results as JSONL, cancel)."""

from __future__ import annotations

import signal
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

import activation
from activation import _config
from activation._models import VARIANTS, RunSpec, Trial, TrialKey
from activation.trials.backend import Round, Silent
from activation.trials.classifier.batch import split
from activation.trials.simulate import simulated_inputs, typical
from activation.trials.stage import stage_named
from tests.support.cli import BASELINE, Spawn, by_id, read_report, run, wait_until
from tests.support.messages_api import (
    Answer,
    Error,
    Expired,
    FakeMessagesAPI,
    FakeRequest,
    Raw,
    Reply,
)
from tests.support.scripted_model import Scripted, always, refunds_fire
from tests.support.skill_repo import SKILL_ID, SkillRepo, case, write_cases

CASES = [
    case("refund", "refund order 1234", True),
    case("charts", "plot monthly revenue", False),
]
DROPS = "partial refund for a coupon order"


def test_a_round_goes_out_as_one_batch_at_half_price(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = refunds_fire
    fake_api.batch_processing = 0.3
    code, report = run(tmp_path, CASES, "--batch", "--max-trials", "3")
    assert code == 0
    assert fake_api.message_requests == []
    assert len(fake_api.batches) == 1
    assert fake_api.batch_creations == [12]  # nothing to re-ask: no second, empty batch
    (batch,) = fake_api.batches.values()
    assert len(batch.requests) == 12
    ids = [custom_id for custom_id, _request, _reply in batch.answers]
    assert len(set(ids)) == 12
    assert all(len(i) <= 64 and i.replace("-", "").isalnum() for i in ids)
    assert [e["status"] for e in report["cases"]] == ["PASS", "PASS"]
    usage = report["usage"]
    assert usage["requests"] == 12
    assert usage["cost_usd"] == pytest.approx(
        (usage["input_tokens"] * 2 + usage["output_tokens"] * 10) / 1_000_000 * 0.5
    )
    assert report["batch"] is True
    assert report["concurrency"] == _config.BATCH_MAX_REQUESTS
    assert "at the batch discount" in capsys.readouterr().out
    assert not (repo.root / ".activation" / "batches").exists() or not list(
        (repo.root / ".activation" / "batches").iterdir()
    )

    # The cache is consulted before a request goes into a batch: a rerun submits none.
    code, again = run(tmp_path, CASES, "--batch", "--max-trials", "3")
    assert (code, again["usage"]["from_cache"], len(fake_api.batches)) == (0, 12, 1)
    assert fake_api.batch_creations == [12]


def test_expired_errored_and_unusable_requests_are_error_trials(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    asked: dict[str, int] = {}

    def script(request: FakeRequest) -> Reply:
        asked[request.prompt] = asked.get(request.prompt, 0) + 1
        if request.prompt == "too late":
            return Expired()
        if request.prompt == "bad request":
            return Error(400)
        if request.prompt == "garbled":
            return Raw("I would pick refunds")
        return refunds_fire(request)

    fake_api.script = script
    cases = [
        *CASES,
        case("late", "too late", True),
        case("bad", "bad request", True),
        case("garbled", "garbled", True),
    ]
    code, report = run(tmp_path, cases, "--batch", "--trials", "1", "--max-trials", "1")
    assert code == 3
    entries = by_id(report)
    errors = {
        case_id: sorted({t["error"] for t in entry["trials"] if t["reading"] == "error"})
        for case_id, entry in entries.items()
    }
    assert errors == {
        "refund": [],
        "charts": [],
        "late": ["batch request expired"],
        "bad": ["batch request errored: invalid_request_error"],
        "garbled": ["unusable answer after a re-ask (not JSON: 'I would pick refunds')"],
    }
    assert report["summary"]["errors"] == ["late", "bad", "garbled"]
    # The unusable answers were asked again once, in a second batch.
    assert asked["garbled"] == 4
    assert len(fake_api.batches) == 2
    assert [len(b.requests) for b in fake_api.batches.values()] == [10, 2]
    assert fake_api.batch_creations == [10, 2]


def test_every_round_is_one_batch_and_none_is_empty(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    """A case that escalates makes rounds of its own; each goes out as one batch, and a
    round with nothing to ask (no unusable answer to re-ask) sends none."""
    fake_api.script = Scripted(
        {
            # The candidate fires on its first ask only: 3/3 against 1/3 escalates.
            DROPS: lambda d, n: Answer([SKILL_ID] if d == BASELINE or n == 0 else []),
            "refund order 1234": always([SKILL_ID]),
            "plot monthly revenue": always(["charts"]),
        }
    )
    cases = [*CASES, case("drops", DROPS, True)]
    code, report = run(tmp_path, cases, "--batch")
    assert code == 1
    assert by_id(report)["drops"]["status"] == "REGRESSED"
    assert by_id(report)["drops"]["trials_run"] == {"baseline": 9, "candidate": 9}
    assert fake_api.batch_creations == [18, 6, 6]  # the first round, then two escalations
    assert [len(b.requests) for b in fake_api.batches.values()] == [18, 6, 6]
    assert report["usage"]["requests"] == 30


def test_a_batch_the_api_refuses_is_one_line_and_exit_2_not_error_trials(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The API answers 400 to a batch it will never take (here: more requests than it
    allows): no retry, no trial counted as an error, the run stops on one line."""
    fake_api.script = refunds_fire
    fake_api.batch_max_requests = 5
    code, report = run(tmp_path, CASES, "--batch", "--max-trials", "3")
    reason = (
        "the Message Batches API refused a batch of 12 requests (HTTP 400): requests: List "
        "should have at most 5 items after validation, not 12"
    )
    captured = capsys.readouterr()
    assert code == 2
    assert report == {
        "schema": "activation-report/4",
        "version": activation.__version__,
        "exit_code": 2,
        "error": reason,
    }  # no case, so no trial counted as an error
    assert captured.err.strip().splitlines()[-1] == f"activation: error: {reason}"
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    assert fake_api.batch_creations == [12]
    assert fake_api.batches == {}


def test_a_batch_is_split_at_the_size_limit(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.script = refunds_fire
    one = len(orjson.dumps({"custom_id": "x" * 42, "params": {"system": "y" * 1200}}))
    monkeypatch.setattr(_config, "BATCH_MAX_BYTES", 5 * one)
    code, _report = run(tmp_path, CASES, "--batch", "--max-trials", "3")
    assert code == 0
    sizes = [len(b.requests) for b in fake_api.batches.values()]
    assert sum(sizes) == 12
    assert len(sizes) >= 3
    assert max(sizes) < 12


def test_split_keeps_order_within_count_and_size() -> None:
    slots = [(f"id-{n}", {"system": "x" * 10}) for n in range(7)]
    assert [[custom_id for custom_id, _params in b] for b in split(slots, 3, 10**6)] == [
        ["id-0", "id-1", "id-2"], ["id-3", "id-4", "id-5"], ["id-6"],
    ]  # fmt: skip
    item = len(orjson.dumps({"custom_id": "id-0", "params": {"system": "x" * 10}})) + 1
    assert [len(b) for b in split(slots, 100, 2 * item)] == [2, 2, 2, 1]
    assert [len(b) for b in split(slots[:1], 1, 1)] == [1]  # one request always goes
    assert split([], 3, 10**6) == []  # nothing to ask: no batch, not an empty one


def cli(
    spawn: Spawn, repo: SkillRepo, tmp_path: Path, report: Path, *flags: str
) -> subprocess.Popen[bytes]:
    cases_file = write_cases(tmp_path / "cases.json", CASES)
    return spawn(repo.root, tmp_path, cases_file, report, "--batch", "--max-trials", "3", *flags)


def wait_for_a_batch(api: FakeMessagesAPI, repo: SkillRepo) -> None:
    state = repo.root / ".activation" / "batches"
    wait_until(
        lambda: bool(api.batches and state.is_dir() and list(state.glob("*.json"))),
        60,
        "a batch submitted and recorded",
    )


def test_ctrl_c_cancels_the_batch_and_writes_a_partial_report(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, spawn_activation: Spawn
) -> None:
    fake_api.script = refunds_fire
    fake_api.batch_processing = 120
    report = tmp_path / "partial.json"
    process = cli(spawn_activation, repo, tmp_path, report)
    wait_for_a_batch(fake_api, repo)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    (batch,) = fake_api.batches.values()
    assert batch.canceled is True
    cancels = [r for r in fake_api.requests if r.path.endswith("/cancel")]
    assert len(cancels) == 1
    data = read_report(report)
    assert (data["interrupted"], data["exit_code"]) == (True, 130)
    assert data["summary"]["unfinished"] == ["refund", "charts"]


def test_resume_collects_an_interrupted_runs_batch_instead_of_paying_twice(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, spawn_activation: Spawn
) -> None:
    fake_api.script = refunds_fire
    fake_api.batch_processing = 2.0
    process = cli(spawn_activation, repo, tmp_path, tmp_path / "killed.json")
    wait_for_a_batch(fake_api, repo)
    process.kill()  # no cleanup at all: the batch goes on at the API
    process.communicate(timeout=60)
    (first,) = fake_api.batches
    recorded = orjson.loads(
        next((repo.root / ".activation" / "batches").glob("*.json")).read_bytes()
    )
    assert recorded["batches"] == [first]

    code, report = run(tmp_path, CASES, "--batch", "--resume", "--max-trials", "3")
    assert code == 0
    assert list(fake_api.batches) == [first]  # nothing submitted again
    assert fake_api.message_requests == []
    assert [e["status"] for e in report["cases"]] == ["PASS", "PASS"]
    assert report["usage"]["requests"] == 12
    assert not list((repo.root / ".activation" / "batches").glob("*.json"))


def test_batch_is_stage_a_only_and_resume_needs_batch(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    code, report = run(tmp_path, CASES, "--batch", "--real", "--only", "refund")
    assert (code, report["error"]) == (
        2, "--batch is for Stage A: the real agent cannot run in a batch",
    )  # fmt: skip
    code, report = run(tmp_path, CASES, "--resume")
    assert (code, report["error"]) == (
        2, "--resume alone picks up an interrupted --batch run: pass --batch too, or the "
        "report of the run to finish (--resume REPORT)",
    )  # fmt: skip
    assert fake_api.requests == []


class Admitting:
    """Slots that admit every trial and count what was reported done."""

    most = 100
    finished = 0

    async def run(self, key: TrialKey, run: Any) -> Trial | None:
        raise AssertionError("a batch backend queues a round, it runs no trial one by one")

    def admit(self, key: TrialKey) -> bool:
        return True

    def done(self, trial: Trial | None) -> None:
        self.finished += 1

    def throttled(self, sent_at: float | None = None) -> None:
        return None


def test_two_rounds_at_once_go_out_apart_and_each_re_asks_only_its_own(
    tmp_path: Path, fake_api: FakeMessagesAPI
) -> None:
    """The engine starts a round as soon as its trials are ready, also while another round's
    batch is out (a cached case's next round): each round gathers its own requests, and a
    round's unusable answers are asked again in a second batch of that round only."""
    inputs = simulated_inputs(typical(3))
    seen: dict[str, int] = {}

    def script(request: FakeRequest) -> Reply:
        seen[request.prompt] = seen.get(request.prompt, 0) + 1
        if request.prompt == inputs.cases[2].prompt and seen[request.prompt] <= 2:
            return Raw("I would pick nothing")  # the first answer of each of its 2 trials
        return Answer([])

    fake_api.script = script
    fake_api.batch_processing = 0.2
    stage = stage_named("A")
    spec = replace(stage.configure(RunSpec(batch=True, model="claude-test-1")), trials=1)
    backend = stage.open(spec, replace(inputs, target=replace(inputs.target, repo=tmp_path)))
    delivered: list[Trial] = []
    slots = Admitting()
    first = tuple(TrialKey(case, variant, 0) for case in inputs.cases[:2] for variant in VARIANTS)
    second = tuple(TrialKey(inputs.cases[2], variant, 0) for variant in VARIANTS)

    async def both() -> None:
        async with backend, anyio.create_task_group() as group:
            group.start_soon(backend.run_round, Round(first, delivered.append, slots, Silent()))
            await anyio.sleep(0.05)  # the first round's batch is out
            group.start_soon(backend.run_round, Round(second, delivered.append, slots, Silent()))

    anyio.run(both)
    assert sorted((t.case_id, t.variant, t.error) for t in delivered) == sorted(
        (case.id, variant, None) for case in inputs.cases for variant in VARIANTS
    )
    assert all(t.chose == () for t in delivered)
    assert slots.finished == 6
    assert sorted(fake_api.batch_creations) == [2, 2, 4]  # round 2 re-asked in its own batch
