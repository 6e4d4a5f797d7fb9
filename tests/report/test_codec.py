"""The report's codec: a run's records written as JSON, read back to the same report, the
JSON Schema generated from the types and shipped, and `/2` reports still read."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import anyio
import jsonschema
import orjson
import pytest

from activation._errors import ExitCode, InputError
from activation._models import (
    FLAGGED,
    AgentSettings,
    BehaviorOptions,
    RunSpec,
    Status,
    ToolCall,
    Trajectory,
    Trial,
)
from activation.commands.main import main
from activation.report.codec import (
    JUDGED,
    compact_cell,
    failure_json,
    parse_report,
    report_data,
    report_json,
)
from activation.report.model import Report, build_report
from activation.report.schemas import report_schema
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, scripted
from activation.trials.simulate import simulated_inputs, typical
from activation.verdicts.judge import evidence_in, judge_groups
from tests.support.behavior_reports import behavior_outcome
from tests.support.skill_repo import SkillRepos, case, write_cases

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "reports"
SPECS = [RunSpec(), RunSpec(stage="B", trials=2, max_trials=2, agent=AgentSettings(version="2.1"))]


def a_report(spec: RunSpec, full: bool = False) -> bytes:
    inputs = simulated_inputs(typical(4))
    answers = scripted(
        {
            ("case-0", "baseline"): [True],
            ("case-0", "candidate"): [False],
            ("case-1", "candidate"): [True, None, True],
            "case-1": [True],
            "case-2": [True, False],
            "case-3": [True],
        }
    )
    outcome = anyio.run(execute_async, spec, inputs, FakeBackend(answers))
    report = build_report(outcome, "9.9.9", warnings=("a warning",), rerun=("--trials", "5"))
    return report_json(report, full)


def key_paths(data: object, prefix: str = "") -> set[str]:
    """Every key of a JSON value, as paths ("cases[].trials[].usage.requests")."""
    if isinstance(data, dict):
        found = set()
        for key, value in data.items():
            path = f"{prefix}.{key}" if prefix else key
            found |= {path} | key_paths(value, path)
        return found
    if isinstance(data, list | tuple):
        return set().union(*(key_paths(item, prefix + "[]") for item in data))
    return set()


@pytest.mark.parametrize("spec", SPECS, ids=["A", "B"])
def test_a_saved_report_reads_back_to_the_same_report(spec: RunSpec) -> None:
    saved = a_report(spec)
    report = parse_report(orjson.loads(saved), "saved.json")
    assert report_json(report) == saved
    assert (report.version, report.warnings, report.rerun) == (
        "9.9.9",
        ("a warning",),
        ("--trials", "5"),
    )
    statuses = {entry.id: entry.status for entry in report.cases}
    assert statuses["case-1"] is Status.ERROR
    assert statuses["case-3"] is Status.PASS
    assert report.cases[0].trials[0].case_id == "case-0"


def test_what_is_not_a_report_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"^x.json: not an activation report"):
        parse_report({"schema": "something-else"}, "x.json")
    with pytest.raises(InputError, match=r"^x.json: not an activation report"):
        parse_report([1, 2], "x.json")
    stopped = orjson.loads(failure_json(ExitCode.USAGE, "no API key", "1.0"))
    with pytest.raises(InputError, match=r"the report of a run that stopped early \(no API key\)"):
        parse_report(stopped, "x.json")
    damaged = orjson.loads(a_report(RunSpec()))
    del damaged["summary"]
    with pytest.raises(InputError, match=r"^x.json: a damaged activation report \(.*summary"):
        parse_report(damaged, "x.json")
    damaged = orjson.loads(a_report(RunSpec()))
    damaged["cases"][0]["status"] = "MAYBE"
    with pytest.raises(InputError, match=r"Invalid enum value 'MAYBE' - at `\$.cases\[0\].status`"):
        parse_report(damaged, "x.json")


def test_the_json_names_every_figure() -> None:
    data = orjson.loads(a_report(RunSpec(), full=True))
    assert set(data) == {
        "schema", "version", "exit_code", "error", "interrupted", "stage", "model", "trials",
        "max_trials", "alpha", "seed", "concurrency", "max_concurrency", "fingerprint",
        "shard", "batch", "resume", "fail_on", "max_cost_usd", "ceiling_hit", "peak_concurrency",
        "final_concurrency", "pricing", "agent", "coding_agent", "skill", "baseline",
        "candidate", "body_diff", "notice", "warnings", "rerun", "cases", "summary", "usage",
        "arms", "invoke", "judge_model", "judge_samples", "pass_k", "cost_margin", "behavior",
        "less_visible",
        "unseen", "distractors", "against", "trial_detail", "min_coverage", "retried",
    }  # fmt: skip
    assert set(data["usage"]) == {
        "requests", "from_cache", "input_tokens", "output_tokens", "cache_write_tokens",
        "cache_read_tokens", "cost_usd", "throttled",
    }  # fmt: skip
    assert set(data["cases"][0]["trials"][0]) == {
        "case_id", "variant", "index", "reading", "activated", "evidence", "error",
        "transcript", "cached", "usage", "chose", "correct", "grades", "files", "workspace",
        "trajectory", "error_class", "seconds",
    }  # fmt: skip
    assert set(data["summary"]) == {
        "baseline", "candidate", "regressed", "weakened", "improved", "unstable", "errors",
        "unfinished", "escalated", "extra_calls", "baseline_routing", "candidate_routing",
        "coverage", "errors_by_class",
    }  # fmt: skip
    assert set(data["summary"]["baseline_routing"]) == {"cells", "skills", "ambiguous"}
    assert set(data["baseline"]) == {"spec", "source", "description", "when_to_use", "skills",
                                     "seen", "chars"}  # fmt: skip
    assert set(data["baseline"]["seen"][0]) == {
        "id", "state", "chars", "kept", "rule", "budget_by", "loadable", "load_rule",
    }  # fmt: skip
    steady = data["cases"][3]
    assert steady["trials_run"] == {"baseline": 3, "candidate": 3}
    assert steady["baseline"] == {"activated": 3, "valid": 3, "errors": 0, "correct": 3,
                                  "routes": {}, "verdict": True, "right": True}  # fmt: skip
    assert orjson.loads(report_json(parse_report(data, "x"), full=True)) == data


@pytest.mark.parametrize("name", ["v2-stage-a", "v2-stage-b"])
def test_a_v2_report_reads_and_v4_keeps_every_v2_field(name: str) -> None:
    """Saved with activation 0.2.0: `report`, `diff` and `merge` read it, and /4 adds to
    /2 without renaming, dropping or changing any field."""
    old = orjson.loads((FIXTURES / f"{name}.json").read_bytes())
    report = parse_report(old, f"{name}.json")
    new = report_data(report)
    assert key_paths(old) <= key_paths(new)
    assert new["schema"] == "activation-report/4"

    def same(before: object, after: object, path: str) -> None:
        if isinstance(before, dict):
            assert isinstance(after, dict), path
            for key, value in before.items():
                if path == "" and key == "schema":
                    continue
                same(value, after[key], f"{path}.{key}")
        elif isinstance(before, list):
            assert isinstance(after, list | tuple) and len(after) == len(before), path
            for position, (one, other) in enumerate(zip(before, after, strict=True)):
                same(one, other, f"{path}[{position}]")
        else:
            assert before == after, path

    same(old, new, "")


@pytest.mark.parametrize("spec", SPECS, ids=["A", "B"])
def test_the_schema_validates_reports_and_refuses_what_is_not_one(spec: RunSpec) -> None:
    validator = jsonschema.Draft202012Validator(report_schema())
    data = orjson.loads(a_report(spec))
    validator.validate(data)
    validator.validate(orjson.loads(failure_json(ExitCode.INTERNAL, "a bug", "1.0")))
    data["cases"][0]["baseline"]["valid"] = "three"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(data)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"schema": "activation-report/4", "version": "1.0"})


@pytest.mark.parametrize("name", ["v2-stage-a", "v2-stage-b"])
def test_an_older_report_gets_its_correct_counts_from_activation(name: str) -> None:
    old = orjson.loads((FIXTURES / f"{name}.json").read_bytes())
    report = parse_report(old, f"{name}.json")
    for before, after in zip(old["cases"], report.cases, strict=True):
        for variant in ("baseline", "candidate"):
            counts = before[variant]
            wanted = counts["activated"] if before["should_activate"] else (
                counts["valid"] - counts["activated"]
            )  # fmt: skip
            assert after.tally(variant).correct == wanted
        for trial in after.trials:
            expected = None if trial.is_error else trial.activated == after.should_activate
            assert trial.correct == expected
    assert any(entry.tally("baseline").correct for entry in report.cases)


# --- compact reports: per-trial detail for flagged cases only, the rest judged the same ----


def built_report(spec: RunSpec) -> Report:
    return parse_report(orjson.loads(a_report(spec, full=True)), "full.json")


@pytest.mark.parametrize("spec", SPECS, ids=["A", "B"])
def test_a_compact_report_keeps_detail_for_flagged_cases_only(spec: RunSpec) -> None:
    """A flagged case's trials read back exactly (only their defaults are left out); the
    others' read back without their detail."""
    report = built_report(spec)
    full, compact = orjson.loads(report_json(report, full=True)), orjson.loads(report_json(report))
    assert (full["trial_detail"], compact["trial_detail"]) == ("all", "flagged")
    jsonschema.Draft202012Validator(report_schema()).validate(compact)
    again = parse_report(compact, "compact.json")
    detail = ("evidence", "transcript", "usage", "cached", "files", "workspace")
    for before, after, kept in zip(report.cases, again.cases, compact["cases"], strict=True):
        assert replace(after, trials=()) == replace(before, trials=())
        if before.status in FLAGGED:
            assert after.trials == before.trials
            assert "reading" in kept["trials"][0]
            continue
        assert after.trials == tuple(
            replace(trial, **{name: getattr(Trial("", "baseline", 0, None), name)
                              for name in detail})
            for trial in before.trials
        )  # fmt: skip
        assert set(kept["trials"][0]) <= set(JUDGED)  # not even the derived `reading`
    assert {entry.status for entry in report.cases} >= {Status.PASS, Status.ERROR}
    assert report.cases[0].status in FLAGGED
    first = compact["cases"][0]["trials"][0]  # flagged: in detail, its defaults left out
    assert 0 <= first.pop("seconds") < 5  # its wall time, which no two runs share
    assert first == {"case_id": "case-0", "variant": "baseline", "index": 0, "activated": True,
                     "evidence": "scripted: activated", "usage": {"requests": 1},
                     "correct": True, "reading": "activated"}  # fmt: skip


@pytest.mark.parametrize("spec", SPECS, ids=["A", "B"])
def test_a_compact_report_reads_back_judged_the_same(spec: RunSpec) -> None:
    """Every verdict is computed again from the compact trials, as `merge` does, and comes
    out the same; written again, the report is the same bytes."""
    report = built_report(spec)
    saved = report_json(report)
    again = parse_report(orjson.loads(saved), "compact.json")
    assert again.trial_detail == "flagged"
    assert report_json(again) == saved
    assert report_json(again, full=True) != report_json(report, full=True)  # detail is gone
    judged = judge_groups([evidence_in(again.cases)], again.alpha)[0]
    assert [(entry.status, entry.q_value, entry.baseline, entry.candidate) for entry in judged] == [
        (entry.status, entry.q_value, entry.baseline, entry.candidate) for entry in report.cases
    ]
    assert again.summary == report.summary


def test_a_compact_trial_keeps_a_wrong_answer() -> None:
    trial = {"case_id": "c", "variant": "baseline", "index": 2, "activated": False,
             "evidence": "chose nothing", "error": None, "transcript": None, "usage": {},
             "cached": True, "chose": [], "correct": False, "grades": [], "files": [],
             "workspace": None, "reading": "not_activated"}  # fmt: skip
    entry = {"status": "FAIL", "trials": [trial]}
    compact = compact_cell({"cases": [entry]})
    assert compact["cases"][0]["trials"] == [
        {"case_id": "c", "variant": "baseline", "index": 2, "activated": False, "correct": False}
    ]


@pytest.mark.parametrize("name", ["v2-stage-a", "v2-stage-b"])
def test_an_older_report_holds_every_trials_detail(name: str) -> None:
    old = orjson.loads((FIXTURES / f"{name}.json").read_bytes())
    assert parse_report(old, f"{name}.json").trial_detail == "all"


def test_the_run_writes_a_compact_report_unless_asked_for_the_whole_record(
    skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = skill_repo(candidate="Use when issuing refunds or answering chargebacks.").root
    monkeypatch.chdir(root)
    cases = write_cases(
        tmp_path / "cases.json",
        [
            case("refund", "issuing refunds for order 12", True),
            case("chargeback", "answering chargebacks today", False),
            case("csv", "export the orders to csv", False),
        ],
    )
    argv = ["--model", "mock", "--cases", str(cases), "--no-summary"]
    sizes = {}
    for name, extra in (("compact", []), ("full", ["--full-record"])):
        out = tmp_path / f"{name}.json"
        main([*argv, "--json", str(out), *extra])
        data = orjson.loads(out.read_bytes())
        sizes[name] = len(out.read_bytes())
        assert data["trial_detail"] == {"compact": "flagged", "full": "all"}[name]
        statuses = {entry["id"]: entry["status"] for entry in data["cases"]}
        assert statuses == {"refund": "PASS", "chargeback": "REGRESSED", "csv": "PASS"}
        detailed = {entry["id"] for entry in data["cases"] if "usage" in entry["trials"][0]}
        assert detailed == ({"chargeback"} if name == "compact" else set(statuses))
    assert sizes["compact"] < sizes["full"]
    zipped = tmp_path / "report.json.gz"
    main([*argv, "--json", str(zipped)])
    assert orjson.loads(gzip.decompress(zipped.read_bytes()))["trial_detail"] == "flagged"
    assert main(["report", str(zipped)]) == 0
    assert main(["diff", str(tmp_path / "full.json"), str(zipped)]) == 0


# --- the spec: Stage C's options are one record on it, flat keys in the JSON -------------

SPEC_KEYS = [
    "stage", "model", "trials", "max_trials", "alpha", "seed", "concurrency",
    "max_concurrency", "agent", "shard", "pricing", "max_cost_usd", "batch", "resume",
    "fail_on", "coding_agent", "min_coverage", "arms", "invoke", "judge_model", "judge_samples",
    "pass_k", "cost_margin", "schema",
]  # fmt: skip
"""A report's first keys, in the order every `activation-report/4` has written them."""


@pytest.mark.parametrize("spec", SPECS, ids=["A", "B"])
def test_a_report_gives_back_the_spec_it_ran_with(spec: RunSpec) -> None:
    data = orjson.loads(a_report(spec))
    assert list(data)[: len(SPEC_KEYS)] == SPEC_KEYS
    assert (data["arms"], data["invoke"], data["judge_model"]) == ([], False, None)
    read = parse_report(data, "saved.json")
    assert read.spec == spec
    assert read.spec.behavior is None


def test_a_behavior_report_keeps_stage_c_options_flat_and_reads_them_back_as_one_record() -> None:
    options = BehaviorOptions(arms=("none",), invoke=True, judge_model="mock")
    outcome = behavior_outcome()
    spec = replace(outcome.spec, behavior=options)
    data = orjson.loads(report_json(build_report(replace(outcome, spec=spec), "9.9.9")))
    assert list(data)[: len(SPEC_KEYS)] == SPEC_KEYS
    assert (data["arms"], data["invoke"], data["judge_model"]) == (["none"], True, "mock")
    assert data["behavior"]["arms"] == ["baseline", "candidate", "none"]  # the run's figures
    read = parse_report(data, "behavior.json")
    assert read.spec == spec
    assert read.spec.behavior == options
    assert read.spec.controls == ("none",)


def test_kept_workspaces_are_written_in_the_agent_record_and_read_back_as_stage_c_options() -> None:
    options = BehaviorOptions(arms=("none",), keep_workspaces="/tmp/kept")
    agent = AgentSettings(12, 900.0, "2.1", executables={"claude-code": "/opt/claude"})
    outcome = behavior_outcome()
    spec = replace(outcome.spec, agent=agent, behavior=options)
    data = orjson.loads(report_json(build_report(replace(outcome, spec=spec), "9.9.9")))
    assert list(data)[: len(SPEC_KEYS)] == SPEC_KEYS
    assert data["agent"] == {
        "max_turns": 12,
        "timeout": 900.0,
        "version": "2.1",
        "sandbox": "host",
        "canary": True,
        "executor": "local",
        "executables": {"claude-code": "/opt/claude"},
        "claude": "/opt/claude",
        "image": "activation-sandbox:bookworm",
        "keep_workspaces": "/tmp/kept",
    }
    assert "keep_workspaces" not in data
    read = parse_report(data, "behavior.json").spec
    assert read == spec
    assert type(read.agent) is AgentSettings
    assert read.behavior == options


DID = Trajectory(
    tool_calls=(ToolCall("Skill", '{"skill":"cards"}'), ToolCall("Bash", '{"command":"ls"}', 2)),
    commands=("ls",),
    files_read=("references/format.md",),
    turns=3,
    measured=frozenset({"seconds", "turns", "output_tokens", "tool_calls", "input_tokens"}),
)


def test_a_trials_trajectory_is_whole_in_the_full_record_and_without_inputs_in_compact() -> None:
    report = built_report(RunSpec())
    trials = tuple(replace(trial, trajectory=DID) for trial in report.cases[0].trials)
    report = replace(report, cases=(replace(report.cases[0], trials=trials), *report.cases[1:]))
    full, compact = orjson.loads(report_json(report, full=True)), orjson.loads(report_json(report))
    measured = ["input_tokens", "output_tokens", "turns", "tool_calls", "seconds"]
    assert full["cases"][0]["trials"][0]["trajectory"] == {
        "tool_calls": [{"name": "Skill", "input": '{"skill":"cards"}', "turn": 1},
                       {"name": "Bash", "input": '{"command":"ls"}', "turn": 2}],
        "commands": ["ls"], "files_read": ["references/format.md"], "files_written": [],
        "turns": 3, "measured": measured,
    }  # fmt: skip
    assert compact["cases"][0]["trials"][0]["trajectory"] == {
        "tool_calls": [{"name": "Skill"}, {"name": "Bash", "turn": 2}],
        "commands": ["ls"], "files_read": ["references/format.md"], "turns": 3,
        "measured": measured,
    }  # fmt: skip
    again = parse_report(compact, "compact.json").cases[0].trials[0].trajectory
    assert again == replace(DID, tool_calls=(ToolCall("Skill"), ToolCall("Bash", turn=2)))
    jsonschema.Draft202012Validator(report_schema()).validate(compact)
