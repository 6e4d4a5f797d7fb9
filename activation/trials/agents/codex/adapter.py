"""Codex as Stage B runs it (measured on `@openai/codex@0.171.0`; research/agents/NOTES.md
section 2).

- **Skills**: Codex has no plugins; every skill of the set and the catalog is a project
  skill of the throwaway workspace, `<work>/.agents/skills/<folder>/SKILL.md`. Outside a
  repository Codex reads only the working directory's `.agents/skills` (not its parents'),
  so the workspace needs no marker. Its bundled skills (`$CODEX_HOME/skills/.system`) are
  listed as for any user, as Stage A's listing shows them.
- **Command**: `codex exec --json --skip-git-repo-check --ephemeral --sandbox read-only
  --disable plugins --disable remote_plugin --disable apps [-m <id>] -` in the workspace,
  the prompt on stdin (`-`). The read-only sandbox lets the agent read (its way to load a
  skill) but not write; with `approval_policy = "never"` no command waits for a person.
- **Config**: `$CODEX_HOME/config.toml` (the run's own): a model provider `activation`
  speaking the Responses API at `OPENAI_BASE_URL` (default `https://api.openai.com/v1`),
  its key from `OPENAI_API_KEY`, sandbox read-only and no approvals, and `[analytics]
  enabled = false`: otherwise, after its last event, Codex exports usage metrics to
  OpenAI's own host (measured on 0.171.0 with strace: a lookup of `ab.chatgpt.com` as
  the process ends), which in a sandbox without network held every run that ended on its
  own for 5 s more (its resolver's two tries) and on the host sends the run's metrics out.
- **Environment**: the base allowlist plus `OPENAI_API_KEY` and `OPENAI_BASE_URL`; HOME,
  CODEX_HOME (inside it) and TMPDIR fresh. Nothing else passes.
- **Models**: `openai:<id>` runs `<id>`; no `--model` is Codex's own default. An id without
  the prefix is an Anthropic model, which Codex cannot run.
- **No turn limit**: Codex has none (`--max-turns` does not apply); `--timeout` bounds a run.
- **A load**: see `codex_stream.py` (a command whose output holds the copy's nonce).
- **Stage C's work** (`Run.work`): `--sandbox workspace-write` and in config.toml
  `sandbox_mode = "workspace-write"`, `web_search = "disabled"` (the model is offered no
  `web_search` tool) and `[sandbox_workspace_write]` with `network_access = false`,
  `exclude_tmpdir_env_var = true` and `exclude_slash_tmp = true`: commands and apply_patch
  may write in the workspace only (the sandbox's default also lets them write to TMPDIR and
  /tmp), with no network (measured on 0.171.0 through its bubblewrap sandbox: a write to the
  run's temp folder, its home or `../` fails with "Read-only file system", a connection to
  the API's own address is refused).
- **Its shell at work** (`own_shell`): Codex's commands run inside its own sandbox above,
  so Stage C offers them on the host too (`Run.shell` changes nothing here).
- **In a container** (`--sandbox docker`): `--sandbox danger-full-access` (and so in
  config.toml), as Codex's own sandbox cannot start there; the container is the boundary.
- **MCP servers** (`Run.mcp_servers`, Stage C): a `[mcp_servers.<name>]` table each in
  config.toml (`command`, `args`, `env`), `required = true` (a server that does not start
  fails the run rather than leaving the agent without its tools) and
  `default_tools_approval_mode = "approve"` (its tools run with no person to approve them).
  Codex starts them itself, inside the trial's sandbox. Its model calls
  a tool `mcp__<name>__<tool>`; its stream gives the server and the tool apart
  (`mcp_tool_call`), joined the same way (stream.py).

- **Turns** (a case's `turns`, `resume`): the first turn keeps its session (no
  `--ephemeral`), each later prompt is `codex exec resume --json --skip-git-repo-check
  --disable ... [-m <id>] <thread_id> -` (its `exec resume [SESSION_ID] [PROMPT]`, the id of
  the stream's `thread.started`), the prompt on stdin; the sandbox is the config.toml's.
- **Explicit invocation** (`invoked`): `$<name> <prompt>`, a skill mention, which makes
  Codex add the skill's whole SKILL.md to the turn as a `<skill>` user message before the
  prompt (its "Trigger rules": "If the user names a skill (with `$SkillName` ...)").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from activation._models import AgentSettings
from activation.trials.agent.adapter import Asked, Launch, McpLaunch, Run, RunDirs
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import SkillCopy, install_project_skills
from activation.trials.agent.kit import CliAdapter, base_url, key_variable
from activation.trials.agent.sandbox import DOCKER
from activation.trials.agents.codex import AGENT
from activation.trials.providers import provider_named

PROVIDER = "activation"
"""The name of the model provider the run's config.toml defines."""
OPENAI = provider_named("openai")
KEY = key_variable(OPENAI)
HOME_DIR = ".codex"
GIT_CHECK = "--skip-git-repo-check"
"""No git check (the workspace is no repository)."""
EPHEMERAL = "--ephemeral"
"""No session files (unless a later turn resumes the session)."""
FEATURES_OFF = ("--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps")
"""None of the features that reach other services."""
READ_ONLY = "read-only"
WORK_SANDBOX = "workspace-write"
CONTAINED = "danger-full-access"
"""In a container (`--sandbox docker`) Codex's own sandbox cannot start (it needs user
namespaces, which the container's seccomp profile denies): the container is the boundary."""
WORK_CONFIG = (
    'web_search = "disabled"',
    "",
    "[sandbox_workspace_write]",
    "network_access = false",
    "exclude_tmpdir_env_var = true",
    "exclude_slash_tmp = true",
)
"""Stage C: no web search tool; writes in the workspace only, no network."""


def environment(parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
    """The run's environment: the allowlisted part of `parent` plus its own folders."""
    codex_home = dirs.home / HOME_DIR
    return {
        **allowlisted(parent, (KEY, str(OPENAI.url_variable))),
        **fresh_dirs(dirs.home, dirs.tmp),
        "CODEX_HOME": str(codex_home),
    }


def sandbox(work: bool, contained: bool = False) -> str:
    """Codex's own sandbox mode; `contained`: the run is in a container of its own."""
    if contained:
        return CONTAINED
    return WORK_SANDBOX if work else READ_ONLY


def mcp_tables(servers: Sequence[McpLaunch]) -> list[str]:
    """The config.toml tables of the run's MCP servers."""
    lines: list[str] = []
    for server in servers:
        env = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in server.env)
        lines += [
            "",
            f"[mcp_servers.{server.name}]",
            f"command = {json.dumps(server.command)}",
            f"args = {json.dumps(list(server.args))}",
            f"env = {{ {env} }}" if env else "env = {}",
            "required = true",
            'default_tools_approval_mode = "approve"',
        ]
    return lines


def config(
    url: str | None,
    *,
    work: bool = False,
    contained: bool = False,
    servers: Sequence[McpLaunch] = (),
) -> str:
    """The run's `config.toml`; a string is written as JSON writes it, which is a TOML
    basic string. `work`: Stage C's, which may write in the workspace; `servers`: the
    case's MCP servers."""
    lines = [
        f"model_provider = {json.dumps(PROVIDER)}",
        'approval_policy = "never"',
        f"sandbox_mode = {json.dumps(sandbox(work, contained))}",
        *(WORK_CONFIG if work else ()),
        "",
        "[analytics]",
        "enabled = false",
        "",
        f"[model_providers.{PROVIDER}]",
        f"name = {json.dumps(PROVIDER)}",
        *([f"base_url = {json.dumps(url)}"] if url is not None else []),
        f"wire_api = {json.dumps(OPENAI.api)}",
        f"env_key = {json.dumps(KEY)}",
        *mcp_tables(servers),
    ]
    return "\n".join(lines) + "\n"


def build_argv(
    codex: str,
    model: str | None,
    *,
    work: bool = False,
    contained: bool = False,
    continued: bool = False,
) -> list[str]:
    """`continued`: the first turn of a case of several prompts, whose session is kept."""
    model_flags = ["-m", model] if model else []
    sandbox_flags = ["--sandbox", sandbox(work, contained)]
    flags = (GIT_CHECK,) if continued else (GIT_CHECK, EPHEMERAL)
    return [codex, "exec", "--json", *flags, *sandbox_flags, *FEATURES_OFF, *model_flags, "-"]


def resume_argv(codex: str, model: str | None, session: str) -> list[str]:
    """A later turn of the session `session`: its sandbox is the config.toml's."""
    model_flags = ["-m", model] if model else []
    return [codex, "exec", "resume", "--json", GIT_CHECK, *FEATURES_OFF, *model_flags, session,
            "-"]  # fmt: skip


class Codex(CliAdapter):
    own_shell = True
    resumes = True
    environment = staticmethod(environment)
    uncounted = (
        "Codex reports its tokens only when a run ends, and a run is stopped at the skill's "
        "load, so Stage B cannot count what Codex spends"
    )

    def said(self, line: str) -> str:
        """`codex --version` says `codex-cli 0.171.0`."""
        return line.split()[-1]

    def limits(self, settings: AgentSettings) -> str:
        return "no turn limit (Codex has none)"

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs = run.dirs
        install_project_skills(run.skills, dirs.work)
        codex_home = dirs.home / HOME_DIR
        codex_home.mkdir()
        url = base_url(OPENAI, parent)
        contained = run.settings.sandbox == DOCKER
        toml = config(url, work=run.work, contained=contained, servers=run.mcp_servers)
        (codex_home / "config.toml").write_text(toml, encoding="utf-8")
        argv = build_argv(run.executable, run.model, work=run.work, contained=contained,
                          continued=run.continued)  # fmt: skip
        return Launch(argv, environment(parent, dirs), stdin=run.prompt)

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        argv = resume_argv(run.executable, run.model, session)
        return Launch(argv, environment(parent, run.dirs), stdin=run.prompt)

    def request(self, asked: Asked) -> dict[str, object]:
        return {
            "argv": build_argv(self.agent.command, asked.model, work=asked.work),
            "config": config(None, work=asked.work),
            "prompt": asked.prompt,
        }

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """`$<name> <prompt>`: a mention of the skill by the name Codex lists it by (its
        frontmatter name, else its folder's)."""
        return f"${skill.name or skill.folder.name} {prompt}"


ADAPTER = Codex(AGENT)
