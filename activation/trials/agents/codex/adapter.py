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
  its key from `OPENAI_API_KEY`, sandbox read-only and no approvals.
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
- **Explicit invocation** (`invoked`): `$<name> <prompt>`, a skill mention, which makes
  Codex add the skill's whole SKILL.md to the turn as a `<skill>` user message before the
  prompt (its "Trigger rules": "If the user names a skill (with `$SkillName` ...)").
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping

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
from activation.trials.agents.codex import AGENT
from activation.trials.listing.model import Listing
from activation.trials.providers import runnable

PROVIDER = "activation"
KEY = "OPENAI_API_KEY"
DEFAULT_URL = "https://api.openai.com/v1"
HOME_DIR = ".codex"
FLAGS = ("--skip-git-repo-check", "--ephemeral")
"""No git check (the workspace is no repository), no session files."""
FEATURES_OFF = ("--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps")
"""None of the features that reach other services."""
READ_ONLY = "read-only"
WORK_SANDBOX = "workspace-write"
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
        **allowlisted(parent, (KEY, api_check.OPENAI_URL)),
        **fresh_dirs(dirs.home, dirs.tmp),
        "CODEX_HOME": str(codex_home),
    }


def sandbox(work: bool) -> str:
    return WORK_SANDBOX if work else READ_ONLY


def config(base_url: str | None, *, work: bool = False) -> str:
    """The run's `config.toml`; a string is written as JSON writes it, which is a TOML
    basic string. `work`: Stage C's, which may write in the workspace."""
    lines = [
        f"model_provider = {json.dumps(PROVIDER)}",
        'approval_policy = "never"',
        f"sandbox_mode = {json.dumps(sandbox(work))}",
        *(WORK_CONFIG if work else ()),
        "",
        f"[model_providers.{PROVIDER}]",
        f"name = {json.dumps(PROVIDER)}",
        *([f"base_url = {json.dumps(base_url)}"] if base_url is not None else []),
        'wire_api = "responses"',
        f"env_key = {json.dumps(KEY)}",
    ]
    return "\n".join(lines) + "\n"


def build_argv(codex: str, model: str | None, *, work: bool = False) -> list[str]:
    model_flags = ["-m", model] if model else []
    sandbox_flags = ["--sandbox", sandbox(work)]
    return [codex, "exec", "--json", *FLAGS, *sandbox_flags, *FEATURES_OFF, *model_flags, "-"]


class Codex:
    agent = AGENT
    credentials = KEY
    marks_copies = True
    reports_cost = False
    reports_tokens = True

    def model(self, model: str | None) -> str | None:
        """`openai:gpt-5.5` is Codex's `gpt-5.5`; no `--model`: Codex's own default."""
        return None if model is None else runnable(model, self.agent.providers, self.agent.title).id

    def configure(self, spec: RunSpec) -> None:
        self.model(spec.model)
        if spec.max_cost_usd is not None:
            raise InputError(
                "--max-cost-usd: Codex reports its tokens only when a run ends, and a run is "
                "stopped at the skill's load, so Stage B cannot count what Codex spends"
            )

    def preflight(self) -> None:
        if not os.environ.get(KEY):
            raise InputError(f"no API key: set {KEY} for Codex (--dry-run needs none)")
        api_check.check_reachable(api_check.OPENAI_URL)

    def version(self, executable: str) -> str:
        """`codex --version` says `codex-cli 0.171.0`."""
        hint = install_hint(self.agent.package, self.agent.flag)
        return check_version(executable, self.agent.title, hint, environment).split()[-1]

    def limits(self, settings: AgentSettings) -> str:
        return "no turn limit (Codex has none)"

    def check(self, skills: SkillSet, listing: Listing) -> str | None:
        """Codex says nothing of its skills in its stream, so its listing (the renderer of
        its own rules, budget included) says whether it lists the target."""
        project_folders(skills)
        if listing.entry(skills.target.id) is not None:
            return None
        return (
            f"Codex does not list {skills.target.id} (it skips a SKILL.md without a "
            "description or with a name over 64 characters, and leaves out what does not "
            "fit its listing's budget)"
        )

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        dirs = run.dirs
        install_project_skills(run.skills, dirs.work)
        codex_home = dirs.home / HOME_DIR
        codex_home.mkdir()
        base_url = parent.get(api_check.OPENAI_URL) or DEFAULT_URL
        (codex_home / "config.toml").write_text(config(base_url, work=run.work), encoding="utf-8")
        argv = build_argv(run.executable, run.model, work=run.work)
        return Launch(argv, environment(parent, dirs), stdin=run.prompt)

    def request(
        self,
        settings: AgentSettings,
        model: str | None,
        prompt: str,
        skills: SkillSet,
        *,
        work: bool = False,
    ) -> dict[str, object]:
        return {
            "argv": build_argv(self.agent.command, model, work=work),
            "config": config(None, work=work),
            "prompt": prompt,
        }

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """`$<name> <prompt>`: a mention of the skill by the name Codex lists it by (its
        frontmatter name, else its folder's)."""
        return f"${skill.name or skill.folder.name} {prompt}"

    def reader(
        self, skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
    ) -> Detector:
        from activation.trials.agents.codex.stream import CodexReader

        return CodexReader(skills, settled, on_throttle)


ADAPTER = Codex()
