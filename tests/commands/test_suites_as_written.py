"""Behavior suites as authors write them, in repos written here in the field's shapes (never
copies of their files): skill-creator's `files` relative to a plugin's root (the suite in
the plugin's `evals/`, the skill below in `skills/`), assertions whose text is a `check`,
and a suite that cannot be read, which leaves only its own skill "not tested" while every
other gate of `activation changed` still runs, with `changed`'s trials carried to them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from activation._config import BEHAVIOR_MAX_TRIALS
from activation._errors import InputError
from activation.commands.changed import behavior_request, offline_model_lines
from activation.commands.main import main
from activation.commands.requests import ChangedRequest, parse_request
from activation.graders.judge import Judge
from activation.inputs.change_plan import GateRun
from activation.inputs.changes import SkillPlace
from activation.inputs.load import load_behavior_suite
from tests.commands.test_repo_cases import commit


def skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: Do the {name} task. Use when asked for {name}.\n---\n"


def evals(name: str, item: str) -> str:
    return f'{{"skill_name": "{name}", "evals": [{{"id": 1, "prompt": "do {name}", {item}}}]}}'


def test_files_are_relative_to_the_plugin_root_holding_evals(tmp_path: Path) -> None:
    root = commit(
        tmp_path / "repo",
        {
            "plugins/audit/.claude-plugin/plugin.json": '{"name": "audit"}',
            "plugins/audit/skills/audit/SKILL.md": skill("audit"),
            "plugins/audit/evals/evals.json": evals(
                "audit", '"files": ["evals/fixtures/pkg.json"], "expectations": ["audited"]'
            ),
            "plugins/audit/evals/fixtures/pkg.json": '{"name": "shop"}\n',
        },
    )
    (case,) = load_behavior_suite(root / "plugins/audit/evals").cases
    assert case.scaffold == (("evals/fixtures/pkg.json", b'{"name": "shop"}\n'),)


def test_an_assertion_may_write_its_text_as_check(tmp_path: Path) -> None:
    root = commit(
        tmp_path / "repo",
        {
            "skills/b/SKILL.md": skill("b"),
            "skills/b/evals/evals.json": evals(
                "b", '"assertions": [{"name": "mentions", "check": "The output mentions b"}]'
            ),
        },
    )
    (case,) = load_behavior_suite(root / "skills/b/evals").cases
    question = "Do the files meet this expectation?\n- The output mentions b"
    assert case.graders == (Judge(description="mentions", question=question),)


@pytest.fixture
def three(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three skills, each with a skill-creator suite; a's names an input it lacks."""
    root = commit(
        tmp_path / "repo",
        {
            "skills/a/SKILL.md": skill("a"),
            "skills/a/evals/evals.json": evals(
                "a", '"files": ["AGENTS.md"], "expectations": ["x"]'
            ),
            "skills/b/SKILL.md": skill("b"),
            "skills/b/evals/evals.json": evals("b", '"expectations": ["b done"]'),
            "skills/c/SKILL.md": skill("c"),
            "skills/c/evals/evals.json": evals("c", '"expectations": ["c done"]'),
        },
    )
    monkeypatch.chdir(root)
    for name in "abc":
        with (root / f"skills/{name}/SKILL.md").open("a") as file:
            file.write("More steps.\n")
    return root


def test_a_suite_that_cannot_be_read_leaves_its_skill_untested_and_the_others_run(
    three: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["changed", "--base", "git:main", "--dry-run", "--no-summary"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[:9] == [
        "activation changed: git:main -> the working tree",
        "a (skills/a/SKILL.md): modified, body or references",
        "  not tested: body",
        "  skills/a/evals/evals.json: not read: cannot read the eval input file "
        "skills/a/AGENTS.md: No such file or directory",
        "b (skills/b/SKILL.md): modified, body or references",
        "c (skills/c/SKILL.md): modified, body or references",
        "would run: behavior gate of b on skills/b/evals (because of b)",
        "would run: behavior gate of c on skills/c/evals (because of c)",
        "the run would fail: a not tested (pass --allow-untested to accept it)",
    ]


def gate_request(*flags: str) -> tuple[int, int]:
    args, _settings = parse_request("changed", ChangedRequest, ["--base", "git:main", *flags])
    place = SkillPlace("skills/b/SKILL.md", "skills", "b")
    request = behavior_request(
        args, Path("/repo"), GateRun("behavior", place, "skills/b/evals", ("b",))
    )
    return request.trials, request.max_trials


def test_changed_carries_its_trials_to_the_behavior_gates() -> None:
    assert gate_request("--trials", "1", "--max-trials", "2") == (1, 2)
    assert gate_request("--trials", "5") == (5, BEHAVIOR_MAX_TRIALS)


RESEARCH = (
    "---\nname: research\ndescription: Research a topic on the web and write a cited summary. "
    "Use when asked to research something.\n---\n# Research\n"
)
NOTES = (
    "---\nname: notes\ndescription: Keep meeting notes in a markdown file. Use when asked to "
    "take notes.\n---\n# Notes\n"
)
SKILL_TESTS = """skill: toolkit:research
model: haiku
tests:
  - id: research-web
    prompt: Research the history of the bicycle and cite sources
    should_trigger: true
  - id: notes-not-research
    prompt: Take notes of this meeting for me
    should_trigger: false
"""


WORKFLOW = (
    "name: Skill Tests\non: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - uses: actions/checkout@v4\n"
)


def test_the_skill_test_actions_file_beside_a_skill_is_found_and_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = commit(
        tmp_path / "repo",
        {
            "plugins/toolkit/.claude-plugin/plugin.json": '{"name": "toolkit"}',
            "plugins/toolkit/skills/research/SKILL.md": RESEARCH,
            "plugins/toolkit/skills/research/skill-tests.yaml": SKILL_TESTS,
            "plugins/toolkit/skills/notes/SKILL.md": NOTES,
            ".github/workflows/skill-tests.yaml": WORKFLOW,  # runs them in CI: no cases
        },
    )
    monkeypatch.chdir(root)
    assert main(["lint"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "lint: checked 2 skills in plugins/toolkit/skills/ (frontmatter, the files each refers "
        "to, what 5 agents list) and 1 case file (plugins/toolkit/skills/research/skill-tests"
        ".yaml): 0 errors, 3 warnings"
    )
    report = tmp_path / "run.json"
    argv = ["--model", "mock", "--skill-path", "plugins/toolkit/skills/research"]
    assert main([*argv, "--json", str(report), "--no-summary"]) == 0
    cases = orjson.loads(report.read_bytes())["cases"]
    assert [(case["id"], case["should_activate"]) for case in cases] == [
        ("research-web", True),
        ("notes-not-research", False),
    ]


def test_a_catalog_that_holds_the_measured_set_lists_the_set_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--catalog .agents/skills` (everything installed) holds the measured skills folder
    itself: its skills are listed once, as themselves, by every agent."""
    root = commit(
        tmp_path / "repo",
        {".agents/skills/research/SKILL.md": RESEARCH, ".agents/skills/notes/SKILL.md": NOTES},
    )
    monkeypatch.chdir(root)
    argv = ["visibility", "--no-listing", "--agent", "codex,copilot"]
    code = main([*argv, "--skill-path", ".agents/skills/research", "--catalog", ".agents/skills"])
    out = capsys.readouterr().out
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("  ")] == [
        "  research: listed whole",
        "  notes: listed whole",
    ] * 2


def test_changed_gates_a_skill_on_every_cases_file_about_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the main run reads them: a skill's trigger cases and its routing file both run."""
    positives = {"skill": "research", "cases": [{"id": "p1", "prompt": "Research bicycles",
                 "should_activate": True, "why": "a research task"}]}  # fmt: skip
    negatives = {"skill": "research", "cases": [{"id": "n1", "prompt": "Write a haiku",
                 "should_activate": False, "why": "a poem"}]}  # fmt: skip
    root = commit(
        tmp_path / "repo",
        {
            ".agents/skills/research/SKILL.md": RESEARCH,
            "evals/big.cases.json": orjson.dumps(positives).decode(),
            "evals/routing.cases.json": orjson.dumps(negatives).decode(),
        },
    )
    monkeypatch.chdir(root)
    skill_md = root / ".agents/skills/research/SKILL.md"
    skill_md.write_text(RESEARCH.replace("a cited summary", "a short cited summary"))
    report = tmp_path / "changed.json"
    argv = ["changed", "--base", "git:main", "--model", "mock", "--no-summary"]
    assert main([*argv, "--json", str(report)]) == 0
    gates = orjson.loads(report.read_bytes())["gates"]
    assert [(gate["suite"], [case["id"] for case in gate["run"]["cases"]]) for gate in gates] == [
        ("evals/big.cases.json, evals/routing.cases.json", ["p1", "n1"])
    ]


def test_the_mock_model_says_a_behavior_gate_runs_the_real_agent() -> None:
    assert offline_model_lines(("mock",), ["b", "c"]) == [
        "--model mock answers the activation gates only: the behavior gates of b, c run the "
        "real agent CLI at its own model, at real cost (--dry-run plans them with no call)"
    ]
    assert offline_model_lines(("mock",), ["b"]) == [
        "--model mock answers the activation gates only: the behavior gate of b runs the "
        "real agent CLI at its own model, at real cost (--dry-run plans them with no call)"
    ]
    assert offline_model_lines(("claude-haiku-4-5",), ["b"]) == []
    assert offline_model_lines(("mock",), []) == []


def test_a_skills_folder_that_links_to_another_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """microsoft/skills keeps `.opencode/skills -> ../.github/skills`: one set, not two."""
    root = commit(
        tmp_path / "repo",
        {".github/skills/research/SKILL.md": RESEARCH, ".github/skills/notes/SKILL.md": NOTES},
    )
    (root / ".opencode").mkdir()
    (root / ".opencode/skills").symlink_to("../.github/skills")
    monkeypatch.chdir(root)
    assert main(["lint"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "lint: checked 2 skills in .github/skills/ (frontmatter, the files each refers to, what "
        "5 agents list) and 0 case files: no problems found"
    )


def test_changeds_mock_notice_names_the_gates_it_is_not_about() -> None:
    """A behavior gate beside mock activation gates ran the real agent: the NOTE says so."""
    from activation.report.changed import changed_notice

    def gate(kind: str, skill: str, notice: str | None) -> tuple[Any, Any]:
        place = SimpleNamespace(id=skill)
        return SimpleNamespace(kind=kind, place=place), SimpleNamespace(
            cells=[SimpleNamespace(notice=notice)]
        )

    mock = "answers from the mock model"
    assert changed_notice([gate("activation", "a", mock), gate("behavior", "b", None)]) == (
        "answers from the mock model; not the behavior gate of b, whose verdicts are the real "
        "agent's"
    )
    assert changed_notice([gate("activation", "a", mock)]) == mock
    assert changed_notice([gate("behavior", "b", None)]) is None


RENAMED = (
    "---\nname: claude-code-skill-development\ndescription: Create and build Agent Skills. "
    "Use when asked to write a skill.\n---\n# Skills\n"
)


def test_a_skill_named_by_its_frontmatter_name_in_its_own_folder_is_that_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """dwmkerr's toolkit:skill-development has `name: claude-code-skill-development`, and its
    own skill-tests.yaml (and a routing suite imported from them) name it by that name, the
    display name Claude Code resolves to it: the file is that skill's cases, and the id
    resolves, where it was "no cases for toolkit:skill-development"."""
    tests = SKILL_TESTS.replace("toolkit:research", "toolkit:claude-code-skill-development")
    routing = {
        "cases": [
            {
                "id": "build",
                "prompt": "build me a skill",
                "why": "w",
                "expect": "toolkit:claude-code-skill-development",
            },
            {"id": "cite", "prompt": "research bicycles", "why": "w", "expect": "toolkit:research"},
        ]
    }
    root = commit(
        tmp_path / "repo",
        {
            "plugins/toolkit/.claude-plugin/plugin.json": '{"name": "toolkit"}',
            "plugins/toolkit/skills/research/SKILL.md": RESEARCH,
            "plugins/toolkit/skills/skill-development/SKILL.md": RENAMED,
            "plugins/toolkit/skills/skill-development/skill-tests.yaml": tests,
        },
    )
    (tmp_path / "routing.json").write_bytes(orjson.dumps(routing))
    monkeypatch.chdir(root)
    assert main(["lint"]) == 0
    assert "no skill of this repo holds it" not in capsys.readouterr().out
    report = tmp_path / "run.json"
    argv = ["--model", "mock", "--skill-path", "plugins/toolkit/skills/skill-development"]
    assert main([*argv, "--json", str(report), "--no-summary"]) == 0
    assert capsys.readouterr().err.splitlines()[1:3] == [
        "  found plugins/toolkit/skills/skill-development/skill-tests.yaml: "
        "toolkit:skill-development",
        "cases: using plugins/toolkit/skills/skill-development/skill-tests.yaml",
    ]
    cases = orjson.loads(report.read_bytes())["cases"]
    assert [(case["id"], case["should_activate"]) for case in cases] == [
        ("research-web", True),
        ("notes-not-research", False),
    ]
    argv = [
        "--model",
        "mock",
        "--cases",
        str(tmp_path / "routing.json"),
        "--skill-path",
        "plugins/toolkit/skills/research",
    ]
    assert main([*argv, "--json", str(report), "--no-summary"]) == 0
    cases = orjson.loads(report.read_bytes())["cases"]
    assert [(case["id"], case["expect"]) for case in cases] == [
        ("build", ["toolkit:skill-development"]),
        ("cite", ["toolkit:research"]),
    ]


def test_behavior_finds_a_suite_beside_the_plugins_skills_as_changed_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = commit(
        tmp_path / "repo",
        {
            "plugins/audit/.claude-plugin/plugin.json": '{"name": "audit"}',
            "plugins/audit/skills/audit/SKILL.md": skill("audit"),
            "plugins/audit/evals/evals.json": evals("audit", '"expectations": ["audited"]'),
        },
    )
    monkeypatch.chdir(root)
    argv = ["behavior", "--dry-run", "--skill-path", "plugins/audit/skills/audit"]
    assert main(argv) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        f"behavior suite: {root}/plugins/audit/evals (pass --suite PATH for another)"
    )


def test_skill_path_dot_in_a_one_skill_repo_is_its_root_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from activation.inputs.load import relative_skill_path

    root = commit(tmp_path / "repo", {"SKILL.md": RESEARCH})
    assert relative_skill_path(root, ".") == Path("SKILL.md")
    assert relative_skill_path(root, str(root)) == Path("SKILL.md")
    empty = commit(tmp_path / "empty", {"skills/notes/SKILL.md": NOTES})
    with pytest.raises(InputError, match=r"^--skill-path \.: names the repo itself, not a SKILL"):
        relative_skill_path(empty, ".")


def test_a_users_copy_of_a_set_skill_in_the_catalog_runs_by_each_agents_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--catalog ~/.agents/skills`, where the user keeps a copy of the project's `notes`:
    the run lists what each agent lists (Codex both copies, Claude Code the user's alone),
    as visibility says, instead of refusing a second skill 'notes'."""
    cases = {"skill": "research", "cases": [{"id": "p1", "prompt": "Research bicycles",
             "should_activate": True, "why": "a research task"}]}  # fmt: skip
    root = commit(
        tmp_path / "repo",
        {
            ".agents/skills/research/SKILL.md": RESEARCH,
            ".agents/skills/notes/SKILL.md": NOTES,
            "evals/research.cases.json": orjson.dumps(cases).decode(),
        },
    )
    user = tmp_path / "user-skills"
    (user / "notes").mkdir(parents=True)
    (user / "notes/SKILL.md").write_text(NOTES.replace("Keep meeting notes", "My own notes"))
    monkeypatch.chdir(root)
    argv = ["--model", "mock", "--catalog", str(user), "--no-summary"]
    for agent, users in (("codex", [False, True]), ("claude-code", [True])):
        assert main([*argv, "--agent", agent, "--dry-run", "--show-listing"]) == 0
        out = capsys.readouterr().out
        notes = [line for line in out.splitlines() if line.startswith("- notes: ")]
        assert ["My own notes" in line for line in notes] == users, agent
        report = tmp_path / f"{agent}.json"
        assert main([*argv, "--agent", agent, "--json", str(report)]) == 0
        assert [case["id"] for case in orjson.loads(report.read_bytes())["cases"]] == ["p1"]
        capsys.readouterr()
