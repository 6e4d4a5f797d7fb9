"""Reports for the renderers' tests: a run of the in-memory engine that gives every status,
with prompts and descriptions full of characters that Markdown, XML and HTML must escape.

Built through the real engine and judge (not written by hand), so the figures, p and q
values are what a run would report.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio

from activation._models import Case, Inputs, RunSpec, Target, TrialKey, Variant
from activation.report.model import Report, build_report
from activation.trials.engine import execute_async
from activation.trials.fake import Answer, FakeBackend
from tests.support.skill_repo import SKILL_PATH

BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds & <credits> for `orders`."
HOSTILE = 'refund <script>alert("x")</script> | *now* & [then](javascript:1) `rm -rf`'
"""A prompt that would break out of Markdown, XML or HTML if anything were left unescaped."""

CASES = (
    Case("stripe-dispute", "a customer opened a stripe dispute, what now", True, "names it",
         ("keyword-loss",)),
    Case("plain-refund", "refund order 1234", True, "plain", ("keyword-loss",)),
    Case("chargeback-neg", "what is a chargeback, explain for my essay", False, "essay",
         ("negative",)),
    Case("flaky", HOSTILE, True, "hostile text", ("indirect",)),
    Case("never", "give money back to the buyer", True, "indirect", ("indirect",)),
    Case("charts-neg", "plot monthly revenue", False, "charts", ("negative",)),
    Case("broken", "refund the duplicate charge", True, "errors", ()),
)  # fmt: skip
STATUSES = {
    "stripe-dispute": "REGRESSED",
    "plain-refund": "PASS",
    "chargeback-neg": "IMPROVED",
    "flaky": "UNSTABLE",
    "never": "FAIL",
    "charts-neg": "PASS",
    "broken": "ERROR",
}


def answer(key: TrialKey) -> Answer:
    """The baseline fires on everything but `never` and the charts; the candidate loses
    the dispute and the chargeback, wavers on `flaky` and errors on `broken`."""
    case_id, candidate = key.case.id, key.variant == "candidate"
    if case_id in ("never", "charts-neg"):
        return False
    if case_id in ("stripe-dispute", "chargeback-neg"):
        return not candidate
    if case_id == "flaky":
        return not candidate or key.index % 2 == 0
    if case_id == "broken":
        return None if candidate else True
    return True


def every_status_report(stage: str = "A", transcripts: Path | None = None) -> Report:
    """A finished run with every status; Stage B trials name transcripts under
    `transcripts`/<case>/<variant>-<index>.jsonl."""
    repo = Path("/work/skills")
    target = Target(repo, Path(SKILL_PATH), repo / "plugins/payments", "billing", "refunds")
    inputs = Inputs(
        target,
        CASES,
        (),
        Variant("git:main", BASELINE, "", "git main:" + SKILL_PATH),
        Variant(SKILL_PATH, CANDIDATE, "", "file " + SKILL_PATH),
    )
    spec = RunSpec(
        stage="B" if stage == "B" else "A", model="claude-test-1", trials=5, max_trials=5
    )
    outcome = anyio.run(execute_async, spec, inputs, FakeBackend(answer, target=target.skill_id))
    report = build_report(
        outcome, "0.2.0", warnings=("a <warning> & more",), rerun=("--baseline", "git:main")
    )
    if transcripts is None:
        return report
    cases = tuple(
        replace(
            entry,
            trials=tuple(
                replace(t, transcript=str(transcripts / entry.id / f"{t.variant}-{t.index}.jsonl"))
                for t in entry.trials
            ),
        )
        for entry in report.cases
    )
    return replace(report, cases=cases)
