"""Cells end to end: `--model a,b` and `--agent a,b` through the CLI, the real SDK over real
HTTP to the local stand-in, real git. Every case runs in every cell, significance is judged
across every (case, cell) pair, a regression in any cell fails the gate and is named, and
every output, the cache, shards, `merge`, `report` and `diff` work per cell."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from activation.commands.main import main
from activation.trials.agents import known
from tests.support.cli import one_line_error, read_report, run
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest, Reply
from tests.support.skill_repo import SKILL_ID, SkillRepo, case

HAIKU, SONNET = "claude-haiku-4-5", "claude-sonnet-4-6"
CELLS = [f"A/claude-code/{HAIKU}", f"A/claude-code/{SONNET}"]
CASES = [
    case("stripe-dispute", "a customer opened a stripe dispute, what now", True, ["disputes"]),
    case("plain-refund", "refund order 1234", True, ["refunds"]),
    case("charts-neg", "plot monthly revenue", False, ["negative"]),
]
FIXED = ("--trials", "5", "--max-trials", "5")
"""Five fixed trials: a unanimous flip has p = 4^-5, significant across six pairs."""


def haiku_loses_disputes(request: FakeRequest) -> Reply:
    """Haiku picks the skill for the dispute only while the description names Stripe (the
    baseline); Sonnet always does. Refunds always pick it, anything else a distractor."""
    if request.prompt == CASES[0]["prompt"]:
        knows = request.model == SONNET or "Stripe" in request.menu[SKILL_ID]
        return Answer([SKILL_ID] if knows else ["invoices"])
    return Answer([SKILL_ID] if request.prompt.startswith("refund") else ["charts"])


def statuses(report: dict[str, object]) -> dict[str, dict[str, str]]:
    cells = report["cells"]
    assert isinstance(cells, list)
    return {
        f"{cell['stage']}/{cell['coding_agent']}/{cell['model']}": {
            entry["id"]: entry["status"] for entry in cell["cases"]
        }
        for cell in cells
    }


def test_a_regression_in_one_cell_fails_the_gate_and_names_the_cell(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = haiku_loses_disputes
    junit, markdown = tmp_path / "cells.xml", tmp_path / "cells.md"
    code, report = run(tmp_path, CASES, "--model", f"{HAIKU},{SONNET}", *FIXED,
                       "--junit", str(junit), "--markdown", str(markdown))  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert report["schema"] == "activation-matrix/1"
    assert [cell["model"] for cell in report["cells"]] == [HAIKU, SONNET]
    assert statuses(report) == {
        CELLS[0]: {"stripe-dispute": "REGRESSED", "plain-refund": "PASS", "charts-neg": "PASS"},
        CELLS[1]: {"stripe-dispute": "PASS", "plain-refund": "PASS", "charts-neg": "PASS"},
    }
    (dispute,) = [e for e in report["cells"][0]["cases"] if e["id"] == "stripe-dispute"]
    # Benjamini-Hochberg over the six (case, cell) pairs, not the three cases of one cell
    assert dispute["p_value"] == pytest.approx(4.0**-5)
    assert dispute["q_value"] == pytest.approx(6 * 4.0**-5)
    assert [cell["exit_code"] for cell in report["cells"]] == [1, 0]
    # every case in every cell: 3 cases x 2 variants x 5 trials per model
    asked = [request.model for request in fake_api.requests]
    assert (asked.count(HAIKU), asked.count(SONNET)) == (30, 30)
    assert f"FAILED: the candidate regressed in {CELLS[0]}." in out
    assert f"cell {CELLS[1]}" in out
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [f"activation {SKILL_ID} [{c}]" for c in CELLS]
    assert [s.get("failures") for s in suites] == ["1", "0"]
    text = markdown.read_text()
    assert f"FAILED: the candidate regressed in {CELLS[0]}" in text.replace("\\", "")
    assert "| `stripe-dispute` | REGRESSED | PASS |" in text


def test_the_agreement_names_the_cases_the_cells_rate_differently(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = haiku_loses_disputes
    _code, report = run(tmp_path, CASES, "--model", f"{HAIKU},{SONNET}", *FIXED)
    by_variant = {item["variant"]: item for item in report["agreement"]}
    assert by_variant["candidate"]["cells"] == CELLS
    assert (by_variant["candidate"]["cases"], by_variant["candidate"]["same"]) == (3, 2)
    assert by_variant["candidate"]["disagree"] == ["stripe-dispute"]
    # Sonnet rates every case right: kappa is 0 and has no interval
    assert by_variant["candidate"]["kappa"] == 0.0
    assert by_variant["candidate"]["kappa_interval"] is None
    assert by_variant["baseline"]["disagree"] == []


def test_a_rerun_of_every_cell_comes_from_the_cache(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = haiku_loses_disputes
    run(tmp_path, CASES, "--model", f"{HAIKU},{SONNET}", *FIXED)
    sent = len(fake_api.requests)
    code, report = run(tmp_path, CASES, "--model", f"{HAIKU},{SONNET}", *FIXED)
    assert code == 1
    assert len(fake_api.requests) == sent
    assert [cell["usage"]["from_cache"] for cell in report["cells"]] == [30, 30]


def test_shards_of_a_matrix_merge_into_the_whole_matrix(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = haiku_loses_disputes
    flags = ("--model", f"{HAIKU},{SONNET}", *FIXED, "--no-cache")
    _code, whole = run(tmp_path, CASES, *flags)
    parts = []
    for index in (1, 2, 3):
        path = tmp_path / f"shard-{index}.json"
        code, shard = run(tmp_path, CASES, *flags, "--shard", f"{index}/3")
        (tmp_path / "report.json").rename(path)
        assert shard["shard"]["index"] == index
        parts.append(path)
    pairs = [len(cell["cases"]) for part in parts for cell in read_report(part)["cells"]]
    assert sum(pairs) == 6  # each (case, cell) pair in exactly one shard
    merged_path = tmp_path / "merged.json"
    code = main(["merge", *map(str, parts), "--json", str(merged_path)])
    merged = read_report(merged_path)
    assert code == 1
    assert statuses(merged) == statuses(whole)
    q = [[e["q_value"] for e in cell["cases"]] for cell in merged["cells"]]
    assert q == [[e["q_value"] for e in cell["cases"]] for cell in whole["cells"]]


def test_report_and_diff_work_per_cell(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_api.script = lambda request: Answer(
        [SKILL_ID] if request.prompt != CASES[2]["prompt"] else ["charts"]
    )
    flags = ("--model", f"{HAIKU},{SONNET}", *FIXED, "--no-cache")
    run(tmp_path, CASES, *flags)
    old = tmp_path / "old.json"
    (tmp_path / "report.json").rename(old)
    fake_api.script = haiku_loses_disputes
    run(tmp_path, CASES, *flags)
    new = tmp_path / "report.json"
    capsys.readouterr()
    assert main(["report", str(new)]) == 0
    shown = capsys.readouterr().out
    assert f"FAILED: the candidate regressed in {CELLS[0]}." in shown
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert f"cell {CELLS[0]}" in out and f"cell {CELLS[1]}" in out
    assert "regressed (1): stripe-dispute" in out
    assert f"FAILED: cases that passed in OLD regressed in NEW in {CELLS[0]}." in out


def test_agents_and_models_make_the_cells_of_a_dry_run_priced_in_all(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _report = run(tmp_path, CASES, "--model", f"{HAIKU},{SONNET}",
                        "--agent", "claude-code,opencode", "--dry-run")  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert fake_api.message_requests == []  # only the free token counts
    cells = [
        f"A/{agent}/{model}" for agent in ("claude-code", "opencode") for model in (HAIKU, SONNET)
    ]
    headers = [line.strip("─ ") for line in out.splitlines() if line.startswith("─")]
    assert headers == [f"cell {cell}" for cell in cells]
    assert out.count("Dry run: Stage A in OpenCode's listing, skill") == 2
    costs = [line for line in out.splitlines() if line.startswith("cost at ")]
    firsts = [float(line.split("first round $")[1].split(",")[0]) for line in costs]
    worsts = [float(line.split("worst case $")[1].split(" ")[0]) for line in costs]
    total = next(line for line in out.splitlines() if line.startswith("4 cells: "))
    first, worst = total.removeprefix("4 cells: first round $").split(", worst case $")
    # the cells' figures are each shown to $0.0001, the total from the unrounded figures
    assert float(first) == pytest.approx(sum(firsts), abs=4 * 0.00005)
    assert float(worst.removesuffix(" in all")) == pytest.approx(sum(worsts), abs=0.005)


def test_an_unknown_agent_is_one_line_and_exit_2(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _report = run(tmp_path, CASES, "--agent", "claude-code,cursor", "--model", "mock")
    assert code == 2
    assert one_line_error(capsys) == (
        "activation: error: argument --agent: unknown agent cursor: choose from "
        f"{', '.join(known())} (see activation --help)"
    )


def test_the_mock_in_three_agents_listings_runs_offline(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(tmp_path, CASES, "--agent", "claude-code,opencode,codex",
                       "--model", "mock", *FIXED)  # fmt: skip
    out = capsys.readouterr().out
    agents = ["claude-code", "opencode", "codex"]
    assert code == 1  # the mock's word overlap loses the dispute without "Stripe disputes"
    assert [cell["coding_agent"] for cell in report["cells"]] == agents
    assert {cell: found["stripe-dispute"] for cell, found in statuses(report).items()} == {
        f"A/{agent}/mock": "REGRESSED" for agent in agents
    }
    cells = ", ".join(f"A/{agent}/mock" for agent in agents)
    assert f"FAILED: the candidate regressed in {cells}." in out
    assert len(report["agreement"]) == 6  # three pairs of cells, two variants each
    assert report["usage"]["cost_usd"] == 0.0
    assert report["usage"]["requests"] == 3 * 3 * 2 * 5


def test_the_ceiling_is_the_whole_runs_over_every_cell(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    """One ceiling for the run: once the cells together would pass it, no cell starts a
    trial, and the cases left without evidence are ERROR (exit 3)."""
    fake_api.script = haiku_loses_disputes
    flags = ("--model", f"{HAIKU},{SONNET}", *FIXED, "--concurrency", "1", "--no-cache")
    code, report = run(tmp_path, CASES, *flags, "--max-cost-usd", "0.02")
    assert code == 3
    cells = report["cells"]
    assert [cell["ceiling_hit"] for cell in cells] == [True, True]
    spent = sum(cell["usage"]["cost_usd"] for cell in cells)
    assert (
        0
        < spent
        <= 0.02
        + 2
        * max(  # at most the trials in flight past it, one a cell
            trial["usage"]["cost_usd"]
            for cell in cells
            for e in cell["cases"]
            for trial in e["trials"]
        )
    )
    assert report["usage"]["cost_usd"] == pytest.approx(spent)
    errors = [t["error"] for c in cells for e in c["cases"] for t in e["trials"] if t["error"]]
    assert errors and set(errors) == {"cost ceiling"}


def test_each_cell_goes_out_as_its_own_batch(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = haiku_loses_disputes
    fake_api.batch_processing = 0.2
    code, report = run(tmp_path, CASES, "--model", f"{HAIKU},{SONNET}", *FIXED, "--batch")
    assert code == 1
    assert fake_api.message_requests == []
    models = sorted({r.model for b in fake_api.batches.values() for r in b.requests})
    assert models == [HAIKU, SONNET]
    assert all(len({r.model for r in b.requests}) == 1 for b in fake_api.batches.values())
    assert statuses(report)[CELLS[0]]["stripe-dispute"] == "REGRESSED"
    assert [cell["batch"] for cell in report["cells"]] == [True, True]


def test_agents_of_different_providers_each_get_the_models_they_run(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex runs OpenAI's models and Gemini CLI Google's: every agent with every model was
    four cells of which two refuse, so no Stage B or C run could hold both agents."""
    both = ("--agent", "codex,gemini", "--model", "openai:gpt-5,google:gemini-2.5-pro")
    code, _report = run(tmp_path, CASES, "--real", "--dry-run", "--only", "plain-refund", *both)
    out = capsys.readouterr().out
    assert code == 0
    headers = [line.strip("─ ") for line in out.splitlines() if line.startswith("─")]
    assert headers == ["cell B/codex/openai:gpt-5", "cell B/gemini/google:gemini-2.5-pro"]
    code, _report = run(tmp_path, CASES, "--real", "--dry-run", "--only", "plain-refund",
                        "--agent", "codex,gemini", "--model", "openai:gpt-5")  # fmt: skip
    assert code == 2
    assert one_line_error(capsys) == (
        "activation: error: --agent gemini: no --model given is one Gemini CLI runs (models "
        "of google): add --model google:<id>"
    )


@pytest.mark.parametrize(
    ("stage", "agents", "models", "pairs"),
    [
        (
            "A",
            ("codex", "gemini"),
            ("openai:gpt-5",),
            [("codex", "openai:gpt-5"), ("gemini", "openai:gpt-5")],
        ),
        ("C", ("codex",), ("google:g",), [("codex", "google:g")]),
        ("C", ("codex", "gemini"), None, [("codex", None), ("gemini", None)]),
        (
            "C",
            ("copilot", "codex", "gemini"),
            ("openai:gpt-5", "google:g", "mock"),
            [
                ("copilot", "openai:gpt-5"),
                ("copilot", "mock"),
                ("codex", "openai:gpt-5"),
                ("codex", "mock"),
                ("gemini", "google:g"),
                ("gemini", "mock"),
            ],
        ),
    ],
)
def test_models_pair_with_agents_only_where_the_agent_runs_them(
    stage: str,
    agents: tuple[str, ...],
    models: tuple[str, ...] | None,
    pairs: list[tuple[str, str | None]],
) -> None:
    """Stage A's model reads the listing, whatever the agent; one agent keeps its model (its
    own refusal says why); a model no agent runs (the mock) stays with every agent."""
    from activation.commands.runner import agent_models
    from activation.trials.stage import stage_named

    assert agent_models(stage_named(stage), agents, models) == pairs
