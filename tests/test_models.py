"""The meaning the shared records carry: a tally's majority, how statuses gate a run, and each
stage's cases behind one protocol (a behavior case's report entry, trials and identity)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from activation._behavior import BehaviorCase, BehaviorRunInputs
from activation._models import (
    BehaviorOptions,
    Case,
    Inputs,
    RunSpec,
    Status,
    Target,
    TrialKey,
    Variant,
    gate,
)
from activation.graders.matches import Matches
from activation.inputs.identity import run_identity
from activation.verdicts.judge import Evidence, judge_all
from tests.support.verdicts import NEGATIVE, POSITIVE, judge, tally


@pytest.mark.parametrize(
    ("activated", "valid", "verdict"),
    [(2, 3, True), (1, 3, False), (2, 4, None), (0, 0, None), (3, 3, True), (0, 3, False)],
)
def test_majority(activated: int, valid: int, verdict: bool | None) -> None:
    assert tally(activated, valid).verdict is verdict


def test_exit_code_precedence() -> None:
    regressed = judge(POSITIVE, tally(3, 3), tally(0, 3), 0.05)
    errored = judge(NEGATIVE, tally(0, 3), tally(0, 2, errors=1), 0.05)
    passed = judge(NEGATIVE, tally(0, 3), tally(0, 3), 0.05)
    assert gate(v.status for v in [passed]) == 0
    assert gate(v.status for v in [passed, errored]) == 3
    assert gate(v.status for v in [errored, regressed]) == 1


# --- where a case's prompt should go ---------------------------------------------------

TARGET = "p:deploy"
LEGACY_POSITIVE = Case("a", "ship it", True, "w")
LEGACY_NEGATIVE = Case("b", "undo it", False, "w")
TO_SIBLING = Case("c", "undo it", False, "w", expect=("p:rollback",))
TO_EITHER = Case("d", "ship or undo", True, "w", expect=("p:deploy", "p:rollback"))
TO_NONE = Case("e", "hello", False, "w", expect=())
STRICT = Case("f", "ship it", True, "w", expect=("p:deploy",), must_not=("p:legacy",))


@pytest.mark.parametrize(
    ("case", "chose", "right"),
    [
        (LEGACY_POSITIVE, ("p:deploy",), True),
        (LEGACY_POSITIVE, ("p:rollback", "p:deploy"), True),  # anywhere, as it always was
        (LEGACY_POSITIVE, ("p:rollback",), False),
        (LEGACY_POSITIVE, (), False),
        (LEGACY_NEGATIVE, (), True),
        (LEGACY_NEGATIVE, ("p:rollback",), True),
        (LEGACY_NEGATIVE, ("p:rollback", "p:deploy"), False),
        (TO_SIBLING, ("p:rollback",), True),
        (TO_SIBLING, ("p:rollback", "p:deploy"), True),  # the first that fired decides
        (TO_SIBLING, ("p:deploy", "p:rollback"), False),
        (TO_SIBLING, (), False),
        (TO_EITHER, ("p:rollback",), True),
        (TO_EITHER, ("p:deploy",), True),
        (TO_EITHER, ("other",), False),
        (TO_NONE, (), True),
        (TO_NONE, ("p:rollback",), False),
        (STRICT, ("p:deploy",), True),
        (STRICT, ("p:deploy", "p:legacy"), False),  # must_not: anywhere
    ],
)
def test_is_right(case: Case, chose: tuple[str, ...], right: bool) -> None:
    assert case.is_right(chose, TARGET) is right


@pytest.mark.parametrize(
    ("case", "chose", "settled"),
    [
        (LEGACY_POSITIVE, ("p:rollback",), False),  # the target may still fire
        (LEGACY_POSITIVE, ("p:rollback", "p:deploy"), True),
        (LEGACY_NEGATIVE, (), False),
        (TO_SIBLING, (), False),
        (TO_SIBLING, ("p:deploy",), True),
        (TO_NONE, ("x",), True),
        (STRICT, ("p:deploy",), False),  # a must_not may still fire
        (STRICT, ("p:legacy",), True),
    ],
)
def test_settled(case: Case, chose: tuple[str, ...], settled: bool) -> None:
    assert case.settled(chose, TARGET) is settled
    if settled:  # nothing that fires later changes the answer
        assert case.is_right((*chose, "p:deploy"), TARGET) == case.is_right(chose, TARGET)
        assert case.is_right((*chose, "z"), TARGET) == case.is_right(chose, TARGET)


def test_expected_names_the_home_of_a_case() -> None:
    cases = (LEGACY_POSITIVE, LEGACY_NEGATIVE, TO_SIBLING, TO_EITHER, TO_NONE)
    expected = ["p:deploy", "other", "p:rollback", "p:deploy|p:rollback", "none"]
    assert [case.expected(TARGET) for case in cases] == expected


def test_a_trial_records_what_fired_and_whether_it_was_right() -> None:
    trial = TrialKey(TO_SIBLING, "candidate", 1).fired(["p:deploy", "p:rollback"], TARGET)
    assert (trial.chose, trial.activated, trial.correct, trial.reading) == (
        ("p:deploy", "p:rollback"), True, False, "activated",
    )  # fmt: skip
    assert TrialKey(TO_SIBLING, "baseline", 0).failed("boom").correct is None


# --- each stage's cases behind one protocol ----------------------------------------------

TASK = BehaviorCase(
    "ledger_totals",
    "Ledger totals",
    "Sum the ledger into totals.csv",
    "evals/ledger_totals",
    expectations=("totals.csv exists", "the sums are right"),
    graders=(Matches(description="has totals", level="L1", pattern="total"),),
    category="ledger",
)


def test_a_behavior_case_is_reported_in_the_fields_every_report_case_has() -> None:
    assert TASK.reported == Case(
        "ledger_totals",
        "Sum the ledger into totals.csv",
        True,
        "totals.csv exists; the sums are right",
        tags=("ledger",),
    )
    assert (TASK.tags, TASK.group) == (("ledger",), "ledger")
    untagged = BehaviorCase("plain", "Plain", "Do it", "evals/plain")
    assert (untagged.tags, untagged.group, untagged.reported.why) == ((), "untagged", "Plain")


def test_what_fired_neither_decides_nor_stops_a_behavior_trial() -> None:
    key = TrialKey(TASK, "candidate", 0)
    assert TASK.settled([TARGET], TARGET) is False
    assert key.fired([TARGET], TARGET).correct is False  # graded once the agent is done
    with pytest.raises(TypeError, match="case ledger_totals: its trials are graded"):
        key.answer(True)


def test_a_behavior_verdict_is_the_report_entry_of_its_case() -> None:
    trials = [
        TrialKey(TASK, variant, index).graded(True, (), (TARGET,), TARGET)
        for index in range(3)
        for variant in ("baseline", "candidate")
    ]
    (verdict,) = judge_all([Evidence(TASK, trials)], 0.05)
    assert verdict.case == TASK.reported
    assert (verdict.status, verdict.baseline.correct, verdict.candidate.correct) == (
        Status.PASS,
        3,
        3,
    )


def test_a_behavior_run_is_identified_by_its_cases_report_entries() -> None:
    target = Target(Path("/repo"), Path("skills/ledger/SKILL.md"), Path("/repo"), "p", "ledger")
    variant = Variant("git:main", "Use when summing ledgers.", "", "git main")
    spec = RunSpec(stage="C")
    tasks = BehaviorRunInputs(target, (TASK,), (), variant, variant)
    entries = Inputs(target, (TASK.reported,), (), variant, variant)
    assert run_identity(spec, tasks) == run_identity(spec, entries)
    assert run_identity(spec, tasks) != run_identity(spec, replace(entries, cases=()))


def test_only_a_stage_c_spec_runs_controls_beside_the_variants() -> None:
    assert RunSpec().controls == ()
    assert RunSpec(stage="C", behavior=BehaviorOptions()).controls == ()
    both = RunSpec(stage="C", behavior=BehaviorOptions(arms=("none", "llm"), invoke=True))
    assert both.controls == ("none", "llm")


def test_only_a_stage_c_spec_keeps_workspaces() -> None:
    assert RunSpec().kept_workspaces is None
    assert RunSpec(stage="C", behavior=BehaviorOptions()).kept_workspaces is None
    kept = RunSpec(stage="C", behavior=BehaviorOptions(keep_workspaces="/tmp/kept"))
    assert kept.kept_workspaces == "/tmp/kept"
