"""An agent is one package and one registry line: a fake agent (tests/support/fake_agent),
registered by the test alone, runs through Stage A (the mock model over its listing),
Stage B (its CLI on the PATH), every output format, `detect` and a two-agent matrix, with
no other edit anywhere."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import junitparser
import pytest

from activation.commands.main import main
from activation.trials.agents import REGISTRY, agent_named, known
from activation.trials.classifier.prompt import system_text
from activation.trials.providers import mock
from tests.support.cli import BASELINE, CANDIDATE, by_id, one_line_error, run
from tests.support.fake_agent import AGENT, write_shim
from tests.support.fake_agent.listing import CLOSING, HEADING
from tests.support.skill_repo import DISTRACTORS, SkillRepo, case

ENTRY = re.compile(
    r"  <skill><name>(.*)</name><description>(.*)</description><location>(.*)</location></skill>"
)
FIXED = ("--trials", "3", "--max-trials", "3")
STAGE_A_CASES = [
    case("dispute", "a customer opened a stripe dispute, answer the disputes", True),
    case("refund", "issuing refunds for order 1234", True),
    case("charts", "plot monthly revenue", False),
]
STAGE_B_CASES = [
    case("named", "use refunds for order 1234", True),
    case("silent", "plot monthly revenue", False),
    case("missed", "give the buyer their money back", True),
]


@pytest.fixture(autouse=True)
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one line that adds an agent, for this test only."""
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")


def outputs(tmp_path: Path) -> dict[str, Path]:
    return {name: tmp_path / f"report.{name}" for name in ("junit", "markdown", "html")}


def output_flags(paths: dict[str, Path]) -> list[str]:
    return [flag for name, path in paths.items() for flag in (f"--{name}", str(path))]


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["status"] for entry in report["cases"]}


def entry_of(line: str) -> tuple[str, ...]:
    """(name, description, location) of one `<skill>` line of the fake's listing."""
    found = ENTRY.fullmatch(line)
    assert found is not None, line
    return found.groups()


def junit_properties(path: Path) -> dict[str, str]:
    suite = next(iter(junitparser.JUnitXml.fromfile(str(path))))
    return {p.name: p.value for p in suite.properties()}  # type: ignore[no-untyped-call]


def test_the_registry_hands_out_the_fake_agents_record() -> None:
    assert agent_named("fake") is AGENT
    assert AGENT.label() == "Fake Agent 1.0.0"
    assert AGENT.adapter().agent is AGENT


def test_stage_a_asks_the_model_in_the_fake_agents_listing(
    tmp_path: Path, repo: SkillRepo, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    systems: list[str] = []

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        systems.append(system_text(request))
        return original(request)

    original = mock.answer
    monkeypatch.setattr(mock, "answer", answer)
    paths = outputs(tmp_path)
    code, report = run(tmp_path, STAGE_A_CASES, "--agent", "fake", "--model", "mock",
                       *FIXED, *output_flags(paths))  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert statuses(report) == {"dispute": "REGRESSED", "refund": "PASS", "charts": "PASS"}
    assert report["coding_agent"] == "fake"
    assert by_id(report)["refund"]["candidate"]["routes"] == {"billing:refunds": 3}
    assert len(systems) == 3 * 3 * 2
    root = repo.root / ".agents" / "skills"
    shown: set[str] = set()
    for system in systems:  # the fake's instructions, then its listing, whole
        assert system.startswith(AGENT.instructions + HEADING + "\n")
        assert system.endswith(CLOSING)
        body = system.removeprefix(AGENT.instructions + HEADING + "\n").removesuffix(CLOSING)
        entries = {entry_of(line) for line in body.split("\n")}
        (refunds,) = (entry for entry in entries if entry[0] == "refunds")
        shown.add(refunds[1])
        assert entries == {
            ("refunds", refunds[1], f"{root}/refunds/SKILL.md"),
            *((name, text, f"{root}/{name}/SKILL.md") for name, text in DISTRACTORS.items()),
        }
    assert shown == {BASELINE, CANDIDATE}
    assert "Stage A in Fake Agent's listing, model mock" in out
    for text in (out, *(path.read_text() for path in paths.values())):
        assert "Claude Code" not in text
    markdown = paths["markdown"].read_text()
    assert "Stage A in Fake Agent's listing, model `mock`" in markdown
    html = paths["html"].read_text()
    assert "activation --real --agent fake --only dispute" in html
    assert "Stage A in Fake Agent&#39;s listing" in html
    properties = junit_properties(paths["junit"])
    assert (properties["stage"], properties["measured"]) == ("A", "Stage A in Fake Agent's listing")
    assert "agent" not in properties  # a Stage A run names no agent release


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake CLI as `fake-agent`, first on the PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    shim = write_shim(folder)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    return shim


def test_stage_b_runs_the_fake_cli_and_detect_reads_its_transcript_back(
    tmp_path: Path, repo: SkillRepo, on_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = outputs(tmp_path)
    code, report = run(tmp_path, STAGE_B_CASES, "--real", "--agent", "fake",
                       "--only", "named,silent,missed", *FIXED, *output_flags(paths))  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0  # a FAIL on both sides is no regression
    assert statuses(report) == {"named": "PASS", "silent": "PASS", "missed": "FAIL"}
    assert (report["coding_agent"], report["agent"]["version"]) == ("fake", "1.0.0")
    named = by_id(report)["named"]
    assert [t["reading"] for t in named["trials"]] == ["activated"] * 6
    assert named["trials"][0]["evidence"] == (
        "load 'refunds' returned the target's SKILL.md, nonce included (line 2); "
        "run stopped early at that point"
    )
    silent = by_id(report)["silent"]
    assert {t["reading"] for t in silent["trials"]} == {"not_activated"}
    assert (
        "Stage B on Fake Agent, 3 trial(s), alpha 0.05\nFake Agent 1.0.0, on the host (no "
        "sandbox)\n" in out
    )
    assert "Fake Agent 1.0.0" in paths["html"].read_text()
    assert junit_properties(paths["junit"])["agent"] == "Fake Agent 1.0.0"
    assert "Stage B on Fake Agent" in paths["markdown"].read_text()
    for text in (out, *(path.read_text() for path in paths.values())):
        assert "Claude Code" not in text
    for case_id, reading, fired in (("named", "activated", ["billing:refunds"]),
                                    ("silent", "not_activated", [])):  # fmt: skip
        trial = by_id(report)[case_id]["trials"][0]
        assert main(["detect", trial["transcript"], "--agent", "fake", "--skill",
                     "billing:refunds", "--json"]) == 0  # fmt: skip
        again = json.loads(capsys.readouterr().out)
        assert (again["reading"], again["fired"]) == (reading, fired)
        assert trial["evidence"].startswith(again["reason"])  # the run's own reading


def test_the_fake_agent_and_claude_code_make_a_two_cell_matrix(
    tmp_path: Path, repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = run(tmp_path, STAGE_A_CASES, "--agent", "fake,claude-code",
                       "--model", "mock", *FIXED)  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert [cell["coding_agent"] for cell in report["cells"]] == ["fake", "claude-code"]
    assert {cell["coding_agent"]: statuses(cell) for cell in report["cells"]} == {
        agent: {"dispute": "REGRESSED", "refund": "PASS", "charts": "PASS"}
        for agent in ("fake", "claude-code")
    }
    assert "FAILED: the candidate regressed in A/fake/mock, A/claude-code/mock." in out
    assert len(report["agreement"]) == 2  # one pair of cells, two variants
    assert report["usage"]["requests"] == 2 * 3 * 3 * 2


def test_detect_names_the_registered_agent_among_those_it_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = tmp_path / "candidate-0.jsonl"
    transcript.write_text('{"type": "start"}\n')
    assert main(["detect", str(transcript), "--agent", "cursor", "--skill", "refunds"]) == 2
    assert one_line_error(capsys) == (
        "activation detect: error: argument --agent: unknown agent cursor: choose from "
        f"{', '.join(known())} (see activation detect --help)"
    )
