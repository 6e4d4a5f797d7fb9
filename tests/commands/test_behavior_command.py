"""`activation behavior`'s surface on a scripted Stage C backend (tests/support/fake_behavior.py):
flags, arms, the dry run, bad input, the cache, shards and merge, on the bundled example as
a user's repo. The real agents at work are tested in test_behavior.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.support.behavior_repo import BROKEN_BODY, SKILL_FILE, example_repo
from tests.support.cli import one_line_error, read_report
from tests.support.fake_behavior import FakeBehavior, passing, taught_by

BROKEN_ONE = {
    "welcome_banner": {"baseline": 3, "candidate": 0},
    "configure_once": {"baseline": 3, "candidate": 3},
    "batch_cards": {"baseline": 3, "candidate": 3},
}
"""The candidate breaks one case; no control arm passes anything."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = example_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def behave(
    tmp_path: Path, stages: FakeBehavior, *flags: str, name: str = "behavior.json"
) -> tuple[int, dict[str, Any]]:
    report = tmp_path / name
    code = main(["behavior", "--json", str(report), "--full-record", "--trials", "3",
                 "--max-trials", "3", *flags], stages)  # fmt: skip
    return code, read_report(report) if report.exists() else {}


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["status"] for entry in report["cases"]}


@pytest.mark.usefixtures("repo")
def test_a_broken_case_regresses_and_the_controls_run_beside_the_variants(tmp_path: Path) -> None:
    stages = FakeBehavior(passing(BROKEN_ONE))
    code, report = behave(tmp_path, stages, "--baseline", "git:HEAD")
    assert code == 1
    assert statuses(report) == {
        "batch_cards": "PASS",
        "configure_once": "PASS",
        "welcome_banner": "REGRESSED",
    }
    # The example's cases have a `## System` section: the llm arm runs by default.
    assert report["arms"] == ["none", "llm"]
    assert (report["stage"], report["trials"], report["judge_model"]) == (
        "C",
        3,
        "claude-haiku-5-5",
    )
    arms = [trial["variant"] for entry in report["cases"] for trial in entry["trials"]]
    assert {arm: arms.count(arm) for arm in set(arms)} == {
        "baseline": 9, "candidate": 9, "none": 9, "llm": 9,
    }  # fmt: skip
    assert stages.calls == 36
    (spec, inputs, _backend) = stages.opened[0]
    assert spec.agent is not None and (spec.agent.max_turns, spec.agent.timeout) == (30, 600.0)
    assert [case.id for case in inputs.cases] == ["batch_cards", "configure_once",
                                                     "welcome_banner"]  # fmt: skip
    # Stage C installs the whole set at each spec: the body and the references.
    paths = {path for path, _data in inputs.baseline.tree}
    assert paths == {".claude-plugin/plugin.json", "skills/greetlib/SKILL.md",
                     "skills/greetlib/references/api.md"}  # fmt: skip


@pytest.mark.usefixtures("repo")
def test_the_arms_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stages = FakeBehavior(passing(BROKEN_ONE))
    assert behave(tmp_path, stages, "--no-control")[1]["arms"] == []
    assert behave(tmp_path, stages, "--arm", "none")[1]["arms"] == ["none"]
    assert behave(tmp_path, stages, "--arm", "llm,none")[1]["arms"] == ["none", "llm"]
    capsys.readouterr()
    assert behave(tmp_path, stages, "--arm", "nobody")[0] == 2
    assert one_line_error(capsys) == (
        "activation behavior: error: --arm nobody: choose from none, llm"
    )
    assert behave(tmp_path, stages, "--no-control", "--arm", "none")[0] == 2
    assert one_line_error(capsys) == (
        "activation behavior: error: --no-control runs no control arm: leave out --arm"
    )


def test_bad_input_is_one_line_before_any_trial(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stages = FakeBehavior(passing(BROKEN_ONE))
    assert behave(tmp_path, stages, "--only", "nope")[0] == 2
    assert one_line_error(capsys) == (
        f"activation behavior: error: --only: no graded case nope in {repo / 'evals'} "
        "(it has batch_cards, configure_once, welcome_banner)"
    )
    assert behave(tmp_path, stages, "--suite", "missing")[0] == 2
    assert one_line_error(capsys) == "activation behavior: error: behavior cases not found: missing"
    (repo / "evals").rename(repo / "elsewhere")
    assert behave(tmp_path, stages)[0] == 2
    assert one_line_error(capsys) == (
        f"activation behavior: error: no behavior suite: {repo / 'evals'} does not exist "
        "(pass --suite PATH)"
    )
    assert behave(tmp_path, stages, "--suite", "elsewhere", "--max-trials", "2")[0] == 2
    assert one_line_error(capsys) == (  # a flag given twice is refused, never the last kept
        "activation behavior: error: --max-trials given twice: it takes one value "
        "(see activation behavior --help)"
    )
    report = tmp_path / "low.json"
    low = ["behavior", "--json", str(report), "--suite", "elsewhere", "--trials", "3"]
    low += ["--max-trials", "2"]
    assert main(low, stages) == 2
    assert one_line_error(capsys) == (
        "activation behavior: error: --max-trials 2 is below --trials 3: escalation cannot "
        "run fewer trials than the first round"
    )
    assert behave(tmp_path, stages, "--suite", "elsewhere", "--baseline", "main")[0] == 2
    assert one_line_error(capsys) == (
        f"activation behavior: error: main: no such file ({repo / 'main'}): for the ref main, "
        "pass git:main"
    )
    assert behave(tmp_path, stages, "--suite", "elsewhere", "--baseline", "mainline")[0] == 2
    assert one_line_error(capsys) == (
        f"activation behavior: error: mainline: no such file ({repo / 'mainline'})"
    )
    assert stages.calls == 0 and stages.prepared == []


@pytest.mark.usefixtures("repo")
def test_a_dry_run_shows_the_arms_their_runs_cost_and_time_without_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stages = FakeBehavior(passing(BROKEN_ONE))
    code, report = behave(tmp_path, stages, "--dry-run", "--model", "claude-sonnet-5-5",
                          "--arm", "none")  # fmt: skip
    out = capsys.readouterr().out
    assert (code, report, stages.calls) == (0, {}, 0)
    assert "arms: baseline, candidate, none; judge: claude-haiku-5-5" in out
    assert "first round per arm (3 case(s) x 3 trial(s)):" in out
    for arm in ("baseline", "candidate", "none"):
        assert f"  {arm}: 9 agent run(s), up to $3.24" in out
    assert (
        "time: about 14 min for the first round, 4 agent run(s) at once at about 2 min a run" in out
    )


@pytest.mark.usefixtures("repo")
def test_a_second_run_is_served_from_the_cache(tmp_path: Path) -> None:
    stages = FakeBehavior(passing(BROKEN_ONE))
    first = behave(tmp_path, stages, "--arm", "none")
    assert stages.calls == 27
    again = FakeBehavior(passing({}))
    second = behave(tmp_path, again, "--arm", "none", name="again.json")
    assert again.calls == 0
    assert statuses(second[1]) == statuses(first[1])
    trials = [t for entry in second[1]["cases"] for t in entry["trials"]]
    assert {t["cached"] for t in trials} == {True}
    assert {tuple(g["outcome"] for g in t["grades"]) for t in trials} == {
        ("passed", "passed"), ("failed", "failed"),
    }  # fmt: skip


@pytest.mark.usefixtures("repo")
def test_two_shards_merge_into_the_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = behave(tmp_path, FakeBehavior(passing(BROKEN_ONE)), "--arm", "none", "--no-cache")
    shards = []
    for index in (1, 2):
        name = f"shard-{index}.json"
        behave(tmp_path, FakeBehavior(passing(BROKEN_ONE)), "--arm", "none", "--no-cache",
               "--shard", f"{index}/2", name=name)  # fmt: skip
        shards.append(str(tmp_path / name))
    merged = tmp_path / "merged.json"
    capsys.readouterr()
    assert main(["merge", *shards, "--json", str(merged)]) == 1
    data = read_report(merged)
    assert statuses(data) == statuses(whole[1])
    assert data["arms"] == ["none"]
    nones = [t for e in data["cases"] for t in e["trials"] if t["variant"] == "none"]
    assert len(nones) == 9
    assert orjson.loads(merged.read_bytes())["stage"] == "C"


def calibrate(tmp_path: Path, stages: FakeBehavior) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "calibration.json"
    code = main(["calibrate", "--behavior", "--broken", str(BROKEN_BODY), "--json", str(report),
                 "--trials", "3", "--max-trials", "3"], stages)  # fmt: skip
    return code, orjson.loads(report.read_bytes())


@pytest.mark.usefixtures("repo")
def test_calibration_passes_a_suite_that_sees_the_skill_and_catches_the_broken_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stages = FakeBehavior(taught_by("# greetlib 2"))
    code, data = calibrate(tmp_path, stages)
    out = capsys.readouterr().out
    assert code == 0
    assert (data["schema"], data["quiet"], data["caught"], data["lift_shown"]) == (
        "activation-behavior-calibration/1", True, True, True,
    )  # fmt: skip
    assert data["same"]["arms"] == ["none"] and data["broken"]["arms"] == []
    assert "A/A (the skill against itself): quiet" in out
    assert (
        "broken-body control (" + str(BROKEN_BODY) + "): caught, 3 case(s) REGRESSED "
        "(batch_cards, configure_once, welcome_banner)"
    ) in out.replace("\n", " ")
    assert "lift over no skill: candidate 9/9 = 100% vs no skill 0/9 = 0%" in out
    assert "OK: the suite is calibrated." in out


@pytest.mark.usefixtures("repo")
def test_calibration_fails_a_suite_that_cannot_see_the_skill_or_its_breakage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = calibrate(tmp_path, FakeBehavior(taught_by("greetlib", control_passes=True)))
    out = capsys.readouterr().out.replace("\n", " ")
    assert code == 1
    assert (data["quiet"], data["caught"], data["lift_shown"]) == (True, False, False)
    assert "NOT caught: no case regressed, the suite cannot tell a broken body" in out
    assert "the suite cannot see the skill's effect" in out
    assert "FAILED: the suite is not calibrated." in out


@pytest.mark.usefixtures("repo")
def test_fail_on_no_lift_fails_a_skill_that_does_not_beat_no_skill(tmp_path: Path) -> None:
    even = {case: {"baseline": 3, "candidate": 3, "none": 3} for case in BROKEN_ONE}
    code, report = behave(tmp_path, FakeBehavior(passing(even)), "--arm", "none")
    assert (code, report["exit_code"]) == (0, 0)
    assert set(statuses(report).values()) == {"PASS"}
    code, report = behave(tmp_path, FakeBehavior(passing(even)), "--arm", "none", "--no-cache",
                          "--fail-on", "no-lift")  # fmt: skip
    assert (code, report["exit_code"]) == (1, 1)
    assert report["behavior"]["lift"]["shown"] is False


def test_a_candidate_the_agent_no_longer_lists_fails_a_behavior_run_too(
    repo: Path, tmp_path: Path
) -> None:
    """Stage C gets the visibility check of Stage A and B: the candidate's
    `disable-model-invocation: true` hides the skill from Claude Code, whatever the graders
    say."""
    skill = repo / SKILL_FILE
    skill.write_text(skill.read_text().replace("---\n", "---\ndisable-model-invocation: true\n", 1))
    every = {case: {"baseline": 3, "candidate": 3} for case in BROKEN_ONE}
    code, report = behave(tmp_path, FakeBehavior(passing(every)), "--baseline", "git:HEAD")
    assert code == 1
    assert set(statuses(report).values()) == {"PASS"}
    assert report["unseen"] == ["candidate"]
    (finding,) = report["less_visible"]
    assert (finding["cell"], finding["skill"], finding["candidate"]["rule"]) == (
        "C/claude-code/default",
        "greetlib:greetlib",
        "disable-model-invocation: true (the Skill tool refuses the model too)",
    )


def test_a_dry_run_plans_without_the_agent_cli_and_counts_the_llm_arm_as_model_calls(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dry run plans, it does not run: the real Stage C, with no agent CLI to be found and
    no key, plans every arm; the llm arm's trials are model calls, not agent runs."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    missing = str(repo / "no-such-claude")
    assert main(["behavior", "--dry-run", "--claude", missing]) == 0
    shown = capsys.readouterr()
    assert shown.err.startswith(f"warning: cannot find the Claude Code CLI '{missing}'")
    assert shown.err.splitlines()[0].endswith("(a dry run plans without it; a run needs it)")
    assert "arms: baseline, candidate, none, llm; judge: claude-haiku-5-5" in shown.out
    assert "  llm: 9 model call(s), no agent" in shown.out
    assert (
        "The first round would make 27 agent run(s) (3 cases x 3 arms x 3 trials) and 9 "
        "model call(s) to claude-haiku-5-5 (the llm arm) and 36 judge call(s) to "
        "claude-haiku-5-5 (36 judge question(s) x 1 sample(s), about $0.03); suspicious cases "
        "then get more, up to 21 trials (135 at most, 144 judge call(s)). No call was made."
    ) in " ".join(shown.out.split())


def test_a_dry_run_prices_every_judge_sample(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--judge-samples 3` asks each judge question three times: the plan counts and prices
    three calls per question (one judge grader per case, every arm's trial graded, the
    llm arm's too; only baseline and candidate escalate)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    missing = str(repo / "no-such-claude")
    argv = ["behavior", "--dry-run", "--claude", missing, "--judge-samples", "3", "--arm", "none"]
    assert main(argv) == 0
    assert (
        "The first round would make 27 agent run(s) (3 cases x 3 arms x 3 trials) and 81 "
        "judge call(s) to claude-haiku-5-5 (27 judge question(s) x 3 sample(s), about $0.06); "
        "suspicious cases then get more, up to 21 trials (135 at most, 405 judge call(s)). No "
        "call was made."
    ) in " ".join(capsys.readouterr().out.split())


@pytest.mark.usefixtures("repo")
def test_the_python_api_runs_the_same_gate_as_the_command_line(tmp_path: Path) -> None:
    """`activation.behavior` on values, not a command line: the same verdicts and the same
    report file as `activation behavior` with those flags."""
    import activation

    code, cli = behave(tmp_path, FakeBehavior(passing(BROKEN_ONE)), "--baseline", "git:HEAD")
    saved = tmp_path / "api.json"
    stages = FakeBehavior(passing(BROKEN_ONE))
    report = activation.behavior(
        baseline="git:HEAD", json=saved, full_record=True, trials=3, max_trials=3,
        no_cache=True, stages=stages,
    )  # fmt: skip
    assert report is not None and (report.exit_code, code) == (1, 1)
    api = read_report(saved)
    assert statuses(api) == statuses(cli) == {
        "batch_cards": "PASS", "configure_once": "PASS", "welcome_banner": "REGRESSED",
    }  # fmt: skip
    assert (api["arms"], api["trials"], stages.calls) == (["none", "llm"], 3, 36)
    assert activation.behavior(baseline="git:HEAD", dry_run=True, stages=stages) is None
    assert stages.calls == 36
    with pytest.raises(activation.InputError, match="--no-control runs no control arm"):
        activation.behavior(no_control=True, arm=("none",), stages=stages)
    with pytest.raises(TypeError, match="BehaviorRequest has no real"):
        activation.behavior(real=True)


def test_calibrate_behavior_dry_run_plans_both_runs_without_the_agent_cli(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    missing = str(repo / "no-such-claude")
    argv = ["calibrate", "--behavior", "--dry-run", "--broken", str(BROKEN_BODY)]
    assert main([*argv, "--claude", missing]) == 0
    shown = capsys.readouterr()
    assert shown.err.startswith(f"warning: cannot find the Claude Code CLI '{missing}'")
    out = " ".join(shown.out.split())
    assert out.startswith(
        "calibrate --behavior would make two runs: 'same', the skill against itself with the "
        f"none arm, then 'broken', the skill against {BROKEN_BODY}"
    )
    # A/A with the none arm, then the broken-body control with no arm
    assert "arms: baseline, candidate, none; judge: claude-haiku-5-5" in out
    assert "arms: baseline, candidate; judge: claude-haiku-5-5" in out
    assert out.count("No call was made.") == 2


def test_with_a_skill_path_the_default_suite_is_the_skills_own_evals(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = repo / SKILL_FILE.parent / "evals"
    (repo / "evals").rename(own)
    stages = FakeBehavior(passing(BROKEN_ONE))
    code, _report = behave(tmp_path, stages, "--dry-run", "--skill-path", str(SKILL_FILE))
    captured = capsys.readouterr()
    assert (code, stages.calls) == (0, 0)
    assert f"behavior suite: {own} (pass --suite PATH for another)" in captured.err
    assert "first round per arm (3 case(s) x 3 trial(s)):" in captured.out
    skill_folder = SKILL_FILE.parent.as_posix()
    assert behave(tmp_path, stages, "--skill-path", skill_folder, "--suite", "nowhere")[0] == 2
    assert one_line_error(capsys) == "activation behavior: error: behavior cases not found: nowhere"
    own.rename(repo / "elsewhere")
    assert behave(tmp_path, stages, "--dry-run", "--skill-path", skill_folder)[0] == 2
    assert one_line_error(capsys) == (
        f"activation behavior: error: no behavior suite: none of {own}, "
        f"{repo / 'evals' / SKILL_FILE.parent.name}, {repo / SKILL_FILE.parents[2] / 'evals'}, "
        f"{repo / 'evals'} exists (pass --suite PATH)"
    )


def test_the_dry_runs_verbose_hint_is_a_flag_both_stage_c_dry_runs_take(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA5 F2: "--verbose lists them" is printed by behavior's and calibrate --behavior's
    dry runs, so both take it (every setting listed) and refuse it without --dry-run."""
    calibrate = ["calibrate", "--behavior", "--broken", str(BROKEN_BODY)]
    for argv in (["behavior"], calibrate):
        assert main([*argv, "--dry-run"]) == 0
        assert "more at their defaults (--verbose lists them)" in capsys.readouterr().out
        assert main([*argv, "--dry-run", "--verbose"]) == 0
        out = capsys.readouterr().out
        assert "--verbose lists them" not in out
        assert "│ verbose " in out and "│ max-turns " in out
        assert main([*argv, "--verbose"]) == 2
        assert capsys.readouterr().err.strip().endswith("error: --verbose goes with --dry-run")


def test_with_no_skill_path_and_no_repo_suite_the_line_names_the_skills_that_have_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA5 F9: a repo of skills whose one behavior suite is `skills/commit/evals/`: the
    line says which --skill-path finds it, not only --suite."""
    from tests.support.skill_repo import commit_all

    for name in ("add-backlog", "commit", "site"):
        folder = tmp_path / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Use for {name}.\n---\n")
    (tmp_path / "skills/commit/evals").mkdir()
    (tmp_path / "skills/commit/evals/evals.json").write_text(
        '{"skill_name": "commit", "evals": [{"id": 1, "prompt": "commit it", '
        '"expected_output": "a commit", "files": []}]}'
    )
    commit_all(tmp_path, "skills")
    monkeypatch.chdir(tmp_path)
    assert main(["behavior", "--dry-run"]) == 2
    assert one_line_error(capsys) == (
        f"activation behavior: error: no behavior suite: {tmp_path}/evals does not exist "
        "(pass --suite PATH); skills with a suite of their own: --skill-path skills/commit"
    )
    assert main(["behavior", "--dry-run", "--skill-path", "skills/commit"]) == 0
