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
- **No package install**: on every start OpenCode makes each config folder a package
  that depends on `@opencode-ai/plugin` (for plugins and custom tools written there) and,
  unless the folder already has `node_modules` and a `package.json` and `package-lock.json`
  naming it, installs it with its built-in npm, in the background of the same process: on
  a fresh config folder that is every run (measured on 1.18.33 with strace: the registry's
  metadata of the package and its dependencies fetched each run, about half a CPU second
  on the run's event loop; offline, a warning per run). The run's config folder gets that
  settled state (an empty `node_modules`), so OpenCode installs nothing; nothing there
  needs the package (it is awaited only before loading a plugin or custom tool of the
  folder, and the run's has none). The rest of a run's time is OpenCode's own start
  (about 5-6 CPU seconds a run on 1.18.33, with or without any of its other switches).
- **A load**: see `opencode_stream.py` (the skill tool's output holds the copy's nonce).
- **Stage C's work** (`Run.work`): the same config but `"edit": "allow"` (the permission of
  every tool that changes files: write, edit, apply_patch); `external_directory` stays
  denied, so a path outside the workspace (the repository the `.git` marker makes of it) is
  refused, and so do `bash`, `webfetch`, `websearch` and `task` (measured on 1.18.33: a
  write to the run's temp folder or to `../` is refused by the rule, a relative path lands
  in the workspace, `bash` is not offered). The rule reads the path as written: a symbolic
  link in the workspace that points out of it is followed (measured), so a workspace must
  hold no such link (the agent, with no shell, cannot make one). In a sandbox (`Run.shell`)
  `bash` is allowed too: the sandbox, not the rule, then bounds what its commands write.
- **MCP servers** (`Run.mcp_servers`, Stage C): opencode.json's `mcp` (`{<name>: {"type":
  "local", "command": [command, ...args], "environment"}}`) and the permission
  `"<name>_*": "allow"`, every tool of the server: OpenCode names a tool `<name>_<tool>`
  (both sanitized to letters, digits, `_` and `-`), in its model's tools and its stream.

- **Turns** (a case's `turns`, `resume`): each later prompt is `opencode run ... --session
  <sessionID>` (its `-s, --session`: "session id to continue"; the id every event of its
  stream carries), the session being in the run's XDG data folder.
- **Explicit invocation** (`invoked`): `/<name> <prompt>`, as a user types it in the TUI,
  where every skill is a command of its frontmatter name (its template the body, then
  "Base directory for this skill: ..."). `opencode run` does not read a slash in its
  message, so a Stage C run whose prompt starts with `/<name> ` for a skill it installs
  becomes `opencode run --command <name>` with the rest of the prompt as the command's
  arguments on stdin: what the TUI (and OpenCode's ACP server) do with that text.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from activation._errors import InputError
from activation._models import AgentSettings
from activation.trials.agent.adapter import Asked, Launch, McpLaunch, Run, RunDirs
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import SkillCopy, SkillSet, install_project_skills
from activation.trials.agent.kit import CliAdapter, key_variable, mark_repository
from activation.trials.agents.opencode import AGENT
from activation.trials.providers import provider_named, runnable

PROVIDER = "anthropic"
"""The one provider the run's config enables (its record gives the key and address)."""
ANTHROPIC = provider_named(PROVIDER)
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
SHELL_PERMISSION = {**WORK_PERMISSION, "bash": "allow"}
"""Stage C in a sandbox: commands run too, the sandbox being the boundary."""
COMMAND = re.compile(r"/(\S+)(?:\s+(.*))?", re.DOTALL)
"""A command and its arguments, as OpenCode's TUI and ACP server read typed text."""
SWITCHES = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
}
KEY = key_variable(ANTHROPIC)
RIPGREP = "rg"
PLUGIN_PACKAGE = "@opencode-ai/plugin"
"""The package OpenCode installs into each config folder unless it is already listed there."""


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


def settled_package(version: str) -> dict[str, str]:
    """The `package.json` and `package-lock.json` of a config folder OpenCode has set up:
    what it checks before installing its plugin package (see above)."""
    dependencies = {PLUGIN_PACKAGE: version}
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": dependencies}}}
    return {
        "package.json": json.dumps({"dependencies": dependencies}, indent=2),
        "package-lock.json": json.dumps(lock, indent=2),
    }


def config(
    settings: AgentSettings,
    base_url: str | None,
    *,
    work: bool = False,
    shell: bool = False,
    servers: Sequence[McpLaunch] = (),
) -> dict[str, object]:
    """The run's `opencode.json` (the API's address only when one is set); `work`: Stage
    C's, which may edit files in the workspace; `shell`: and run commands (`Run.shell`);
    `servers`: the case's MCP servers, their tools allowed."""
    provider: dict[str, object] = {}
    if base_url:
        provider = {PROVIDER: {"options": {"baseURL": f"{base_url.rstrip('/')}/v1"}}}
    permission = (SHELL_PERMISSION if shell else WORK_PERMISSION) if work else PERMISSION
    mcp = {
        server.name: {"type": "local", "command": [server.command, *server.args],
                      "environment": server.environment, "enabled": True}
        for server in servers
    }  # fmt: skip
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,
        "enabled_providers": [PROVIDER],
        "provider": provider,
        "permission": {**permission, **{f"{name}_*": "allow" for name in mcp}},
        "agent": {"build": {"steps": settings.max_turns}},
        **({"mcp": mcp} if mcp else {}),
    }


def build_argv(
    opencode: str, model: str | None, command: str | None = None, session: str | None = None
) -> list[str]:
    """`command`: the skill whose command runs (`--command`), the prompt its arguments;
    `session`: the session a later turn continues."""
    argv = [opencode, "run", "--format", "json", "--title", TITLE]
    if session is not None:
        argv += ["--session", session]
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


class OpenCode(CliAdapter):
    reports_cost = True
    resumes = True

    environment = staticmethod(environment)

    def model(self, model: str | None) -> str | None:
        """`claude-haiku-4-5` is OpenCode's `anthropic/claude-haiku-4-5`."""
        if model is None:
            return None
        asked = runnable(model, self.agent.providers, self.agent.title).id
        return f"{PROVIDER}/{asked.removeprefix(PROVIDER + '/')}"

    def preflight(self) -> None:
        super().preflight()
        if shutil.which(RIPGREP) is None:
            raise InputError(
                "OpenCode needs ripgrep (rg) on PATH, and would download it otherwise: "
                "install ripgrep"
            )

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs = run.dirs
        install_project_skills(run.skills, dirs.work)
        mark_repository(dirs.work)
        folders = xdg_dirs(dirs.home)
        for folder in folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        url = parent.get(str(ANTHROPIC.url_variable))
        settings = config(run.settings, url, work=run.work, shell=run.shell,
                          servers=run.mcp_servers)  # fmt: skip
        config_file = folders["XDG_CONFIG_HOME"] / "opencode" / "opencode.json"
        config_file.parent.mkdir()
        config_file.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        for name, text in settled_package(self.agent.version).items():
            (config_file.parent / name).write_text(text, encoding="utf-8")
        (config_file.parent / "node_modules").mkdir()
        return self._launch(run, parent)

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        return self._launch(run, parent, session)

    def _launch(self, run: Run, parent: Mapping[str, str], session: str | None = None) -> Launch:
        command, prompt = split_command(run.prompt, run.skills) if run.work else (None, run.prompt)
        argv = build_argv(run.executable, run.model, command, session)
        return Launch(argv, environment(parent, run.dirs), stdin=prompt)

    def request(self, asked: Asked) -> dict[str, object]:
        work, prompt = asked.work, asked.prompt
        command, prompt = split_command(prompt, asked.skills) if work else (None, prompt)
        return {
            "argv": build_argv(self.agent.command, asked.model, command),
            "config": config(asked.settings, None, work=work, shell=asked.shell),
            "prompt": prompt,
        }

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """`/<name> <prompt>`: the skill's command, as a user types it (see above)."""
        return f"/{command_name(skill)} {prompt}"


ADAPTER = OpenCode(AGENT)
