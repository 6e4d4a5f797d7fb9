"""OpenCode as Stage B runs it (measured on `opencode-ai@1.18.33`; research/agents/NOTES.md
section 1).

- **Skills**: OpenCode has no plugins; every skill of the set and the catalog is a project
  skill of the throwaway workspace, `<work>/.agents/skills/<folder>/SKILL.md`, where Stage
  A's listing shows it too. The workspace gets a bare `.git` marker (HEAD, objects/,
  refs/), because OpenCode looks for skills and instruction files (AGENTS.md, CLAUDE.md)
  in every folder from the working directory up to the repository's root, and up to `/`
  outside a repository: without the marker, skills above the run's folder would be listed
  (measured: a `.agents/skills` one folder up was). Real projects are repositories too,
  so the agent's environment block reads as it does for a user ("Is directory a git repo:
  yes").
- **Command**: `opencode run --format json --title activation [--model anthropic/<id>]`
  in the workspace, the prompt on stdin (a positional prompt with spaces reaches the model
  wrapped in quotes), `--title` sparing the side request that would name the session.
- **Config**: `$XDG_CONFIG_HOME/opencode/opencode.json` (the run's own): only the
  Anthropic provider enabled, its `baseURL` from `ANTHROPIC_BASE_URL` (with `/v1`, as the
  provider takes it) when that is set, sharing, autoupdate and snapshots off, the tools
  that write, run code or reach the network denied (`edit`, `bash`, `webfetch`,
  `websearch`, `task`, `external_directory`: as Claude Code's `--allowedTools`, enough to
  look around and load skills), `skill` allowed, `agent.build.steps` = `--max-turns` (its
  "maximum number of agentic iterations before forcing text-only response").
- **Environment**: the base allowlist plus `ANTHROPIC_API_KEY`; HOME, the four XDG folders
  and TMPDIR fresh; `OPENCODE_DISABLE_MODELS_FETCH`, `OPENCODE_DISABLE_AUTOUPDATE` and
  `OPENCODE_DISABLE_LSP_DOWNLOAD` set, so nothing is fetched; ripgrep comes from the
  system's PATH (OpenCode downloads it otherwise), which the preflight checks.
- **A load**: see `opencode_stream.py` (the skill tool's output holds the copy's nonce).
- **Stage C's work** (`Run.work`): the same config but `"edit": "allow"` (the permission of
  every tool that changes files: write, edit, apply_patch); `external_directory` stays
  denied, so a path outside the workspace (the repository the `.git` marker makes of it) is
  refused, and so do `bash`, `webfetch`, `websearch` and `task` (measured on 1.18.33: a
  write to the run's temp folder or to `../` is refused by the rule, a relative path lands
  in the workspace, `bash` is not offered). The rule reads the path as written: a symbolic
  link in the workspace that points out of it is followed (measured), so a workspace must
  hold no such link (the agent, with no shell, cannot make one).
- **Explicit invocation** (`invoked`): `/<name> <prompt>`, as a user types it in the TUI,
  where every skill is a command of its frontmatter name (its template the body, then
  "Base directory for this skill: ..."). `opencode run` does not read a slash in its
  message, so a Stage C run whose prompt starts with `/<name> ` for a skill it installs
  becomes `opencode run --command <name>` with the rest of the prompt as the command's
  arguments on stdin: what the TUI (and OpenCode's ACP server) do with that text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from activation._errors import InputError
from activation._models import AgentSettings, RunSpec
from activation.trials import api_check
from activation.trials.agent.adapter import Detector, Launch, Run, RunDirs, Settled
from activation.trials.agent.cli import check_version, install_hint
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import (
    SkillCopy,
    SkillSet,
    install_project_skills,
    project_folders,
)
from activation.trials.agents.opencode import AGENT
from activation.trials.listing.model import Listing
from activation.trials.providers import runnable

PROVIDER = "anthropic"
TITLE = "activation"
"""The session title given, so no side request asks a model for one."""
PERMISSION = {
    "edit": "deny",
    "bash": "deny",
    "webfetch": "deny",
    "websearch": "deny",
    "task": "deny",
    "external_directory": "deny",
    "skill": "allow",
}
WORK_PERMISSION = {**PERMISSION, "edit": "allow"}
"""Stage C: files may change inside the workspace (`external_directory` keeps the rest)."""
COMMAND = re.compile(r"/(\S+)(?:\s+(.*))?", re.DOTALL)
"""A command and its arguments, as OpenCode's TUI and ACP server read typed text."""
SWITCHES = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
}
KEY = "ANTHROPIC_API_KEY"
RIPGREP = "rg"


def xdg_dirs(home: Path) -> dict[str, Path]:
    """The run's XDG folders, all under its home."""
    return {
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_STATE_HOME": home / ".local" / "state",
    }


def environment(parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
    """The run's environment: the allowlisted part of `parent` plus its own folders."""
    own = {name: str(path) for name, path in xdg_dirs(dirs.home).items()}
    return {**allowlisted(parent, (KEY,)), **fresh_dirs(dirs.home, dirs.tmp), **own, **SWITCHES}


def config(
    settings: AgentSettings, base_url: str | None, *, work: bool = False
) -> dict[str, object]:
    """The run's `opencode.json` (the API's address only when one is set); `work`: Stage
    C's, which may edit files in the workspace."""
    provider: dict[str, object] = {}
    if base_url:
        provider = {PROVIDER: {"options": {"baseURL": f"{base_url.rstrip('/')}/v1"}}}
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,
        "enabled_providers": [PROVIDER],
        "provider": provider,
        "permission": WORK_PERMISSION if work else PERMISSION,
        "agent": {"build": {"steps": settings.max_turns}},
    }


def build_argv(opencode: str, model: str | None, command: str | None = None) -> list[str]:
    """`command`: the skill whose command runs (`--command`), the prompt its arguments."""
    argv = [opencode, "run", "--format", "json", "--title", TITLE]
    if command is not None:
        argv += ["--command", command]
    return [*argv, "--model", model] if model else argv


def command_name(skill: SkillCopy) -> str:
    """The command OpenCode makes of a skill: its frontmatter name (the folder's when it
    has none, though OpenCode lists no such skill)."""
    return skill.name or skill.folder.name


def split_command(prompt: str, skills: SkillSet) -> tuple[str | None, str]:
    """The skill command a prompt starts with (`/<name> ...` for an installed skill) and
    its arguments; (None, the prompt) for any other prompt."""
    found = COMMAND.fullmatch(prompt)
    names = {command_name(skill) for skill in skills.skills if not skill.absent}
    if found is None or found[1] not in names:
        return None, prompt
    return found[1], found[2] or ""


def mark_repository(work: Path) -> None:
    """The least git takes for a repository (what `is_git_directory` checks): the
    boundary of OpenCode's upward search for skills and instructions."""
    git = work / ".git"
    for folder in ("objects", "refs"):
        (git / folder).mkdir(parents=True, exist_ok=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")


class OpenCode:
    agent = AGENT
    credentials = KEY
    marks_copies = True
    reports_cost = True
    reports_tokens = True
    """Its adapter configures OpenCode's anthropic provider only."""

    def model(self, model: str | None) -> str | None:
        """`claude-haiku-4-5` is OpenCode's `anthropic/claude-haiku-4-5`."""
        if model is None:
            return None
        asked = runnable(model, self.agent.providers, self.agent.title).id
        return f"{PROVIDER}/{asked.removeprefix(PROVIDER + '/')}"

    def configure(self, spec: RunSpec) -> None:
        self.model(spec.model)

    def preflight(self) -> None:
        if not os.environ.get(KEY):
            raise InputError(f"no API key: set {KEY} for OpenCode (--dry-run needs none)")
        api_check.check_reachable(api_check.ANTHROPIC_URL)
        if shutil.which(RIPGREP) is None:
            raise InputError(
                "OpenCode needs ripgrep (rg) on PATH, and would download it otherwise: "
                "install ripgrep"
            )

    def version(self, executable: str) -> str:
        hint = install_hint(self.agent.package, self.agent.flag)
        return check_version(executable, self.agent.title, hint, environment)

    def limits(self, settings: AgentSettings) -> str:
        return f"up to {settings.max_turns} turns"

    def check(self, skills: SkillSet, listing: Listing) -> str | None:
        """OpenCode says nothing of its skills in its stream, so its listing (the
        renderer of its own rules) says whether it lists the target."""
        project_folders(skills)
        if listing.entry(skills.target.id) is not None:
            return None
        return (
            f"OpenCode does not list {skills.target.id} (it skips a SKILL.md whose "
            "frontmatter has no string `name`, and lists none without a description)"
        )

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs = run.dirs
        install_project_skills(run.skills, dirs.work)
        mark_repository(dirs.work)
        folders = xdg_dirs(dirs.home)
        for folder in folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        settings = config(run.settings, parent.get(api_check.ANTHROPIC_URL), work=run.work)
        config_file = folders["XDG_CONFIG_HOME"] / "opencode" / "opencode.json"
        config_file.parent.mkdir()
        config_file.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        command, prompt = split_command(run.prompt, run.skills) if run.work else (None, run.prompt)
        argv = build_argv(run.executable, run.model, command)
        return Launch(argv, environment(parent, dirs), stdin=prompt)

    def request(
        self,
        settings: AgentSettings,
        model: str | None,
        prompt: str,
        skills: SkillSet,
        *,
        work: bool = False,
    ) -> dict[str, object]:
        command, prompt = split_command(prompt, skills) if work else (None, prompt)
        return {
            "argv": build_argv(self.agent.command, model, command),
            "config": config(settings, None, work=work),
            "prompt": prompt,
        }

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """`/<name> <prompt>`: the skill's command, as a user types it (see above)."""
        return f"/{command_name(skill)} {prompt}"

    def reader(
        self, skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
    ) -> Detector:
        from activation.trials.agents.opencode.stream import OpenCodeReader

        return OpenCodeReader(skills, settled, on_throttle)


ADAPTER = OpenCode()
