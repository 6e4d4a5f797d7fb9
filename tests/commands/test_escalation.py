"""Adaptive trials and the false-discovery step, end to end: the CLI, the real SDK over HTTP
to the local stand-in, with counts scripted per prompt and description."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from activation.store import cache_info
from tests.support.cli import (
    BASELINE,
    Spawn,
    by_id,
    hang_on,
    read_report,
    run,
    tallies,
    wait_until,
)
from tests.support.messages_api import Answer, FakeMessagesAPI
from tests.support.scripted_model import Scripted, always, fires_when
from tests.support.skill_repo import SKILL_ID, SkillRepo, case, write_cases

DROPS = "partial refund for a coupon order"
WOBBLES = "refund order 1234 twice by mistake"
STEADY = "refund order 1234"
QUIET = "plot monthly revenue"

CASES = [
    case("drops", DROPS, True),
    case("wobbles", WOBBLES, True),
    case("steady", STEADY, True),
    case("quiet", QUIET, False),
]


def rules() -> Scripted:
    return Scripted(
        {
            # The candidate fires on its first ask only: a real drop, 3/3 against 1/3 at first.
            DROPS: lambda d, n: Answer([SKILL_ID] if d == BASELINE or n == 0 else []),
            # The candidate misses its first ask only: 3/3 against 2/3 looks like a drop, and
            # the next round shows it was not.
            WOBBLES: lambda d, n: Answer([SKILL_ID] if d == BASELINE or n > 0 else []),
            STEADY: always([SKILL_ID]),
            QUIET: always(["charts"]),
        }
    )


def test_a_case_escalated_and_regressed_and_one_escalated_and_cleared(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = rules()
    code, report = run(tmp_path, CASES)
    assert code == 1
    cases = by_id(report)
    # 3/3 against 1/3 (p 0.109) escalates; by 9 trials 9/9 against 1/9 (p 7.2e-5, the value
    # tests/verdicts/test_stats.py computes by hand) is significant on its own across the
    # 4 cases, so the case stops there.
    assert cases["drops"]["status"] == "REGRESSED"
    assert tallies(cases["drops"]) == ((9, 9, 0), (1, 9, 0))
    assert cases["drops"]["trials_run"] == {"baseline": 9, "candidate": 9}
    assert cases["drops"]["escalated"] is True
    assert cases["drops"]["p_value"] == pytest.approx(7.2479248e-5)
    assert cases["drops"]["q_value"] == pytest.approx(4 * 7.2479248e-5)
    # 3/3 against 2/3 (p 0.344) escalates. Its rates carried to 30 trials could still be a
    # significant drop across 4 cases at 6 trials (30 v 25: p x 4 = 0.055) and at 9 (30 v 27:
    # 0.31), no longer at 12 (30 v 28: 0.73 > 0.5): it stops there.
    assert cases["wobbles"]["status"] == "UNSTABLE"
    assert tallies(cases["wobbles"]) == ((12, 12, 0), (11, 12, 0))
    assert cases["wobbles"]["escalated"] is True
    for settled in ("steady", "quiet"):
        assert cases[settled]["status"] == "PASS"
        assert cases[settled]["escalated"] is False
        assert cases[settled]["trials_run"] == {"baseline": 3, "candidate": 3}
        assert (cases[settled]["p_value"], cases[settled]["q_value"]) == (1.0, 1.0)
    assert report["summary"]["escalated"] == 2
    assert report["summary"]["extra_calls"] == 12 + 18
    assert report["max_trials"] == 30
    assert report["usage"]["requests"] == len(fake_api.message_requests) == 4 * 6 + 30


def test_max_trials_equal_to_trials_turns_escalation_off(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = rules()
    code, report = run(tmp_path, CASES, "--max-trials", "3")
    assert code == 0
    cases = by_id(report)
    assert cases["drops"]["status"] == "UNSTABLE"
    assert tallies(cases["drops"]) == ((3, 3, 0), (1, 3, 0))
    assert {entry["escalated"] for entry in cases.values()} == {False}
    assert report["summary"]["extra_calls"] == 0
    assert len(fake_api.message_requests) == 24


def test_a_mass_regression_is_caught_in_the_first_round(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    """Ten positives flip 3/3 -> 0/3 at once: each p = 0.0156 is q = 0.0156 x 12 / 10 = 0.019
    across the run, so all ten are REGRESSED after the first round and none escalates."""
    flips = [case(f"flip-{i}", f"handle the stripe dispute number {i}", True) for i in range(10)]
    negatives = [case("quiet", QUIET, False), case("quiet-2", "draw a pie chart", False)]
    rule = {entry["prompt"]: fires_when("Stripe") for entry in flips}
    fake_api.script = Scripted({**rule, QUIET: always(["charts"]), "draw a pie chart": always([])})
    code, report = run(tmp_path, flips + negatives)
    assert code == 1
    assert report["summary"]["regressed"] == [f"flip-{i}" for i in range(10)]
    for entry in report["cases"][:10]:
        assert entry["q_value"] == pytest.approx(0.015625 * 12 / 10)
        assert entry["escalated"] is False
    assert report["summary"]["escalated"] == 0
    assert len(fake_api.message_requests) == 12 * 6


def test_ctrl_c_during_escalation_keeps_what_ran(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    cache_dir: Path,
    spawn_activation: Spawn,
) -> None:
    """The escalated case's later rounds hang; SIGINT then gives 130 and a report that judges
    it from the trials it finished, marked partial."""
    fake_api.latency = hang_on(DROPS, after=8)
    fake_api.script = rules()
    cases_file = write_cases(tmp_path / "cases.json", CASES)
    report_file = tmp_path / "partial.json"
    process = spawn_activation(repo.root, tmp_path, cases_file, report_file)
    # Everything but the four hanging trials of the escalated case's second round: 6 per case
    # in the first round, 18 for the other escalated case, 2 of the hanging round, 4 hanging;
    # each answered trial is in the response cache the moment the run records it.
    wait_until(lambda: cache_info(cache_dir).entries >= 44 and fake_api.in_flight <= 4)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    report = read_report(report_file)
    assert report["interrupted"] is True
    cases = by_id(report)
    assert cases["drops"]["partial"] is True
    assert cases["drops"]["escalated"] is True
    # Eight asks of its prompt were answered (which trials of the second round depends on
    # the order the requests reached the stand-in): the baseline fired on each, the
    # candidate on its first only.
    (base, cand) = tallies(cases["drops"])
    assert (base[0] - base[1], cand[0], base[1] + cand[1], base[2] + cand[2]) == (0, 1, 8, 0)
    assert {cases[other]["partial"] for other in ("steady", "quiet", "wobbles")} == {False}
    assert report["usage"]["requests"] == 48  # the four cut off were sent all the same
