"""The fake agent as Stage B runs it: every skill of the set and the catalog a project
skill of the run's workspace (`<work>/.agents/skills/<folder>/SKILL.md`, each copy marked
with its nonce), the fake CLI started there with the prompt on stdin, in an environment of
the base allowlist and the run's fresh folders. It needs no credentials. A Stage C run
(`Run.work`) adds `--work`: the CLI then writes what it is told to, inside the workspace
only; `/<folder> <prompt>` is its explicit invocation (it loads every skill the prompt
names)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from activation._errors import InputError
from activation._models import AgentSettings, RunSpec
from activation.trials.agent.adapter import Asked, Detector, Launch, Run, RunDirs, Settled
from activation.trials.agent.cli import check_version, install_hint
from activation.trials.agent.env import allowlisted, fresh_dirs
from activation.trials.agent.installed import (
    SkillCopy,
    SkillSet,
    install_project_skills,
    project_folders,
)
from activation.trials.agent.kit import cannot_resume
from activation.trials.listing.model import Listing
from tests.support.fake_agent import AGENT

ARGS = ("--json",)
WORK_ARGS = (*ARGS, "--work")


def environment(parent: Mapping[str, str], dirs: RunDirs) -> dict[str, str]:
    return {**allowlisted(parent), **fresh_dirs(dirs.home, dirs.tmp)}


class FakeAgent:
    agent = AGENT
    credentials = "no credentials (the fake agent asks no API)"
    marks_copies = True
    reports_cost = True
    reports_tokens = True
    own_shell = False
    resumes = False
    session_cost = False

    def model(self, model: str | None) -> str | None:
        return model

    def configure(self, spec: RunSpec) -> None:
        self.model(spec.model)

    def preflight(self) -> None:
        return None

    def version(self, executable: str) -> str:
        """`fake-agent --version` says `fake-agent 1.0.0`."""
        hint = install_hint(self.agent.package, self.agent.flag)
        return check_version(executable, self.agent.title, hint, environment).split()[-1]

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        raise InputError(cannot_resume(self.agent.title))

    def limits(self, settings: AgentSettings) -> str:
        return "one turn"

    def check(self, skills: SkillSet, listing: Listing) -> str | None:
        project_folders(skills)
        if listing.entry(skills.target.id) is not None:
            return None
        return f"the fake agent does not list {skills.target.id} (it has no description)"

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        install_project_skills(run.skills, run.dirs.work)
        argv = [run.executable, *(WORK_ARGS if run.work else ARGS)]
        return Launch(argv, environment(parent, run.dirs), stdin=run.prompt)

    def request(self, asked: Asked) -> dict[str, object]:
        argv = [self.agent.command, *(WORK_ARGS if asked.work else ARGS)]
        return {"argv": argv, "prompt": asked.prompt}

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        return f"/{skill.folder.name} {prompt}"

    def reader(
        self, skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
    ) -> Detector:
        from tests.support.fake_agent.stream import FakeReader

        return FakeReader(skills, settled)


ADAPTER = FakeAgent()
