"""The main command's behaviour, in-process on the in-memory fake backend: statuses and exit
codes, the report, --only, git and path specs, --dry-run, warnings, bad input exiting 2, and
how --real chooses its cases. The fake model reads the description, as the real one does.

HTTP and the SDK are tested end to end in test_stage_a.py, the real agent in test_stage_b.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation._config import CONCURRENCY, MAX_CONCURRENCY, MODEL
from activation._models import AgentSettings, RunSpec
from activation.commands.main import main
from activation.trials.agents import every
from activation.trials.fake import Answer, scripted
from tests.support.cli import (
    BASELINE,
    CANDIDATE,
    STATUS_CASES,
    STATUS_EXPECTED,
    by_id,
    one_line_error,
    run,
    tallies,
)
from tests.support.fake_stages import PRICING, DescriptionRule, FakeStages, Prepared
from tests.support.skill_repo import SKILL_ID, SKILL_PATH, SkillRepo, case


def fires_when(word: str) -> DescriptionRule:
    return lambda description, _key: word in description


def always(answer: Answer) -> DescriptionRule:
    return lambda _description, _key: answer


STATUS_RULES: dict[str, DescriptionRule] = {
    "stripe-dispute": fires_when("Stripe"),
    "plain-refund": always(True),
    # The negative fires with the baseline (which names chargebacks), not the candidate.
    "chargeback-neg": fires_when("chargebacks"),
    # Always with the baseline; with the candidate only on its first trial.
    "flaky": lambda description, key: description == BASELINE or key.index == 0,
    "never": always(False),
    "charts-neg": always(False),
}


def model(rules: Mapping[str, DescriptionRule] = STATUS_RULES) -> FakeStages:
    """A fake model answering each case by its rule."""
    return FakeStages(by_description=lambda description, key: rules[key.case.id](description, key))


@dataclass(frozen=True)
class StatusRun:
    code: int
    report: dict[str, Any]
    out: str
    stages: FakeStages


@pytest.fixture
def status_run(tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]) -> StatusRun:
    """The STATUS_CASES run with fixed trials (`--max-trials 3`): every status."""
    stages = model()
    code, report = run(tmp_path, STATUS_CASES, "--max-trials", "3", stages=stages)
    return StatusRun(code, report, capsys.readouterr().out, stages)


def test_every_status_and_exit_1(status_run: StatusRun) -> None:
    assert status_run.code == 1
    cases = by_id(status_run.report)
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == STATUS_EXPECTED
    assert tallies(cases["stripe-dispute"]) == ((3, 3, 0), (0, 3, 0))
    assert tallies(cases["chargeback-neg"]) == ((3, 3, 0), (0, 3, 0))
    assert tallies(cases["flaky"]) == ((3, 3, 0), (1, 3, 0))
    assert tallies(cases["never"]) == ((0, 3, 0), (0, 3, 0))
    assert cases["stripe-dispute"]["p_value"] == pytest.approx(0.015625)
    assert cases["chargeback-neg"]["p_value"] == pytest.approx(0.015625)
    assert cases["flaky"]["p_value"] == pytest.approx(0.109375)
    assert cases["plain-refund"]["p_value"] == 1.0  # the correct counts did not move


def test_the_report_keeps_every_trial_in_order(status_run: StatusRun) -> None:
    flaky = by_id(status_run.report)["flaky"]
    assert [(t["variant"], t["index"], t["reading"]) for t in flaky["trials"]] == [
        ("baseline", 0, "activated"),
        ("candidate", 0, "activated"),
        ("baseline", 1, "activated"),
        ("candidate", 1, "not_activated"),
        ("baseline", 2, "activated"),
        ("candidate", 2, "not_activated"),
    ]
    assert flaky["trials"][3]["evidence"] == "scripted: not activated"
    assert {t["case_id"] for t in flaky["trials"]} == {"flaky"}


def test_the_summary_lists_the_flagged_cases_and_the_rates(status_run: StatusRun) -> None:
    summary = status_run.report["summary"]
    assert summary["regressed"] == ["stripe-dispute"]
    assert summary["improved"] == ["chargeback-neg"]
    assert summary["unstable"] == ["flaky"]
    assert summary["errors"] == []
    assert summary["unfinished"] == []
    assert summary["baseline"]["recall"] == [3, 4]
    assert summary["candidate"]["recall"] == [1, 4]
    assert summary["baseline"]["false_positives"] == [1, 2]
    assert summary["candidate"]["false_positives"] == [0, 2]
    low, high = summary["candidate"]["recall_interval"]
    assert (round(low, 4), round(high, 4)) == (0.0456, 0.6994)


def test_the_report_says_what_ran_against_what(status_run: StatusRun, repo: SkillRepo) -> None:
    report = status_run.report
    assert {key: report[key] for key in ("stage", "model", "trials", "alpha", "seed")} == {
        "stage": "A",
        "model": MODEL,
        "trials": 3,
        "alpha": 0.05,
        "seed": 0,
    }
    assert (report["concurrency"], report["max_concurrency"]) == (CONCURRENCY, MAX_CONCURRENCY)
    assert report["agent"] is None
    assert report["skill"] == {"id": SKILL_ID, "path": SKILL_PATH}
    assert report["baseline"]["spec"] == "git:HEAD"
    assert report["baseline"]["description"] == BASELINE
    assert report["candidate"]["spec"] == str(repo.skill_file)
    assert report["candidate"]["chars"] == len(CANDIDATE)
    assert report["warnings"] == []
    assert (report["exit_code"], report["error"], report["interrupted"]) == (1, None, False)


def test_the_run_asked_once_per_trial_and_counts_it(status_run: StatusRun) -> None:
    assert status_run.report["usage"] == {
        "requests": 36,
        "from_cache": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_write_tokens": 0,
        "cache_read_tokens": 0,
        "cost_usd": 0.0,
        "throttled": 0,
    }
    assert status_run.stages.prepared == [
        Prepared(
            RunSpec(
                model=MODEL,
                max_trials=3,
                pricing=PRICING,
                concurrency=CONCURRENCY,
                max_concurrency=MAX_CONCURRENCY,
            ),
            calls=True,
        )
    ]
    assert status_run.stages.calls == 36


def test_the_terminal_names_the_regression_and_what_to_run_next(status_run: StatusRun) -> None:
    out = status_run.out
    assert "REGRESSED (1)" in out
    assert (
        "stripe-dispute 3/3 -> 0/3: fired nothing 3/3: a customer opened a stripe dispute, what now"
        in out
    )
    assert "activation --real --only stripe-dispute,chargeback-neg,flaky" in out
    assert "FAILED: the candidate regressed." in out


def test_identical_descriptions_pass_with_exit_0(tmp_path: Path, repo: SkillRepo) -> None:
    repo.write_description(BASELINE)
    code, report = run(
        tmp_path, STATUS_CASES[:3] + STATUS_CASES[5:], "--trials", "2", stages=model()
    )
    assert code == 0
    statuses = {entry["id"]: entry["status"] for entry in report["cases"]}
    assert statuses == {
        "stripe-dispute": "PASS",
        "plain-refund": "PASS",
        "chargeback-neg": "FAIL",
        "charts-neg": "PASS",
    }
    assert report["usage"]["requests"] == 16
    assert report["summary"]["baseline"]["recall"] == [2, 2]


def test_five_trials_non_unanimous_significant_drop_regresses(
    tmp_path: Path, repo: SkillRepo
) -> None:
    backends = model({"drop": lambda description, key: description == BASELINE or key.index == 2})
    prompt = "partial refund for a coupon order"
    code, report = run(tmp_path, [case("drop", prompt, True)], "--trials", "5", stages=backends)
    (entry,) = report["cases"]
    assert tallies(entry) == ((5, 5, 0), (1, 5, 0))
    assert entry["status"] == "REGRESSED"
    assert entry["p_value"] == pytest.approx(0.0107421875)
    assert code == 1


def test_errors_are_kept_apart_and_exit_3(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    script = scripted({"plain-refund": [True], "broken": [True], ("broken", "candidate"): [None]})
    cases = [STATUS_CASES[1], case("broken", "refund failed with a 500", True)]
    code, report = run(tmp_path, cases, stages=FakeStages(script))
    assert code == 3
    entries = by_id(report)
    assert entries["broken"]["status"] == "ERROR"
    assert tallies(entries["broken"]) == ((3, 3, 0), (0, 0, 3))
    assert entries["broken"]["candidate"]["verdict"] is None
    assert entries["broken"]["p_value"] is None
    assert entries["plain-refund"]["status"] == "PASS"
    assert report["summary"]["errors"] == ["broken"]
    assert report["summary"]["candidate"]["recall"] == [1, 1]
    assert report["usage"]["requests"] == 12
    out = capsys.readouterr().out
    assert "    candidate error: scripted error\n" in out
    assert "baseline error" not in out
    assert "INCOMPLETE" in out


def test_only_selects_cases(tmp_path: Path, repo: SkillRepo) -> None:
    backends = model()
    code, report = run(tmp_path, STATUS_CASES, "--only", "charts-neg,plain-refund", stages=backends)
    assert code == 0
    assert [e["id"] for e in report["cases"]] == ["plain-refund", "charts-neg"]
    assert [case.id for case in backends.opened[0].inputs.cases] == ["plain-refund", "charts-neg"]
    assert backends.calls == 12


def test_git_ref_and_path_specs(tmp_path: Path, repo: SkillRepo) -> None:
    first = repo.repo.head.commit.hexsha
    repo.commit("candidate")
    other = tmp_path / "draft.md"
    other.write_text(
        repo.skill_file.read_text().replace(CANDIDATE, "Use when issuing Stripe refunds.")
    )
    code, report = run(
        tmp_path,
        STATUS_CASES[:1],
        "--baseline",
        f"git:{first}",
        "--candidate",
        str(other),
        stages=model(),
    )
    assert report["baseline"]["description"] == BASELINE
    assert report["candidate"]["description"] == "Use when issuing Stripe refunds."
    assert code == 0


def test_dry_run_plans_and_makes_no_call(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = model()
    code, report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "4", stages=backends)
    out = capsys.readouterr().out
    assert code == 0
    assert report == {}
    assert backends.prepared == [
        Prepared(
            RunSpec(
                model=MODEL,
                trials=4,
                pricing=PRICING,
                concurrency=CONCURRENCY,
                max_concurrency=MAX_CONCURRENCY,
            ),
            calls=False,
        )
    ]
    assert backends.opened == []
    assert "  kw (2)\n" in out
    assert "  negative (2)\n" in out
    assert "stripe-dispute" not in out
    assert "What these settings can detect on a suite this size: add --simulate." in out
    assert f"baseline git:HEAD ({len(BASELINE)} chars)" in out
    assert (
        "  Use when issuing [-refunds, handling chargebacks, or answering Stripe disputes.-] "
        "{+refunds.+}\n"
    ) in out
    assert "48 model call(s)" in out
    listing = r"listing: billing:refunds, 0 sibling\(s\), 3 distractor\(s\), 0 catalog skill\(s\), "
    listing += r"13 of Claude Code's own \([\d,]+ of 30,000 columns\), in 4 orders\n"
    assert re.search(listing, out), out
    assert "Settings (command line > environment > file > default):" in out
    assert " trials " in out and " max-turns " not in out  # only what differs from a default


def test_dry_run_verbose_lists_every_case_and_setting_and_simulates_on_request(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run(tmp_path, STATUS_CASES, "--dry-run", "--verbose", "--simulate", stages=model())
    out = capsys.readouterr().out
    assert code == 0
    assert "kw (2): stripe-dispute, plain-refund" in out
    assert "negative (2): chargeback-neg, charts-neg" in out
    assert " max-turns " in out
    assert "What these settings can detect on 6 cases (simulated, 60 runs each;" in out
    assert "a false alarm when nothing changed: 0% (0%-6%)" in out


def test_simulate_and_verbose_go_with_dry_run(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = model()
    for flag in ("--simulate", "--verbose"):
        code, report = run(tmp_path, STATUS_CASES, flag, stages=backends)
        assert (code, report["error"]) == (2, f"{flag} goes with --dry-run")
    assert backends.prepared == []


def test_long_description_warns(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write_description("Use when issuing refunds. " + "x" * 1100)
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run", stages=model())
    assert code == 0
    err = capsys.readouterr().err
    spec = str(repo.skill_file)
    assert (
        f"warning: {spec}: the description is 1,126 characters, over the agent's limit of 1,024"
        in err
    )


def test_too_few_trials_to_ever_regress_warns(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "2", stages=model())
    assert code == 0
    assert (
        "warning: with 2 trial(s) per variant no case can reach p < 0.05, so nothing can be "
        "REGRESSED and the gate cannot fail on a regression: use --trials 3 or more"
    ) in capsys.readouterr().err
    code, _report = run(tmp_path, STATUS_CASES, "--dry-run", "--trials", "3", stages=model())
    assert "warning" not in capsys.readouterr().err


BAD_CASE_FILES: list[tuple[str, bytes, str]] = [
    ("not-json", b"{cases: [", "not valid JSON"),
    (
        "not-json-where",
        b'{\n  "cases": [\n    {"id": "a",, }\n  ]\n}\n',
        "not-json-where.json: not valid JSON at line 3, column 16 (",
    ),
    ("not-utf8", b'[{"id": "caf\xe9"}]', "not-utf8.json: not UTF-8 (byte 12)"),
    (
        "wrong-shape",
        b'{"items": []}',
        "wrong-shape.json: matches no cases format; the nearest is this tool's cases file "
        "(--cases-format activation), and it lacks a 'cases' list",
    ),
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
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
    message: str,
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(content)
    backends = FakeStages(scripted({}))
    code = main(["--cases", str(path), "--distractors", str(tmp_path / "distractors")], backends)
    assert code == 2
    assert message in one_line_error(capsys)
    assert (backends.prepared, backends.opened) == ([], [])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--only", "nope,plain-refund,zzz"], "--only names unknown case ids: nope, zzz"),
        (["--baseline", "git:no-such-branch"], "no commit 'no-such-branch'"),
        (["--trials", "0"], "--trials: must be at least 1, got 0"),
        (["--candidate", "missing/SKILL.md"], "missing/SKILL.md"),
        (["--alpha", "2"], "--alpha: must be between 0 and 1"),
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["--timeout", "0"], "--timeout: must be more than 0, got 0"),
        (["--timeout", "-5"], "--timeout: must be more than 0, got -5"),
        (["--model", ""], "--model: must not be empty"),
        (["--model", "  "], "--model: must not be empty"),
        (["--trials", "5", "--max-trials", "3"], "--max-trials 3 is below --trials 5"),
    ],
)
def test_bad_flags_exit_2_before_any_call(
    tmp_path: Path,
    repo: SkillRepo,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    backends = FakeStages(scripted({}))
    code, _report = run(tmp_path, STATUS_CASES, *flags, stages=backends)
    assert code == 2
    assert message in one_line_error(capsys)
    assert (backends.prepared, backends.opened) == ([], [])


def test_missing_skill_at_ref_and_missing_description(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = FakeStages(scripted({}))
    empty = repo.repo.git.commit_tree(repo.repo.tree("HEAD").trees[0].hexsha, m="x")
    code, _ = run(tmp_path, STATUS_CASES, "--baseline", f"git:{empty}", stages=backends)
    assert code == 2
    assert "SKILL.md" in one_line_error(capsys)
    repo.skill_file.write_text("---\nname: refunds\n---\nbody\n")
    code, _ = run(tmp_path, STATUS_CASES, stages=backends)
    assert code == 2
    assert "no 'description'" in one_line_error(capsys)
    repo.skill_file.write_text('---\nname: refunds\ndescription: ""\n---\nbody\n')
    code, _ = run(tmp_path, STATUS_CASES, stages=backends)
    assert code == 2
    assert one_line_error(capsys).endswith("SKILL.md: the description is empty")
    repo.skill_file.write_text("# no frontmatter\n")
    code, _ = run(tmp_path, STATUS_CASES, stages=backends)
    assert code == 2
    assert "no YAML frontmatter" in one_line_error(capsys)
    assert (backends.prepared, backends.opened) == ([], [])


# --- --real on the fake: the Stage B command line without the agent ------------------------


def test_real_run_reports_the_agent_it_prepared(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = model()
    code, report = run(
        tmp_path, STATUS_CASES, "--real", "--only", "stripe-dispute,plain-refund", stages=backends
    )
    out = capsys.readouterr().out
    assert code == 1
    assert [(e["id"], e["status"]) for e in report["cases"]] == [
        ("stripe-dispute", "REGRESSED"),
        ("plain-refund", "PASS"),
    ]
    assert (report["stage"], report["model"], report["concurrency"]) == ("B", None, 4)
    assert report["agent"] == {
        "claude": "claude",
        "version": "fake",
        "max_turns": 8,
        "timeout": 300.0,
        "keep_workspaces": None,
        "sandbox": "host",  # ACTIVATION_SANDBOX, which every test sets (tests/conftest.py)
        "canary": True,
        "image": "activation-sandbox:bookworm",
        "executor": "local",
        "executables": {agent.name: agent.command for agent in every()},
    }
    executables = {agent.name: agent.command for agent in every()}
    stage_b = RunSpec(
        stage="B", agent=AgentSettings(executables=executables), concurrency=4, pricing=PRICING
    )
    assert backends.prepared == [Prepared(stage_b, calls=True)]
    assert backends.opened[0].spec == RunSpec(
        stage="B",
        agent=AgentSettings(version="fake", executables=executables),
        concurrency=4,
        pricing=PRICING,
    )
    assert "Claude Code fake, on the host (no sandbox)\n" in out
    assert "activation --real --only" not in out


def test_real_without_only_runs_spot_checks_and_what_stage_a_flagged(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(tmp_path, STATUS_CASES, "--real", stages=model())
    assert code == 2
    assert one_line_error(capsys) == (
        "activation: error: no case selected for --real (spot checks only (no Stage A run on "
        "these two descriptions yet)): pass --only ids"
    )
    assert report["error"] == (
        "no case selected for --real (spot checks only (no Stage A run on these two "
        "descriptions yet)): pass --only ids"
    )

    code, _report = run(tmp_path, STATUS_CASES, "--max-trials", "3", stages=model())
    assert code == 1
    capsys.readouterr()

    backends = model()
    code, report = run(
        tmp_path, STATUS_CASES, "--real", "--trials", "1", "--max-trials", "1", stages=backends
    )
    assert code == 0  # one trial each: 1/1 against 0/1 is not significant
    expected = ["stripe-dispute", "chargeback-neg", "flaky"]
    assert [case.id for case in backends.opened[0].inputs.cases] == expected
    assert [(e["id"], e["status"]) for e in report["cases"]] == [
        ("stripe-dispute", "UNSTABLE"),
        ("chargeback-neg", "UNSTABLE"),
        ("flaky", "PASS"),
    ]
    assert (
        "--real selection: 3 case(s), spot checks and the cases the latest Stage A run on "
        "these descriptions flagged\n"
    ) in capsys.readouterr().err
