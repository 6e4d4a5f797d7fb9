"""Every next step a run prints runs: each command a run, `changed` or `behavior` suggests
(on the terminal and in the Markdown) is taken from its output and run in the same repo,
with the mock model for Stage A and in-memory agents for Stages B and C. It must parse and
run (exit 0 or 1), never stop on its own flags (exit 2)."""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from activation.report.follow_up import REAL_TITLE, RERUN_TITLE, rerun_command
from activation.trials.fake import scripted
from activation.trials.stage import Stage
from tests.support.behavior_repo import example_repo
from tests.support.billing_repo import EDIT, REFUNDS, STOLEN
from tests.support.cli import one_line_error
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.fake_stages import FakeStages
from tests.support.reports import every_status_report

LONG = "-of-a-suite-whose-ids-say-everything-about-the-case"
"""A suffix that makes three flagged ids too long to spell out in a command."""


def long_ids(root: Path) -> Path:
    """The refunds suite again, every id long enough that three flagged make a long list."""
    data = orjson.loads((root / "cases.json").read_bytes())
    data["cases"] = [{**case, "id": case["id"] + LONG} for case in data["cases"]]
    path = root / "long.cases.json"
    path.write_bytes(orjson.dumps(data))
    return path


def agents() -> Mapping[str, Stage]:
    """Stage B's and Stage C's agents in memory (Stage A is the real one, with the mock)."""
    return {"B": FakeStages(scripted({}, default=True))["B"], "C": FakeBehavior(passing({}))}


def suggested(out: str, markdown: str) -> list[str]:
    """Every command printed under a next step's heading: the terminal's indented line, the
    Markdown's shell block."""
    found = []
    for text, offset in ((out, 1), (markdown, 3)):
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if line.strip() in (REAL_TITLE, RERUN_TITLE):
                found.append(lines[number + offset].strip())
    return found


def runs(command: str, stages: Mapping[str, Stage]) -> int:
    words = shlex.split(command)
    assert words[0] == "activation"
    return main(words[1:], stages)


def test_a_run_suggests_the_real_check_and_itself_with_every_flag_that_matters(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--cases", "cases.json", "--candidate", EDIT, "--max-trials", "9"]
    code = main(["--model", "mock", *flags, "--json", "report.json", "--markdown", "report.md"])
    found = suggested(capsys.readouterr().out, (billing / "report.md").read_text())
    real = shlex.join(["activation", "--real", "--only", ",".join(STOLEN), *flags])
    again = shlex.join(["activation", "--model", "mock", *flags, "--json", "report.json"])
    assert code == 1
    assert found == [real, real, again]
    assert [runs(command, agents()) for command in dict.fromkeys(found)] == [0, 1]


def test_changed_suggests_changed_real_which_runs_in_a_repo_of_several_skills(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copyfile(billing / EDIT, billing / REFUNDS)
    flags = ["--base", "git:main", "--max-trials", "9"]
    code = main(["changed", *flags, "--model", "mock", "--json", "c.json", "--markdown", "c.md"])
    found = suggested(capsys.readouterr().out, (billing / "c.md").read_text())
    real = shlex.join(["activation", "changed", "--real", "--only", ",".join(STOLEN), *flags])
    again = shlex.join(["activation", "changed", *flags, "--model", "mock", "--json", "c.json"])
    assert code == 1
    # each gate's report, then the report over both gates: on the terminal, then Markdown
    assert found == [real, real, real, again, real, again]
    assert [runs(command, agents()) for command in dict.fromkeys(found)] == [0, 1]


def test_a_long_list_of_flagged_cases_is_read_from_the_saved_report(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = long_ids(billing).name
    flags = ["--cases", cases, "--candidate", EDIT]
    assert main(["--model", "mock", *flags, "--json", "saved.json", "--markdown", "r.md"]) == 1
    found = suggested(capsys.readouterr().out, (billing / "r.md").read_text())
    real = shlex.join(["activation", "--real", "--only-from", "saved.json", *flags])
    assert found[:2] == [real, real]
    stages = FakeStages(scripted({}, default=True))
    assert runs(real, {"B": stages["B"]}) == 0
    ran = {case.id for case in stages.opened[0].inputs.cases}
    assert ran == {case_id + LONG for case_id in STOLEN}


def test_without_a_saved_report_a_long_list_is_left_to_the_real_stage_s_own_choice(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--cases", long_ids(billing).name, "--candidate", EDIT]
    assert main(["--model", "mock", *flags, "--markdown", "r.md"]) == 1
    found = suggested(capsys.readouterr().out, (billing / "r.md").read_text())
    real = shlex.join(["activation", "--real", *flags])
    assert found == [real, real, shlex.join(["activation", "--model", "mock", *flags])]
    stages = FakeStages(scripted({}, default=True))
    assert runs(real, {"B": stages["B"]}) == 0
    # what the mock run just flagged, and the spot checks (refund-order, chargeback-evidence)
    ran = {case.id for case in stages.opened[0].inputs.cases}
    assert ran == {case_id + LONG for case_id in (*STOLEN, "refund-order")}


def test_behavior_suggests_itself_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(example_repo(tmp_path / "repo"))
    flags = ["--baseline", "git:HEAD", "--trials", "2", "--max-trials", "4", "--arm", "none"]
    stages = {"C": FakeBehavior(passing({}))}
    assert main(["behavior", *flags, "--markdown", "b.md"], stages) == 0
    found = suggested(capsys.readouterr().out, Path("b.md").read_text())
    assert found == [shlex.join(["activation", "behavior", *flags])]
    assert runs(found[0], stages) == 0


def test_only_from_refuses_what_it_cannot_read_in_one_line(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--model", "mock", "--cases", "cases.json"]
    assert main([*flags, "--json", "quiet.json"]) == 0  # nothing changed: nothing flagged
    capsys.readouterr()
    refused = {
        ("--only-from", "quiet.json"): "--only-from quiet.json: the report flagged no case",
        ("--only-from", "cases.json"): "cases.json: not an activation report (activation-report/2 "
        "or activation-report/3 or activation-report/4)",
        ("--only-from", "quiet.json", "--only", "refund-order"): (
            "--only-from reads the cases from a report: leave out --only"
        ),
    }
    for given, line in refused.items():
        assert main([*flags, *given]) == 2
        assert one_line_error(capsys) == f"activation: error: {line}"


def test_a_report_of_an_older_version_suggests_its_stage_s_command() -> None:
    """0.3.0 kept only the flags after the stage's own (`--real`, `behavior`)."""
    report = every_status_report("B")
    assert report.rerun == ("--baseline", "git:main")
    assert rerun_command(report) == "activation --real --baseline git:main"
    assert rerun_command(replace(report, rerun=("--real", "--trials", "5"))) == (
        "activation --real --trials 5"
    )


def test_the_merged_shards_suggest_the_whole_run(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--model", "mock", "--cases", "cases.json", "--candidate", EDIT]
    for shard in ("1/2", "2/2"):
        name = f"shard-{shard[0]}.json"
        assert main([*flags, "--shard", shard, "--json", name]) in (0, 1)
    capsys.readouterr()
    assert main(["merge", "shard-1.json", "shard-2.json", "--markdown", "whole.md"]) == 1
    found = suggested(capsys.readouterr().out, (billing / "whole.md").read_text())
    real = shlex.join(["activation", "--real", "--only", ",".join(STOLEN), *flags[2:]])
    assert found == [real, real, shlex.join(["activation", *flags])]
    assert [runs(command, agents()) for command in dict.fromkeys(found)] == [0, 1]
