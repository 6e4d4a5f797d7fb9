"""`--shard I/N --durations report.json`: shards planned from a saved run's trial durations,
merged like one run; a bad `--durations` is one line and exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from tests.commands.test_behavior_command import BROKEN_ONE, behave, statuses
from tests.commands.test_cells import CASES as MATRIX_CASES
from tests.commands.test_cells import FIXED, HAIKU, SONNET, haiku_loses_disputes
from tests.commands.test_cells import statuses as cell_statuses
from tests.commands.test_merge import CASES, merge, run_to, untimed
from tests.support.behavior_repo import example_repo
from tests.support.cli import by_id, one_line_error, read_report, tallies
from tests.support.cli import run as cells_run
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.messages_api import FakeMessagesAPI
from tests.support.skill_repo import SkillRepo

PLANNED = {
    1: ["case-00", "case-05", "case-06", "case-11"],
    2: ["case-01", "case-04", "case-07", "case-10"],
    3: ["case-02", "case-03", "case-08", "case-09"],
}
"""case-N worked N + 1 seconds: 12 onto shard 1, 11 onto 2, 10 and 9 onto 3, 8 onto 2, 7
and 6 onto 1 (every shard at 19, two cases each: the lowest-numbered), 5 onto 2, 4 and 3
onto 3, 2 onto 2, 1 onto 1: 26 seconds each."""


def timed(report: Path, seconds: dict[str, float], out: Path) -> Path:
    """`report` with each case's trials taking `seconds[case]` between them (a case not
    named: untimed, as trials served from the cache are)."""
    data = orjson.loads(report.read_bytes())
    for entry in data["cases"]:
        for trial in entry["trials"]:
            trial.pop("seconds", None)
            if entry["id"] in seconds:
                trial["seconds"] = seconds[entry["id"]] / len(entry["trials"])
    out.write_bytes(orjson.dumps(data))
    return out


def shard_ids(path: Path) -> list[str]:
    return [entry["id"] for entry in read_report(path)["cases"]]


def test_shards_planned_by_durations_hold_equal_work_and_merge_like_one_run(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    whole_code, whole = run_to(tmp_path, "whole")
    durations = timed(whole, {c["id"]: n + 1.0 for n, c in enumerate(CASES)}, tmp_path / "d.json")
    capsys.readouterr()
    shards = [run_to(tmp_path, f"s{i}", "--shard", f"{i}/3", "--durations", str(durations))[1]
              for i in (1, 2, 3)]  # fmt: skip
    said = capsys.readouterr().err
    assert f"shard 2/3: 4 of 12 (case, cell) pair(s), planned by the durations in {durations}" in (
        said
    )
    assert {index: shard_ids(path) for index, path in enumerate(shards, 1)} == PLANNED
    plans = {read_report(path)["shard"]["plan"] for path in shards}
    assert len(plans) == 1 and None not in plans
    merged = tmp_path / "merged.json"
    assert merge(*shards, out=merged) == whole_code == 1
    one, together = read_report(whole), read_report(merged)
    for case_id, entry in by_id(one).items():
        again = by_id(together)[case_id]
        assert (again["status"], tallies(again), again["q_value"]) == (
            entry["status"], tallies(entry), entry["q_value"],
        ), case_id  # fmt: skip
        assert untimed(again["trials"]) == untimed(entry["trials"]), case_id
    assert (together["summary"], together["usage"]) == (one["summary"], one["usage"])
    hashed = run_to(tmp_path, "h1", "--shard", "1/3")[1]
    capsys.readouterr()
    assert merge(hashed, shards[1], shards[2], out=merged) == 2
    assert one_line_error(capsys) == (
        f"activation merge: error: {shards[1]}: its shards were planned otherwise than "
        f"{hashed}'s (--durations from another report, or none): give every shard the same "
        "--durations"
    )


def test_a_case_the_durations_do_not_know_weighs_their_median(
    tmp_path: Path, repo: SkillRepo
) -> None:
    """case-00 and case-11 untimed: each weighs the median of the other ten (6.5 s)."""
    _code, whole = run_to(tmp_path, "whole")
    known = {c["id"]: n + 1.0 for n, c in enumerate(CASES) if c["id"] not in {"case-00", "case-11"}}
    durations = timed(whole, known, tmp_path / "d.json")
    planned = {i: shard_ids(run_to(tmp_path, f"s{i}", "--shard", f"{i}/2", "--durations",
                                   str(durations))[1]) for i in (1, 2)}  # fmt: skip
    # 11 s onto 1, 10 and 9 onto 2, 8 and 7 onto 1 (19 each: the lower-numbered), the two
    # at 6.5 onto 2, 6 and 5 onto 1 (32 each), 4 and 3 onto 2, 2 onto 1: 39 seconds each
    assert planned == {
        1: ["case-01", "case-04", "case-05", "case-06", "case-07", "case-10"],
        2: ["case-00", "case-02", "case-03", "case-08", "case-09", "case-11"],
    }


@pytest.fixture
def behavior_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled behavior example as a user's repo (test_behavior_command's `repo`)."""
    root = example_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


@pytest.mark.usefixtures("behavior_repo")
def test_behavior_takes_durations_too(tmp_path: Path) -> None:
    flags = ("--arm", "none", "--no-cache")
    behave(tmp_path, FakeBehavior(passing(BROKEN_ONE)), *flags, name="whole.json")
    seconds = {"welcome_banner": 600.0, "configure_once": 200.0, "batch_cards": 300.0}
    durations = timed(tmp_path / "whole.json", seconds, tmp_path / "d.json")
    shards = []
    for index in (1, 2):
        name = f"shard-{index}.json"
        behave(tmp_path, FakeBehavior(passing(BROKEN_ONE)), *flags, "--shard", f"{index}/2",
               "--durations", str(durations), name=name)  # fmt: skip
        shards.append(tmp_path / name)
    assert [shard_ids(path) for path in shards] == [
        ["welcome_banner"], ["batch_cards", "configure_once"],
    ]  # fmt: skip
    merged = tmp_path / "merged.json"
    assert main(["merge", *map(str, shards), "--json", str(merged)]) == 1
    assert statuses(read_report(merged)) == statuses(read_report(tmp_path / "whole.json"))


def bad_durations(tmp_path: Path) -> list[tuple[list[str], str]]:
    (tmp_path / "junk.json").write_text('{"schema": "x"}')
    stopped = tmp_path / "stopped.json"
    stopped.write_text('{"schema": "activation-report/4", "exit_code": 2, "error": "bad flag"}')
    return [
        (["--shard", "1/2", "--durations", str(tmp_path / "none.json")],
         f"--durations: cannot read the report {tmp_path / 'none.json'}: No such file or "
         "directory"),
        (["--shard", "1/2", "--durations", str(tmp_path / "junk.json")],
         f"--durations: {tmp_path / 'junk.json'}: not an activation report"),
        (["--shard", "1/2", "--durations", str(stopped)],
         f"--durations: {stopped}: the report of a run that stopped early (bad flag)"),
        (["--shard", "1/2", "--durations", str(tmp_path / "untimed.json")],
         f"--durations {tmp_path / 'untimed.json'}: the report records no trial's duration"),
        (["--durations", str(tmp_path / "untimed.json")],
         "--durations plans the shards of --shard I/N: pass --shard too"),
    ]  # fmt: skip


def test_a_bad_durations_report_is_one_line_and_exit_2(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, whole = run_to(tmp_path, "whole")
    timed(whole, {}, tmp_path / "untimed.json")
    for flags, message in bad_durations(tmp_path):
        capsys.readouterr()
        code, report = run_to(tmp_path, "bad", *flags)
        line = one_line_error(capsys)
        assert code == 2, flags
        assert line.startswith(f"activation: error: {message}"), line
        data: dict[str, Any] = read_report(report)
        assert "cases" not in data


def test_a_matrix_is_planned_by_case_and_cell(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    """Each (case, cell) pair weighs its own: Haiku's cases 1, 2, 3 s, Sonnet's 4, 5, 6 s.
    6 onto 1, 5 and 4 onto 2, 3 onto 1, 2 onto 1 (both at 9 with two pairs: the lower
    number), 1 onto 2: ten seconds and eleven."""
    fake_api.script = haiku_loses_disputes
    flags = ("--model", f"{HAIKU},{SONNET}", *FIXED, "--no-cache")
    _code, whole = cells_run(tmp_path, MATRIX_CASES, *flags)
    data = orjson.loads((tmp_path / "report.json").read_bytes())
    for number, cell in enumerate(data["cells"]):
        for position, entry in enumerate(cell["cases"], 1):
            for trial in entry["trials"]:
                trial["seconds"] = (3 * number + position) / len(entry["trials"])
    durations = tmp_path / "durations.json"
    durations.write_bytes(orjson.dumps(data))
    parts = []
    for index in (1, 2):
        cells_run(tmp_path, MATRIX_CASES, *flags, "--shard", f"{index}/2", "--durations",
                  str(durations))  # fmt: skip
        parts.append((tmp_path / "report.json").rename(tmp_path / f"shard-{index}.json"))
    held = [
        [[entry["id"] for entry in cell["cases"]] for cell in read_report(part)["cells"]]
        for part in parts
    ]
    assert held == [
        [["plain-refund", "charts-neg"], ["charts-neg"]],
        [["stripe-dispute"], ["stripe-dispute", "plain-refund"]],
    ]
    merged = tmp_path / "merged.json"
    assert main(["merge", *map(str, parts), "--json", str(merged)]) == 1
    assert cell_statuses(read_report(merged)) == cell_statuses(whole)
