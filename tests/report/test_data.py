"""The report model: built from a run, written as JSON, and read back to the same report."""

from __future__ import annotations

import anyio
import orjson
import pytest

from activation._errors import ExitCode, InputError
from activation._models import AgentSettings, RunSpec, Status
from activation.report.data import (
    build_report,
    failure_json,
    parse_report,
    report_dict,
    report_json,
)
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend, scripted
from activation.trials.simulate import _inputs, typical


def a_report(spec: RunSpec) -> bytes:
    inputs = _inputs(typical(4))
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
    return report_json(report)


@pytest.mark.parametrize(
    "spec",
    [RunSpec(), RunSpec(stage="B", trials=2, max_trials=2, agent=AgentSettings(version="2.1"))],
    ids=["A", "B"],
)
def test_a_saved_report_reads_back_to_the_same_report(spec: RunSpec) -> None:
    saved = a_report(spec)
    report = parse_report(orjson.loads(saved), "saved.json")
    assert report_json(report) == saved
    assert report.version == "9.9.9"
    assert report.warnings == ("a warning",)
    assert report.rerun == ("--trials", "5")
    statuses = {entry.case.id: entry.status for entry in report.cases}
    assert statuses["case-1"] is Status.ERROR
    assert statuses["case-3"] is Status.PASS


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
    with pytest.raises(InputError, match=r"^x.json: a damaged activation report"):
        parse_report(damaged, "x.json")


def test_the_json_names_every_figure() -> None:
    data = orjson.loads(a_report(RunSpec()))
    assert set(data) == {
        "schema", "version", "exit_code", "error", "interrupted", "stage", "model", "trials",
        "max_trials", "alpha", "seed", "concurrency", "fingerprint", "shard", "batch",
        "max_cost_usd", "ceiling_hit",
        "pricing", "agent", "skill", "baseline", "candidate", "warnings", "rerun", "cases",
        "summary", "usage",
    }  # fmt: skip
    assert set(data["usage"]) == {
        "requests", "from_cache", "input_tokens", "output_tokens", "cache_write_tokens",
        "cache_read_tokens", "cost_usd",
    }  # fmt: skip
    assert set(data["cases"][0]["trials"][0]) == {
        "variant", "index", "reading", "activated", "evidence", "cached", "usage",
    }  # fmt: skip
    assert set(data["summary"]) == {
        "baseline", "candidate", "regressed", "improved", "unstable", "errors", "unfinished",
        "escalated", "extra_calls",
    }  # fmt: skip
    assert report_dict(parse_report(data, "x")) == data
