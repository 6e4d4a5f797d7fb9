"""Claude Code as Stage B runs it (measured on CLI 2.1.332; DESIGN.md "Stage B details").

- **Skills**: a plugin target is loaded with `--plugin-dir <copy>`, a skills folder is
  installed as the throwaway workspace's project skills (`<work>/.claude/skills`); the
  catalog's plugins get a `--plugin-dir` each, its own skills go to the throwaway
  `CLAUDE_CONFIG_DIR/skills` (the user's skills).
- **Command**: `claude -p [--plugin-dir P]... --output-format stream-json --verbose
  --max-turns N --no-session-persistence --permission-mode dontAsk --allowedTools
  Read,Glob,Grep,Skill [--model M] -- <prompt>`. The prompt goes after `--`, not right after
  `-p` as the design shows: the CLI's argument parser reads a prompt that starts with `-` as
  an unknown option (measured on 2.1.332: `claude -p "--help me"` exits 1 with "unknown
  option"), while after `--` any text is the prompt. It is still one argv item, and no
  shell is involved.
- **Environment**: the base allowlist (`env`) plus every `ANTHROPIC_*` variable (key, auth
  token, base URL, model and header settings), the Bedrock/Vertex switches and their
  `AWS_*` / Google / region variables, `API_TIMEOUT_MS` and `CLAUDE_CODE_MAX_RETRIES` (how
  the CLI talks to the API; unless the user sets the retries, the CLI retries a failing API
  `CLI_API_ATTEMPTS` - 1 times, not its own 10); a fresh `CLAUDE_CONFIG_DIR` and
  `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`. Other `CLAUDE_CODE_*` switches are dropped.
- **A load** is a `Skill` call for the target whose result succeeded (`stream.py`, which
  says why no nonce is needed: the CLI names the skill it launched).
- **Stage C's work** (`Run.work`): `--allowedTools Read,Glob,Grep,Skill,Edit(./**)
  --disallowedTools Bash,WebFetch,WebSearch`, still in dontAsk mode. An `Edit` rule covers
  every tool that edits files (Write and Edit), and `./**` is the working directory and
  below, so a write anywhere else is denied (measured on 2.1.332: an absolute path under
  the run's temp folder, a `../` path and a path through a symbolic link that points out
  were all refused, a relative path landed in the workspace). A bare `Write` rule would
  allow every path, and an `Edit(...)` rule alone lets Bash run a command that writes
  through a redirect, hence Bash denied by name (it is then not offered at all). In a
  sandbox (`Run.shell`) Bash is allowed too (`--allowedTools ...,Bash`, only the web tools
  denied): the sandbox, not the `Edit` rule, bounds what its commands write.
  `--restricted`, which confines the file tools too, is not used: it hides the workspace's
  project skills (`.claude/skills`).
- **Turns** (a case's `turns`, `resume`): the session is kept (no `--no-session-persistence`)
  and each later prompt is `claude -p ... --resume <session_id> -- <prompt>`, the id its
  stream's `system/init` and `result` events give (`--resume` with `-p`, in the CLI's
  `--help`); the transcript it resumes is under the run's CLAUDE_CONFIG_DIR. The result of
  a resumed turn gives that process's tokens but the session's whole cost so far
  (`session_cost`; measured on 2.1.332: the second turn's `total_cost_usd` is the first's
  plus its own tokens' price).
- **Explicit invocation** (`invoked`): `/<skill id> <prompt>`, the slash command a user
  types; in `-p` mode the CLI puts the skill's body in the first user message itself
  (`<command-name>/<id></command-name>`, then "Base directory for this skill: ..." and the
  body), with no `Skill` call in the stream.
- **MCP servers** (`Run.mcp_servers`, Stage C): `--mcp-config <json>` (`{"mcpServers":
  {<name>: {"type": "stdio", "command", "args", "env", "alwaysLoad": true}}}`, a JSON
  string the flag takes as well as a file) with `--strict-mcp-config`, so no other server
  (the user's, a plugin's) connects, and `mcp__<name>` in `--allowedTools`, every tool of
  the server; its stream names a tool `mcp__<name>__<tool>`. `alwaysLoad`: the server's
  tools are offered from the first request, not deferred behind the CLI's `ToolSearch`
  (measured on 2.1.332: without it the model is offered only `ToolSearch` and a
  placeholder), as a case's few servers are the task's own.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from activation._config import CLI_API_ATTEMPTS
from activation._models import AgentSettings
from activation.trials import api_check
from activation.trials.agent.adapter import Asked, Launch, McpLaunch, Run, RunDirs
from activation.trials.agent.cli import check_version, install_hint
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.kit import CliAdapter
from activation.trials.agents.claude_code import AGENT
from activation.trials.listing.model import Listing

ALLOWED_TOOLS = "Read,Glob,Grep,Skill"
"""Enough for the agent to look around and load skills; nothing that writes or runs code."""
WORK_TOOLS = f"{ALLOWED_TOOLS},Edit(./**)"
"""Stage C: also every file-editing tool (Write, Edit), inside the working directory only."""
SHELL_TOOL = "Bash"
WEB_TOOLS = "WebFetch,WebSearch"
DENIED_TOOLS = f"{SHELL_TOOL},{WEB_TOOLS}"
"""Stage C on the host: no command runs (a redirect would write past the `Edit` rule) and
no web."""
RETRIES = "CLAUDE_CODE_MAX_RETRIES"
"""The CLI's retries of a failing API (10 by default, minutes per trial; capped at 15)."""
PASSTHROUGH_NAMES = frozenset(
    {
        "API_TIMEOUT_MS",
        RETRIES,
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
        "CLAUDE_CODE_SKIP_VERTEX_AUTH",
        "CLOUD_ML_REGION",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
    }
)
PASSTHROUGH_PREFIXES = ("ANTHROPIC_", "AWS_", "VERTEX_REGION_")
CLOUD_SWITCHES = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
"""The CLI can reach a model through a cloud provider's credentials instead of a key."""
MCP_PREFIX = "mcp__"
"""How Claude Code names an MCP server's tools (`mcp__<server>__<tool>`) and, with the
server's name alone, the permission rule for all of them."""
CONFIG_DIR = ".claude"
"""The run's CLAUDE_CONFIG_DIR, inside its home."""


def agent_env(parent: Mapping[str, str], home: Path, config_dir: Path, tmp: Path) -> dict[str, str]:
    """The run's environment: the allowlisted part of `parent` plus the fresh dirs."""
    return {
        RETRIES: str(CLI_API_ATTEMPTS - 1),
        **allowlisted(parent, PASSTHROUGH_NAMES, PASSTHROUGH_PREFIXES),
        **fresh_dirs(home, tmp),
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def build_argv(
    settings: AgentSettings,
    model: str | None,
    claude: str,
    prompt: str,
    plugin_dirs: Sequence[Path] = (),
    *,
    work: bool = False,
    shell: bool = False,
    servers: Sequence[McpLaunch] = (),
    continued: bool = False,
    session: str | None = None,
) -> list[str]:
    """The exact command line of one run (no shell; the prompt is the last argv item);
    `work`: Stage C's, which may edit files in the working directory; `shell`: and run
    commands (`Run.shell`); `servers`: the case's MCP servers, their tools allowed;
    `continued`: a turn of a case of several prompts, whose session is kept; `session`: the
    session a later turn resumes."""
    argv = [claude, "-p"]
    for plugin_dir in plugin_dirs:
        argv += ["--plugin-dir", str(plugin_dir)]
    allowed = (f"{WORK_TOOLS},{SHELL_TOOL}" if shell else WORK_TOOLS) if work else ALLOWED_TOOLS
    if servers:
        allowed += "".join(f",{MCP_PREFIX}{server.name}" for server in servers)
        argv += ["--mcp-config", mcp_config(servers), "--strict-mcp-config"]
    argv += [
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        str(settings.max_turns),
        *(() if continued else ("--no-session-persistence",)),
        *(("--resume", session) if session else ()),
        "--permission-mode",
        "dontAsk",
        "--allowedTools",
        allowed,
    ]
    if work:
        argv += ["--disallowedTools", WEB_TOOLS if shell else DENIED_TOOLS]
    if model:
        argv += ["--model", model]
    return [*argv, "--", prompt]


def mcp_config(servers: Sequence[McpLaunch]) -> str:
    """The `--mcp-config` JSON of the run's MCP servers."""
    config = {
        server.name: {"type": "stdio", "command": server.command, "args": list(server.args),
                      "env": server.environment, "alwaysLoad": True}
        for server in servers
    }  # fmt: skip
    return json.dumps({"mcpServers": config}, sort_keys=True)


def check_claude(claude: str) -> str:
    """Resolve the CLI and ask for its version before any run; InputError if unusable."""
    return check_version(
        claude,
        AGENT.title,
        install_hint(AGENT.package, AGENT.flag),
        lambda parent, dirs: agent_env(parent, dirs.home, dirs.home / CONFIG_DIR, dirs.tmp),
    )


def plugin_dirs(skills: SkillSet) -> list[Path]:
    """The `--plugin-dir`s of a run: the variant's plugin (a skills folder is installed
    instead; a set not installed has none), then the catalog's plugins."""
    own = [skills.root] if skills.in_plugin and not skills.target.absent else []
    return [*own, *skills.catalog.plugins]


class ClaudeCode(CliAdapter):
    credentials = "ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN"
    marks_copies = False
    reports_cost = True
    resumes = True
    session_cost = True

    def environment(self, parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
        return agent_env(parent, dirs.home, dirs.home / CONFIG_DIR, dirs.tmp)

    def preflight(self) -> None:
        """A key (or a cloud provider's switch) and the API's address: the CLI would
        retry for minutes otherwise."""
        api_check.require_credentials(f" for {AGENT.title}", instead=CLOUD_SWITCHES)
        api_check.check_reachable()

    def version(self, executable: str) -> str:
        return check_claude(executable)

    def check(self, skills: SkillSet, listing: Listing) -> str | None:
        """The init event says whether the target is offered, in every run."""
        return None

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs, skills = run.dirs, run.skills
        config_dir = dirs.home / CONFIG_DIR
        config_dir.mkdir(parents=True, exist_ok=True)
        if not skills.in_plugin and not skills.target.absent:
            shutil.copytree(skills.root, dirs.work / CONFIG_DIR / "skills")
        if skills.catalog.user_skills is not None:
            shutil.copytree(skills.catalog.user_skills, config_dir / "skills")
        return self._launch(run, parent)

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        """`--resume <session id>` with `-p` (its stream's `session_id`), the first turn's
        flags again: the session's transcript is in the run's CLAUDE_CONFIG_DIR."""
        return self._launch(run, parent, session)

    def _launch(self, run: Run, parent: Mapping[str, str], session: str | None = None) -> Launch:
        dirs = run.dirs
        env = agent_env(parent, dirs.home, dirs.home / CONFIG_DIR, dirs.tmp)
        argv = build_argv(run.settings, run.model, run.executable, run.prompt,
                          plugin_dirs(run.skills), work=run.work, shell=run.shell,
                          servers=run.mcp_servers, continued=run.continued,
                          session=session)  # fmt: skip
        return Launch(argv, env)

    def request(self, asked: Asked) -> dict[str, object]:
        plugins = [Path(f"plugin-{i}") for i, _ in enumerate(plugin_dirs(asked.skills))]
        argv = build_argv(asked.settings, asked.model, "claude", asked.prompt, plugins,
                          work=asked.work, shell=asked.shell)  # fmt: skip
        return {"argv": argv}

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """`/<id> <prompt>`: the skill's slash command, as a user types it."""
        return f"/{skill.id} {prompt}"


ADAPTER = ClaudeCode(AGENT)
