"""What every agent CLI's adapter does the same way, written once (`CliAdapter`).

An agent's adapter (trials/agents/<agent>/adapter.py) subclasses it and says only what is
its own: its environment, its command line and config files, how it is told the model and
the provider's address, and its explicit invocation. The defaults here: the model id of one
of the agent's providers, credentials and addresses read from each provider's record
(trials/providers), the version check, "up to N turns", the listing check for an agent whose
stream cannot say what it lists, the stream reader of the agent's `stream` module (its
`READER`), and the least git takes for a workspace to be a repository.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from activation._errors import InputError
from activation._models import AgentSettings, RunSpec
from activation.trials.agent.adapter import Detector, Launch, Run, RunDirs, Settled
from activation.trials.agent.cli import check_version, install_hint
from activation.trials.agent.installed import SkillSet, project_folders
from activation.trials.providers import ModelProvider, provider_named, runnable

if TYPE_CHECKING:
    from activation.trials.agents.record import Agent
    from activation.trials.listing.model import Listing


def mark_repository(work: Path) -> None:
    """The least git takes for a repository (HEAD, objects/, refs/): the workspace is the
    CLI's project root, the boundary of its upward search for skills and instructions."""
    git = work / ".git"
    for folder in ("objects", "refs"):
        (git / folder).mkdir(parents=True, exist_ok=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")


def cannot_resume(title: str) -> str:
    """Why a case with `turns` cannot run on an agent that does not resume a session."""
    return (
        f"{title} cannot continue a session headless, so it cannot send a case's 'turns' "
        "(its prompts after the first): run the case on an agent that can (docs/behavior.md)"
    )


def key_variable(provider: ModelProvider) -> str:
    """The variable an agent CLI reads the provider's key from (its record's first)."""
    return provider.key_variables[0]


def base_url(provider: ModelProvider, parent: Mapping[str, str]) -> str | None:
    """The provider's address as `parent` sets it, else its default."""
    variable = provider.url_variable
    return (parent.get(variable) if variable else None) or provider.default_url


class CliAdapter:
    """The defaults of an agent CLI's adapter (see the module docstring)."""

    marks_copies = True
    reports_cost = False
    reports_tokens = True
    """Whether its stream says what a run used in tokens (a missing figure is never 0)."""
    own_shell = False
    uncounted: str | None = None
    """Why `--max-cost-usd` cannot be held to (its stream does not say what a run used);
    None: it can."""
    resumes = False
    """Whether it continues a session headless (`resume`, its own): none by default."""
    session_cost = False

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def environment(self, parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
        """The environment of a run in `dirs`, built from `parent` (the agent's own)."""
        raise NotImplementedError

    def providers(self) -> tuple[ModelProvider, ...]:
        return tuple(provider_named(name) for name in self.agent.providers)

    @property
    def credentials(self) -> str:
        """The variables to check when the API refuses the credentials."""
        return " or ".join(key_variable(provider) for provider in self.providers())

    def model(self, model: str | None) -> str | None:
        """The id of one of the agent's providers' models; None: the CLI's own default."""
        return None if model is None else runnable(model, self.agent.providers, self.agent.title).id

    def configure(self, spec: RunSpec) -> None:
        self.model(spec.model)
        if spec.max_cost_usd is not None and self.uncounted is not None:
            raise InputError(f"--max-cost-usd: {self.uncounted}")

    def preflight(self) -> None:
        """A key of one of its providers, and each keyed provider's address reachable."""
        from activation.trials import api_check

        keyed = [p for p in self.providers() if os.environ.get(key_variable(p))]
        if not keyed:
            raise api_check.MissingKey(self.credentials, f" for {self.agent.title}")
        for provider in keyed:
            if provider.url_variable is not None:
                api_check.check_reachable(provider.url_variable)

    def version(self, executable: str) -> str:
        """What `<executable> --version` says first (`said` reads the version out of it)."""
        hint = install_hint(self.agent.package, self.agent.flag)
        title = self.agent.title.removesuffix(" CLI")
        return self.said(check_version(executable, title, hint, self.environment))

    def said(self, line: str) -> str:
        """The version in the first line `--version` prints (all of it by default)."""
        return line

    def limits(self, settings: AgentSettings) -> str:
        return f"up to {settings.max_turns} turns"

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        raise InputError(cannot_resume(self.agent.title))

    def check(self, skills: SkillSet, listing: Listing) -> str | None:
        """The agent's stream does not say what it lists, so its listing (the renderer of
        its own rules) says whether it lists the target."""
        project_folders(skills)
        if self.listed(skills, listing):
            return None
        unlisted = importlib.import_module(f"{self.agent.module}.listing").UNLISTED
        return f"{self.agent.title} does not list {skills.target.id} ({unlisted})"

    def listed(self, skills: SkillSet, listing: Listing) -> bool:
        return listing.entry(skills.target.id) is not None

    def reader(
        self, skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
    ) -> Detector:
        """The agent's stream reader (`READER` of its `stream` module), imported on first use."""
        reader: Detector = importlib.import_module(f"{self.agent.module}.stream").READER(
            skills, settled, on_throttle
        )
        return reader
