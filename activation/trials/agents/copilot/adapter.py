"""GitHub Copilot CLI as Stage B runs it (measured on `@github/copilot@1.0.102`; the facts in
docs/agents.md, "GitHub Copilot CLI").

- **Offline provider mode**: `COPILOT_OFFLINE=true` with `COPILOT_PROVIDER_TYPE`,
  `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_API_KEY` and `COPILOT_MODEL`: the CLI
  talks to the model provider directly, with no GitHub login, token or telemetry.
  `anthropic:<id>` speaks the Messages API at `ANTHROPIC_BASE_URL` (default
  `https://api.anthropic.com`) with `ANTHROPIC_API_KEY`; `openai:<id>` the Responses API
  (`COPILOT_PROVIDER_WIRE_API=responses`) at `OPENAI_BASE_URL` (default
  `https://api.openai.com/v1`) with `OPENAI_API_KEY`. The CLI needs a model in this mode
  ("BYOK providers require an explicit model"), so `--model` is required. What a GitHub
  login adds (GitHub-side retrieval of skills, server-side flags, the Auto model) is not
  what is measured.
- **Skills**: every skill of the set and the catalog is a project skill of the throwaway
  workspace, `<work>/.agents/skills/<folder>/SKILL.md` (one of the CLI's project folders,
  with `.github/skills` and `.claude/skills`); the workspace gets a bare `.git` marker, as
  for OpenCode, so the CLI's project root is the workspace (measured: a skill planted in
  the folder above the run's is not listed). Its two built-in skills are listed as for any
  user.
- **Command**: `copilot -p <prompt> --output-format json --allow-all-tools --no-ask-user
  --no-auto-update --disable-client-telemetry --no-custom-instructions --disallow-temp-dir
  --available-tools skill view glob grep` in the workspace: the model is offered only the
  tools that look around and load skills (no shell, no web fetch, no subagents);
  `--allow-all-tools` is what the CLI needs to run them unattended.
- **Environment**: the base allowlist, the provider's variables above as the CLI's own,
  HOME, TMPDIR and COPILOT_HOME fresh. The native binary unpacks its runtime (~235 MB) on
  first use into `COPILOT_PKG_CACHE_HOME` (passed on when set; else the user's
  `$XDG_CACHE_HOME/copilot` or `~/.cache/copilot`, the CLI's own default), so a run does
  not unpack it again in its fresh home; nothing else of the user's is read.
- **No turn limit**: Copilot CLI has none in prompt mode; `--timeout` bounds a run.
- **A load**: see `stream.py` (`tool.execution_start` of `skill` for the target, then its
  successful `tool.execution_complete`).
- **Stage C's work** (`Run.work`): `create` and `edit` are offered too; paths stay inside
  the workspace (no `--allow-all-paths`, `--disallow-temp-dir`): measured on 1.0.102, a
  write to the run's temp folder, its home or `../` asks for a person's approval, which a
  headless run denies ("Permission denied because no interactive user response was
  available"). Web fetch and subagents are still not offered, nor the shell (`bash`)
  unless the run is in a sandbox (`Run.shell`), which then bounds what its commands write.
- **MCP servers** (`Run.mcp_servers`, Stage C): `--additional-mcp-config <json>`
  (`{"mcpServers": {<name>: {"type": "local", "command", "args", "env", "tools": ["*"]}}}`,
  a JSON string the flag takes as well as an `@file`) and the server's name in
  `--available-tools`, which offers every tool of it (measured on 1.0.102: a `<name>-*`
  pattern offers none); `--allow-all-tools` already lets them run. It names a tool
  `<name>-<tool>`, to its model and in its stream.
- **Turns** (a case's `turns`, `resume`): each later prompt is the same command with
  `--resume <sessionId>` (its `-r, --resume [<value>]`: "Resume from a previous session
  (optionally specify existing session ID ...)"; the id of the stream's `result` event), the
  session's files being under the run's COPILOT_HOME.
- **Explicit invocation** (`invoked`): "Use the /<name> skill: <prompt>", as the CLI's
  documentation tells users to name a skill (in prompt mode a leading `/<name>` is not
  expanded: it reaches the model as typed, measured on 1.0.102).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from activation._errors import InputError
from activation._models import AgentSettings, RunSpec
from activation.trials.agent.adapter import Asked, Launch, McpLaunch, Run, RunDirs
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import SkillCopy, SkillSet, install_project_skills
from activation.trials.agent.kit import CliAdapter, base_url, key_variable, mark_repository
from activation.trials.agents.copilot import AGENT
from activation.trials.agents.copilot.listing import overflow
from activation.trials.agents.copilot.stream import listed_name
from activation.trials.listing.model import Listing
from activation.trials.providers import provider_named, runnable

WIRE = "COPILOT_PROVIDER_WIRE_API"
"""Its switch to the Responses API, for a provider asked through it (OpenAI's)."""
SWITCHES = {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}
CACHE = "COPILOT_PKG_CACHE_HOME"
FLAGS = (
    "--output-format",
    "json",
    "--allow-all-tools",
    "--no-ask-user",
    "--no-auto-update",
    "--disable-client-telemetry",
    "--no-custom-instructions",
    "--disallow-temp-dir",
)
LOOK_TOOLS = ("skill", "view", "glob", "grep")
WORK_TOOLS = (*LOOK_TOOLS, "create", "edit")
"""Stage C: the tools that write files, inside the workspace only."""
SHELL_TOOL = "bash"


def package_cache(parent: Mapping[str, str]) -> str:
    """Where the CLI's runtime is unpacked: the user's own cache, never the run's home."""
    if parent.get(CACHE):
        return parent[CACHE]
    base = parent.get("XDG_CACHE_HOME") or str(
        Path(parent.get("HOME", "~")).expanduser() / ".cache"
    )
    return str(Path(base) / "copilot")


def environment(
    parent: Mapping[str, str], dirs: RunDirs, model: str | None = None
) -> dict[str, str]:
    """The run's environment: the base allowlist, the provider's variables as the CLI's
    own, its fresh folders."""
    env = {
        **allowlisted(parent),
        **fresh_dirs(dirs.home, dirs.tmp),
        **SWITCHES,
        "COPILOT_HOME": str(dirs.home / ".copilot"),
        CACHE: package_cache(parent),
    }
    if model is None:
        return env
    name, _, model_id = model.partition(":")
    provider = provider_named(name)
    wire = {WIRE: provider.api} if provider.api == "responses" else {}
    return {
        **env,
        **wire,
        "COPILOT_PROVIDER_TYPE": name,
        "COPILOT_PROVIDER_BASE_URL": base_url(provider, parent) or "",
        "COPILOT_PROVIDER_API_KEY": parent.get(key_variable(provider), ""),
        "COPILOT_MODEL": model_id,
    }


def mcp_config(servers: Sequence[McpLaunch]) -> str:
    """The `--additional-mcp-config` JSON of the run's MCP servers."""
    config = {
        server.name: {"type": "local", "command": server.command, "args": list(server.args),
                      "env": server.environment, "tools": ["*"]}
        for server in servers
    }  # fmt: skip
    return json.dumps({"mcpServers": config}, sort_keys=True)


def build_argv(
    copilot: str,
    prompt: str,
    *,
    work: bool = False,
    shell: bool = False,
    servers: Sequence[McpLaunch] = (),
    session: str | None = None,
) -> list[str]:
    """`servers`: the case's MCP servers, their tools offered; `session`: the session a
    later turn resumes."""
    tools = ((*WORK_TOOLS, SHELL_TOOL) if shell else WORK_TOOLS) if work else LOOK_TOOLS
    mcp = ["--additional-mcp-config", mcp_config(servers)] if servers else []
    own = [server.name for server in servers]
    resumed = ["--resume", session] if session else []
    return [copilot, "-p", prompt, *FLAGS, *mcp, *resumed, "--available-tools", *tools, *own]


class Copilot(CliAdapter):
    environment = staticmethod(environment)
    resumes = True
    reports_tokens = False
    uncounted = (
        "GitHub Copilot CLI's stream does not say what a run used (its tokens are only in "
        "its session files), so Stage B cannot count it"
    )

    def model(self, model: str | None) -> str | None:
        """`anthropic:claude-sonnet-4.6` (or a bare id) and `openai:<id>`, kept with their
        provider: the provider picks the wire protocol."""
        if model is None:
            return None
        found = runnable(model, self.agent.providers, self.agent.title)
        return f"{found.provider}:{found.id}"

    def configure(self, spec: RunSpec) -> None:
        if spec.model is None:
            raise InputError(
                "GitHub Copilot CLI needs --model in its offline provider mode: "
                "--model anthropic:<id> or --model openai:<id>"
            )
        super().configure(spec)

    def said(self, line: str) -> str:
        """`copilot --version` says "GitHub Copilot CLI 1.0.102." on its first line."""
        return line.split()[-1].rstrip(".")

    def limits(self, settings: AgentSettings) -> str:
        return "no turn limit (GitHub Copilot CLI has none in prompt mode)"

    def listed(self, skills: SkillSet, listing: Listing) -> bool:
        """A skill the CLI rejects (a description over 1,024 characters) fails every load
        silently, so the listing says before any run; one named only on the overflow line
        can still be loaded."""
        return super().listed(skills, listing) or listed_name(skills.target) in overflow(listing)

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs = run.dirs
        install_project_skills(run.skills, dirs.work)
        mark_repository(dirs.work)
        return self._launch(run, parent)

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        return self._launch(run, parent, session)

    def _launch(self, run: Run, parent: Mapping[str, str], session: str | None = None) -> Launch:
        argv = build_argv(run.executable, run.prompt, work=run.work, shell=run.shell,
                          servers=run.mcp_servers, session=session)  # fmt: skip
        return Launch(argv, environment(parent, run.dirs, run.model))

    def request(self, asked: Asked) -> dict[str, object]:
        return {
            "argv": build_argv(
                self.agent.command, asked.prompt, work=asked.work, shell=asked.shell
            ),
            "model": asked.model,
            "offline": SWITCHES,
        }

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """ "Use the /<name> skill: <prompt>", as the CLI's documentation says to name one."""
        return f"Use the /{listed_name(skill)} skill: {prompt}"


ADAPTER = Copilot(AGENT)
