"""Each agent's visibility verdicts say what its real CLI showed: the pinned CLI runs
headless at a local stand-in on skills that exercise the rules (a cut, a hidden skill, a
policy file), and its first request's listing is both byte for byte the renderer's and what
the verdicts say of each skill.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from activation._models import AgentSettings, RunSpec
from activation.report.model import cell_visibility
from activation.trials.agents.claude_code import listing as claude_code
from activation.trials.agents.claude_code.adapter import agent_env, build_argv
from activation.trials.agents.codex import listing as codex
from activation.trials.agents.opencode import listing as opencode
from activation.trials.listing.model import ListedSkill
from activation.trials.listing.visibility import Visibility
from activation.trials.stage import stage_named
from tests.support.listing import sent_listing
from tests.support.messages_api import FakeMessagesAPI, Text
from tests.support.opencode_cli import isolated_env, run_headless, write_config
from tests.trials import test_codex_fidelity as codex_cli_run
from tests.trials import test_listing_fidelity as claude_cli_run
from tests.trials import test_opencode_fidelity as opencode_cli_run

POLICY_OFF = "policy:\n  allow_implicit_invocation: false\n"


def by_id(seen: tuple[Visibility, ...]) -> dict[str, Visibility]:
    return {item.id: item for item in seen}


def test_claude_codes_own_listing_cuts_and_hides_as_its_verdicts_say(
    claude: Path, tmp_path: Path
) -> None:
    inputs = claude_cli_run.measured(tmp_path, "plugins/kit/skills")
    sent = claude_cli_run.check(claude, inputs, tmp_path)  # the CLI's listing is ours
    spec = RunSpec(stage="B", model=claude_cli_run.MODEL)
    seen = cell_visibility(spec, inputs, stage_named("B").listings(spec, inputs))
    verdicts = by_id(seen.candidate)
    assert {skill: item.state for skill, item in verdicts.items()} == {
        "kit:deploy": "full", "kit:notes": "cut", "kit:quiet": "hidden", "kit:review": "full",
    }  # fmt: skip
    notes = verdicts["kit:notes"]
    assert notes.kept == 1535 and notes.chars == len(claude_cli_run.LONG.strip())
    (line,) = [line for line in sent.split("\n") if line.startswith("- kit:notes: ")]
    assert line == "- kit:notes: " + claude_cli_run.LONG.strip()[:1535] + "…"
    assert verdicts["kit:quiet"].rule.startswith("disable-model-invocation: true")
    assert "kit:quiet" not in sent
    assert seen.less_visible == () and seen.unseen == ()


def test_claude_code_lists_the_users_copy_of_a_project_skill_as_its_verdicts_say(
    claude: Path, tmp_path: Path
) -> None:
    """A user skill and a project skill of one id (QA3 E29): the CLI lists the user's copy
    alone, the renderer sends the same text, and the verdicts call the project's copy not
    listed."""
    home, config, scratch, work = (tmp_path / name for name in ("home", "cfg", "tmp", "work"))
    for folder, text in ((config / "skills", "USER"), (work / ".claude" / "skills", "PROJECT")):
        (folder / "tdd").mkdir(parents=True)
        (folder / "tdd" / "SKILL.md").write_text(
            f"---\nname: tdd\ndescription: {text} copy of tdd.\n---\nBody.\n"
        )
    home.mkdir()
    scratch.mkdir()
    settings = AgentSettings(max_turns=1, executables={"claude-code": str(claude)})
    argv = build_argv(settings, claude_cli_run.MODEL, str(claude), "hello")
    with FakeMessagesAPI(Text("ok")) as api:
        env = agent_env({"PATH": os.environ["PATH"]}, home, config, scratch)
        env.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-ant-fidelity",
                   CLAUDE_CODE_MAX_RETRIES="0")  # fmt: skip
        subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL, check=False)  # fmt: skip
        _role, sent = sent_listing(api.message_requests[0].body)
    ours = ListedSkill("tdd", "tdd", "project", "PROJECT copy of tdd.", name="tdd", body="Body.\n")
    mine = ListedSkill("tdd", "tdd", "user", "USER copy of tdd.", name="tdd", body="Body.\n")
    listing = claude_code.render([ours, mine], claude_cli_run.MODEL)
    assert listing.text == sent
    assert "- tdd: USER copy of tdd." in sent and "PROJECT copy" not in sent
    project, user = claude_code.visibility([ours, mine], listing)
    assert (project.state, user.state) == ("hidden", "full")
    assert project.rule.startswith("a user skill of the same name ('tdd') replaces it: ")


def opencode_system_text(opencode_cli: Path, scratch: Path, project: Path) -> str:
    """The system text of the pinned OpenCode's first turn in `project` (its listing at
    the end), its home and state under `scratch`."""
    with FakeMessagesAPI(Text("ok")) as api:
        env = isolated_env(scratch, write_config(scratch / "opencode.json", api.base_url))
        completed = run_headless(opencode_cli, project, env, "Please help me with the task.")
        turns = [request for request in api.message_requests if "skill" in request.tool_names]
    assert completed.returncode == 0, completed.stdout + completed.stderr
    text: str = turns[0].body["system"][0]["text"]
    return text


def test_opencodes_own_listing_leaves_out_what_its_verdicts_say(
    opencode_cli: Path, tmp_path: Path
) -> None:
    scratch = tmp_path.resolve()
    project = scratch / "proj"
    found = opencode_cli_run.write_project(project)
    locations = {skill.id: path for skill, path in found}
    sent = opencode_system_text(opencode_cli, scratch, project)
    skills = [skill for skill, _ in found]
    shown = opencode.render(skills, lambda skill: locations[skill.id])
    assert sent.endswith("</env>\n" + shown.text)
    verdicts = by_id(opencode.visibility(skills, shown))
    hidden = {skill: item.rule for skill, item in verdicts.items() if item.state == "hidden"}
    assert hidden == {
        "silent": "no description (OpenCode lists only skills with one)",
        "nameless": "no `name` in the frontmatter (OpenCode skips the file)",
    }
    assert {item.state for item in verdicts.values()} == {"full", "hidden"}
    assert "<name>silent</name>" not in sent and "nameless" not in sent
    assert "<name>blank</name>" in sent  # an empty description is listed


def test_opencode_lists_the_projects_copy_over_the_users_as_its_verdicts_say(
    opencode_cli: Path, tmp_path: Path
) -> None:
    """A user skill and a project skill of one name (QA3 E29): the CLI lists one copy. It
    reads its folders concurrently, so which one varies between runs (the project's in 3
    runs of 4 here, as the renderer shows it); the verdicts call the other not listed."""
    scratch = tmp_path.resolve()
    project = scratch / "proj"
    (project / ".git").mkdir(parents=True)
    roots = {
        "user": scratch / "home" / ".agents" / "skills",
        "project": project / ".agents" / "skills",
    }
    for source, root in roots.items():
        (root / "tdd").mkdir(parents=True)
        (root / "tdd" / "SKILL.md").write_text(
            f"---\nname: tdd\ndescription: {source.upper()} copy of tdd.\n---\nBody.\n"
        )
    sent = opencode_system_text(opencode_cli, scratch, project)
    skills = [
        ListedSkill("tdd", "tdd", "user", "USER copy of tdd.", name="tdd"),
        ListedSkill("tdd", "tdd", "project", "PROJECT copy of tdd.", name="tdd"),
    ]
    shown = opencode.render(skills, lambda skill: str(roots[skill.source] / "tdd/SKILL.md"))
    other = opencode.render(skills[::-1], lambda skill: str(roots[skill.source] / "tdd/SKILL.md"))
    assert sent.endswith(("</env>\n" + shown.text, "</env>\n" + other.text))
    assert ("PROJECT copy of tdd." in sent) != ("USER copy of tdd." in sent)
    user, ours = opencode.visibility(skills, shown)
    assert (user.state, ours.state) == ("hidden", "full")
    assert "which copy that is (the project's or the user's" in user.rule
    assert user.rule.startswith("a project skill of the same name ('tdd') replaces it: ")


def test_codexs_own_listing_cuts_and_drops_a_policy_hidden_skill_as_its_verdicts_say(
    codex_cli: Path, tmp_path: Path
) -> None:
    specs = (
        codex_cli_run.Spec("target-skill", "Use when the user asks for the target workflow."),
        codex_cli_run.Spec("long-one", codex_cli_run.LONG),
        codex_cli_run.Spec(
            "quiet", "Only when named.", files=(("agents/openai.yaml", POLICY_OFF),)
        ),
    )
    args = ["-c", "skills.bundled.enabled=false"]
    run = codex_cli_run.first_request(codex_cli, tmp_path, specs, None, args, "")
    root = run.roots["project"][1]
    skills = [
        ListedSkill(spec.folder, spec.folder, "project", spec.description, files=spec.files)
        for spec in specs
    ]

    def location(skill: ListedSkill) -> tuple[codex.Scope, str, str]:
        return "repo", root, f"{skill.folder}/SKILL.md"

    listing = codex.render(codex.allowed(skills), None, location, bundled=False)
    assert run.request.listing == listing.text
    verdicts = by_id(codex.visibility(skills, listing))
    assert verdicts["target-skill"].state == "full"
    assert (verdicts["long-one"].state, verdicts["long-one"].kept) == ("cut", 1021)
    assert f"- long-one: {codex_cli_run.LONG[:1021]}... (file: " in run.request.listing
    assert verdicts["quiet"].rule == (
        "agents/openai.yaml says policy.allow_implicit_invocation: false"
    )
    assert "quiet" not in run.request.listing
