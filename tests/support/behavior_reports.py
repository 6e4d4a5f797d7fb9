"""Stage C reports for the outputs' tests: graded trials written out case by case, judged
by the real judge, then built into a report as a run builds it.

Three cases, three trials per arm, a `none` control beside baseline and candidate:

- `checkout` REGRESSED: the candidate imports the SDK (L1) but calls an invented API (L2)
  and the judge fails it, 3/3 -> 0/3; no skill passes none of it either.
- `webhook` PASS: every with-skill trial passes; the candidate's third trial passed without
  the skill loading; no skill passes 1 of 3.
- `refund` PASS: every with-skill trial passes; no skill fails twice and errors once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from activation._models import (
    Arm,
    BehaviorOptions,
    Case,
    ErrorClass,
    Grade,
    GradeOutcome,
    Inputs,
    RunOutcome,
    RunSpec,
    Target,
    Trial,
    TrialKey,
    Usage,
    Variant,
)
from activation.report.model import Report, build_report
from activation.verdicts.judge import Evidence, judge_all
from tests.support.skill_repo import SKILL_PATH

TARGET = "billing:refunds"
GRADERS = (
    ("imports the payments SDK", "contains", "L1", "no 'payments-sdk' in any file"),
    ("no invented client.refunds.force()", "not_contains", "L2", "src/refund.ts: force("),
    ("the judge: a working refund flow", "judge", None, "NO: the refund is never awaited"),
)
"""(description, type, level, why it failed) of every case's graders, in the case's order."""
CASES = (
    Case("checkout", "add a checkout <page> & refunds", True, "body edit breaks it"),
    Case("webhook", "handle the refund webhook", True, "loads late"),
    Case("refund", "refund order 1234", True, "steady"),
)
P: GradeOutcome = "passed"
F: GradeOutcome = "failed"
V: GradeOutcome = "void"
PASSING = (P, P, P)
BROKEN = (P, F, F)
NOTHING = (F, V, F)
"""The graders of an empty workspace: no positive one passed, so the negative is void."""
ERRORED = None
"""A trial that errored."""


def graded(case: Case, arm: Arm, index: int, outcomes: Sequence[GradeOutcome] | None,
           loaded: bool = True) -> Trial:  # fmt: skip
    """One trial whose graders came out as `outcomes` (or an errored trial)."""
    key = TrialKey(case, arm, index)
    if outcomes is None:
        return key.failed("agent timed out after 600 s", kind=ErrorClass.MODEL)
    grades = tuple(
        Grade(name, kind, level, outcome, why if outcome == "failed" else "")
        for (name, kind, level, why), outcome in zip(GRADERS, outcomes, strict=True)
    )
    passed = all(grade.outcome in ("passed", "void") for grade in grades)
    folder = f"{case.id}-{arm}-{index}"
    return key.graded(
        passed,
        grades,
        [TARGET] if loaded and arm in ("baseline", "candidate") else [],
        TARGET,
        files=("src/refund.ts", "package.json"),
        usage=Usage(requests=1, input_tokens=1000, output_tokens=200, cost_usd=0.01),
        transcript=f"/work/state/runs/{folder}.jsonl",
        workspace=f"/work/kept/{folder}",
    )


def scripted_trials(broken: bool = True) -> dict[str, list[Trial]]:
    """The trials above (`broken` False: the candidate passes `checkout` as the baseline)."""
    checkout, webhook, refund = CASES
    plan: dict[str, list[tuple[Case, Arm, int, Sequence[GradeOutcome] | None, bool]]] = {
        "checkout": [
            *((checkout, "baseline", i, PASSING, True) for i in range(3)),
            *((checkout, "candidate", i, BROKEN if broken else PASSING, True) for i in range(3)),
            *((checkout, "none", i, NOTHING, False) for i in range(3)),
        ],
        "webhook": [
            *((webhook, "baseline", i, PASSING, True) for i in range(3)),
            *((webhook, "candidate", i, PASSING, i < 2) for i in range(3)),
            (webhook, "none", 0, PASSING, False),
            (webhook, "none", 1, NOTHING, False),
            (webhook, "none", 2, NOTHING, False),
        ],
        "refund": [
            *((refund, "baseline", i, PASSING, True) for i in range(3)),
            *((refund, "candidate", i, PASSING, True) for i in range(3)),
            (refund, "none", 0, NOTHING, False),
            (refund, "none", 1, ERRORED, False),
            (refund, "none", 2, NOTHING, False),
        ],
    }
    return {
        case_id: [
            graded(case, arm, index, outcomes, loaded)
            for case, arm, index, outcomes, loaded in rows
        ]
        for case_id, rows in plan.items()
    }


SKILL_BODY = "---\nname: refunds\ndescription: Use when issuing refunds.\n---\n# Refunds\n"
BASELINE_TREE = (
    ("skills/refunds/SKILL.md", f"{SKILL_BODY}Call client.refunds.create().\n".encode()),
    ("skills/refunds/logo.png", b"\x89PNG\xff"),
)
CANDIDATE_TREE = (
    ("skills/refunds/SKILL.md", f"{SKILL_BODY}Call client.refunds.force().\n".encode()),
    ("skills/refunds/logo.png", b"\x89PNG\xfe"),
    ("skills/refunds/reference.md", b"Refund API notes.\n"),
)
"""The set at each spec: the same description, the body's one instruction changed (the
edit the behavior gate exists for), an image changed, a reference added."""


def behavior_outcome(
    fail_on: tuple[str, ...] = (), without: Arm | None = None, broken: bool = True
) -> RunOutcome:
    """The run above (`without`: one arm's trials left out; `broken` False: nothing
    regressed)."""
    repo = Path("/work/skills")
    target = Target(repo, Path(SKILL_PATH), repo / "plugins/payments", "billing", "refunds")
    inputs = Inputs(
        target,
        CASES,
        (),
        Variant("git:main", "Use when issuing refunds.", "", "git main:" + SKILL_PATH,
                tree=BASELINE_TREE),
        Variant(SKILL_PATH, "Use when issuing refunds.", "", "file " + SKILL_PATH,
                tree=CANDIDATE_TREE),
    )  # fmt: skip
    spec = RunSpec(stage="C", model="claude-test-1", trials=3, max_trials=3, fail_on=fail_on,
                   concurrency=2, behavior=BehaviorOptions(arms=("none",)))  # fmt: skip
    trials = scripted_trials(broken)
    evidence = [
        Evidence(case, [trial for trial in trials[case.id] if trial.variant != without])
        for case in CASES
    ]
    verdicts = judge_all(evidence, spec.alpha)
    every = tuple(trial for verdict in verdicts for trial in verdict.trials)
    return RunOutcome(spec, inputs, verdicts, every)


def behavior_report(
    fail_on: tuple[str, ...] = (), without: Arm | None = None, broken: bool = True
) -> Report:
    outcome = behavior_outcome(fail_on, without, broken)
    return build_report(outcome, "0.2.0", rerun=("--baseline", "git:main"))


def shard_of(report: Report, index: int, count: int, cases: Sequence[str]) -> Report:
    """The report shard `index` of `count` would have written, holding `cases`."""
    from activation._models import Shard

    run_cases = tuple(entry.id for entry in report.cases)
    return replace(
        report,
        shard=Shard(index, count, run_cases, report.fingerprint),
        cases=tuple(entry for entry in report.cases if entry.id in cases),
    )
