"""`activation visibility`, and the visibility finding in a run's gate: no model call.

The repo is a skills folder (`.agents/skills/<name>/`, as OpenCode and Codex find project
skills) holding the measured skill; a 60-skill catalog is built beside it in a temp dir.
"""

from __future__ import annotations

import shutil
from html import escape
from pathlib import Path
from typing import Any

import junitparser
import orjson
import pytest

from activation.commands.main import main
from activation.inputs.target import WHERE
from activation.trials.agents import known
from tests.support.cli import read_report
from tests.support.skill_repo import SkillRepo, SkillRepos, case, write_cases

SKILL = ".agents/skills/alpha/SKILL.md"
DESCRIPTION = "Use when the user asks for alpha reports, alpha exports or alpha dashboards."
POLICY_OFF = "policy:\n  allow_implicit_invocation: false\n"


@pytest.fixture
def alpha(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch) -> SkillRepo:
    made = skill_repo(DESCRIPTION, plugin_dir=".agents", plugin_name=None, skill_name="alpha")
    monkeypatch.chdir(made.root)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return made


def write_skill(folder: Path, name: str, description: str, extra: str = "") -> None:
    folder.mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody of {name}.\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")


def skill_md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n"


def catalog_of_60(root: Path) -> Path:
    """60 skills of 1,000-character descriptions, but c00 (2,000 characters), c01 (hidden by
    `disable-model-invocation`), c02 (hidden by its Codex policy file) and c03 (no `name`)."""
    for index in range(60):
        name = f"c{index:02d}"
        words = f"{name} handles task {index} " + "lorem ipsum dolor sit amet " * 80
        length = 2000 if index == 0 else 1000
        extra = "disable-model-invocation: true\n" if index == 1 else ""
        write_skill(root / name, name, words[:length].strip(), extra)
        if index == 2:
            (root / name / "agents").mkdir()
            (root / name / "agents" / "openai.yaml").write_text(POLICY_OFF)
    text = (root / "c03" / "SKILL.md").read_text().replace("name: c03\n", "")
    (root / "c03" / "SKILL.md").write_text(text)
    return root


def states(listing: dict[str, Any]) -> dict[str, int]:
    found: dict[str, int] = {}
    for seen in listing["skills"]:
        found[seen["state"]] = found.get(seen["state"], 0) + 1
    return found


def verdicts(listing: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {seen["id"]: seen for seen in listing["skills"]}


def test_a_60_skill_catalog_as_each_agent_shows_it(
    alpha: SkillRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = catalog_of_60(tmp_path / "catalog")
    out_json = tmp_path / "visibility.json"
    code = main(["visibility", "--catalog", str(catalog), "--json", str(out_json)])
    out = capsys.readouterr().out
    assert code == 0
    data = orjson.loads(out_json.read_bytes())
    assert data["schema"] == "activation-visibility/1" and data["exit_code"] == 0
    agents = {view["agent"]: view for view in data["agents"]}
    assert list(agents) == list(known())
    claude, opencode, codex, copilot, gemini = (
        agents[name]["listings"][0]
        for name in ("claude-code", "opencode", "codex", "copilot", "gemini")
    )
    # Copilot: c00's 2,000-character description is rejected, c01 left out, the rest past
    # the 15,000-character budget named on the overflow line only.
    seen = verdicts(copilot)
    assert (
        seen["c00"]["rule"] == "a description over 1,024 characters: Copilot CLI rejects the skill"
    )
    assert seen["c01"]["rule"] == "disable-model-invocation: true"
    assert states(copilot) == {"full": 14, "collapsed": 45, "hidden": 2}
    assert copilot["width"] <= copilot["budget"] == 15_000
    assert [len(listing["skills"]) for listing in (claude, opencode, codex)] == [61, 61, 61]

    # Claude Code: 30,000 columns at its default model; c00 cut, c01 hidden, most collapsed.
    assert claude["budget"] == 30_000 and claude["unit"] == "columns"
    assert claude["width"] <= 30_000 < claude["full_width"]
    assert states(claude) == {"full": 22, "cut": 1, "collapsed": 37, "hidden": 1}
    seen = verdicts(claude)
    assert seen["c00"]["state"] == "cut" and seen["c00"]["kept"] == 1535
    assert seen["c01"]["rule"] == (
        "disable-model-invocation: true (the Skill tool refuses the model too)"
    )
    assert seen["c59"]["state"] == "collapsed" and seen["c59"]["budget_by"][0] == "c00"
    assert "- c59\n" in claude["text"] or claude["text"].endswith("- c59")

    # OpenCode: no cut, no budget; only the skill without `name` is left out.
    assert opencode["budget"] is None
    assert states(opencode) == {"full": 60, "hidden": 1}
    assert (
        verdicts(opencode)["c03"]["rule"]
        == "no `name` in the frontmatter (OpenCode skips the file)"
    )

    # Codex: c02's policy file hides it; 2 % of the window spread over the descriptions.
    assert codex["unit"] == "tokens" and codex["width"] <= codex["budget"] < codex["full_width"]
    seen = verdicts(codex)
    assert seen["c02"]["rule"] == "agents/openai.yaml says policy.allow_implicit_invocation: false"
    assert "c02" not in codex["text"]
    assert states(codex)["hidden"] == 1 and states(codex)["cut"] >= 50
    assert seen["c00"]["chars"] == 2000 and seen["c00"]["kept"] < 1021

    # Gemini CLI: no cut, no budget; the skill without `name` is left out; a listed skill
    # is loadable because this tool's runs open activate_skill.
    assert gemini["budget"] is None and len(gemini["skills"]) == 61
    assert states(gemini) == {"full": 60, "hidden": 1}
    seen = verdicts(gemini)
    assert seen["c03"]["rule"] == "no `name` in the frontmatter (Gemini CLI skips the file)"
    assert seen["c00"]["kept"] == 2000

    assert "== Claude Code 2.1.332 (its default model)" in out
    assert "c01: not listed: disable-model-invocation: true" in out
    assert "listing as sent:" in out
    assert out.rstrip().endswith("OK: shown; pass --baseline to compare.")


def test_a_candidate_that_turns_implicit_invocation_off_fails_in_codex_only(
    alpha: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha.write(".agents/skills/alpha/agents/openai.yaml", POLICY_OFF)
    code = main(["visibility", "--baseline", "git:HEAD", "--no-listing"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("LESS VISIBLE") == 1
    assert (
        "LESS VISIBLE Codex 0.171.0: alpha is less visible in the candidate: listed whole -> "
        "not listed: agents/openai.yaml says policy.allow_implicit_invocation: false"
    ) in out
    assert "listing as sent" not in out
    assert out.rstrip().endswith("FAILED: 1 skill(s) less visible in the candidate.")


def test_user_skill_folders_are_listed_when_asked(
    alpha: SkillRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    home = tmp_path / "home"
    write_skill(home / ".claude" / "skills" / "mine", "mine", "My own Claude skill.")
    write_skill(home / ".agents" / "skills" / "shared", "shared", "A skill every agent reads.")
    monkeypatch.setenv("HOME", str(home))
    out_json = tmp_path / "v.json"
    assert main(["visibility", "--user-skills", "--agent", "claude-code,codex",
                 "--json", str(out_json)]) == 0  # fmt: skip
    agents = {view["agent"]: view for view in orjson.loads(out_json.read_bytes())["agents"]}
    ids = {name: [s["id"] for s in view["listings"][0]["skills"]] for name, view in agents.items()}
    assert ids == {"claude-code": ["alpha", "mine"], "codex": ["alpha", "shared"]}
    assert main(["visibility", "--agent", "codex", "--json", str(out_json)]) == 0
    only = orjson.loads(out_json.read_bytes())["agents"][0]["listings"][0]["skills"]
    assert [s["id"] for s in only] == ["alpha"]
    capsys.readouterr()


def test_a_users_copy_of_a_project_skill_is_listed_by_each_agents_own_rule(
    alpha: SkillRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The same skill installed for the user and in the repo (QA3 E29): Claude Code lists
    the user's copy, Gemini CLI, OpenCode and Copilot CLI the project's, Codex both, each
    line saying which copy."""
    home = tmp_path / "home"
    for folder in (".claude", ".agents"):
        write_skill(home / folder / "skills" / "alpha", "alpha", "USER copy of alpha.")
    monkeypatch.setenv("HOME", str(home))
    out_json = tmp_path / "v.json"
    assert main(["visibility", "--user-skills", "--json", str(out_json)]) == 0  # every agent
    out = capsys.readouterr().out
    agents = {view["agent"]: view for view in orjson.loads(out_json.read_bytes())["agents"]}
    seen = {
        name: [(s["id"], s["state"]) for s in view["listings"][0]["skills"]]
        for name, view in agents.items()
    }
    assert seen == {
        "claude-code": [("alpha", "hidden"), ("alpha", "full")],
        "gemini": [("alpha", "full"), ("alpha", "hidden")],
        "codex": [("alpha", "full"), ("alpha", "full")],
        "opencode": [("alpha", "full"), ("alpha", "hidden")],
        "copilot": [("alpha", "full"), ("alpha", "hidden")],
    }
    assert (
        "  alpha: not listed: the project's copy; a user skill of the same name ('alpha') "
        "replaces it: Claude Code lists the user's skills, then the project's, then the "
        "plugins', and the first skill of one id is listed and loaded\n"
        "  alpha: listed whole: the user's copy\n"
    ) in out
    assert (
        "  alpha: not listed: the user's copy; a project skill of the same name ('alpha') "
        "replaces it: Gemini CLI lists the one it finds later"
    ) in out
    claude = agents["claude-code"]["listings"][0]["text"]
    assert "- alpha: USER copy of alpha." in claude and DESCRIPTION not in claude
    gemini = agents["gemini"]["listings"][0]["text"]
    assert f"<description>{DESCRIPTION}</description>" in gemini and "USER copy" not in gemini
    codex = agents["codex"]["listings"][0]["text"]
    assert f"- alpha: {DESCRIPTION} (file: " in codex
    assert "- alpha: USER copy of alpha. (file: " in codex
    assert f"{home}/.agents/skills" in codex
    # Each copy is compared with itself: the project's, not listed on both sides, is not
    # less visible than the user's.
    assert main(["visibility", "--user-skills", "--baseline", "git:HEAD", "--no-listing"]) == 0
    assert (
        capsys.readouterr().out.rstrip().endswith("OK: no skill is less visible in the candidate.")
    )


def cases_file(tmp_path: Path) -> Path:
    return write_cases(
        tmp_path / "cases.json",
        [
            case("reports", "build me an alpha report", True, ["direct"]),
            case("cake", "bake a cake", False, ["unrelated"]),
        ],
    )


def test_a_run_fails_on_a_candidate_an_agent_no_longer_lists_and_says_so_everywhere(
    alpha: SkillRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha.write(".agents/skills/alpha/agents/openai.yaml", POLICY_OFF)
    outputs = {name: tmp_path / f"report.{name}" for name in ("json", "md", "html", "xml")}
    code = main(
        [
            "--model", "mock", "--agent", "codex,opencode", "--cases", str(cases_file(tmp_path)),
            "--skill-path", SKILL, "--json", str(outputs["json"]), "--markdown",
            str(outputs["md"]), "--html", str(outputs["html"]), "--junit", str(outputs["xml"]),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    matrix = read_report(outputs["json"])
    cells = {cell["coding_agent"]: cell for cell in matrix["cells"]}
    codex, opencode = cells["codex"], cells["opencode"]
    assert codex["exit_code"] == 1 and opencode["exit_code"] == 0
    assert codex["unseen"] == ["candidate"] and opencode["unseen"] == []
    assert [(f["cell"], f["skill"], f["candidate"]["state"]) for f in codex["less_visible"]] == [
        ("A/codex/mock", "alpha", "hidden")
    ]
    assert codex["baseline"]["seen"][0]["state"] == "full"
    line = (
        "LESS VISIBLE Codex 0.171.0: alpha is less visible in the candidate: listed whole -> "
        "not listed: agents/openai.yaml says policy.allow_implicit_invocation: false"
    )
    unseen = (
        "Codex does not list alpha in the candidate (agents/openai.yaml says "
        "policy.allow_implicit_invocation: false): that variant's trials cannot activate it, "
        "so its misses say nothing about the description"
    )
    assert line in out and unseen in out
    assert "FAILED: the candidate is less visible to the agent than the baseline." in out
    assert out.rstrip().endswith(
        "FAILED: the candidate is less visible to the agent in A/codex/mock."
    )
    markdown = outputs["md"].read_text()
    assert "- LESS VISIBLE Codex 0.171.0: alpha is less visible in the candidate" in markdown
    assert escape(line) in outputs["html"].read_text()
    suites = {suite.name: suite for suite in junitparser.JUnitXml.fromfile(str(outputs["xml"]))}
    codex_suite = suites["activation alpha [A/codex/mock]"]
    failing = [(c.classname, c.name) for c in codex_suite if c.result and
               isinstance(c.result[0], junitparser.Failure)]  # fmt: skip
    # the case's own failure stays (the mock never picks a skill it is not shown); the
    # visibility failure comes first and says why
    assert failing == [("visibility", "alpha"), ("direct", "reports")]
    assert codex_suite.failures == 2


def test_a_skill_no_variant_lists_leaves_the_cell_without_evidence(
    skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    text = f"---\nname: alpha\ndescription: {DESCRIPTION}\ndisable-model-invocation: true\n---\nB\n"
    made = skill_repo(text=text, plugin_dir=".agents", plugin_name=None, skill_name="alpha")
    monkeypatch.chdir(made.root)
    out_json = tmp_path / "r.json"
    code = main(["--model", "mock", "--cases", str(cases_file(tmp_path)), "--skill-path", SKILL,
                 "--json", str(out_json)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 3
    report = read_report(out_json)
    assert report["unseen"] == ["baseline", "candidate"] and report["less_visible"] == []
    assert out.rstrip().endswith(
        "INCOMPLETE: the agent lists the measured skill in neither variant, so no trial could "
        "activate it."
    )


def test_a_dry_run_prints_each_cells_visibility(
    alpha: SkillRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha.write(".agents/skills/alpha/agents/openai.yaml", POLICY_OFF)
    code = main(["--dry-run", "--model", "mock", "--agent", "codex,claude-code", "--cases",
                 str(cases_file(tmp_path)), "--skill-path", SKILL])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("visibility (no model call):") == 2
    assert "  candidate: " in out
    assert (
        "    alpha: not listed: agents/openai.yaml says policy.allow_implicit_invocation: false"
    ) in out
    assert out.count("  LESS VISIBLE ") == 1


# --- no target: every skill of every set -----------------------------------------------------

BILLING = Path(__file__).resolve().parents[2] / "examples" / "billing"
AGENTS = known()


def test_the_bundled_billing_example_shows_every_skill_with_no_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A set of three and no --skill-path (the page's own example): every skill, per agent,
    never exit 2 with a hint at a flag the command lacks."""
    root = tmp_path / "billing"
    shutil.copytree(BILLING, root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    catalog = catalog_of_60(tmp_path / "catalog")
    out_json = tmp_path / "visibility.json"
    assert main(["visibility", "--no-listing", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    data = orjson.loads(out_json.read_bytes())
    ids = ["billing:disputes", "billing:invoices", "billing:refunds"]
    for view in data["agents"]:
        assert view["skill_set"] is None
        assert [seen["id"] for seen in view["listings"][0]["skills"]] == ids
    assert [view["agent"] for view in data["agents"]] == list(AGENTS)
    assert out.count("  billing:refunds: listed whole\n") == len(AGENTS)
    assert main(["visibility", "--catalog", str(catalog), "--agent", "codex"]) == 0
    assert "billing:disputes: listed whole" in capsys.readouterr().out


def test_a_repo_of_two_sets_is_shown_set_by_set(
    skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made = skill_repo(
        DESCRIPTION,
        plugin_dir=".agents",
        plugin_name=None,
        skill_name="alpha",
        files={"plugins/tools/skills/beta/SKILL.md": skill_md("beta", "Use for beta.")},
    )
    monkeypatch.chdir(made.root)
    assert main(["visibility", "--agent", "opencode", "--no-listing"]) == 0
    lines = capsys.readouterr().out.splitlines()
    sizes = [line for line in lines if line.startswith("candidate: ")]
    assert [line.endswith(" characters, no budget: 1 listed whole") for line in sizes] == [
        True,
        True,
    ]
    assert [line for line in lines if line not in sizes] == [
        "== OpenCode 1.18.33 (its default model): .agents/skills/",
        "  alpha: listed whole",
        "",
        "== OpenCode 1.18.33 (its default model): plugin tools (plugins/tools/skills/)",
        "  tools:beta: listed whole",
        "",
        "OK: shown; pass --baseline to compare.",
    ]


def test_no_skill_at_all_names_a_flag_the_command_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["visibility"]) == 2
    err = capsys.readouterr().err
    assert err == f"activation visibility: error: no SKILL.md under {WHERE}: pass --skill-path\n"
    assert main(["visibility", "--help"]) == 0
    assert "--skill-path PATH" in capsys.readouterr().out


def test_an_overflow_that_falls_on_copilots_built_ins_names_them(
    alpha: SkillRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA5 F5: the set is listed whole and the budget's cut falls on the CLI's own skills."""
    skills = alpha.root / ".agents/skills"
    shutil.rmtree(skills / "alpha")
    for index in range(1, 14):
        name = f"s{index:02d}"
        words = f"{name} handles task {index} " + "lorem ipsum dolor sit amet " * 80
        write_skill(skills / name, name, words[:1000].strip())
    out_json = tmp_path / "visibility.json"
    flags = ["--agent", "copilot", "--no-listing", "--json", str(out_json)]
    assert main(["visibility", *flags]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:3] == [
        "candidate: 14,705 of 15,000 characters (15,030 if every entry, the agent's built-ins "
        "too, were whole): 13 listed whole",
        "  the agent's own built-in skills not listed whole: github-pr-media by name only, "
        "without a description (over the budget)",
    ]
    (listing,) = orjson.loads(out_json.read_bytes())["agents"][0]["listings"]
    assert listing["builtins"] == [{"id": "github-pr-media", "state": "collapsed"}]
