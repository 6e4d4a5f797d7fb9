"""What differs between the agent CLIs Stage B runs, behind one interface: an `Adapter` per
agent, the `adapter` module of the agent's package (trials/agents), chosen by a spec's
`coding_agent`.

The backend keeps what every run shares (throwaway folders, the process group, time-outs,
transcript files, scrubbing secrets, the cache key); an adapter says what is the agent's
own: the npm package to install, how credentials and the API's address reach it, where the
skill copies go in the run's workspace and home, the command line and environment of one
run, how its event stream shows a load (its `Detector`), its version check and the model
ids it takes. Adding an agent is a new package under trials/agents and one registry line.

Light on purpose: the stage imports this module, so nothing here starts a process or pulls
in anything heavy; an agent's record imports its adapter when it is first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from activation._models import AgentSettings, RunSpec
from activation.trials.agent.reading import Settled

__all__ = [
    "Adapter",
    "Asked",
    "Detector",
    "Launch",
    "McpLaunch",
    "Run",
    "RunDirs",
    "Settled",
    "read_through",
]

if TYPE_CHECKING:
    from activation.trials.agent.installed import SkillCopy, SkillSet
    from activation.trials.agent.reading import Reading
    from activation.trials.agents.record import Agent
    from activation.trials.listing.model import Listing


@dataclass(frozen=True)
class RunDirs:
    """One run's throwaway folders: the project the agent works in, its home, its temp."""

    work: Path
    home: Path
    tmp: Path


@dataclass(frozen=True)
class McpLaunch:
    """An MCP server as one run's agent config starts it (trials/agent/mcp.py): its name,
    its command and arguments as the sandbox sees them, and its environment's values."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    @property
    def environment(self) -> dict[str, str]:
        return dict(self.env)


@dataclass(frozen=True)
class Run:
    """One run, as an adapter lays it out."""

    settings: AgentSettings
    model: str | None
    """The model id as the CLI takes it (`Adapter.model`), None for the CLI's default."""
    executable: str
    prompt: str
    dirs: RunDirs
    skills: SkillSet
    work: bool = False
    """Stage C: the agent does the task, writing and editing files in its workspace (never
    outside it); web and network tools stay denied. Stage B's runs only look around."""
    shell: bool = False
    """Stage C in a sandbox (docker or bwrap): the agent's shell tool is offered too, the
    sandbox being the boundary; on the host it stays denied (`Adapter.own_shell` aside)."""
    mcp_servers: tuple[McpLaunch, ...] = ()
    """Stage C: the case's MCP servers, which the adapter writes into the agent's own config
    and whose tools it allows (and nothing else new)."""

    continued: bool = False
    """More prompts follow in this session (a case's `turns`): the agent keeps its session
    where `Adapter.resume` finds it (a CLI that saves none by default saves this one)."""


@dataclass(frozen=True)
class Asked:
    """What one run asks, with no throwaway folder: what its cache key is made of."""

    settings: AgentSettings
    model: str | None
    prompt: str
    skills: SkillSet
    work: bool = False
    """As `Run.work`."""
    shell: bool = False
    """As `Run.shell`."""


@dataclass(frozen=True)
class Launch:
    """How to start one run: the command line (no shell), its whole environment, and the
    prompt to write to its stdin (None: the prompt is in the command line)."""

    argv: list[str]
    env: dict[str, str]
    stdin: str | None = None


class Detector(Protocol):
    """An incremental reader of one run's event stream for one target skill."""

    @property
    def decided(self) -> bool:
        """The verdict cannot change any more (the skills fired settle the case, the skill
        is not offered, the credentials were refused), so the run can be stopped."""
        ...

    @property
    def saw_result(self) -> bool:
        """The stream's last event came: only the exit code is left to wait for."""
        ...

    @property
    def auth_status(self) -> int | None:
        """401 or 403 once the API refused the credentials."""
        ...

    def feed(self, line: str | bytes) -> None: ...

    def reading(self, exit_code: int | None = None) -> Reading:
        """The verdict so far; `exit_code` is the process's, when it is known."""
        ...


def read_through(
    detector: Detector, lines: Iterable[str | bytes], exit_code: int | None = None
) -> Reading:
    """A whole saved stream read by `detector` (a transcript again, or a test's capture)."""
    for line in lines:
        detector.feed(line)
    return detector.reading(exit_code)


class Adapter(Protocol):
    agent: Agent
    """The agent's record: its name, title, executable, package and flag."""
    credentials: str
    """The variables to check when the API refuses the credentials."""
    marks_copies: bool
    """Whether each copied SKILL.md gets a nonce (`plugin_copy.mark`): true for an agent
    whose stream shows what a load returned, so a load counts only when the target's own
    content came back."""
    reports_cost: bool
    """Whether the CLI reports what a run cost (else the tokens are priced)."""
    reports_tokens: bool
    """Whether the CLI's stream carries a run's token counts (else no price can count it)."""
    own_shell: bool
    """Whether the CLI's shell runs inside a sandbox of its own at work (Codex's), so Stage
    C offers it on the host too; else the shell is offered only in a sandbox (`Run.shell`)."""
    resumes: bool
    """Whether the CLI continues a session headless (`resume`): a case with `turns` runs
    only on an agent that does; the others refuse it before any run."""
    session_cost: bool
    """Whether the cost a resumed turn's stream reports is the whole session's so far (not
    its own turn's), so a trial of several prompts costs what its last turn says."""

    def model(self, model: str | None) -> str | None:
        """A cell's model as the CLI takes it (None: the CLI's own default); InputError for
        a model this agent cannot run."""
        ...

    def configure(self, spec: RunSpec) -> None:
        """InputError for what this agent cannot run (its models, its options)."""
        ...

    def preflight(self) -> None:
        """Check its credentials and the API's address before any run."""
        ...

    def version(self, executable: str) -> str:
        """What the CLI says its version is; InputError when it cannot be run."""
        ...

    def limits(self, settings: AgentSettings) -> str:
        """How long a run may go on, in words ("up to 8 turns")."""
        ...

    def check(self, skills: SkillSet, listing: Listing) -> str | None:
        """Why no run of this variant could offer the target (None: runs can start),
        judged before any run for an agent whose stream cannot say; InputError for a set
        it cannot install."""
        ...

    def prepare(self, run: Run, parent: Mapping[str, str]) -> Launch:
        """Lay the run out in its folders (skills, config files) and say how to start it;
        credentials come from `parent`."""
        ...

    def resume(self, run: Run, session: str, parent: Mapping[str, str]) -> Launch:
        """How to send `run.prompt` as the next turn of the session `session` (the id the
        previous turn's stream gave, `Reading.session`), in the folders `prepare` laid out;
        InputError for an agent that cannot (`resumes` false)."""
        ...

    def request(self, asked: Asked) -> dict[str, object]:
        """What the run asks, as the cache key holds it: the command line and config with
        no throwaway path, endpoint or secret in them (a Stage C run is asked differently,
        so it never shares a key with a Stage B one)."""
        ...

    def reader(
        self, skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
    ) -> Detector:
        """A detector for one run of this variant."""
        ...

    def invoked(self, prompt: str, skill: SkillCopy) -> str:
        """The prompt that makes the agent load `skill` the way its users force it (the
        agent's own explicit invocation), for `--invoke`: Stage C measuring the body alone."""
        ...
