"""`activation behavior`'s efficiency and reliability on a scripted Stage C backend whose
agent's stream gives each trial's cost, tokens and turns (tests/support/fake_behavior.py):
the efficiency table and pass@k / pass^k in the terminal, Markdown and JSON, `--pass-k`,
and `--fail-on cost` failing a candidate that costs twice the baseline (exit 1) while the
pass rates stay equal."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from activation._models import TrialKey
from activation.commands.main import main
from tests.support.behavior_repo import example_repo
from tests.support.cli import read_report
from tests.support.fake_behavior import FakeBehavior, Outcome
from tests.support.skill_repo import commit_all

DOUBLED = {"baseline": 0.5, "candidate": 1.0, "none": 0.25}
"""Dollars per trial: the candidate costs twice the baseline, four times no skill."""


def every_trial_passes(key: TrialKey, skill: str | None) -> Outcome:
    """Every trial passes, with the skill loaded where its arm has one: equal pass rates."""
    return True, skill is not None


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example with each of its three evals twice (six cases: the fewest a one-sided
    Wilcoxon over cases judges at 0.05 is five)."""
    root = example_repo(tmp_path / "repo")
    for found in sorted((root / "evals").iterdir()):
        again = root / "evals" / f"{found.name}-again"
        shutil.copytree(found, again)
        prompt = again / "PROMPT.md"
        prompt.write_text(prompt.read_text().replace("\nid: ", "\nid: again_", 1))
    commit_all(root, "six evals").close()
    monkeypatch.chdir(root)
    return root


def behave(tmp_path: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "behavior.json"
    stages = FakeBehavior(every_trial_passes, DOUBLED)
    code = main(["behavior", "--json", str(report), "--trials", "3", "--max-trials", "3",
                 "--arm", "none", "--no-cache", *flags], stages)  # fmt: skip
    return code, read_report(report)


@pytest.mark.usefixtures("repo")
def test_efficiency_and_pass_k_in_every_output_and_the_cost_gate_fails_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown, page = tmp_path / "behavior.md", tmp_path / "behavior.html"
    code, report = behave(tmp_path, "--markdown", str(markdown), "--html", str(page))
    out = capsys.readouterr().out
    assert (code, report["exit_code"]) == (0, 0)  # every trial passes: nothing regressed
    figures = report["behavior"]
    efficiency = figures["efficiency"]
    assert efficiency["figures"] == ["input_tokens", "output_tokens", "cost_usd", "turns"]
    cost = next(found for found in efficiency["suite"] if found["figure"] == "cost_usd")
    assert {arm: found["value"] for arm, found in cost["arms"].items()} == DOUBLED
    assert [(found["against"], found["value"], found["interval"]) for found in cost["ratios"]] == [
        ("none", 4.0, [4.0, 4.0]),
        ("baseline", 2.0, [2.0, 2.0]),
    ]
    assert efficiency["cost"] == {"margin": 0.25, "cases": 6, "p": 1 / 64, "alpha": 0.05}
    assert figures["k"] == 3
    assert figures["pass_k"]["candidate"] == {"at_k": 1.0, "every_k": 1.0, "cases": 6}
    assert "Efficiency (median per trial" in out
    assert "cost gate: does the candidate cost more than 25% more than the baseline? " in out
    assert "p = 0.0156, significant (--fail-on cost would fail)" in out
    assert (
        "pass@3 / pass^3 over the suite: baseline 100% / 100%, candidate 100% / 100%, none "
        "100% / 100%" in out
    )
    written = markdown.read_text()
    assert (
        "| cost | $0.50 ($0.50-$0.50) | $1.00 ($1.00-$1.00) | $0.25 ($0.25-$0.25) | "
        "4.00x (4.00-4.00) | 2.00x (2.00-2.00) |"
    ) in written  # 18 trials an arm: a 95 % interval (a point: every trial costs the same)
    assert (
        "| `batch_cards` | cost | $0.50 | $1.00 | $0.25 | 4.00x (4.00-4.00) | 2.00x (2.00-2.00) |"
        in written
    )
    assert "| `batch_cards` | 100% / 100% | 100% / 100% | 100% / 100% |" in written
    html = page.read_text()
    assert (
        '<tr data-figure="cost_usd"><td>cost</td><td class="num mono">$0.50 ($0.50-$0.50)</td>'
    ) in html
    assert '<td class="num mono" data-arm="candidate">100% / 100%</td>' in html
    assert '<p id="cost-gate" class="warning">cost gate: ' in html

    code, report = behave(tmp_path, "--fail-on", "cost")
    out = capsys.readouterr().out
    assert (code, report["exit_code"]) == (1, 1)
    assert {entry["status"] for entry in report["cases"]} == {"PASS"}
    assert "FAILED: the candidate costs significantly more than the baseline" in out

    code, report = behave(tmp_path, "--fail-on", "cost", "--cost-margin", "1.5")
    assert (code, report["exit_code"]) == (0, 0)  # twice is inside 150 % more
    assert report["behavior"]["efficiency"]["cost"]["p"] == 1.0


@pytest.mark.usefixtures("repo")
def test_pass_k_takes_the_k_asked_and_says_n_a_beyond_the_trials_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = behave(tmp_path, "--pass-k", "4")
    out = capsys.readouterr().out
    assert code == 0
    assert (report["pass_k"], report["behavior"]["k"]) == (4, 4)
    assert report["behavior"]["pass_k"]["baseline"] == {"at_k": None, "every_k": None, "cases": 0}
    assert "pass@4 / pass^4 over the suite: baseline n/a, candidate n/a, none n/a" in out
