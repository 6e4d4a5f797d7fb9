"""Gemini CLI as Stage B runs it (read in `@google/gemini-cli@0.61.0`'s bundle and measured on
it; ../shared/agents/NOTES.md "Seen working offline, turn 4").

- **Skills**: every skill of the set and the catalog is a project skill of the throwaway
  workspace, `<work>/.agents/skills/<folder>/SKILL.md`, where Stage A's listing shows it
  (the CLI reads the working directory's `.gemini/skills` and `.agents/skills`, no parent's,
  and only in a trusted workspace). Its two built-ins stay listed, as for any user.
- **Command**: `gemini -p <prompt> -m <id> --output-format stream-json --policy <file>` in
  the workspace. `-m` is always given: without it a router side request picks the model.
  The policy file holds one rule allowing `activate_skill`: headless, the CLI denies every
  tool that would ask a person, and a denied tool is *removed* while the listing stays in
  the prompt, so without the rule a run "succeeds" and can never load a skill (the rule,
  not `--approval-mode yolo`, which would open every tool).
- **Settings**: `$GEMINI_CLI_HOME/.gemini/settings.json` (the run's own): the API-key auth
  (`security.auth.selectedType`, without which a base URL exits 41), the attempts per model
  request (`general.maxAttempts`: 10 by default, minutes of retries on a failing API; the
  tool's own bound, `CLI_API_ATTEMPTS`), usage statistics,
  telemetry, auto-update and the IDE off (else the CLI looks up Google hosts), the web and
  shell tools excluded (`tools.exclude`: `google_web_search` is offered headless
  otherwise), `model.maxSessionTurns` = `--max-turns`.
- **Environment**: the base allowlist plus `GEMINI_API_KEY` and `GOOGLE_GEMINI_BASE_URL`;
  HOME, GEMINI_CLI_HOME and TMPDIR fresh; `GEMINI_CLI_TRUST_WORKSPACE=true` (an untrusted
  workspace is fatal headless, exit 55, and hides project skills).
- **Models**: `google:<id>` runs `-m <id>`; a run needs one.
- **A load**: see `stream.py` (a successful `activate_skill` of the target from its folder).
- **Stage C's work** (`Run.work`): the policy also allows `write_file` and `replace`, which
  the CLI lets write only inside the workspace (and its own project temp folder, under the
  run's home: `Config.validatePathAccess`); the web tools stay excluded, and so does the
  shell (`run_shell_command`) unless the run is in a sandbox (`Run.shell`), where the
  policy allows it and the sandbox bounds what its commands write.
- **MCP servers** (`Run.mcp_servers`, Stage C): settings.json's `mcpServers` (`{<name>:
  {command, args, env}}`) and a policy rule `mcpName = "<name>"`, `toolName = "*"` allowing
  every tool of the server (the policy engine's form for a server's tools,
  docs/reference/policy-engine.md; its loader requires a `toolName`, and a policy file it
  refuses takes every allowed tool away). Its model and stream name a tool
  `mcp_<name>_<tool>` (mcp-tool.ts `generateValidName`).
- **Turns** (a case's `turns`, `resume`): each later prompt is the same command with
  `--resume <session_id>` (the stream's `init` event's; the CLI's `SessionSelector.findSession`
  takes a session's UUID), which reloads the chat the CLI records under the run's home.
- **Explicit invocation** (`invoked`): the TUI's `/<name> <args>` (SkillCommandLoader) runs
  `activate_skill` itself and then submits the args, but headless `-p` has no skill
  commands (nonInteractiveCliCommands.ts loads only built-in, MCP and file commands), so a
  Stage C run asks in the CLI's own words, `Use the skill <name>.` before the prompt, and
  the load stays the model's `activate_skill` call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from activation._config import CLI_API_ATTEMPTS
from activation._errors import InputError
from activation._models import AgentSettings
from activation.trials.agent.adapter import Asked, Launch, McpLaunch, Run, RunDirs
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import SkillCopy, install_project_skills
from activation.trials.agent.kit import CliAdapter, key_variable
from activation.trials.agents.gemini import AGENT
from activation.trials.agents.gemini.listing import listed_name
from activation.trials.providers import provider_named, runnable

GOOGLE = provider_named("google")
KEY = key_variable(GOOGLE)
URL = str(GOOGLE.url_variable)
HOME_DIR = ".gemini"
POLICY_FILE = "activation-policy.toml"
"""In the run's home, beside (not in) `.gemini/policies`, which the CLI would also load."""
SWITCHES = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
LOAD_TOOL = "activate_skill"
WRITE_TOOLS = ("write_file", "replace")
SHELL_TOOL = "run_shell_command"
WEB_TOOLS = ("google_web_search", "web_fetch")
EXCLUDED = (*WEB_TOOLS, SHELL_TOOL)
"""The tools that reach the network or run commands: not offered (the shell is, in a
sandbox at work)."""
LOOK_ONLY_EXCLUDED = (*EXCLUDED, *WRITE_TOOLS)
AUTH_TYPE = "gemini-api-key"


def environment(parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
    """The run's environment: the allowlisted part of `parent` plus its own folders."""
    return {
        **allowlisted(parent, (KEY, URL)),
        **fresh_dirs(dirs.home, dirs.tmp),
        "GEMINI_CLI_HOME": str(dirs.home),
        **SWITCHES,
    }


def policy(*, work: bool = False, shell: bool = False, servers: Sequence[str] = ()) -> str:
    """The policy file: `activate_skill` allowed (and Stage C's write tools, its shell in a
    sandbox, and every tool of the MCP `servers`)."""
    tools = (LOAD_TOOL, *WRITE_TOOLS, *((SHELL_TOOL,) if shell else ())) if work else (LOAD_TOOL,)
    rules = [
        f'[[rule]]\ntoolName = "{tool}"\ndecision = "allow"\npriority = 100\n' for tool in tools
    ]
    rules += [
        f'[[rule]]\nmcpName = "{server}"\ntoolName = "*"\ndecision = "allow"\npriority = 100\n'
        for server in servers
    ]
    return "\n".join(rules)


def settings_file(
    agent: AgentSettings,
    *,
    work: bool = False,
    shell: bool = False,
    servers: Sequence[McpLaunch] = (),
) -> dict[str, object]:
    """The run's `settings.json` (with the case's MCP `servers`)."""
    mcp = {
        server.name: {"command": server.command, "args": list(server.args),
                      "env": server.environment}
        for server in servers
    }  # fmt: skip
    return {
        "general": {
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
            "maxAttempts": CLI_API_ATTEMPTS,
        },
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "security": {"auth": {"selectedType": AUTH_TYPE}},
        "ide": {"enabled": False},
        "tools": {
            "exclude": list((WEB_TOOLS if shell else EXCLUDED) if work else LOOK_ONLY_EXCLUDED)
        },
        "model": {"maxSessionTurns": agent.max_turns},
        **({"mcpServers": mcp} if mcp else {}),
    }


def build_argv(
    gemini: str, model: str, prompt: str, policy_path: str, session: str | None = None
) -> list[str]:
    """`session`: the session a later turn resumes."""
    resumed = ["--resume", session] if session else []
    return [gemini, "-p", prompt, "-m", model, "--output-format", "stream-json",
            "--policy", policy_path, *resumed]  # fmt: skip


class Gemini(CliAdapter):
    environment = staticmethod(environment)
    resumes = True

    def model(self, model: str | None) -> str:
        """`google:gemini-3.1-pro-preview` is `-m gemini-3.1-pro-preview`; a run needs one."""
        if model is None:
            raise InputError(
                "Gemini CLI needs a pinned model: pass --model google:<id> (without -m the "
                "CLI asks a router model first, which a run must not measure)"
            )
        return runnable(model, self.agent.providers, self.agent.title).id

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs = run.dirs
        install_project_skills(run.skills, dirs.work)
        home = dirs.home / HOME_DIR
        home.mkdir(parents=True, exist_ok=True)
        servers = run.mcp_servers
        settings = settings_file(run.settings, work=run.work, shell=run.shell, servers=servers)
        (home / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
        policy_path = dirs.home / POLICY_FILE
        rules = policy(work=run.work, shell=run.shell, servers=[s.name for s in servers])
        policy_path.write_text(rules, encoding="utf-8")
        return self._launch(run, parent)

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        return self._launch(run, parent, session)

    def _launch(self, run: Run, parent: Mapping[str, str], session: str | None = None) -> Launch:
        model = run.model if run.model is not None else self.model(None)
        argv = build_argv(run.executable, model, run.prompt, str(run.dirs.home / POLICY_FILE),
                          session)  # fmt: skip
        return Launch(argv, environment(parent, run.dirs))

    def request(self, asked: Asked) -> dict[str, object]:
        return {
            "argv": build_argv(self.agent.command, asked.model or "", asked.prompt, POLICY_FILE),
            "settings": settings_file(asked.settings, work=asked.work, shell=asked.shell),
            "policy": policy(work=asked.work, shell=asked.shell),
        }

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """`Use the skill <name>.` and the prompt (see above)."""
        return f"Use the skill {listed_name(skill.name or skill.folder.name)}. {prompt}"


ADAPTER = Gemini(AGENT)
