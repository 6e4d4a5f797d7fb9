"""One conformance suite for every agent of the registry: what each agent's stream reader
makes of its captured streams (tests/fixtures/streams/<agent>/, the real CLIs' lines), the
same decoy read the same way everywhere, and each agent's listing read back as it was
rendered (how the mock model reads the menu it is sent); and, through each agent's real
pinned CLI at its local stand-in (its row of tests/support/real_agents.py), Stage A's
listing against the one the CLI sends, each renderer's listing byte for byte against the
CLI's on the skill sets of tests/trials/agents/fidelity_cases.py (and what the visibility
verdicts say of a cut, hidden or same-name skill), Stage B end to end, Stage C end to end
on the bundled behavior example and, under bubblewrap, on a cards suite graded on what the
agent did (tests/support/conformance_cards.py), and SIGTERM in the middle of a Stage B and
of a Stage C run (Stage B's runs under bubblewrap, which CI has: the sandbox's coverage is
these runs, not a second copy of them). A new agent is one row in each table;
`test_every_agent_has_a_row`, `test_every_agent_has_a_real_cli_row`,
`test_every_agent_has_a_cards_row` and `test_every_agent_has_listing_fidelity_checks` fail
until it has them.

The per-agent modules (tests/trials/agent/test_<agent>_stream.py, test_stream.py) keep what
is the agent's own: the reasons, the evidence, where a run can stop.
"""

from __future__ import annotations

import importlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from activation._models import RunSpec
from activation.commands.main import main
from activation.inputs.load import load_inputs
from activation.trials.agent import backend as backend_module
from activation.trials.agent.adapter import Detector, read_through
from activation.trials.agent.reading import Reading
from activation.trials.agent.sandbox import SOCKETS, egress_prefix
from activation.trials.agents import agent_named, every, known
from activation.trials.agents.claude_code.stream import StreamReader
from activation.trials.agents.codex.stream import CodexReader
from activation.trials.agents.copilot.stream import CopilotReader
from activation.trials.agents.gemini.stream import GeminiReader
from activation.trials.agents.opencode.stream import OpenCodeReader
from activation.trials.listing.model import ListedSkill
from activation.trials.stage import stage_named
from tests.support import conformance_cards as cards
from tests.support.agent_harness import (
    ABOVE,
    AXES,
    AXES_ID,
    LEAKY,
    SIBLING_ID,
    harness_for,
    leaky_skill,
    plant_user_config,
    working_tree,
)
from tests.support.behavior_repo import EXAMPLE, GUESS, example_repo
from tests.support.cli import HANG, Spawn, read_report, wait_until
from tests.support.npm_cli import processes_using
from tests.support.real_agents import ERROR, REAL_AGENTS, AtWork, RealAgent
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SKILL_PATH,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)
from tests.trials.agent import test_codex_stream as codex
from tests.trials.agent import test_copilot_stream as copilot
from tests.trials.agent import test_gemini_stream as gemini
from tests.trials.agent import test_opencode_stream as opencode
from tests.trials.agents import fidelity_cases as fidelity

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
SKILLS_OF_THE_EXAMPLE = EXAMPLE / "plugins" / "greetlib" / "skills"


def claude_code_checks(reading: Reading) -> None:
    assert reading.saw_init
    assert reading.reason
    assert reading.evidence[0].startswith("line 1: init: claude 2.1.332")


def saw_init(reading: Reading) -> None:
    assert reading.saw_init


def saw_init_and_result(reading: Reading) -> None:
    assert reading.saw_init and reading.saw_result


def copilot_checks(reading: Reading) -> None:
    saw_init_and_result(reading)
    assert (reading.input_tokens, reading.tokens_known, reading.cost_usd) == (0, False, None)


@dataclass(frozen=True)
class Captures:
    """An agent's captured streams and what its reader must make of each: (outcome, the
    skills fired; None where the table does not say)."""

    folder: Path
    reader: Callable[[], Detector]
    readings: Mapping[str, tuple[str, tuple[str, ...] | None]]
    exit_codes: Mapping[str, int]
    checks: Callable[[Reading], None]
    decoy: str
    """The capture of a load action for a skill name the run did not install."""


CAPTURES: dict[str, Captures] = {
    "claude-code": Captures(
        STREAMS,
        lambda: StreamReader("auth0:auth0"),
        {
            # from ../shared/claude-code/streams (its README's table)
            "skill.jsonl": ("activated", None),
            "skill-partial-messages.jsonl": ("activated", None),
            "subagent-skill.jsonl": ("activated", None),
            "text.jsonl": ("not_activated", None),
            "read-denied.jsonl": ("not_activated", None),
            "skill-unknown-name.jsonl": ("not_activated", None),
            "skill-tool-disabled.jsonl": ("error", None),
            "plugin-load-error.jsonl": ("error", None),
            "api-error-429.jsonl": ("error", None),
            # captured for this project (fixtures/streams/README.md)
            "skill-bare-name.jsonl": ("activated", None),
            "skill-slash-name.jsonl": ("activated", None),
            "skill-wrong-case.jsonl": ("not_activated", None),
            "glob-then-skill.jsonl": ("activated", None),
            "max-turns.jsonl": ("not_activated", None),
            "api-error-400.jsonl": ("error", None),
            "auth-401-retrying.jsonl": ("error", None),
            "dash-prompt-text.jsonl": ("not_activated", None),
        },
        {},
        claude_code_checks,
        "skill-unknown-name.jsonl",
    ),
    "codex": Captures(
        codex.STREAMS,
        lambda: CodexReader(codex.SKILLS),
        {
            "shell-cat.jsonl": ("activated", ("billing:refunds",)),
            "shell-cat-gpt-5.5.jsonl": ("activated", ("billing:refunds",)),
            "shell-sed-absolute.jsonl": ("activated", ("billing:refunds",)),
            "shell-both.jsonl": ("activated", ("billing:charts", "billing:refunds")),
            "shell-sibling.jsonl": ("not_activated", ("billing:charts",)),
            "shell-missing.jsonl": ("not_activated", ()),
            "shell-target-failed.jsonl": ("error", ()),
            "shell-declined.jsonl": ("error", ()),
            "shell-ls.jsonl": ("not_activated", ()),
            "shell-frontmatter.jsonl": ("not_activated", ()),
            "shell-bundled.jsonl": ("not_activated", ("skill-creator",)),
            "text.jsonl": ("not_activated", ()),
            "api-error-400.jsonl": ("error", ()),
            "auth-401.jsonl": ("error", ()),
            "throttled-429.jsonl": ("error", ()),
        },
        {"api-error-400.jsonl": 1, "auth-401.jsonl": 1, "throttled-429.jsonl": 1},
        saw_init,
        "shell-missing.jsonl",
    ),
    "copilot": Captures(
        copilot.STREAMS,
        lambda: CopilotReader(copilot.SKILLS),
        {
            "skill.jsonl": ("activated", ("billing:refunds",)),
            "skill-sibling.jsonl": ("not_activated", ("billing:charts",)),
            "skill-unknown.jsonl": ("not_activated", ()),
            "view-target.jsonl": ("not_activated", ()),
            "text.jsonl": ("not_activated", ()),
            "api-error-400.jsonl": ("error", ()),
            "auth-401.jsonl": ("error", ()),
        },
        {"api-error-400.jsonl": 1, "auth-401.jsonl": 1},
        copilot_checks,
        "skill-unknown.jsonl",
    ),
    "gemini": Captures(
        gemini.STREAMS,
        lambda: GeminiReader(gemini.SKILLS),
        {
            "activate.jsonl": ("activated", ("billing:refunds",)),
            "activate-sibling.jsonl": ("not_activated", ("billing:charts",)),
            "activate-builtin.jsonl": ("not_activated", ("skill-creator",)),
            "activate-unknown.jsonl": ("not_activated", ()),
            "read-target.jsonl": ("not_activated", ()),
            "text.jsonl": ("not_activated", ()),
            "activate-denied.jsonl": ("error", ()),
            "api-error-400.jsonl": ("error", ()),
            "bad-key.jsonl": ("error", ()),
        },
        gemini.EXIT_CODES,
        saw_init_and_result,
        "activate-unknown.jsonl",
    ),
    "opencode": Captures(
        opencode.STREAMS,
        lambda: OpenCodeReader(opencode.SKILLS),
        {
            "skill.jsonl": ("activated", ("billing:refunds",)),
            "skill-sibling.jsonl": ("not_activated", ("billing:charts",)),
            "skill-unknown.jsonl": ("not_activated", ()),
            "skill-rejected.jsonl": ("error", ()),
            "skill-denied.jsonl": ("error", ()),
            "skill-builtin.jsonl": ("not_activated", ("customize-opencode",)),
            "read-target.jsonl": ("not_activated", ()),
            "text.jsonl": ("not_activated", ()),
            "api-error-400.jsonl": ("error", ()),
            "auth-401.jsonl": ("error", ()),
        },
        {"api-error-400.jsonl": 1, "auth-401.jsonl": 1},
        saw_init,
        "skill-unknown.jsonl",
    ),
}

CASES = [(agent, name) for agent, captured in CAPTURES.items() for name in captured.readings]


def test_every_agent_has_a_row() -> None:
    assert sorted(CAPTURES) == sorted(known())


@pytest.mark.parametrize("agent", sorted(CAPTURES))
def test_every_capture_has_a_reading(agent: str) -> None:
    captured = CAPTURES[agent]
    assert {path.name for path in captured.folder.glob("*.jsonl")} == set(captured.readings)


def read(agent: str, name: str) -> Reading:
    captured = CAPTURES[agent]
    lines = (captured.folder / name).read_bytes().splitlines(keepends=True)
    return read_through(captured.reader(), lines, captured.exit_codes.get(name, 0))


@pytest.mark.parametrize(("agent", "name"), CASES)
def test_each_capture_reads_as_expected(agent: str, name: str) -> None:
    outcome, fired = CAPTURES[agent].readings[name]
    reading = read(agent, name)
    assert reading.outcome == outcome, reading.reason
    if fired is not None:
        assert reading.fired == fired
    CAPTURES[agent].checks(reading)


@pytest.mark.parametrize("agent", sorted(CAPTURES))
def test_a_load_action_for_a_name_not_installed_is_no_load_on_every_agent(agent: str) -> None:
    """The same decoy reads the same everywhere: "not loaded", never an error."""
    reading = read(agent, CAPTURES[agent].decoy)
    assert (reading.outcome, reading.fired) == ("not_activated", ()), reading.reason


SKILLS = [
    ListedSkill("refunds", "refunds", "project", "Issue refunds: whole or partial.",
                name="refunds"),
    ListedSkill("charts", "charts", "project", "Draw <charts> & \"graphs\".", name="charts"),
]  # fmt: skip


@pytest.mark.parametrize("agent", sorted(CAPTURES))
def test_each_agent_reads_its_own_listing_back(agent: str, tmp_path: Path) -> None:
    """What the mock model reads from a request: every entry of the agent's listing, by the
    name the agent lists it by, in listed order, with the text it was sent."""
    inputs: Any = SimpleNamespace(target=SimpleNamespace(repo=tmp_path))
    record = agent_named(agent)
    listing = record.listing(SKILLS, None, inputs, [])
    found = record.read_back(f"{record.instructions}{listing.as_sent}")
    assert found is not None
    assert [name for name, _text in found] == [entry.name for entry in listing.entries]
    texts = dict(found)
    assert "Issue refunds: whole or partial." in texts["refunds"]
    assert all(
        other.read_back(listing.as_sent) is None
        for other in map(agent_named, known())
        if other.name != agent
    )


ARCHITECTURE = Path(__file__).parents[3] / "docs" / "architecture.md"
FILES = ("agent.toml", "__init__.py", "listing.py", "adapter.py", "stream.py")


def lines_of_code(path: Path) -> int:
    """Its lines that are neither blank nor a comment."""
    return sum(
        1
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )


def test_the_architecture_page_counts_each_agents_files() -> None:
    """The table of what each agent took, on the architecture page, is the packages' own
    count: a row per agent of the registry, each file's lines of code, their sum and the
    listing's data file."""
    rows = [line for line in ARCHITECTURE.read_text().splitlines()
            if line.startswith("| ") and line.endswith(" |")]  # fmt: skip
    table = {cells[0]: cells[1:] for cells in (row.strip("| ").split(" | ") for row in rows)}
    counted = {}
    for agent in every():
        package = Path(importlib.import_module(agent.module).__file__ or "").parent
        files = [lines_of_code(package / name) for name in FILES]
        (data,) = [lines_of_code(path) for path in package.glob("*-[0-9]*.toml")]
        counted[agent.title] = [str(n) for n in (*files, sum(files), data)]
    assert {title: table.get(title) for title in counted} == counted


# --- Stage B end to end through each real pinned CLI, at its stand-in ----------------------

BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."
DISPUTE, PLAIN = "a stripe dispute came in, refund it", "refund order 1234"
SIGTERM_CASES = [
    {**case("dispute", DISPUTE, True), "spot_check": True},
    case("plain", PLAIN, True),
]


def test_every_agent_has_a_real_cli_row() -> None:
    assert sorted(REAL_AGENTS) == sorted(known())


def sent(request: Any) -> str:
    """Everything a request to the stand-in held, as text."""
    return orjson.dumps(request.body).decode()


LOADS = {
    # prompt: (case id, the skill loaded with the baseline description, with the candidate)
    DISPUTE: ("dispute", "refunds", None),
    PLAIN: ("plain", "refunds", "refunds"),
    "undo the refund": ("failed", "refund", "refund"),
    "plot refunds per month": ("other", "charts", "charts"),
    "refund the duplicate charge": ("broken", "refunds", ERROR),
}
STAGE_B_CASES = [
    {**case("dispute", DISPUTE, True), "spot_check": True},
    case("plain", PLAIN, True),
    case("failed", "undo the refund", True),
    case("other", "plot refunds per month", False),
    case("broken", "refund the duplicate charge", True),
]
DETECT_GAPS: dict[str, dict[str, tuple[str, list[str]]]] = {
    # agent: {case: what `activation detect` makes of the run's transcript, where that is not
    # what the run read}. Gemini CLI names a load by the path of the run's workspace copy,
    # which the skills record kept beside the transcripts does not hold: detect sees a skill
    # that is "not one of the run's copies" (and, for a run stopped early, no result event).
    "gemini": {"plain": ("error", ["refunds"]), "other": ("not_activated", ["charts"])},
}
CHARTS = "---\nname: charts\ndescription: Use when plotting charts.\n---\n# Charts\n"


def asked_sandbox() -> str:
    """Where the Stage B runs below happen: bubblewrap (`under_bwrap`), or the sandbox a
    test that calls them puts in ACTIVATION_SANDBOX; never the host, as these runs are the
    sandbox's coverage."""
    sandbox = os.environ["ACTIVATION_SANDBOX"]
    assert sandbox != "host"
    return sandbox


@pytest.mark.usefixtures("under_bwrap")
def test_a_real_run_reads_each_agents_own_loads(
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`activation --real --agent <agent>` through its real CLI at the stand-in, the model
    scripted per case and per description: a load, prose, the load of a name not installed,
    another skill's load and an API error, each run under bubblewrap (the report says so;
    the host's runs: the per-agent tests, tests/trials/agent/). The user's HOME holds
    planted configs and skills of every agent, the temp folder a planted skill above the run
    folders: none reaches a run, and the user's working tree is untouched.

    And Stage A shows the model what the agent shows it: the listing of a baseline run's
    request (the target and a sibling of a plugin's set, the CLI's own built-ins among
    them, the user's planted skills never listed), read back as the mock model reads it,
    is Stage A's listing of the same set read back: the same entries, names and texts, in
    the same order. (Each renderer's byte-for-byte rules: the listing fidelity tests.)"""
    row = REAL_AGENTS[real_agent]
    files = {**REFERENCE, "plugins/payments/skills/charts/SKILL.md": CHARTS}
    repo = skill_repo(BASELINE, files=files, candidate=CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", STAGE_B_CASES)
    scratch = tmp_path / "scratch"
    leaky_skill(scratch / ".agents" / "skills", ABOVE)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(repo.root)
    home = tmp_path / "real-home"
    plant_user_config(home)
    for variable, value in {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                            "CODEX_HOME": str(home / ".codex"),
                            "GEMINI_CLI_HOME": str(home)}.items():  # fmt: skip
        monkeypatch.setenv(variable, value)
    before = working_tree(repo.root)
    monkeypatch.setattr(backend_module, "AGENT_RUNS", {})  # this run pays its own canary

    def first_turn(request: Any) -> str | None:
        (_id, with_baseline, with_candidate), = (
            loads for prompt, loads in LOADS.items() if request.prompt.endswith(prompt)
        )  # fmt: skip
        return with_baseline if BASELINE in sent(request) else with_candidate

    report = tmp_path / "report.json"
    with row.api(row.script(first_turn)) as api:
        for variable, value in row.variables(api.base_url, row.key).items():
            monkeypatch.setenv(variable, value)
        code = main([
            "--real", "--agent", real_agent, f"--{agent_named(real_agent).command}",
            str(agent_cli), *row.model, "--cases", str(tmp_path / "cases.json"),
            "--distractors", str(tmp_path / "distractors"), "--skill-path", SKILL_PATH,
            "--only", ",".join(case_id for case_id, _b, _c in LOADS.values()),
            "--timeout", "120", "--trials", "1", "--max-trials", "1", "--concurrency", "2",
            "--json", str(report), "--full-record",
        ])  # fmt: skip
        loop = [request for request in api.requests if row.in_loop(request)]
        canaries = list(api.canary_requests)
    bodies = [sent(request) for request in loop]
    captured = capsys.readouterr()
    data = read_report(report)
    assert code == 3, captured.err  # an error trial fails the run closed
    cases = {entry["id"]: entry for entry in data["cases"]}
    # One trial each: the dispute's flip is not significant.
    assert {case_id: entry["status"] for case_id, entry in cases.items()} == {
        "dispute": "UNSTABLE", "plain": "PASS", "failed": "FAIL", "other": "PASS",
        "broken": "ERROR",
    }  # fmt: skip
    assert (data["coding_agent"], data["agent"]["sandbox"]) == (real_agent, asked_sandbox())
    # The agent canary ran in the sandbox and passed (a failed one errs every trial): the
    # one sandboxed run per agent that keeps it; the others pass --no-canary.
    assert data["agent"]["canary"] is True
    assert canaries  # its agent run's requests, which the stand-in answered
    record = agent_named(real_agent)  # Claude Code says its name after its version
    assert data["agent"]["version"] in {record.version, f"{record.version} ({record.title})"}
    plain = cases["plain"]["trials"][0]
    assert plain["reading"] == "activated"
    assert plain["evidence"].endswith("run stopped early at that point")
    assert {tuple(t["chose"]) for t in cases["other"]["trials"]} == {("billing:charts",)}
    assert {tuple(t["chose"]) for t in cases["failed"]["trials"]} == {()}
    broken = [t for t in cases["broken"]["trials"] if t["reading"] == "error"]
    assert [t["variant"] for t in broken] == ["candidate"]
    assert all("scripted bad request" in t["error"] for t in broken)
    for entry in cases.values():
        for trial in entry["trials"]:
            assert row.key.encode() not in Path(trial["transcript"]).read_bytes()
    assert row.key not in captured.out + captured.err
    for case_id, reading in (("plain", "activated"), ("other", "not_activated")):
        trial = cases[case_id]["trials"][0]
        assert main(["detect", trial["transcript"], "--skill", "billing:refunds", "--agent",
                     real_agent, "--exit-code", "0", "--json"]) == 0  # fmt: skip
        again = orjson.loads(capsys.readouterr().out)
        expected = DETECT_GAPS.get(real_agent, {}).get(case_id, (reading, trial["chose"]))
        assert (again["reading"], again["fired"]) == expected
    assert bodies and all(LEAKY not in body and ABOVE not in body for body in bodies)
    assert any(BASELINE in body for body in bodies) and any(CANDIDATE in body for body in bodies)
    listed = record.read_back(row.system(next(r for r in loop if BASELINE in sent(r))))
    inputs = load_inputs(repo.root, repo=repo.root, skill_path=SKILL_PATH,
                         cases=tmp_path / "cases.json")  # fmt: skip
    spec = RunSpec(stage="B", model=row.model[1] if row.model else None, coding_agent=real_agent)
    shown = stage_named("B").listings(spec, inputs)["baseline"]
    assert listed is not None
    assert listed == record.read_back(shown.as_sent)
    assert [text for name, text in listed if name.endswith("refunds")] == [BASELINE]
    assert [path.name for path in scratch.iterdir()] == [".agents"]  # copies, runs: gone
    assert working_tree(repo.root) == before


NESTED_LOADS = {"codex": "charts/axes", "opencode": "axes"}
"""What each agent that lists a SKILL.md inside another skill's folder loads it by (the
argument of its row's `load`): Codex its folder below the skills root, OpenCode its name."""


def test_every_agent_that_lists_nested_skills_has_a_nested_load() -> None:
    assert set(NESTED_LOADS) == {agent.name for agent in every() if agent.nested_skills}


@pytest.mark.parametrize("real_agent", sorted(NESTED_LOADS))
def test_a_skill_inside_another_skills_folder_is_loaded_as_itself(
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An agent that lists `charts/axes/SKILL.md` as a skill of its own (as Stage A's listing
    does) loads it by its own action: the prompt went to that skill, by the id Stage A's
    menu gives it, not to no skill."""
    row = REAL_AGENTS[real_agent]
    harness = harness_for(real_agent, agent_cli, skill_repo, tmp_path, monkeypatch, AXES,
                          (SIBLING_ID, AXES_ID))  # fmt: skip
    with row.api(row.script(lambda _request: NESTED_LOADS[real_agent])) as api:
        trial = next(harness).run(api)
        listings = [row.system(request) for request in api.requests if row.in_loop(request)]
    assert (trial.activated, trial.chose, trial.error) == (False, (AXES_ID,), None)
    assert "Use when labelling chart axes." in listings[0]
    assert next(harness, None) is None  # its checks: nothing left behind, the tree untouched


@pytest.mark.usefixtures("under_bwrap")
def test_sigterm_kills_every_run_removes_the_copies_and_keeps_a_partial_report(
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    spawn_activation: Spawn,
) -> None:
    """`kill -TERM` (a CI cancel) during `--real` while all four slots hang on `plain` (the
    stand-in holds its answer; Copilot dates the prompt, so it ends with it), each run under
    bubblewrap: every agent, bwrap and relay process is gone, the copies, run folders and
    the process's egress socket folders are removed, and the report judges what finished:
    the dispute, loaded with the baseline and not with the candidate."""
    row = REAL_AGENTS[real_agent]
    repo = skill_repo(BASELINE, files=REFERENCE, candidate=CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", SIGTERM_CASES)
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    def plain(request: Any) -> bool:
        return row.in_loop(request) and request.prompt.endswith(PLAIN)

    def with_baseline(request: Any) -> str | None:
        loads = request.prompt.endswith(DISPUTE) and BASELINE in sent(request)
        return "refunds" if loads else None

    report = tmp_path / "partial.json"
    with row.api(row.script(with_baseline), latency=lambda r: HANG if plain(r) else 0.0) as api:
        process = spawn_activation(
            repo.root, tmp_path, tmp_path / "cases.json", report,
            "--real", "--agent", real_agent, f"--{agent_named(real_agent).command}",
            str(agent_cli), *row.model, "--skill-path", SKILL_PATH, "--timeout", "120",
            "--only", "dispute,plain", "--max-trials", "3", "--concurrency", "4", "--no-canary",
            env={**os.environ, "TMPDIR": str(scratch), **row.variables(api.base_url, row.key)},
        )  # fmt: skip
        data, out, err = terminated(process, api, plain, scratch, report)
        canaries = list(api.canary_requests)
    assert (data["agent"]["canary"], canaries) == (False, [])  # --no-canary: no canary run
    assert list(Path(SOCKETS).glob(egress_prefix(process.pid) + "*")) == []
    assert data["agent"]["sandbox"] == asked_sandbox()
    finished = {entry["id"]: entry for entry in data["cases"]}
    # 3/3 against 0/3, judged across both cases of the run (the unfinished one counts as p 1).
    assert finished["dispute"]["status"] == "REGRESSED"
    assert finished["dispute"]["q_value"] == pytest.approx(2 * 0.015625)
    assert finished["dispute"]["partial"] is False
    assert data["summary"]["unfinished"] == ["plain"]
    assert "INTERRUPTED" in out
    assert row.key not in out + err


def terminated(
    process: subprocess.Popen[bytes],
    api: Any,
    hanging: Callable[[Any], bool],
    scratch: Path,
    report: Path,
) -> tuple[dict[str, Any], str, str]:
    """SIGTERM once four of the run's requests `hanging` wait at the stand-in `api` (its
    `requests` are read afresh each time): the run exits 130 with no agent process, copy
    or run folder left in `scratch`, and its partial report says it was interrupted. The
    report's data, stdout and stderr."""
    wait_until(lambda: sum(map(hanging, api.requests)) >= 4, seconds=180,
               what="four agents at work")  # fmt: skip
    assert processes_using(str(scratch)), "no agent run started"
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    assert processes_using(str(scratch)) == []
    assert list(scratch.iterdir()) == []
    data = read_report(report)
    assert (data["interrupted"], data["exit_code"]) == (True, 130)
    return data, out.decode(), err.decode()


# --- Listing fidelity: each renderer's rules, byte for byte against its real pinned CLI ---


def test_every_agent_has_listing_fidelity_checks() -> None:
    assert sorted(fidelity.LISTINGS) == sorted(fidelity.SAME_NAME) == sorted(known())
    assert set(fidelity.VERDICTS) <= set(known())


@pytest.mark.parametrize(
    ("real_agent", "check"),
    [(agent, name) for agent, checks in fidelity.LISTINGS.items() for name in checks],
)
def test_listing_fidelity_each_renderer_renders_what_its_cli_sends(
    real_agent: str, check: str, agent_cli: Path, tmp_path: Path
) -> None:
    """For a skill set that exercises the agent's rules, its renderer's listing is byte for
    byte the one in the first request its pinned CLI sends (tests/trials/agents/
    fidelity_cases.py holds each agent's sets and exact values)."""
    fidelity.LISTINGS[real_agent][check](agent_cli, tmp_path)


@pytest.mark.parametrize("real_agent", sorted(fidelity.VERDICTS))
def test_visibility_fidelity_a_cut_or_hidden_skill_is_what_the_verdicts_say(
    real_agent: str, agent_cli: Path, tmp_path: Path
) -> None:
    """Where the CLI cuts a description or leaves a skill out, its listing is the
    renderer's and the visibility verdicts say so of each skill."""
    fidelity.VERDICTS[real_agent](agent_cli, tmp_path)


def test_visibility_fidelity_a_users_and_a_projects_copy_of_one_skill(
    real_agent: str, agent_cli: Path, tmp_path: Path
) -> None:
    """A user skill and a project skill of one name (QA3 E29): what the CLI lists of them
    is the renderer's listing, and the verdicts call the copy it leaves out not listed."""
    fidelity.SAME_NAME[real_agent](agent_cli, tmp_path)


# --- Stage C end to end through each real pinned CLI, at its stand-in ----------------------

ONE_CASE = ("--only", "welcome_banner", "--trials", "3", "--max-trials", "3")
RIGHT, V1 = (EXAMPLE / "solutions" / kind / "welcome-banner" / "app.py" for kind in ("right", "v1"))
REMOVED_API = "No removed 1.x API (hello, hello_all, init, polite=)"
REFERENCE_FILE = "greetlib/references/api.md"
PROVIDER_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                      "OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                      "GOOGLE_GEMINI_BASE_URL")  # fmt: skip


@dataclass
class Behaves:
    """`activation behavior` through one agent's real CLI, its model (and judge) at the
    stand-in `api`; each agent runs with only its own provider's variables. No canary: in a
    sandbox, the Stage B scenario's run is the agent canary's coverage, and each canary is
    one more agent run (`test_a_real_run_reads_each_agents_own_loads`)."""

    agent: str
    cli: Path
    api: Any
    tmp_path: Path

    @property
    def row(self) -> RealAgent:
        return REAL_AGENTS[self.agent]

    def behave(self, *flags: str) -> tuple[int, dict[str, Any]]:
        report = self.tmp_path / "behavior.json"
        report.unlink(missing_ok=True)
        code = main([
            "behavior", "--agent", self.agent, f"--{agent_named(self.agent).command}",
            str(self.cli), *self.row.model, *self.row.at_work.judge, "--baseline", "git:HEAD",
            "--timeout", "120", "--json", str(report), "--full-record", "--no-canary", *flags,
        ])  # fmt: skip
        return code, read_report(report) if report.exists() else {}

    @property
    def loop(self) -> list[Any]:
        """The requests of the agent's loop (not the judge's, nor the `llm` arm's)."""
        return [r for r in self.api.requests if self.row.in_loop(r) and r.tool_names]

    @property
    def judge_models(self) -> set[str]:
        """The model of every judge request."""
        models = map(self.row.at_work.judge_model, self.api.requests)
        return {model for model in models if model is not None}


@pytest.fixture
def behaves(
    real_agent: str, agent_cli: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Behaves]:
    row = REAL_AGENTS[real_agent]
    for variable in PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    with row.api(row.at_work.task) as api:
        for variable, value in row.variables(api.base_url, row.key).items():
            monkeypatch.setenv(variable, value)
        yield Behaves(real_agent, agent_cli, api, tmp_path)


def trials_of(report: dict[str, Any], arm: str) -> list[dict[str, Any]]:
    (entry,) = report["cases"]
    return [trial for trial in entry["trials"] if trial["variant"] == arm]


def outcomes(trial: dict[str, Any]) -> dict[str, str]:
    return {grade["grader"]: grade["outcome"] for grade in trial["grades"]}


def test_a_body_that_teaches_the_removed_api_regresses_the_case_and_fails_the_gate(
    behaves: Behaves, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The broken body (the same description over the removed 1.x API) as the candidate:
    the agent loads the skill its own way and writes, with its own tools, what the body it
    loaded teaches. (The none arm, where the agent guesses: the next test's run.)"""
    at_work = behaves.row.at_work
    monkeypatch.chdir(example_repo(behaves.tmp_path / "repo", broken=True))
    kept = behaves.tmp_path / "kept"
    code, report = behaves.behave(*ONE_CASE, "--arm", "llm", "--keep-workspaces", str(kept))
    assert code == 1
    assert (report["stage"], report["coding_agent"]) == ("C", behaves.agent)
    assert report["agent"]["version"] == at_work.version
    assert report["arms"] == ["llm"]
    assert [(entry["id"], entry["status"]) for entry in report["cases"]] == [
        ("welcome_banner", "REGRESSED")
    ]
    for arm, loaded in (("baseline", True), ("candidate", True), ("llm", False)):
        trials = trials_of(report, arm)
        assert [trial["index"] for trial in trials] == [0, 1, 2]
        assert [trial["activated"] for trial in trials] == [loaded] * 3
        assert [trial["correct"] for trial in trials] == [arm == "baseline"] * 3
        # The files each trial left, and no file the adapter installed (the skill's own
        # SKILL.md and references, which hold the right code).
        written = ["app.py", "requirements.txt"] + (["response.md"] if arm == "llm" else [])
        assert [trial["files"] for trial in trials] == [written] * 3
    assert set(outcomes(trials_of(report, "baseline")[0]).values()) == {"passed"}
    assert outcomes(trials_of(report, "candidate")[0])[REMOVED_API] == "failed"
    # What each arm's agent wrote, with its own tools, in its own workspace.
    wrote(kept, {"baseline": RIGHT.read_text(), "candidate": V1.read_text()})
    # The arms that install the skill put it in the workspace, its references beside it;
    # none of it was graded above.
    workspaces = kept / "welcome_banner"
    if at_work.skills is None:
        assert list(workspaces.rglob("greetlib")) == []
    else:
        for arm in ("baseline", "candidate"):
            installed = workspaces / f"{arm}-0" / at_work.skills / REFERENCE_FILE
            assert installed.read_text() == (SKILLS_OF_THE_EXAMPLE / REFERENCE_FILE).read_text()
    assert behaves.judge_models == {at_work.judged_by}
    assert behaves.row.key not in (behaves.tmp_path / "behavior.json").read_text()


def wrote(kept: Path, texts: Mapping[str, str]) -> None:
    """Each arm's agent wrote this app.py, with its own tools, in each of its three kept
    workspaces."""
    for arm, text in texts.items():
        assert [(kept / "welcome_banner" / f"{arm}-{i}" / "app.py").read_text()
                for i in range(3)] == [text] * 3  # fmt: skip


def test_an_unchanged_body_passes_and_the_skill_lifts_over_no_skill(
    behaves: Behaves, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The unchanged body passes; the none arm installs nothing and its agent, shown only
    its own skills, guesses: the skill lifts the case over no skill."""
    kept = behaves.tmp_path / "kept"
    unchanged_body_passes(behaves, monkeypatch, capsys, "--keep-workspaces", str(kept))
    wrote(kept, {"none": GUESS})
    # The none arm installs nothing.
    none_workspaces = (kept / "welcome_banner").glob("none-*")
    assert [path for ws in none_workspaces for path in ws.rglob("greetlib")] == []


def unchanged_body_passes(
    behaves: Behaves,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
) -> None:
    """The scenario's run and every assertion on its report, output and requests (where
    the workspaces are not kept: a Ray cluster keeps them on its nodes)."""
    at_work = behaves.row.at_work
    monkeypatch.chdir(example_repo(behaves.tmp_path / "repo"))
    monkeypatch.setenv("COLUMNS", "250")
    code, report = behaves.behave(*ONE_CASE, "--arm", "none", "--fail-on", "no-lift", *extra)
    out = capsys.readouterr().out
    assert code == 0
    assert report["stage"] == "C"
    assert report["arms"] == ["none"]
    assert [(entry["id"], entry["status"]) for entry in report["cases"]] == [
        ("welcome_banner", "PASS")
    ]
    for arm in ("baseline", "candidate"):
        trials = trials_of(report, arm)
        assert [(t["activated"], t["correct"]) for t in trials] == [(True, True)] * 3
    none = trials_of(report, "none")
    assert [t["index"] for t in none] == [0, 1, 2]
    assert [(t["activated"], t["correct"]) for t in none] == [(False, False)] * 3
    # Without the skill the agent guesses: it never uses greetlib.
    assert outcomes(none[0])["Imports greetlib"] == "failed"
    for arm in ("baseline", "candidate", "none"):
        assert [t["files"] for t in trials_of(report, arm)] == [["app.py", "requirements.txt"]] * 3
    # Every request of the agent's loop offers the same tools of its own, never the web.
    offered = {frozenset(request.tool_names) for request in behaves.loop}
    assert offered == {at_work.tools}
    assert not at_work.tools & {"run_shell_command", "web_fetch", "google_web_search"}
    # The none arm's agent is shown no greetlib, only the agent's own skills.
    unlisted = [behaves.row.system(r) for r in behaves.loop
                if "greetlib" not in behaves.row.system(r)]  # fmt: skip
    assert unlisted
    if at_work.builtin is not None:
        assert all(f"<name>{at_work.builtin}</name>" in listing for listing in unlisted)
    assert (
        "skill lift over the suite (first rounds): candidate 3/3 = 100% vs no skill 0/3 = 0%: "
        "+100 points (95% Newcombe +21 to +100), shown"
    ) in out.splitlines()
    assert out.splitlines()[-1] == "OK: no case regressed, no case errored."


def chain_steps(report: dict[str, Any]) -> dict[str, list[tuple[int, int] | None]]:
    """Per arm with the skill: (passed, applied) at each step of the attribution chain."""
    steps = ("trials", "listed", "loaded", "followed")
    return {arm["arm"]: [None if arm[step] is None else (arm[step]["passed"], arm[step]["applied"])
                         for step in steps] for arm in report["chain"]}  # fmt: skip


class SkipsTheSkill:
    """Every second run of the agent (in the order they start) does not load the skill it
    is offered: it does what its row says instead (a look at the file, or its guess)."""

    def __init__(self, at_work: AtWork) -> None:
        self.at_work = at_work
        self.loads = 0
        self.lock = threading.Lock()

    def __call__(self, request: Any) -> Any:
        reply = self.at_work.task(request)
        if reply == self.at_work.load:
            with self.lock:
                self.loads += 1
                skip = self.loads % 2 == 0
            if skip:
                return self.at_work.instead(request)
        return reply


def test_a_trial_where_the_skill_did_not_load_is_graded_and_counted_as_such(
    behaves: Behaves, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial whose agent skips the skill it is offered is graded as it is, and the
    attribution chain counts it listed but not loaded (the chain's loaded-but-not-followed
    and followed trials: the cards scenario's run)."""
    monkeypatch.chdir(example_repo(behaves.tmp_path / "repo"))
    behaves.api.script = SkipsTheSkill(behaves.row.at_work)
    code, report = behaves.behave("--only", "welcome_banner", "--trials", "1", "--max-trials",
                                  "1", "--no-control", "--concurrency", "1")  # fmt: skip
    # One at a time, the baseline's run first: the candidate's run skips the skill.
    baseline, candidate = trials_of(report, "baseline"), trials_of(report, "candidate")
    assert [(t["activated"], t["correct"]) for t in baseline] == [(True, True)]
    assert [(t["activated"], t["correct"]) for t in candidate] == [(False, False)]
    for trial in candidate:
        assert trial["chose"] == []
        assert trial["files"] == ["app.py", "requirements.txt"]
        assert outcomes(trial)["Imports greetlib"] == "failed"
    for trial in report["cases"][0]["trials"]:
        assert trial["evidence"]
    assert report["arms"] == []
    assert report["cases"][0]["status"] == "UNSTABLE"
    assert code == 0
    # The chain: the candidate's skill was listed but not loaded (no grader of the example
    # marks `follows`: no followed step).
    assert chain_steps(report) == {
        "baseline": [(1, 1), (1, 1), (1, 1), None],
        "candidate": [(0, 1), (0, 1), (0, 0), None],
    }


def test_every_agent_has_a_cards_row() -> None:
    assert sorted(cards.CARDS_AT_WORK) == sorted(known())


WRITTEN = """\
- type: file_contains
  file_pattern: cards.txt
  value: 'To Grace: '
  case_sensitive: true
  description: A card for Grace in the house format
  level: L1
"""
CHECKED = (
    WRITTEN
    + """\
- type: command_ran
  pattern: 'scripts/check_cards\\.py'
  description: Ran the skill's checker
  level: L4
  follows: true
"""
)
CARD_CASES = {"run_the_checker": CHECKED, **{f"cards_{n}": WRITTEN for n in range(2, 6)}}
"""The checker's case, and four more the cost gate needs (it judges five cases or more)."""
GRACE, RAN = "A card for Grace in the house format", "Ran the skill's checker"
NAMES_PRINTED = re.compile(r"Ada\\+nGrace")
"""names.txt as `cat` printed it, in a request's JSON (Codex's nests its output once more)."""


@pytest.mark.usefixtures("under_bwrap")
def test_a_body_that_stops_running_the_checker_regresses_costs_more_and_is_loaded_not_followed(
    behaves: Behaves, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each agent at work in bubblewrap (its shell offered), on five cards cases: the
    baseline's body has it write the cards and run the skill's checker; the candidate's,
    the same description, has it look at the files four times instead. One run answers
    three questions. The cards pass either way, the checker's `command_ran` grader fails:
    REGRESSED by what the agent did. The candidate takes twice the turns: where the agent's
    stream gives a cost, `--fail-on cost` fails over the five cases (where it gives none,
    the gate says it measured nothing). And the attribution chain tells the candidate's
    trials, loaded but not followed, from the baseline's, followed."""
    at = cards.CARDS_AT_WORK[behaves.agent]
    behaves.api.script = cards.follows_the_body(behaves.agent)
    repo = cards.cards_repo(behaves.tmp_path / "repo", CARD_CASES, cards.CHECKS, cards.LOOKS)
    monkeypatch.chdir(repo)
    code, report = behaves.behave("--trials", "1", "--max-trials", "4", "--no-control",
                                  "--fail-on", "cost")  # fmt: skip
    out = " ".join(capsys.readouterr().out.split())
    assert code == 1
    assert (report["agent"]["sandbox"], report["agent"]["canary"]) == (asked_sandbox(), False)
    assert behaves.api.canary_requests == []
    statuses = {entry["id"]: entry["status"] for entry in report["cases"]}
    assert statuses == {**dict.fromkeys(CARD_CASES, "PASS"), "run_the_checker": "REGRESSED"}
    checker = next(entry for entry in report["cases"] if entry["id"] == "run_the_checker")
    trials = {arm: [t for t in checker["trials"] if t["variant"] == arm]
              for arm in ("baseline", "candidate")}  # fmt: skip
    assert [outcomes(t) for t in trials["baseline"]] == [{GRACE: "passed", RAN: "passed"}] * 4
    assert [outcomes(t) for t in trials["candidate"]] == [{GRACE: "passed", RAN: "failed"}] * 4
    check = f"python3 {at.skills}/cards/scripts/check_cards.py cards.txt"
    ran = [[command for command in t["trajectory"]["commands"] if "cards.txt" in command]
           for arm in ("baseline", "candidate") for t in trials[arm][:1]]  # fmt: skip
    assert [[shown.split("'")[1] if "'" in shown else shown for shown in commands]
            for commands in ran] == [[check], ["cat cards.txt", "cat cards.txt"]]  # fmt: skip
    # The shell really ran in the sandbox: what `cat names.txt` printed came back to the
    # model, and the files the agent printed count as read.
    assert any(NAMES_PRINTED.search(sent(request)) for request in behaves.loop)
    assert {"cards.txt", "names.txt"} <= set(trials["candidate"][0]["trajectory"]["files_read"])
    # The chain: every trial listed and loaded the skill; only the checker's case marks a
    # grader `follows`, and only the baseline's trials followed it.
    assert chain_steps(report) == {
        "baseline": [(8, 8), (8, 8), (8, 8), (4, 4)],
        "candidate": [(4, 8), (4, 8), (4, 8), (0, 0)],
    }
    efficiency = report["behavior"]["efficiency"]
    if "cost_usd" in trials["baseline"][0]["trajectory"]["measured"]:
        assert efficiency["cost"] == {"margin": 0.25, "cases": 5, "p": 1 / 32, "alpha": 0.05}
        assert "p = 0.0312, FAILED (--fail-on cost)" in out
    else:
        assert efficiency["cost"] == {"margin": 0.25, "cases": 0, "p": None, "alpha": 0.05}
        assert "cost gate: not measured (no case has a cost in both baseline and candidate)" in out


def test_a_vacuous_transcript_grader_is_refused_in_one_line_before_any_agent_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `command_ran` grader that a look at the SKILL.md passes checks the load, not that
    the agent followed the body: `behavior` refuses the suite in one line, before it looks
    for an agent CLI (no agent run: one agent is enough), and `lint --behavior` says why."""
    vacuous = WRITTEN + "- type: command_ran\n  pattern: 'SKILL\\.md'\n  level: L4\n"
    repo = cards.cards_repo(tmp_path / "repo", {"run_the_checker": vacuous}, cards.CHECKS,
                            cards.LOOKS)  # fmt: skip
    monkeypatch.chdir(repo)
    missing = str(tmp_path / "no-such-claude")
    assert main(["behavior", "--baseline", "git:HEAD", "--sandbox", "bwrap", "--claude",
                 missing]) == 2  # fmt: skip
    said = (
        "grader 2 (command_ran /SKILL\\.md/) passes when the skill is merely loaded (its load "
        "tool, or a read of its SKILL.md): it checks the load, which every trial records "
        "already, not that the agent followed the skill"
    )
    assert capsys.readouterr().err == (
        f"activation behavior: error: {repo / 'evals'}: case run_the_checker: {said}; see "
        f"activation lint --behavior {repo / 'evals'}\n"
    )
    assert main(["lint", "--behavior", str(repo / "evals")]) == 1
    assert f"error run_the_checker {said}" in " ".join(capsys.readouterr().out.split())


def test_sigterm_stops_every_agent_at_work_removes_the_workspaces_and_writes_a_partial_report(
    real_agent: str, agent_cli: Path, tmp_path: Path
) -> None:
    """`kill -TERM` during `activation behavior` on the bundled example while four agents
    hang at work (the stand-in holds every answer of the agent's loop; the judge is the
    offline mock): every agent process is gone, the workspaces are removed, and the
    partial report is a behavior run's, with no activation figures."""
    row = REAL_AGENTS[real_agent]
    root = example_repo(tmp_path / "repo")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    report = tmp_path / "stopped.json"
    with row.api(row.script(lambda _request: None), latency=lambda r: HANG) as api:
        process = subprocess.Popen(
            [sys.executable, "-m", "activation", "behavior", "--agent", real_agent,
             f"--{agent_named(real_agent).command}", str(agent_cli), *row.model,
             "--judge-model", "mock", "--baseline", "git:HEAD", "--only", "welcome_banner",
             "--trials", "3", "--max-trials", "3", "--json", str(report)],
            cwd=root, env={**os.environ, "TMPDIR": str(scratch),
                           **row.variables(api.base_url, row.key)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        data, out, err = terminated(process, api, row.in_loop, scratch, report)
    assert data["summary"]["unfinished"] == ["welcome_banner"]
    assert "INTERRUPTED" in out
    # Stopped before any trial was graded, it is still a behavior run: no activation figures.
    assert "recall" not in out
    assert "false positives" not in out
    assert row.key not in out + err
