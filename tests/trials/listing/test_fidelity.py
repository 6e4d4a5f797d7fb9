"""The rendered listing is the real CLI's, byte for byte.

Each test installs skills the way Stage B does (a `--plugin-dir` plugin, project skills in
the run's cwd, user skills in its CLAUDE_CONFIG_DIR), runs the pinned Claude Code CLI
headless against the local Messages API stand-in with Stage B's argv and environment, and
compares the listing section of the CLI's first request with `render`'s: as a section of
the system message for a newer model, as the `<system-reminder>` block of the first user
message for a 4.x one.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from activation._models import AgentSettings
from activation.trials.agents.claude_code.adapter import agent_env, build_argv
from activation.trials.agents.claude_code.listing import packaged_rules, plugin_skill_id, render
from activation.trials.listing.model import ListedSkill, Listing, Source
from tests.support.listing import sent_listing
from tests.support.messages_api import FakeMessagesAPI, Text

RUN_TIMEOUT = 120.0


@dataclass(frozen=True)
class Spec:
    """A SKILL.md (`frontmatter` is the YAML between the `---` lines) and the values its
    frontmatter holds, as a YAML parser gives them."""

    folder: str
    frontmatter: str
    body: str = "Body text.\n"
    description: object = None
    when_to_use: object = None
    name: object = None
    hidden: bool = False

    @property
    def text(self) -> str:
        return f"---\n{self.frontmatter}\n---\n{self.body}"

    def listed(self, source: Source, plugin: str | None = None) -> ListedSkill:
        return ListedSkill(
            id=plugin_skill_id(plugin, self.folder) if plugin else self.folder,
            folder=self.folder,
            source=source,
            description=self.description,
            when_to_use=self.when_to_use,
            name=self.name,
            body=self.body,
            disable_model_invocation=self.hidden,
        )


def quoted(key: str, value: str) -> str:
    """A YAML line holding any text exactly (a JSON string is a YAML double-quoted one)."""
    return f"{key}: {json.dumps(value, ensure_ascii=False)}"


def plain(folder: str, description: str, **fields: Any) -> Spec:
    """A skill named like its folder, with a description (and other fields) as given."""
    lines = [f"name: {folder}", quoted("description", description)]
    lines += [quoted(key, value) for key, value in fields.items()]
    return Spec(folder, "\n".join(lines), description=description, name=folder, **fields)


LONG = "Summarise long release notes into a changelog. " + "Keep every entry short. " * 70
BLOCK = "Render <angle brackets> and keep going.\nSecond line\twith a tab.\n\nAfter a blank one.\n"
MIXED = "中文说明 \u26a0\ufe0f warn \U0001f468\u200d\U0001f469\u200d\U0001f467 family \u2014 dash"
SKILLS = (
    plain(
        "deploy",
        "Deploy the app to staging or production.",
        when_to_use="When the user asks to ship, release or roll back.",
    ),
    plain("long-notes", LONG),
    Spec(
        "block-desc",
        "name: block-desc\ndescription: |\n"
        "  Render <angle brackets> and keep going.\n"
        "  Second line\twith a tab.\n"
        "\n"
        "  After a blank one.",
        description=BLOCK,
        name="block-desc",
    ),
    Spec(
        "dir-name",
        "name: other-name\n" + quoted("description", "Its frontmatter name differs."),
        description="Its frontmatter name differs.",
        name="other-name",
    ),
    plain("mixed-text", MIXED),
    Spec(
        "numbers",
        "name: numbers\ndescription: 12345\nwhen_to_use: 42",
        description=12345,
        when_to_use=42,
        name="numbers",
    ),
    Spec(
        "fallback",
        "name: fallback\n" + quoted("when_to_use", "Only when asked."),
        body="\n# Fallback <heading>\n\nMore text.\n",
        when_to_use="Only when asked.",
        name="fallback",
    ),
    Spec(
        "hidden",
        "name: hidden\ndescription: Never offered.\ndisable-model-invocation: true",
        description="Never offered.",
        name="hidden",
        hidden=True,
    ),
)


def write_skills(folder: Path, specs: tuple[Spec, ...]) -> None:
    for spec in specs:
        (folder / spec.folder).mkdir(parents=True)
        (folder / spec.folder / "SKILL.md").write_text(spec.text, encoding="utf-8")


def first_request(
    claude: Path,
    tmp_path: Path,
    model: str | None,
    *,
    plugins: dict[str, tuple[Spec, ...]] | None = None,
    project: tuple[Spec, ...] = (),
    user: tuple[Spec, ...] = (),
    files: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The body of the CLI's first Messages request, run as Stage B runs it: fresh HOME,
    CLAUDE_CONFIG_DIR and TMPDIR, an empty cwd (but for project skills), one turn. `files`
    are more files to write (a path below `tmp_path`, e.g. a plugin's command file)."""
    home, config, scratch, work = (tmp_path / name for name in ("home", "config", "tmp", "work"))
    for folder in (home, config, scratch, work):
        folder.mkdir()
    plugin_dirs = []
    for name, specs in (plugins or {}).items():
        root = tmp_path / "plugins" / name
        (root / ".claude-plugin").mkdir(parents=True)
        manifest = {"name": name, "version": "0.0.1", "description": "listing fidelity"}
        (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
        write_skills(root / "skills", specs)
        plugin_dirs.append(root)
    write_skills(work / ".claude" / "skills", project)
    write_skills(config / "skills", user)
    for relative, text in (files or {}).items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    parent = {name: os.environ[name] for name in ("PATH", "LANG") if name in os.environ}
    settings = AgentSettings(max_turns=1, executables={"claude-code": str(claude)})
    argv = build_argv(settings, model, str(claude), "hello", plugin_dirs)
    with FakeMessagesAPI(Text("ok")) as api:
        env = agent_env(parent, home, config, scratch)
        env.update(
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-ant-listing-fidelity",
            CLAUDE_CODE_MAX_RETRIES="0",
        )
        completed = subprocess.run(
            argv,
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        requests = api.message_requests
    assert requests, f"the CLI sent no request (exit {completed.returncode}): {completed.stderr}"
    body: dict[str, Any] = requests[0].body
    assert body["model"] == (model or packaged_rules().default_model)
    return body


def assert_same(listing: Listing, body: dict[str, Any], placement: str) -> None:
    role, sent = sent_listing(body)
    assert role == listing.placement == placement
    assert sent == listing.as_sent


def test_a_plugins_skills(claude: Path, tmp_path: Path) -> None:
    body = first_request(claude, tmp_path, None, plugins={"fid": SKILLS})
    listing = render([spec.listed("plugin", "fid") for spec in SKILLS], None, ["fid"])
    assert listing.entry("fid:long-notes").state == "cut"  # type: ignore[union-attr]
    assert listing.entry("fid:hidden") is None
    assert "- fid:dir-name (fid:other-name): " in listing.text
    assert_same(listing, body, "system")


def test_project_skills(claude: Path, tmp_path: Path) -> None:
    body = first_request(claude, tmp_path, None, project=SKILLS)
    listing = render([spec.listed("project") for spec in SKILLS])
    assert "- dir-name (other-name): " in listing.text
    assert_same(listing, body, "system")


def test_a_listing_over_a_4x_models_budget(claude: Path, tmp_path: Path) -> None:
    """claude-sonnet-4-5 has 8000 columns: the first long skills keep their text, later
    ones collapse, and a short one after a collapsed one still fits."""
    long_ones = tuple(plain(f"s{i}-long", f"Long {i}. " + "Words here. " * 110) for i in range(4))
    short_ones = tuple(plain(f"s{i}-short", f"Short skill {i}.") for i in range(4))
    user = long_ones[:2] + short_ones[:1]
    plugin = long_ones[2:] + short_ones[1:]
    body = first_request(claude, tmp_path, "claude-sonnet-4-5", plugins={"big": plugin}, user=user)
    listing = render(
        [
            *(spec.listed("user") for spec in user),
            *(spec.listed("plugin", "big") for spec in plugin),
        ],
        "claude-sonnet-4-5",
        ["big"],
    )
    states = [entry.state for entry in listing.entries]
    assert listing.budget == 8000
    assert listing.full_width > 8000
    assert "collapsed" in states
    assert "full" in states[states.index("collapsed") + 1 :]
    assert_same(listing, body, "user")


def command(plugin: str | None, name: str, description: str, text: str) -> ListedSkill:
    """A command file as the set loader lists it (menu.listed_skill)."""
    return ListedSkill(
        id=plugin_skill_id(plugin, name) if plugin else name,
        folder=name,
        source="plugin" if plugin else "project",
        description=description,
        body=text,
        command=True,
    )


def test_commands_beside_skills(claude: Path, tmp_path: Path) -> None:
    """A plugin's described commands are listed before every plugin's skills (a command
    replaces a skill of its id, `toolkit:mmm`), a command without a description not at all;
    a project's after the project's skills (a skill replaces a command of its id)."""
    skills = (plain("aaa", "Skill aaa."), plain("mmm", "Skill mmm."))
    project = (plain("paaa", "Project skill paaa."), plain("pclash", "Project skill pclash."))
    files = {
        "plugins/toolkit/commands/zzz.md": "---\ndescription: Command zzz <x>.\n---\nDo.\n",
        "plugins/toolkit/commands/Bbb.md": "---\ndescription: Command Bbb.\n---\nDo.\n",
        "plugins/toolkit/commands/mmm.md": "---\ndescription: Command mmm.\n---\nDo.\n",
        "plugins/toolkit/commands/plain.md": "Just do the plain thing.\n",
        "plugins/second/commands/c2.md": "---\ndescription: Second command.\n---\nDo.\n",
        "work/.claude/commands/aa0.md": "---\ndescription: Project aa0.\n---\nDo.\n",
        "work/.claude/commands/pclash.md": "---\ndescription: Project pclash.\n---\nDo.\n",
    }
    second = (plain("s2", "Second skill."),)
    body = first_request(
        claude,
        tmp_path,
        None,
        plugins={"toolkit": skills, "second": second},
        project=project,
        files=files,
    )
    commands = [
        command("toolkit", "zzz", "Command zzz <x>.", "Do.\n"),
        command("toolkit", "Bbb", "Command Bbb.", "Do.\n"),
        command("toolkit", "mmm", "Command mmm.", "Do.\n"),
        command("second", "c2", "Second command.", "Do.\n"),
        command(None, "aa0", "Project aa0.", "Do.\n"),
        command(None, "pclash", "Project pclash.", "Do.\n"),
    ]
    listing = render(
        [
            *(spec.listed("plugin", "toolkit") for spec in skills),
            *(spec.listed("plugin", "second") for spec in second),
            *(spec.listed("project") for spec in project),
            *commands,
        ],
        None,
        ["toolkit", "second"],
    )
    assert listing.ids[:9] == (
        "paaa",
        "pclash",
        "aa0",
        "toolkit:Bbb",
        "toolkit:mmm",
        "toolkit:zzz",
        "second:c2",
        "toolkit:aaa",
        "second:s2",
    )
    assert listing.entry("toolkit:mmm").line == "- toolkit:mmm: Command mmm."  # type: ignore[union-attr]
    assert listing.entry("pclash").line == "- pclash: Project skill pclash."  # type: ignore[union-attr]
    assert_same(listing, body, "system")
