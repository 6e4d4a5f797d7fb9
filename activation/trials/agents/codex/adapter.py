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
from activation.trials.agent.installed import SkillSet, install_project_skills, project_folders
from activation.trials.agents.codex import AGENT
from activation.trials.listing.model import Listing
from activation.trials.providers import runnable

PROVIDER = "activation"
KEY = "OPENAI_API_KEY"
DEFAULT_URL = "https://api.openai.com/v1"
HOME_DIR = ".codex"
FLAGS = ("--skip-git-repo-check", "--ephemeral", "--sandbox", "read-only", "--disable",
         "plugins", "--disable", "remote_plugin", "--disable", "apps")  # fmt: skip
"""No git check (the workspace is no repository), no session files, a read-only sandbox,
and none of the features that reach other services."""


def environment(parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
    """The run's environment: the allowlisted part of `parent` plus its own folders."""
    codex_home = dirs.home / HOME_DIR
    return {
        **allowlisted(parent, (KEY, api_check.OPENAI_URL)),
        **fresh_dirs(dirs.home, dirs.tmp),
        "CODEX_HOME": str(codex_home),
    }


def config(base_url: str | None) -> str:
    """The run's `config.toml`; a string is written as JSON writes it, which is a TOML
    basic string."""
    lines = [
        f"model_provider = {json.dumps(PROVIDER)}",
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        "",
        f"[model_providers.{PROVIDER}]",
        f"name = {json.dumps(PROVIDER)}",
        *([f"base_url = {json.dumps(base_url)}"] if base_url is not None else []),
        'wire_api = "responses"',
        f"env_key = {json.dumps(KEY)}",
    ]
    return "\n".join(lines) + "\n"


def build_argv(codex: str, model: str | None) -> list[str]:
    model_flags = ["-m", model] if model else []
    return [codex, "exec", "--json", *FLAGS, *model_flags, "-"]


class Codex:
    agent = AGENT
    credentials = KEY
    marks_copies = True
    reports_cost = False

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
        (codex_home / "config.toml").write_text(config(base_url), encoding="utf-8")
        argv = build_argv(run.executable, run.model)
        return Launch(argv, environment(parent, dirs), stdin=run.prompt)

    def request(
        self, settings: AgentSettings, model: str | None, prompt: str, skills: SkillSet
    ) -> dict[str, object]:
        return {
            "argv": build_argv(self.agent.command, model),
            "config": config(None),
            "prompt": prompt,
        }

    def reader(
        self, skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
    ) -> Detector:
        from activation.trials.agents.codex.stream import CodexReader

        return CodexReader(skills, settled, on_throttle)


ADAPTER = Codex()
