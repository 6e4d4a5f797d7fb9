"""The listing fidelity checks of the conformance suite, per agent: the skill sets that
exercise each renderer's rules and the exact values its listing must have. Each check runs
the agent's pinned CLI on its set (`tests.support.fidelity.capture`) and compares the
listing of its first request with the renderer's, byte for byte, and with what the
visibility verdicts say of each skill. `test_conformance.py` runs them, one test per kind:
`LISTINGS` (the rendered listing is the CLI's), `VERDICTS` (a cut or hidden skill is what the
verdicts say), `SAME_NAME` (a user's and a project's copy of one skill, QA3 E29).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from activation._models import Inputs, RunSpec, Skill, TrialKey
from activation.inputs.frontmatter import read_sibling
from activation.inputs.load import load_inputs, resolve_target, resolve_variant
from activation.report.model import cell_visibility
from activation.trials.agents import agent_named
from activation.trials.agents.claude_code import listing as claude_code
from activation.trials.agents.codex import listing as codex
from activation.trials.agents.copilot import listing as copilot
from activation.trials.agents.gemini import listing as gemini
from activation.trials.agents.opencode import listing as opencode
from activation.trials.classifier.prompt import Requests
from activation.trials.listing.menu import listed_skill, lists, menu_listed
from activation.trials.listing.model import ListedSkill, Listing
from activation.trials.listing.visibility import Visibility
from activation.trials.stage import stage_named
from tests.support.fidelity import (
    CLAUDE_MODEL,
    CodexRun,
    CodexSpec,
    GeminiSpec,
    capture,
    claude_code_headless,
    copilot_frontmatter,
    copilot_responses_request,
    opencode_system_text,
)
from tests.support.gemini_api import GeminiRequest
from tests.support.listing import sent_listing
from tests.support.messages_api import FakeRequest
from tests.trials.listing.test_unparsed import SKILLS as UNPARSED

Check = Callable[[Path, Path], None]
"""A check: the agent's pinned CLI, a scratch folder."""


def by_id(seen: tuple[Visibility, ...]) -> dict[str, Visibility]:
    return {item.id: item for item in seen}


# --- Claude Code: Stage B's own backend runs the CLI on the inputs Stage A reads ----------

CLAUDE_LONG = (
    "Summarise release notes into a changelog. " + "Keep every entry short and exact. " * 60
)
CLAUDE_SKILLS = {
    "deploy": "description: Deploy the app to staging or production.\n"
    "when_to_use: When the user asks to ship, release or roll back.\n",
    "notes": f'description: "{CLAUDE_LONG}"\n',
    "review": "name: code-check\ndescription: Check a diff for <risky> changes.\n",
    "quiet": "description: Never offered.\ndisable-model-invocation: true\n",
}
CLAUDE_CASES = '[{"id": "c", "prompt": "ship it", "should_activate": true, "why": "deploys"}]'


def write_claude_set(folder: Path) -> None:
    for name, frontmatter in CLAUDE_SKILLS.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(f"---\n{frontmatter}---\n# {name}\n\nBody.\n")


def stage_a_lines(inputs: Inputs) -> tuple[str, list[str]]:
    """Stage A's listing in the agent's order, and the lines of one trial's system prompt."""
    requests = Requests.for_run(RunSpec(model=CLAUDE_MODEL), inputs)
    shown = requests.listings["candidate"]
    (block,) = requests.system(TrialKey(inputs.cases[0], "candidate", 1))
    listing = block["text"].removeprefix(agent_named("claude-code").instructions)
    return shown.as_sent, listing.split("\n\n", 1)[1].split("\n")


def claude_check(claude: Path, inputs: Inputs, tmp_path: Path) -> str:
    """The listing the CLI sent, checked to be Stage A's and Stage B's, line for line."""
    without_distractors = replace(inputs, distractors=())  # Stage A's own additions
    _role, sent = sent_listing(capture("claude-code", claude, tmp_path, without_distractors))
    canonical, lines = stage_a_lines(without_distractors)
    assert canonical == sent
    assert sorted(lines) == sorted(sent.split("\n\n", 1)[1].split("\n"))
    spec = RunSpec(model=CLAUDE_MODEL)
    assert stage_named("B").listings(spec, inputs)["candidate"].as_sent == sent
    return sent


def claude_measured(tmp_path: Path, skills: str, catalog: Path | None = None) -> Inputs:
    """The inputs of a run on the set written under `<repo>/<skills>`, its deploy skill
    measured (the working tree against itself)."""
    repo = tmp_path / "repo"
    write_claude_set(repo / skills)
    cases = tmp_path / "cases.json"
    cases.write_text(CLAUDE_CASES)
    path = f"{skills}/deploy/SKILL.md"
    return load_inputs(
        repo, repo=repo, skill_path=path, cases=cases, baseline=path, catalog=catalog
    )


def claude_a_plugins_listing(claude: Path, tmp_path: Path) -> None:
    sent = claude_check(claude, claude_measured(tmp_path, "plugins/kit/skills"), tmp_path)
    assert (
        "- kit:deploy: Deploy the app to staging or production. - When the user asks to ship, "
        "release or roll back.\n"
    ) in sent
    assert "- kit:notes: Summarise release notes" in sent and "…\n" in sent  # cut at 1,536
    assert "- kit:review (kit:code-check): Check a diff for &lt;risky&gt; changes." in sent
    assert "kit:quiet" not in sent


def claude_a_skills_folders_listing(claude: Path, tmp_path: Path) -> None:
    inputs = claude_measured(tmp_path, ".claude/skills")
    assert inputs.target.skill_id == "deploy"
    sent = claude_check(claude, inputs, tmp_path)
    assert "- deploy: Deploy the app" in sent
    assert "- review (code-check): Check a diff" in sent


def claude_the_catalogs_listing(claude: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "mine").mkdir(parents=True)
    (catalog / "mine" / "SKILL.md").write_text("---\ndescription: My own widgets.\n---\n")
    write_claude_set(catalog / "shop" / "skills")
    sent = claude_check(claude, claude_measured(tmp_path, "plugins/kit/skills", catalog), tmp_path)
    assert "- mine: My own widgets." in sent
    assert "- shop:deploy: Deploy the app" in sent


def claude_cuts_and_hides(claude: Path, tmp_path: Path) -> None:
    inputs = claude_measured(tmp_path, "plugins/kit/skills")
    sent = claude_check(claude, inputs, tmp_path)  # the CLI's listing is ours
    spec = RunSpec(stage="B", model=CLAUDE_MODEL)
    seen = cell_visibility(spec, inputs, stage_named("B").listings(spec, inputs))
    verdicts = by_id(seen.candidate)
    assert {skill: item.state for skill, item in verdicts.items()} == {
        "kit:deploy": "full", "kit:notes": "cut", "kit:quiet": "hidden", "kit:review": "full",
    }  # fmt: skip
    notes = verdicts["kit:notes"]
    assert notes.kept == 1535 and notes.chars == len(CLAUDE_LONG.strip())
    (line,) = [line for line in sent.split("\n") if line.startswith("- kit:notes: ")]
    assert line == "- kit:notes: " + CLAUDE_LONG.strip()[:1535] + "…"
    assert verdicts["kit:quiet"].rule.startswith("disable-model-invocation: true")
    assert "kit:quiet" not in sent
    assert seen.less_visible == () and seen.unseen == ()


def claude_lists_the_users_copy(claude: Path, tmp_path: Path) -> None:
    """The CLI lists the user's copy alone, the renderer sends the same text, and the
    verdicts call the project's copy not listed."""
    config, work = tmp_path / "cfg", tmp_path / "work"
    for folder, text in ((config / "skills", "USER"), (work / ".claude" / "skills", "PROJECT")):
        (folder / "tdd").mkdir(parents=True)
        (folder / "tdd" / "SKILL.md").write_text(
            f"---\nname: tdd\ndescription: {text} copy of tdd.\n---\nBody.\n"
        )
    _role, sent = sent_listing(claude_code_headless(claude, tmp_path, work))
    ours = ListedSkill("tdd", "tdd", "project", "PROJECT copy of tdd.", name="tdd", body="Body.\n")
    mine = ListedSkill("tdd", "tdd", "user", "USER copy of tdd.", name="tdd", body="Body.\n")
    listing = claude_code.render([ours, mine], CLAUDE_MODEL)
    assert listing.text == sent
    assert "- tdd: USER copy of tdd." in sent and "PROJECT copy" not in sent
    project, user = claude_code.visibility([ours, mine], listing)
    assert (project.state, user.state) == ("hidden", "full")
    assert project.rule.startswith("a user skill of the same name ('tdd') replaces it: ")


# --- OpenCode: the section at the end of the system text of its first turn ---------------

OPENCODE_SKILLS = {  # in the CLI's discovery order: .claude, then .agents, then .opencode
    ".claude/skills/review": "name: code-check\n"
    'description: Check a diff for <risky> & "odd" changes.\n',
    ".agents/skills/zebra": "name: Zebra-Tools\ndescription: Draw zebras.\n",
    ".opencode/skills/deploy": "name: deploy\ndescription: Deploy the app to staging.\n"
    "when_to_use: When the user asks to ship.\n",
    ".opencode/skills/notes": "name: notes\ndescription: |\n  Summarise release notes.\n"
    "  Keep entries short.\n",
    ".opencode/skills/_private": "name: _private\ndescription: Underscore first.\n",
    ".opencode/skills/blank": "name: blank\ndescription: ''\n",
    ".opencode/skills/silent": "name: silent\n",
    ".opencode/skills/nameless": "description: Has no name, so the CLI skips it.\n",
}
"""Every rule: order by collation, raw name and description, an escaped location, a
multi-line and an empty description, a file without a name, one without a description,
`when_to_use`."""
OPENCODE_LISTED = ["_private", "blank", "review", "customize-opencode", "deploy", "notes", "zebra"]


def write_opencode_project(project: Path) -> list[tuple[ListedSkill, str]]:
    """The skills on disk, and each as the pipeline reads it with its SKILL.md path."""
    found = []
    for folder, frontmatter in OPENCODE_SKILLS.items():
        path = project / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        text = f"---\n{frontmatter}---\n\n# {path.parent.name}\n\nBody.\n"
        path.write_text(text, encoding="utf-8")
        fields = read_sibling(text, str(path)).frontmatter
        skill = ListedSkill(
            id=path.parent.name,
            folder=path.parent.name,
            source="project",
            description=fields.get("description"),
            when_to_use=fields.get("when_to_use"),
            name=fields.get("name"),
        )
        found.append((skill, str(path)))
    return found


def opencode_every_rule(opencode_cli: Path, tmp_path: Path) -> None:
    """Its listing, and what the verdicts say of the skills the CLI leaves out."""
    scratch = tmp_path.resolve()
    project = scratch / "proj & 'co' <x>"  # the location is escaped, the CLI's too
    found = write_opencode_project(project)
    locations = {skill.id: path for skill, path in found}
    sent: str = capture("opencode", opencode_cli, scratch, project)
    skills = [skill for skill, _ in found]
    shown = opencode.render(skills, lambda skill: locations[skill.id])
    assert sent.endswith("</env>\n" + shown.text)
    assert list(shown.ids) == OPENCODE_LISTED
    review = shown.entry("review")
    assert review is not None
    assert review.line == (
        "  <skill>\n"
        "    <name>code-check</name>\n"
        '    <description>Check a diff for <risky> & "odd" changes.</description>\n'
        f"    <location>{scratch}/proj &amp; &#39;co&#39; &lt;x&gt;/.claude/skills/review/"
        "SKILL.md</location>\n"
        "  </skill>"
    )
    notes = shown.entry("notes")
    assert notes is not None
    assert "<description>Summarise release notes.\nKeep entries short.\n</description>" in (
        notes.line
    )
    assert "When the user asks to ship" not in sent
    verdicts = by_id(opencode.visibility(skills, shown))
    hidden = {skill: item.rule for skill, item in verdicts.items() if item.state == "hidden"}
    assert hidden == {
        "silent": "no description (OpenCode lists only skills with one)",
        "nameless": "no `name` in the frontmatter (OpenCode skips the file)",
    }
    assert {item.state for item in verdicts.values()} == {"full", "hidden"}
    assert "<name>silent</name>" not in sent and "nameless" not in sent
    assert "<name>blank</name>" in sent  # an empty description is listed


def opencode_lists_one_copy(opencode_cli: Path, tmp_path: Path) -> None:
    """The CLI lists one copy. It reads its folders concurrently, so which one varies
    between runs (the project's in 3 runs of 4 here, as the renderer shows it); the
    verdicts call the other not listed."""
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
    sent: str = capture("opencode", opencode_cli, scratch, project)
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


# --- Codex: the listing of its first Responses API request -------------------------------

CODEX_LONG = ("Use when the long workflow applies. " * 40)[:1100]
"""Over the 1,024-character cut."""
POLICY_OFF = "policy:\n  allow_implicit_invocation: false\n"


def codex_rendered(
    run: CodexRun,
    specs: Sequence[CodexSpec],
    model: str | None,
    *,
    bundled: bool = True,
    context_window: int | None = None,
) -> Listing:
    """What `render` makes of the skills the run installed."""
    skills = [
        ListedSkill(
            id=f"{spec.where}/{spec.folder}",
            folder=spec.folder,
            source="project" if spec.where == "project" else "user",
            description=spec.description,
            name=spec.name,
        )
        for spec in specs
    ]
    where = {f"{spec.where}/{spec.folder}": spec.where for spec in specs}

    def location(skill: ListedSkill) -> tuple[codex.Scope, str, str]:
        scope, root = run.roots[where[skill.id]]
        return scope, root, f"{skill.folder}/SKILL.md"

    return codex.render(
        skills,
        model,
        location,
        codex_home=run.codex_home,
        context_window=context_window,
        bundled=bundled,
    )


CODEX_SKILLS = (
    CodexSpec("target-skill", "Use when the user asks for the target workflow."),
    CodexSpec("long-one", CODEX_LONG),
    CodexSpec("spaced", "  Several   spaces,\ta tab\n\nand a blank line.  "),
    CodexSpec("dir-x", "Its name is not its folder.", name="Named-X"),
    CodexSpec("_under", "Sorts after upper case, before lower case."),
    CodexSpec("group/nested", "Two folders deep.", name="nested"),
    CodexSpec("home-skill", "From $HOME/.agents/skills.", where="home"),
    CodexSpec("codex-home-skill", "From $CODEX_HOME/skills.", where="codex_home"),
)
NO_BUNDLED = ("-c", "skills.bundled.enabled=false")


def codex_the_default_model_with_its_bundled_skills(codex_cli: Path, tmp_path: Path) -> None:
    run: CodexRun = capture("codex", codex_cli, tmp_path, CODEX_SKILLS)
    assert run.request.body["model"] == "gpt-6.2-sol"
    expected = codex_rendered(run, CODEX_SKILLS, None)
    assert run.request.listing == expected.text
    entry = expected.entry("project/long-one")
    assert entry is not None and entry.state == "cut"
    assert entry.line == f"- long-one: {CODEX_LONG[:1021]}... (file: r3/long-one/SKILL.md)"
    assert expected.ids[:4] == ("imagegen", "openai-docs", "skill-creator", "skill-installer")


def codex_gpt_5_5_gets_the_how_to_use_block(codex_cli: Path, tmp_path: Path) -> None:
    run: CodexRun = capture(
        "codex", codex_cli, tmp_path, CODEX_SKILLS, model="gpt-5.5", args=NO_BUNDLED
    )
    expected = codex_rendered(run, CODEX_SKILLS, "gpt-5.5", bundled=False)
    assert run.request.listing == expected.text
    assert expected.closing.startswith("\n### How to use skills\n")


CODEX_MANY = tuple(
    CodexSpec(f"skill-{i:02d}", f"Skill {i:02d} " + "lorem ipsum dolor " * 16) for i in range(12)
)


def codex_over_its_budget(window: int, kept: int, state: str) -> Check:
    """At 200 tokens the bare lines (11 tokens each) fit and the rest is spread over the
    descriptions; at 60 they do not, and only the first five bare lines are kept."""

    def check(codex_cli: Path, tmp_path: Path) -> None:
        config = f"model_context_window = {window}"
        run: CodexRun = capture(
            "codex", codex_cli, tmp_path, CODEX_MANY, args=NO_BUNDLED, config=config
        )
        expected = codex_rendered(run, CODEX_MANY, None, bundled=False, context_window=window)
        assert run.request.listing == expected.text
        assert expected.budget == window // 50
        assert expected.ids == tuple(f"project/skill-{i:02d}" for i in range(kept))
        assert {entry.state for entry in expected.entries} == {state}

    return check


def codex_cuts_and_drops_a_policy_hidden_skill(codex_cli: Path, tmp_path: Path) -> None:
    specs = (
        CodexSpec("target-skill", "Use when the user asks for the target workflow."),
        CodexSpec("long-one", CODEX_LONG),
        CodexSpec("quiet", "Only when named.", files=(("agents/openai.yaml", POLICY_OFF),)),
    )
    run: CodexRun = capture("codex", codex_cli, tmp_path, specs, args=NO_BUNDLED)
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
    assert f"- long-one: {CODEX_LONG[:1021]}... (file: " in run.request.listing
    assert verdicts["quiet"].rule == (
        "agents/openai.yaml says policy.allow_implicit_invocation: false"
    )
    assert "quiet" not in run.request.listing


def codex_lists_both_copies(codex_cli: Path, tmp_path: Path) -> None:
    """The CLI lists both, each with its own file, as the renderer does, and the verdicts
    call both listed."""
    specs = (
        CodexSpec("tdd", "PROJECT copy of tdd."),
        CodexSpec("tdd", "USER copy of tdd.", where="home"),
    )
    run: CodexRun = capture("codex", codex_cli, tmp_path, specs)
    skills = [
        ListedSkill("tdd", "tdd", "project" if spec.where == "project" else "user",
                    spec.description)
        for spec in specs
    ]  # fmt: skip

    def location(skill: ListedSkill) -> tuple[codex.Scope, str, str]:
        scope, root = run.roots["project" if skill.source == "project" else "home"]
        return scope, root, "tdd/SKILL.md"

    expected = codex.render(skills, None, location, codex_home=run.codex_home)
    assert run.request.listing == expected.text
    assert "- tdd: PROJECT copy of tdd. (file: r" in expected.text
    assert "- tdd: USER copy of tdd. (file: r" in expected.text
    assert [seen.state for seen in codex.visibility(skills, expected)] == ["full", "full"]


# --- GitHub Copilot CLI: the `<skill>` block of its first request's system text ----------

COPILOT_OPEN, COPILOT_CLOSE = "<skill>\n<available_skills>", "</available_skills>\n</skill>"


def copilot_block(text: str) -> str:
    """The `<skill>` tool-guidance block of a request's instructions."""
    start = text.index(COPILOT_OPEN)
    return text[start : text.index(COPILOT_CLOSE, start) + len(COPILOT_CLOSE)]


def copilot_sent(request: FakeRequest) -> str:
    """The `<skill>` block of the one system block that holds it."""
    (text,) = (block["text"] for block in request.body["system"] if COPILOT_OPEN in block["text"])
    return copilot_block(text)


COPILOT_SKILLS = {
    ".github/skills/zebra": copilot_frontmatter("Zebra", "Draw zebras."),
    ".github/skills/alpha": copilot_frontmatter("alpha", "A <b> & \"q\" 'a'."),
    ".agents/skills/under": copilot_frontmatter(
        "_under", "Fails: a name must start with a letter."
    ),
    ".agents/skills/dotted": copilot_frontmatter("ok.dot", "From .agents/skills."),
    ".claude/skills/dash": copilot_frontmatter("a-b", "Dash."),
    ".github/skills/upper": copilot_frontmatter("ALPHA2", "Upper case sorts first."),
    ".github/skills/unnamed": copilot_frontmatter(None, "Listed by its folder."),
    ".github/skills/bodied": copilot_frontmatter("bodied", None),
    ".github/skills/spaced": copilot_frontmatter("spaced", "  Two  spaces\tand a tab  "),
    ".github/skills/e1024": copilot_frontmatter("e1024", "é" * 1024),
    ".github/skills/e1025": copilot_frontmatter("e1025", "é" * 1025),
    ".github/skills/hidden": copilot_frontmatter(
        "hidden", "Hidden.", "disable-model-invocation: true\n"
    ),
}


def copilot_every_rule(copilot_cli: Path, tmp_path: Path) -> None:
    request, found = capture("copilot", copilot_cli, tmp_path, COPILOT_SKILLS)
    shown = copilot.render(found)
    assert copilot_sent(request) == shown.text
    assert [entry.name for entry in shown.entries] == [
        "ALPHA2", "Zebra", "a-b", "alpha", "bodied", "e1024", "ok.dot", "spaced", "unnamed",
        "customize-cloud-agent", "github-pr-media",
    ]  # fmt: skip
    alpha = shown.entry("alpha")
    assert alpha is not None
    assert alpha.line == (
        "<skill>\n  <name>alpha</name>\n"
        "  <description>A &lt;b&gt; &amp; &quot;q&quot; &apos;a&apos;.</description>\n"
        "  <location>project</location>\n</skill>"
    )
    bodied = shown.entry("bodied")
    assert (
        bodied is not None and "<description>Body line one line two.</description>" in bodied.line
    )
    assert shown.budget == 15000 and shown.width == sum(len(e.line) + 1 for e in shown.entries)


def copilot_over_the_budget(copilot_cli: Path, tmp_path: Path) -> None:
    """Fifteen entries of 977 to 991 characters (and their newlines) fit 15,000; the
    sixteenth does not, so it, the small one after it and the built-ins are only named."""
    many = {
        f".github/skills/s{i:02d}": copilot_frontmatter(f"s{i:02d}", "x" * (880 + i))
        for i in range(16)
    }
    many[".github/skills/tiny"] = copilot_frontmatter("tiny", "Small enough to fit.")
    request, found = capture("copilot", copilot_cli, tmp_path, many)
    shown = copilot.render(found)
    assert copilot_sent(request) == shown.text
    assert shown.ids == tuple(f"s{i:02d}" for i in range(15))
    assert shown.width == sum(977 + i for i in range(15))
    assert shown.closing == (
        "\nAdditional skills available (invoke by name): s15, tiny, customize-cloud-agent, "
        "github-pr-media\n</available_skills>\n</skill>"
    )


def copilot_skill_char_budget(copilot_cli: Path, tmp_path: Path) -> None:
    """SKILL_CHAR_BUDGET replaces the budget: 995 + 1,005 characters and their two newlines
    are 2,002, over a budget of 2,000."""
    two = {".github/skills/b1": copilot_frontmatter("b1", "x" * 900),
           ".github/skills/b2": copilot_frontmatter("b2", "y" * 910)}  # fmt: skip
    request, found = capture("copilot", copilot_cli, tmp_path, two, SKILL_CHAR_BUDGET="2000")
    shown = copilot.render(found, budget=2000)
    assert copilot_sent(request) == shown.text
    assert shown.ids == ("b1",)
    assert copilot.render(found, budget=2002).ids == ("b1", "b2")


def copilot_over_the_responses_api(copilot_cli: Path, tmp_path: Path) -> None:
    """`--model openai:<id>`: the listing is in the request's `instructions`, the same
    bytes."""
    first, found = copilot_responses_request(copilot_cli, tmp_path, COPILOT_SKILLS)
    assert copilot_block(first.body["instructions"]) == copilot.render(found).text
    assert first.body["model"] == "gpt-5.5"


def copilot_a_project_skill_replaces_the_built_in(copilot_cli: Path, tmp_path: Path) -> None:
    request, found = capture("copilot", copilot_cli, tmp_path, {
        ".agents/skills/github-pr-media": copilot_frontmatter(
            "github-pr-media", "My own PR media skill."
        ),
    })  # fmt: skip
    shown = copilot.render(found)
    assert copilot_sent(request) == shown.text
    assert [(entry.name, entry.source) for entry in shown.entries] == [
        ("github-pr-media", "project"), ("customize-cloud-agent", "builtin"),
    ]  # fmt: skip


def copilot_lists_the_projects_copy(copilot_cli: Path, tmp_path: Path) -> None:
    """User skills (`~/.copilot/skills`, `~/.agents/skills`; not `~/.claude/skills`) are
    listed after the project's, labelled `user`; a user's copy of a project skill is not
    listed."""
    user = {
        "../home/.copilot/skills/tdd": copilot_frontmatter("tdd", "USER copy of tdd."),
        "../home/.copilot/skills/mine": copilot_frontmatter("mine", "Only mine."),
        "../home/.agents/skills/shared": copilot_frontmatter("shared", "From ~/.agents/skills."),
        "../home/.claude/skills/claude": copilot_frontmatter("claude", "Never read."),
    }
    ours = {".github/skills/tdd": copilot_frontmatter("tdd", "PROJECT copy of tdd.")}
    request, found = capture("copilot", copilot_cli, tmp_path, {**ours, **user})
    sent = copilot_sent(request)
    project, *mine = found[:4]  # ~/.claude/skills' is no user skill of Copilot CLI
    skills = [project, *(replace(skill, source="user") for skill in mine)]
    listing = copilot.render(skills)
    assert sent == listing.text
    assert [(entry.name, entry.source) for entry in listing.entries] == [
        ("tdd", "project"), ("mine", "user"), ("shared", "user"),
        ("customize-cloud-agent", "builtin"), ("github-pr-media", "builtin"),
    ]  # fmt: skip
    assert "USER copy" not in sent and "Never read." not in sent
    assert "<location>user</location>" in sent
    seen = copilot.visibility(skills, listing)
    assert [item.state for item in seen] == ["full", "hidden", "full", "full"]
    assert seen[1].rule.startswith("a project skill of the same name ('tdd') replaces it: ")


# --- Gemini CLI: the listing section of its first request's system instruction -----------
# Inside one skills folder the CLI's order is its glob's concurrent walk: mostly reverse
# byte order, which `render` follows, but not always (seen: one entry of 30 elsewhere, two
# entries swapped), so the text is compared in the order the CLI sent, and the order itself
# is checked only where it is fixed: built-ins, then `.gemini/skills`, then `.agents/skills`.

GEMINI_HEADING = "# Available Agent Skills"
GEMINI_LOCATION = re.compile(r"<location>.*/(?:skills|builtin)/(.*?)/SKILL\.md</location>")
GEMINI_CLOSE = "</available_skills>"


def gemini_sent(request: GeminiRequest) -> str:
    """The section of the system instruction that holds the listing, with the blank lines
    around it checked."""
    system = request.system
    start = system.index(GEMINI_HEADING)
    end = system.index(GEMINI_CLOSE, start) + len(GEMINI_CLOSE)
    assert system[start - 2 : start] == "\n\n" and system[end : end + 2] == "\n\n"
    return system[start:end]


def gemini_rendered(gemini_cli: Path, tmp: Path, specs: Sequence[GeminiSpec], model: str) -> (
    Listing
):  # fmt: skip
    """What `render` makes of the skills, each skills folder in the CLI's order."""
    work = tmp.resolve() / "work"
    skills = {spec.folder: spec for spec in specs}
    ordered = [
        skill
        for root in (".gemini/skills", ".agents/skills")
        for skill in gemini.discovery_order([s.listed() for s in specs if s.root == root])
    ]
    return gemini.render(
        ordered,
        model,
        lambda skill: str(work / skills[skill.folder].root / skill.folder / "SKILL.md"),
        builtin_root=gemini.builtin_root(str(gemini_cli)),
    )


GEMINI_SKILLS = (
    GeminiSpec(
        "target-skill", "name: target-skill\ndescription: Use when the user asks for the target."
    ),
    GeminiSpec("folder-x", "name: Named-X\ndescription: Its name is not its folder."),
    GeminiSpec("colon", 'name: "db:tune"\ndescription: A colon in the name becomes a dash.'),
    GeminiSpec("raw", "name: raw\ndescription: \"Kept <as> is & 'quoted', no escaping\""),
    GeminiSpec("block", "name: block\ndescription: |\n  Two lines,\n  kept as they are.\n"),
    GeminiSpec("folded", "name: folded\ndescription: >-\n  Folded into\n  one line."),
    GeminiSpec("nodesc", "name: nodesc"),
    GeminiSpec("Upper", "name: Upper\ndescription: An upper-case folder sorts before lower case."),
    GeminiSpec("a_under", "name: a_under\ndescription: Underscore after the dash."),
    GeminiSpec("a-dash", "name: a-dash\ndescription: Dash before the underscore."),
    GeminiSpec("a10", "name: a10\ndescription: Byte order, not number order."),
    GeminiSpec("a9", "name: a9\ndescription: Byte order, not number order."),
    GeminiSpec("ünï", "name: ünï\ndescription: Ünicode, sorted by its UTF-8 bytes."),
    *(
        GeminiSpec(f"many-{i:02d}", f"name: many-{i:02d}\ndescription: {'Long ' * 400}{i}")
        for i in range(24)
    ),
    GeminiSpec(
        "gem-only", "name: gem-only\ndescription: From .gemini/skills.", root=".gemini/skills"
    ),
    GeminiSpec(
        "zz-both", "name: target-skill\ndescription: Replaced by .agents.", root=".gemini/skills"
    ),
)
"""39 SKILL.md files, 2,000-character descriptions among them (no cut), one without a description
(not listed), and a `.gemini/skills` skill whose name the `.agents/skills` one replaces
(keeping the `.gemini` one's place)."""


def gemini_the_listing_is_the_clis_own(model: str, wording: str) -> Check:
    def check(gemini_cli: Path, tmp_path: Path) -> None:
        request: GeminiRequest = capture("gemini", gemini_cli, tmp_path, GEMINI_SKILLS, model=model)
        expected = gemini_rendered(gemini_cli, tmp_path, GEMINI_SKILLS, model)
        sent = gemini_sent(request)
        builtins = {"skill-creator", "antigravity-support"}
        ids = [folder if folder in builtins else folder.replace("zz-both", "target-skill")
               for folder in GEMINI_LOCATION.findall(sent)]  # fmt: skip
        assert sent == expected.text_in_order(ids)
        assert sorted(ids) == sorted(expected.ids)
        # The built-ins come first; between them, in the order glob's walk finds them (its
        # `loadSkillsFromDir` does not sort), which differs from run to run.
        assert set(ids[:2]) == builtins, ids
        assert set(ids[2:4]) == {"target-skill", "gem-only"}  # .gemini/skills' places
        assert f"receive its detailed instructions, {wording}" in expected.text
        names = [entry.name for entry in expected.entries]
        assert names[:4] == ["skill-creator", "antigravity-support", "target-skill", "gem-only"]
        assert "nodesc" not in names and "db-tune" in names and len(names) == 2 + 37
        assert names.index("a9") < names.index("a10") < names.index("Upper")
        assert expected.entry("target-skill") is not None
        assert {entry.state for entry in expected.entries} == {"full"}
        # Headless with no policy rule the CLI removes the tool but keeps the listing: what
        # Stage B's one-rule policy file opens.
        assert "activate_skill" not in request.tool_names

    return check


def gemini_lists_the_projects_copy(gemini_cli: Path, tmp_path: Path) -> None:
    """The CLI lists the project's copy alone, in the user's copy's place, as the renderer
    does with the user's skills first, and the verdicts call the user's copy not listed."""
    user = tmp_path.resolve() / "home" / ".agents" / "skills" / "tdd" / "SKILL.md"
    user.parent.mkdir(parents=True)
    user.write_text("---\nname: tdd\ndescription: USER copy of tdd.\n---\n\nBody.\n")
    ours = GeminiSpec("tdd", "name: tdd\ndescription: PROJECT copy of tdd.")
    model = "gemini-3.1-pro-preview"
    sent = gemini_sent(capture("gemini", gemini_cli, tmp_path, [ours], model=model))
    mine = ListedSkill("tdd", "tdd", "user", "USER copy of tdd.", name="tdd")
    work = tmp_path.resolve() / "work"
    expected = gemini.render(
        [mine, ours.listed()],
        model,
        lambda skill: str(user if skill.source == "user" else work / ours.root / "tdd/SKILL.md"),
        builtin_root=gemini.builtin_root(str(gemini_cli)),
    )
    assert sent == expected.text
    assert "PROJECT copy of tdd." in sent and "USER copy" not in sent
    seen = gemini.visibility([ours.listed(), mine], expected)
    assert [item.state for item in seen] == ["full", "hidden"]
    assert seen[1].rule.startswith("a project skill of the same name ('tdd') replaces it: ")


# --- The tables ---------------------------------------------------------------------------

UNPARSED_DEPLOY = "---\nname: deploy\ndescription: Deploy the app to staging or production.\n---\n"
"""The measured skill beside the siblings the agents parse otherwise than a strict YAML
parser (`tests/trials/listing/test_unparsed.py`'s SKILLS)."""


def unparsed_inputs(tmp_path: Path, skills: str) -> Inputs:
    """A run's inputs on the unparsed siblings under `<repo>/<skills>`, deploy measured."""
    repo = tmp_path / "repo"
    for folder, text in {"deploy": UNPARSED_DEPLOY, **UNPARSED}.items():
        (repo / skills / folder).mkdir(parents=True)
        (repo / skills / folder / "SKILL.md").write_text(text)
    cases = tmp_path / "cases.json"
    cases.write_text(CLAUDE_CASES)
    path = f"{skills}/deploy/SKILL.md"
    return load_inputs(repo, repo=repo, skill_path=path, cases=cases, baseline=path)


def claude_lists_project_skills_that_do_not_parse(claude: Path, tmp_path: Path) -> None:
    sent = claude_check(claude, unparsed_inputs(tmp_path, ".claude/skills"), tmp_path)
    for line in ("- auditor: Content Auditor", "- lenient: Audit content.",
                 "- lst: Heading of lst", "- nofm: Heading of nofm", "- num: 12345"):  # fmt: skip
        assert f"{line}\n" in sent


def claude_leaves_out_a_plugins_skills_that_do_not_parse(claude: Path, tmp_path: Path) -> None:
    sent = claude_check(claude, unparsed_inputs(tmp_path, "plugins/kit/skills"), tmp_path)
    assert "- kit:lenient: Audit content.\n" in sent and "- kit:num: 12345\n" in sent
    for gone in ("kit:auditor", "kit:lst", "kit:nofm"):
        assert gone not in sent


def opencode_lists_them_after_its_second_try(opencode_cli: Path, tmp_path: Path) -> None:
    scratch = tmp_path.resolve()
    project = scratch / "proj"
    found = []
    for folder, text in {"deploy": UNPARSED_DEPLOY, **UNPARSED}.items():
        path = project / ".agents/skills" / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(text)
        found.append(listed_skill(Skill(folder, None, source="project", path=str(path), text=text)))
    system = opencode_system_text(opencode_cli, scratch, project)
    shown = opencode.render(
        found, lambda skill: str(project / ".agents/skills" / skill.folder / "SKILL.md")
    )
    assert system.endswith("</env>\n" + shown.text)
    assert list(shown.ids) == ["auditor", "customize-opencode", "deploy", "lenient"]


# --- A SKILL.md inside another skill's folder: Codex and OpenCode list it as a skill -------

NESTED_SET = {
    "grants": "Use when granting options.",
    "issuance": "Use when issuing shares to a stakeholder.",
    "issuance/issuance-config": "Use when configuring an issuance.",
}
"""A project's `.agents/skills/`, one skill's folder holding another SKILL.md (carta's
`carta-issuance/issuance-config/SKILL.md`), each named by its folder's last part."""
NESTED_SPECS = tuple(
    CodexSpec(folder, description, name=folder.rsplit("/", 1)[-1])
    for folder, description in NESTED_SET.items()
)


def nested_set_listed(agent: str, project: Path) -> list[ListedSkill]:
    """The project's `.agents/skills/` read by the pipeline (disk reader, menu) and what
    `agent` may list of it: its own listing's input."""
    target = resolve_target(project, ".agents/skills/grants/SKILL.md", project)
    variant = resolve_variant(str(target.skill_file), target, project)
    inputs = Inputs(target, (), (), variant, variant)
    return lists(agent, menu_listed(inputs, "candidate", distractors=False))


def codex_lists_a_skill_inside_another(codex_cli: Path, tmp_path: Path) -> None:
    run: CodexRun = capture("codex", codex_cli, tmp_path, NESTED_SPECS, args=NO_BUNDLED)
    scope, root = run.roots["project"]
    skills = nested_set_listed("codex", Path(root).parent.parent)
    expected = codex.render(
        skills,
        None,
        lambda skill: (scope, root, f"{skill.folder}/SKILL.md"),
        codex_home=run.codex_home,
        bundled=False,
    )
    assert run.request.listing == expected.text
    entry = expected.entry("issuance/issuance-config")
    assert entry is not None
    assert entry.line == (
        "- issuance-config: Use when configuring an issuance. "
        "(file: r0/issuance/issuance-config/SKILL.md)"
    )


def write_nested_set(skills: Path) -> None:
    for spec in NESTED_SPECS:
        path = skills / spec.folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec.text, encoding="utf-8")


def opencode_lists_a_skill_inside_another(opencode_cli: Path, tmp_path: Path) -> None:
    scratch = tmp_path.resolve()
    project = scratch / "proj"
    write_nested_set(project / ".agents/skills")
    system = opencode_system_text(opencode_cli, scratch, project)
    shown = opencode.render(
        nested_set_listed("opencode", project),
        lambda skill: str(project / ".agents/skills" / skill.folder / "SKILL.md"),
    )
    assert system.endswith("</env>\n" + shown.text)
    assert list(shown.ids) == [
        "customize-opencode",
        "grants",
        "issuance",
        "issuance/issuance-config",
    ]


def claude_leaves_out_a_skill_inside_another(claude: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write_nested_set(repo / ".claude/skills")
    cases = tmp_path / "cases.json"
    cases.write_text(CLAUDE_CASES)
    path = ".claude/skills/grants/SKILL.md"
    inputs = load_inputs(repo, repo=repo, skill_path=path, cases=cases, baseline=path)
    sent = claude_check(claude, inputs, tmp_path)
    assert "- issuance: Use when issuing shares to a stakeholder.\n" in sent
    assert "issuance-config" not in sent


def copilot_leaves_out_a_skill_inside_another(copilot_cli: Path, tmp_path: Path) -> None:
    specs = {f".agents/skills/{spec.folder}": spec.text for spec in NESTED_SPECS}
    request, _found = capture("copilot", copilot_cli, tmp_path, specs)
    shown = copilot.render(nested_set_listed("copilot", tmp_path.resolve() / "proj"))
    assert copilot_sent(request) == shown.text
    assert [entry.name for entry in shown.entries][:2] == ["grants", "issuance"]
    assert "issuance-config" not in shown.text


def gemini_leaves_out_a_skill_inside_another(gemini_cli: Path, tmp_path: Path) -> None:
    specs = [
        GeminiSpec(folder, f"name: {folder.rsplit('/', 1)[-1]}\ndescription: {description}")
        for folder, description in NESTED_SET.items()
    ]
    model = "gemini-3.1-pro-preview"
    sent = gemini_sent(capture("gemini", gemini_cli, tmp_path, specs, model=model))
    work = tmp_path.resolve() / "work"
    expected = gemini.render(
        gemini.discovery_order(nested_set_listed("gemini", work)),
        model,
        lambda skill: str(work / ".agents/skills" / skill.folder / "SKILL.md"),
        builtin_root=gemini.builtin_root(str(gemini_cli)),
    )
    ids = GEMINI_LOCATION.findall(sent)
    assert sent == expected.text_in_order(ids)
    assert sorted(ids) == ["antigravity-support", "grants", "issuance", "skill-creator"]


LISTINGS: Mapping[str, Mapping[str, Check]] = {
    "claude-code": {
        "a-plugins-listing": claude_a_plugins_listing,
        "a-skills-folders-listing": claude_a_skills_folders_listing,
        "the-catalogs-listing": claude_the_catalogs_listing,
        "project-skills-that-do-not-parse": claude_lists_project_skills_that_do_not_parse,
        "a-plugins-skills-that-do-not-parse": claude_leaves_out_a_plugins_skills_that_do_not_parse,
        "a-skill-inside-another-skills-folder": claude_leaves_out_a_skill_inside_another,
    },
    "opencode": {
        "every-rule": opencode_every_rule,
        "skills-that-do-not-parse": opencode_lists_them_after_its_second_try,
        "a-skill-inside-another-skills-folder": opencode_lists_a_skill_inside_another,
    },
    "codex": {
        "the-default-model-with-its-bundled-skills": (
            codex_the_default_model_with_its_bundled_skills
        ),
        "gpt-5.5-gets-the-how-to-use-block": codex_gpt_5_5_gets_the_how_to_use_block,
        "over-budget-spread-round-robin": codex_over_its_budget(10000, 12, "cut"),
        "over-budget-bare-lines-greedy": codex_over_its_budget(3000, 5, "collapsed"),
        "a-skill-inside-another-skills-folder": codex_lists_a_skill_inside_another,
    },
    "copilot": {
        "every-rule": copilot_every_rule,
        "over-the-budget-the-rest-is-named-on-one-line": copilot_over_the_budget,
        "skill-char-budget-replaces-the-budget": copilot_skill_char_budget,
        "the-same-over-the-responses-api": copilot_over_the_responses_api,
        "a-project-skill-replaces-the-built-in": copilot_a_project_skill_replaces_the_built_in,
        "a-skill-inside-another-skills-folder": copilot_leaves_out_a_skill_inside_another,
    },
    "gemini": {
        "modern": gemini_the_listing_is_the_clis_own(
            "gemini-3.1-pro-preview", "call the `activate_skill`"
        ),
        "legacy": gemini_the_listing_is_the_clis_own(
            "gemini-2.5-pro", "you can call the `activate_skill`"
        ),
        "a-skill-inside-another-skills-folder": gemini_leaves_out_a_skill_inside_another,
    },
}
"""Each agent's skill sets whose listing its renderer must render as its pinned CLI does."""

VERDICTS: Mapping[str, Check] = {
    "claude-code": claude_cuts_and_hides,
    "codex": codex_cuts_and_drops_a_policy_hidden_skill,
}
"""The agents whose CLI cuts or leaves out a skill of a set (a long description, a hidden
skill, a policy file): what its listing shows is what the verdicts say. OpenCode's,
Copilot's and Gemini's cut and hidden skills are in their `LISTINGS` sets."""

SAME_NAME: Mapping[str, Check] = {
    "claude-code": claude_lists_the_users_copy,
    "opencode": opencode_lists_one_copy,
    "codex": codex_lists_both_copies,
    "copilot": copilot_lists_the_projects_copy,
    "gemini": gemini_lists_the_projects_copy,
}
"""What each CLI lists of a user's and a project's copy of one skill (QA3 E29), as its
renderer renders it and its verdicts say."""
