"""The Markdown report: a snapshot of every status, escaping, and short enough for a
pull-request comment even on the whole 95-case suite with everything flagged."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from activation._models import FLAGGED, Inputs, RunSpec, Target, TrialKey, Variant
from activation.inputs.load import load_cases
from activation.inputs.suite import BUNDLED_CASES
from activation.report.markdown import escape, render_markdown
from activation.report.model import build_report
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend
from tests.support.reports import every_status_report

SNAPSHOT = Path(__file__).parent / "snapshots" / "every-status.md"
COMMENT_LIMIT = 10_000


def test_every_status_matches_the_snapshot() -> None:
    """To accept an intended change, delete the snapshot and run the test once."""
    rendered = render_markdown(every_status_report())
    if not SNAPSHOT.exists():
        SNAPSHOT.write_text(rendered)
        pytest.fail(f"wrote a new snapshot {SNAPSHOT}: check it and commit it")
    assert rendered == SNAPSHOT.read_text()


def test_user_text_cannot_become_markup() -> None:
    text = render_markdown(every_status_report())
    assert "<script>" not in text
    assert "](javascript" not in text
    escaped = r'refund \<script\>alert\("x"\)\</script\> \| \*now\* &amp; \[then\]\(javascript:1\)'
    assert escaped in text
    assert escape("a\nb  |c|") == r"a b \|c\|"


def test_no_flag_means_no_real_command_and_an_unchanged_description() -> None:
    report = every_status_report()
    same = replace(report, candidate=report.baseline, cases=report.cases[1:2], exit_code=0)
    text = render_markdown(same)
    assert text.splitlines()[0] == "### ✅ activation: OK: no case regressed, no case errored."
    assert "**Description** (77 → 77 chars): unchanged." in text
    assert "--real --only" not in text
    assert "activation --baseline git:main" in text


def flapping(key: TrialKey) -> bool:
    return key.index % 2 == 0


def test_the_bundled_suite_fully_flagged_stays_under_10_kb() -> None:
    cases = load_cases(BUNDLED_CASES).cases
    words = " ".join(f"word{index}" for index in range(200))[:1000]
    nowhere = Path("/repo")
    inputs = Inputs(
        Target(nowhere, Path("plugins/auth0/skills/auth0/SKILL.md"), nowhere, "auth0", "auth0"),
        cases,
        (),
        Variant("git:origin/main", words, "", "git"),
        Variant("plugins/auth0/skills/auth0/SKILL.md", words.upper(), "", "file"),
    )
    spec = RunSpec(trials=3, max_trials=3)
    outcome = anyio.run(execute_async, spec, inputs, FakeBackend(flapping))
    report = build_report(outcome, "0.2.0", rerun=("--baseline", "git:origin/main"))
    assert len(report.ids_with(*FLAGGED)) == 95
    text = render_markdown(report)
    assert len(text.encode()) < COMMENT_LIMIT
    assert text.count("\n- `") == 25
    assert "- … and 70 more (see the HTML or JSON report)" in text
