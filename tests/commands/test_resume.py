"""`--resume report.json`: an interrupted run finished without paying twice, its report that
of an uninterrupted run of the same seeds; a report of another run is one line, exit 2."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.store import cache_info
from tests.commands.test_behavior_command import BROKEN_ONE, behave
from tests.commands.test_durations import behavior_repo  # noqa: F401 (a fixture)
from tests.support.cli import (
    BASELINE,
    STATUS_CASES,
    Spawn,
    by_id,
    hang_on,
    read_report,
    run,
    wait_until,
)
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply
from tests.support.skill_repo import SKILL_ID, SkillRepo, write_cases

HANGS = "give money back to the buyer"
"""The prompt whose trials hang once two were answered: the run is cut there."""
RUN_DYNAMICS = {"seconds", "peak_concurrency", "final_concurrency", "cache_write_tokens",
                "cache_read_tokens", "cost_usd"}  # fmt: skip
"""What no two runs share however alike their trials: wall time, how many ran at once, and
the API's prompt cache (the first run to send a listing writes it, a later one reads it,
and pays less)."""


def per_trial(request: FakeRequest) -> Reply:
    """The same answer for the same trial whatever the order or the repeat: by the prompt,
    the variant's description and the menu's order, which the seed shuffles per trial. The
    flaky case's candidate fires when the menu lists the skill first: it escalates."""
    prompt, description = request.prompt, request.menu[SKILL_ID]
    listed_first = next(iter(request.menu)) == SKILL_ID
    fires = {
        "a customer opened a stripe dispute, what now": "Stripe" in description,
        "refund order 1234": True,
        "what is a chargeback, explain for my essay": "chargebacks" in description,
        "partial refund for a coupon order": description == BASELINE or listed_first,
        HANGS: False,
        "plot monthly revenue": False,
    }[prompt]
    return Answer([SKILL_ID] if fires else ["invoices"])


def aside(data: object) -> object:
    """A report without what `RUN_DYNAMICS` names, at any depth."""
    if isinstance(data, dict):
        return {key: aside(value) for key, value in data.items() if key not in RUN_DYNAMICS}
    if isinstance(data, list):
        return [aside(value) for value in data]
    return data


def test_a_resumed_run_keeps_what_ran_runs_the_rest_and_reports_as_one_run(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    cache_dir: Path,
    spawn_activation: Spawn,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = per_trial
    code, whole = run(tmp_path, STATUS_CASES, "--no-cache")
    assert code == 1
    assert {case_id: entry["status"] for case_id, entry in by_id(whole).items()} == {
        "stripe-dispute": "REGRESSED", "plain-refund": "PASS", "chargeback-neg": "IMPROVED",
        "flaky": "REGRESSED", "never": "FAIL", "charts-neg": "PASS",
    }  # fmt: skip
    assert by_id(whole)["flaky"]["escalated"] is True
    total = whole["usage"]["requests"]

    fake_api.latency = hang_on(HANGS, after=2)
    asked = len(fake_api.message_requests)
    partial = tmp_path / "partial.json"
    cases_file = write_cases(tmp_path / "interrupted-cases.json", STATUS_CASES)
    process = spawn_activation(repo.root, tmp_path, cases_file, partial, "--concurrency", "4")
    # Every slot holds a hanging trial and every answered one is recorded: the run is stuck.
    wait_until(
        lambda: (
            fake_api.in_flight == 4
            and cache_info(cache_dir).entries == len(fake_api.message_requests) - asked - 4
        ),
        seconds=180,  # a busy machine starts the process slowly
    )
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    cut = read_report(partial)
    kept = sum(len(entry["trials"]) for entry in cut["cases"])
    assert cut["interrupted"] is True
    assert 0 < kept < total

    fake_api.latency = 0.0
    asked = len(fake_api.message_requests)
    capsys.readouterr()
    code, resumed = run(tmp_path, STATUS_CASES, "--no-cache", "--resume", str(partial))
    assert code == 1
    assert f"resuming {partial}: {kept} finished trial(s) kept, only the missing ones run" in (
        capsys.readouterr().err
    )
    assert len(fake_api.message_requests) - asked == total - kept  # not one trial twice
    assert aside(resumed) == aside(whole)


def test_the_report_of_another_run_or_shard_is_one_line_and_exit_2(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = per_trial
    saved: dict[str, Path] = {}
    for name, given in (("other", ("--alpha", "0.01")), ("shard", ("--shard", "1/2"))):
        run(tmp_path, STATUS_CASES, "--no-cache", *given)
        saved[name] = (tmp_path / "report.json").rename(tmp_path / f"{name}.json")
    (tmp_path / "junk.json").write_text('{"schema": "x"}')
    asked = len(fake_api.message_requests)
    refusals: list[tuple[tuple[str, ...], str]] = [
        (("--resume", str(saved["other"])),
         f"--resume {saved['other']}: the report of another run (descriptions, cases or "
         "settings differ): resume with the flags and inputs of the run it interrupted"),
        (("--resume", str(saved["shard"])),
         f"--resume {saved['shard']}: the report of shard 1/2, not of the whole run"),
        (("--resume", str(saved["shard"]), "--shard", "2/2"),
         f"--resume {saved['shard']}: the report of shard 1/2, not of shard 2/2"),
        (("--resume", str(saved["shard"]), "--shard", "1/2", "--durations", str(saved["other"])),
         f"--resume {saved['shard']}: the report of shard 1/2 as another plan shared the cases "
         "out (--durations from another report, or none): resume with the run's own "
         "--durations"),
        (("--resume", str(tmp_path / "junk.json")),
         f"--resume: {tmp_path / 'junk.json'}: not an activation report"),
        (("--resume", str(tmp_path / "none.json")),
         f"--resume: cannot read the report {tmp_path / 'none.json'}: No such file"),
    ]  # fmt: skip
    for flags, message in refusals:
        capsys.readouterr()
        code, report = run(tmp_path, STATUS_CASES, "--no-cache", *flags)
        err = capsys.readouterr().err
        assert "Traceback" not in err
        *said, line = err.strip().splitlines()  # a shard first says which it is
        assert [each.split(":")[0] for each in said] == [
            f"shard {flags[flags.index('--shard') + 1]}" for _ in ("--shard",) if "--shard" in flags
        ]
        assert code == 2, flags
        assert line.startswith(f"activation: error: {message}"), line
        data: dict[str, Any] = report
        assert "cases" not in data
    assert len(fake_api.message_requests) == asked  # refused before any model call


@pytest.mark.usefixtures("behavior_repo")
def test_behavior_resumes_too_and_runs_only_the_missing_agent_trials(tmp_path: Path) -> None:
    """A cut behavior run, as a partial report holds it: one case never reached, the others
    with half their trials; the resumed run runs exactly the rest."""
    flags = ("--arm", "none", "--no-cache")
    whole_stages = FakeBehavior(passing(BROKEN_ONE))
    _code, whole = behave(tmp_path, whole_stages, *flags, name="whole.json")
    data = orjson.loads((tmp_path / "whole.json").read_bytes())
    data["interrupted"], data["exit_code"] = True, 130
    data["cases"] = [entry for entry in data["cases"] if entry["id"] != "configure_once"]
    for entry in data["cases"]:
        entry["trials"] = entry["trials"][: len(entry["trials"]) // 2]
    kept = sum(len(entry["trials"]) for entry in data["cases"])
    (tmp_path / "partial.json").write_bytes(orjson.dumps(data))
    stages = FakeBehavior(passing(BROKEN_ONE))
    code, resumed = behave(tmp_path, stages, *flags, "--resume", str(tmp_path / "partial.json"),
                           name="resumed.json")  # fmt: skip
    assert (code, whole_stages.calls, kept, stages.calls) == (1, 27, 8, 27 - 8)
    json_path = resumed["rerun"].index("--json") + 1  # each run wrote its own file
    assert resumed["rerun"][json_path] == str(tmp_path / "resumed.json")
    resumed["rerun"][json_path] = str(tmp_path / "whole.json")
    assert aside(resumed) == aside(whole)
