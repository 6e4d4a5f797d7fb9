"""`--shard I/N` and `activation merge`: shards run apart and merged judge like one run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from activation.commands.main import main
from activation.inputs.identity import shard_of
from activation.report.codec import parse_report
from activation.report.matrix import of_report
from activation.report.merge import merge_saved
from activation.trials.fake import scripted
from tests.support.cli import by_id, read_report, tallies
from tests.support.fake_stages import FakeStages
from tests.support.skill_repo import SkillRepo, case, write_cases

CASES = [case(f"case-{i:02}", f"refund request number {i}", i % 3 != 0) for i in range(12)]
ANSWERS = scripted(
    {
        # positives that drop: one clearly, one only at first
        ("case-01", "baseline"): [True],
        ("case-01", "candidate"): [False],
        ("case-02", "baseline"): [True],
        ("case-02", "candidate"): [True, False, False],
        # a negative that starts firing with the candidate
        ("case-03", "candidate"): [True],
        # a positive that comes back
        ("case-04", "baseline"): [False],
        ("case-04", "candidate"): [True],
        # errors on one side
        ("case-05", "candidate"): [True, None],
        # the rest: positives fire, negatives stay quiet
        **{c["id"]: [bool(c["should_activate"])] for c in CASES if c["id"] not in {"case-03"}},
        "case-03": [False],
    }
)


def run_to(
    tmp_path: Path, name: str, *flags: str, answers: FakeStages | None = None
) -> tuple[int, Path]:
    """A run (or a shard) that asks every trial: no cache, so shards and the whole run are
    the same draws, compared trial for trial."""
    cases = write_cases(tmp_path / "cases.json", CASES)
    report = tmp_path / f"{name}.json"
    code = main(
        [
            "--cases", str(cases), "--distractors", str(tmp_path / "distractors"),
            "--json", str(report), "--no-cache", *flags,
        ],
        answers or FakeStages(ANSWERS),
    )  # fmt: skip
    return code, report


def untimed(trials: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Trials as their outcomes: without the wall time, which no two runs share."""
    return [{key: value for key, value in trial.items() if key != "seconds"} for trial in trials]


def merge(*reports: Path, out: Path, more: tuple[str, ...] = ()) -> int:
    return main(["merge", *map(str, reports), "--json", str(out), *more])


def test_shards_merged_judge_like_one_run(tmp_path: Path, repo: SkillRepo) -> None:
    whole_code, whole = run_to(tmp_path, "whole")
    shards = [run_to(tmp_path, f"shard-{i}", "--shard", f"{i}/3") for i in (1, 2, 3)]
    merged = tmp_path / "merged.json"
    junit = tmp_path / "merged.xml"
    code = merge(*(path for _code, path in shards), out=merged, more=("--junit", str(junit)))
    one = read_report(whole)
    together = read_report(merged)
    assert (code, whole_code) == (together["exit_code"], one["exit_code"]) == (1, 1)
    assert [e["id"] for e in together["cases"]] == [c["id"] for c in CASES]
    for case_id, entry in by_id(one).items():
        merged_entry = by_id(together)[case_id]
        assert merged_entry["status"] == entry["status"], case_id
        assert tallies(merged_entry) == tallies(entry), case_id
        assert merged_entry["q_value"] == entry["q_value"], case_id
        assert untimed(merged_entry["trials"]) == untimed(entry["trials"]), case_id
    assert together["summary"] == one["summary"]
    assert together["usage"] == one["usage"]
    assert together["fingerprint"] == one["fingerprint"]
    assert together["shard"] is None
    assert junit.read_text().count("<testcase ") == len(CASES)
    assert junit.read_text().count("<failure ") == len(one["summary"]["regressed"])
    statuses = {case_id: entry["status"] for case_id, entry in by_id(one).items()}
    assert statuses["case-01"] == "REGRESSED"
    assert statuses["case-05"] == "ERROR"
    for index, (_code, path) in enumerate(shards, start=1):
        shard = read_report(path)
        assert shard["shard"]["index"] == index
        assert shard["shard"]["count"] == 3
        assert shard["shard"]["run_cases"] == [c["id"] for c in CASES]
        assert shard["fingerprint"] == one["fingerprint"]
        assert [e["id"] for e in shard["cases"]] == [
            c["id"] for c in CASES if shard_of(str(c["id"]), 3) == index
        ]


def test_merged_trials_keep_their_cache_flag_and_a_shards_ceiling_stays_hit(
    tmp_path: Path, repo: SkillRepo
) -> None:
    first, second = (
        parse_report(read_report(run_to(tmp_path, f"s{i}", "--shard", f"{i}/2")[1]), "s")
        for i in (1, 2)
    )
    entry = first.cases[0]
    served = tuple(replace(record, cached=True) for record in entry.trials)
    first = replace(first, cases=(replace(entry, trials=served), *first.cases[1:]))
    second = replace(second, ceiling_hit=True)
    matrix = merge_saved([("s1", of_report(first)), ("s2", of_report(second))], "test").report
    merged = matrix.single  # shards of one cell merge into one cell
    assert merged is not None
    (again,) = [each for each in merged.cases if each.case.id == entry.case.id]
    assert [record.cached for record in again.trials] == [True] * len(served)
    others = [record.cached for each in merged.cases if each is not again for record in each.trials]
    assert others and not any(others)
    assert merged.ceiling_hit is True


def test_a_missing_shard_is_incomplete_evidence(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = FakeStages(scripted({c["id"]: [bool(c["should_activate"])] for c in CASES}))
    shards = [run_to(tmp_path, f"s{i}", "--shard", f"{i}/3", answers=quiet)[1] for i in (1, 3)]
    merged = tmp_path / "merged.json"
    capsys.readouterr()
    assert merge(*shards, out=merged) == 3
    err = capsys.readouterr().err
    assert (
        "warning: missing shard(s) 2/3: their cases have no evidence, so the gate fails closed"
        in err
    )
    data = read_report(merged)
    assert data["summary"]["unfinished"] == [
        c["id"] for c in CASES if shard_of(str(c["id"]), 3) == 2
    ]
    assert data["exit_code"] == 3


def test_merge_refuses_reports_that_do_not_belong_together(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, one = run_to(tmp_path, "one", "--shard", "1/2")
    _code, again = run_to(tmp_path, "again", "--shard", "1/2")
    _code, other_run = run_to(tmp_path, "other", "--shard", "2/2", "--alpha", "0.01")
    _code, three = run_to(tmp_path, "three", "--shard", "2/3")
    _code, whole = run_to(tmp_path, "whole")
    out = tmp_path / "merged.json"
    capsys.readouterr()
    refusals = [
        ((one, again), f"{again}: shard 1/2 is also in {one}: shards overlap"),
        ((one, other_run), f"{other_run}: a different run than {one} (descriptions, cases"),
        ((one, three), f"{three}: not a shard of 2 like {one}"),
        ((whole, one), f"{whole}: not the report of a shard (run with --shard I/N)"),
    ]
    for reports, message in refusals:
        assert merge(*reports, out=out) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"activation merge: error: {message}"), line
    (tmp_path / "junk.json").write_text('{"schema": "x"}')
    assert merge(tmp_path / "junk.json", out=out) == 2
    assert "not an activation report" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0/3", "4/3", "1/0", "x/2", "2"])
def test_a_bad_shard_is_exit_2(
    value: str, tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _report = run_to(tmp_path, "bad", "--shard", value)
    assert code == 2
    assert f"--shard: must be I/N with 1 <= I <= N, like 2/3; got {value!r}" in (
        capsys.readouterr().err
    )


def test_shards_cover_every_case_once() -> None:
    ids = [f"id-{i}" for i in range(200)]
    for count in (1, 2, 3, 7):
        numbers = [shard_of(case_id, count) for case_id in ids]
        assert set(numbers) == set(range(1, count + 1))
        assert numbers == [shard_of(case_id, count) for case_id in ids]  # stable
    assert shard_of("case-00", 3) == shard_of("case-00", 3)
