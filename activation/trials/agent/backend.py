"""Stage B's backend: one isolated, headless agent run per trial.

Each trial starts the real agent CLI (Claude Code, OpenCode or Codex: the spec's
`coding_agent` picks its `Adapter`) on the case prompt with the variant's skill copies,
reads its event stream line by line as it arrives (every line goes to the adapter's
detector and to the trial's transcript file), and stops the whole process group the moment
the verdict is known. Every run gets fresh empty folders (a working directory, a HOME, a
TMPDIR) and an environment built from an allowlist (see `env` and each adapter).
Cancellation (Ctrl-C, SIGTERM) stops the process group (SIGTERM, then SIGKILL for what is
left after a short grace: see process_group.py) and removes the run's folders on the way
out. What is the agent's own (its command line, config files, where the skills go,
how a load shows) is in its adapter; this module keeps what every run shares.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, ExitStack, aclosing, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import BinaryIO, Self

import anyio
from anyio.abc import ByteReceiveStream, Process

from activation._config import INFRASTRUCTURE_RETRIES
from activation._documents import document_json
from activation._errors import AuthError
from activation._models import (
    AgentSettings,
    AnyInputs,
    Arm,
    ErrorClass,
    RunSpec,
    Trajectory,
    Trial,
    TrialKey,
    Usage,
)
from activation.trials.agent.adapter import (
    Asked,
    Detector,
    Launch,
    McpLaunch,
    Run,
    RunDirs,
    Settled,
)
from activation.trials.agent.canary import (
    AGENT_RUNS,
    HOST_UNCHECKED,
    NONCE_FILE,
    SKIPPED,
    agent_problem,
    ask,
    run_probe,
)
from activation.trials.agent.cli import resolve
from activation.trials.agent.env import allowlisted, fresh_dirs, scrub, scrub_bytes, secret_values
from activation.trials.agent.installed import SkillSet, skill_sets, skills_record
from activation.trials.agent.plugin_copy import CatalogCopy, Copies, paired_copies, tree_digest
from activation.trials.agent.process_group import start_group, stop_group
from activation.trials.agent.reading import Reading, in_workspace
from activation.trials.agent.sandbox import HOST, Confined, View, sandbox_named, say_once
from activation.trials.agent.sandbox_egress import request_budget, targets
from activation.trials.agents import agent_named
from activation.trials.backend import Round, request_digest
from activation.trials.errors import (
    TIME_BUDGET,
    InfrastructureFailure,
    ended_class,
    run_failure_class,
)
from activation.trials.providers import provider_named

STDERR_LIMIT = 8192
"""Bytes of the CLI's stderr kept (the tail) for an error reason."""
_REASON_STDERR = 500
"""Characters of that tail quoted in an error reason."""
_DRAIN_GRACE = 2.0
"""Seconds to wait for the last of stderr after the process is gone."""
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
PROMPT_FILE = "prompt.txt"
"""The prompt, for an agent that reads it on stdin (in the run's folder, not its work dir)."""
RUN_FAILURES = (
    OSError,
    subprocess.SubprocessError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    UnicodeError,
)
"""What can go wrong with a run itself (starting the process, its pipes, the transcript
file, undecodable output): an error trial. Anything else is a bug, and surfaces as one."""


def skills_file_name(variant: Arm) -> str:
    """The record of a variant's skills in a run's transcripts folder (see `installed`)."""
    return f"skills-{variant}.json"


def transcript_path(transcripts_dir: Path, key: TrialKey) -> Path:
    """`<dir>/<case>/<variant>-<index>.jsonl`, with the case id made safe as a folder name.

    An id that had to be changed gets a digest of the original, so two ids that read alike
    once made safe (`x/y`, `x_y`) never share, and corrupt, one transcript.
    """
    case = _SAFE_NAME.sub("_", key.case.id).strip(".") or "case"
    if case != key.case.id:
        case += "-" + hashlib.sha256(key.case.id.encode()).hexdigest()[:8]
    return transcripts_dir / case / f"{key.variant}-{key.index}.jsonl"


async def _lines(stream: ByteReceiveStream) -> AsyncGenerator[bytes]:
    """Split a byte stream into lines (newline kept); a last unterminated line is yielded."""
    buffer = bytearray()
    async for chunk in stream:
        search_from = len(buffer)  # the old bytes hold no newline
        buffer += chunk
        while (end := buffer.find(b"\n", search_from)) >= 0:
            yield bytes(buffer[: end + 1])
            del buffer[: end + 1]
            search_from = 0
    if buffer:
        yield bytes(buffer)


NO_SESSION = "{agent}'s stream named no session, so the case's next prompt cannot continue it"


@dataclass(frozen=True)
class Turn:
    """One prompt's run: its trial, and the session its stream named (the next prompt's)."""

    trial: Trial
    session: str | None = None


def joined(
    key: TrialKey, target: str, turns: Sequence[Turn], transcript: str, session_cost: bool = False
) -> Trial:
    """A trial of several prompts from each prompt's: the error of the turn that erred (said
    with its number), else the skills every turn fired in order and each one's evidence; the
    usage of every turn run, summed (`session_cost`: each turn's cost is the session's so
    far, so the trial's is the highest); the trajectory each turn's, end to end."""
    trials = [turn.trial for turn in turns]
    if len(trials) == 1:
        return trials[0]
    usage = sum((trial.usage for trial in trials), Usage())
    costs = [trial.usage.cost_usd for trial in trials]
    if session_cost and None not in costs:
        usage = replace(usage, cost_usd=max(cost or 0.0 for cost in costs))
    parts = [trial.trajectory for trial in trials if trial.trajectory is not None]
    did = Trajectory.joined(parts) if parts else None
    last = trials[-1]
    if last.is_error:
        failed = key.failed(f"turn {len(trials)}: {last.error}", usage, transcript,
                            kind=last.error_class)  # fmt: skip
        return replace(failed, trajectory=did)
    chose = tuple(skill for trial in trials for skill in trial.chose)
    evidence = "; ".join(
        f"turn {number}: {trial.evidence}" for number, trial in enumerate(trials, 1)
    )
    return replace(key.fired(chose, target, evidence, usage, transcript), trajectory=did)


@dataclass
class _RunState:
    stderr: bytearray = field(default_factory=bytearray)
    stderr_closed: anyio.Event = field(default_factory=anyio.Event)
    stopped_early: bool = False
    timed_out: bool = False
    returncode: int | None = None


class AgentBackend:
    """The Stage B backend: entered, it holds the two copies of the skill set (and the
    catalog's), marked with their nonces when the adapter reads loads by content; each
    trial is one run, laid out by the adapter.

    `env` is the environment credentials come from (default: this process's). Stage C's
    backend is this one with the agent at work: its hooks (`_lay_out`, `_prompt`,
    `_settled`, `_finish`) lay a task out, let the run go to its end and grade it.
    """

    works = False
    """Whether the agent may write in its workspace (`Run.work`)."""

    @property
    def shell(self) -> bool:
        """Whether the agent's shell is offered (`Run.shell`): at work, in a sandbox."""
        return self.works and self.sandbox.name != HOST

    def __init__(
        self,
        spec: RunSpec,
        inputs: AnyInputs,
        transcripts_dir: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.spec = spec
        self.agent = agent_named(spec.coding_agent)
        self.adapter = self.agent.adapter()
        self.settings = spec.agent or AgentSettings()
        self.model = spec.model
        self.agent_model = self.adapter.model(spec.model)
        self.inputs = inputs
        self.skill_id = inputs.target.skill_id
        self.transcripts_dir = transcripts_dir
        self.executable = resolve(self.settings.executable(self.agent.name, self.agent.command))
        self.copies = Copies({}, CatalogCopy())
        self.skills: dict[Arm, SkillSet] = {}
        self.unoffered: dict[Arm, str] = {}
        self.copy_digests: dict[str, str] = {}
        self.pricing = spec.pricing
        self._parent_env = dict(os.environ if env is None else env)
        self._secrets = secret_values(self._parent_env)
        self._secret_bytes = tuple(secret.encode() for secret in self._secrets)
        self.sandbox = sandbox_named(self.settings.sandbox, self.settings.image)
        self.canary_failure: str | None = None
        """Why the cell's canary failed (None: it passed, or did not run): every trial of
        the cell is then this infrastructure error."""
        self._stack = ExitStack()

    async def __aenter__(self) -> Self:
        from activation.trials.listing.menu import variant_listings

        if self.sandbox.name != HOST:
            targets(self.api_urls())  # an address no sandbox can route to: before any run
        self.copies = self._stack.enter_context(
            paired_copies(
                self.inputs.target,
                self.inputs.baseline,
                self.inputs.candidate,
                self.inputs.catalog,
            )
        )
        try:
            sets = skill_sets(self.inputs, self.copies, marked=self.adapter.marks_copies,
                              nested=self.agent.nested_skills)  # fmt: skip
            listings = variant_listings(
                self.inputs, self.model, distractors=False, agent=self.agent.name
            )
            for variant, skills in sets.items():
                self.skills[variant] = skills
                problem = self.adapter.check(skills, listings[variant])
                if problem is not None:
                    self.unoffered[variant] = problem
                record = document_json(skills_record(skills))
                self.transcripts_dir.mkdir(parents=True, exist_ok=True)
                (self.transcripts_dir / skills_file_name(variant)).write_bytes(record)
        except BaseException:
            self._stack.close()
            raise
        catalog = self.copies.catalog
        installed = [*catalog.plugins, *([catalog.user_skills] if catalog.user_skills else [])]
        also = "".join(tree_digest(folder) for folder in installed)
        self.copy_digests = {
            variant: tree_digest(copy) + also for variant, copy in self.copies.sets.items()
        }
        try:
            self.canary_failure = await self._canary()
        except BaseException:
            self._stack.close()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._stack.close()

    def remote(self) -> Callable[..., AgentBackend]:
        """How another machine builds this backend (`build(transcripts_dir, env=...)`: a
        Ray node, trials/executor_ray.py): from the spec and inputs, never from this
        process's environment, whose keys stay here."""
        return partial(type(self), self.spec, self.inputs)

    async def run_round(self, round: Round) -> None:
        """Each trial, one by one under the run's limit; none when the cell's canary failed
        (each is then that infrastructure error, never run, never retried)."""
        if self.canary_failure is not None:
            for key in round.keys:
                round.deliver(key.failed(self.canary_failure, kind=ErrorClass.INFRASTRUCTURE))
            return
        await round.each(partial(self.run, throttled=round.slots.throttled))

    async def _canary(self) -> str | None:
        """The cell's canary (canary.py) in its sandbox, before any trial: why it failed,
        None when it passed or could not run (the host, `--no-canary`: said once)."""
        if not self.settings.canary:
            say_once(SKIPPED)
            return None
        if self.sandbox.name == HOST:
            say_once(HOST_UNCHECKED)
            return None
        base = Path(tempfile.mkdtemp(prefix="activation-canary-"))
        dirs = RunDirs(base / "work", base / "home", base / "tmp")
        env = {**allowlisted(self._parent_env), **fresh_dirs(dirs.home, dirs.tmp)}
        try:
            found = await run_probe(self.sandbox, self._view(dirs), self.api_urls(), base,
                                    self._private_files(), env)  # fmt: skip
        except RUN_FAILURES as error:
            found = (f"the probe could not start: {type(error).__name__}: {error}",)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        if not found:
            urls = sorted(self.api_urls().items())
            key = repr((self.agent.name, self.executable, self.settings, self.agent_model,
                        self.sandbox.name, self.works, urls))  # fmt: skip
            if key not in AGENT_RUNS:
                AGENT_RUNS[key] = await self._agent_canary()
            found = tuple(filter(None, [AGENT_RUNS[key]]))
        if not found:
            return None
        return scrub(f"the {self.sandbox.name} canary failed: {'; '.join(found)}", self._secrets)

    async def _agent_canary(self) -> str | None:
        """One run of the agent, as the cell's trials run it, asked to read a file that
        holds a fresh nonce (canary.py's `ask`): what it did instead, None when a tool
        call's result held the nonce. A run that could not start (its sandbox, its
        container) is an infrastructure error, run again as a trial's is, at most
        INFRASTRUCTURE_RETRIES times."""
        problem, started = await self._canary_run()
        for _ in range(INFRASTRUCTURE_RETRIES):
            if started:
                break
            problem, started = await self._canary_run()
        return problem

    async def _canary_run(self) -> tuple[str | None, bool]:
        """One agent canary run: what it did instead of returning the nonce (None: it
        did), and whether it started at all."""
        nonce = secrets.token_hex(16)
        skills = next(iter(self.skills.values()))
        base = Path(tempfile.mkdtemp(prefix="activation-canary-"))
        dirs = RunDirs(base / "work", base / "home", base / "tmp")
        try:
            async with AsyncExitStack() as stack:
                confined = await self._confine(stack, dirs, base, 1)
                for folder in (dirs.work, dirs.home, dirs.tmp):
                    folder.mkdir(parents=True, exist_ok=True)
                path = dirs.work / NONCE_FILE
                path.write_text(nonce, encoding="utf-8")
                run = Run(self.settings, self.agent_model, self.executable, ask(path), dirs,
                          skills, work=self.works, shell=self.shell)  # fmt: skip
                launch = confined.wrap(self.adapter.prepare(run, self._parent_env))
                reader = self.adapter.reader(skills, lambda _fired: False, lambda: None)
                with (base / "canary.jsonl").open("wb") as out:
                    state = await self._drive(launch, base, dirs.work, reader, out)
                ended = None if state.stopped_early or state.timed_out else state.returncode
                stderr = scrub(state.stderr.decode("utf-8", "replace"), self._secrets)
                unstarted = confined.never_started(ended, stderr)
                if unstarted is not None:
                    return unstarted, False
                return agent_problem(reader.reading(ended), nonce, path, stderr), True
        except (InfrastructureFailure, *RUN_FAILURES) as error:
            return f"the agent's canary run could not start: {type(error).__name__}: {error}", False
        finally:
            shutil.rmtree(base, ignore_errors=True)

    def _private_files(self) -> tuple[Path, ...]:
        """Files of the user's no sandboxed run may read: the measured SKILL.md in the
        repository and the first file directly in the home (a dotfile such as .profile)."""
        files = [self.inputs.target.repo / self.inputs.target.skill_path]
        home = self._parent_env.get("HOME")
        if home:
            with suppress(OSError):
                files += sorted(path for path in Path(home).iterdir() if path.is_file())[:1]
        return tuple(path for path in files if path.is_file())

    async def run(self, key: TrialKey, throttled: Callable[[], None] = lambda: None) -> Trial:
        """Run one trial in its own temp dirs; they are removed on every way out."""
        unoffered = self.unoffered.get(key.variant)
        if unoffered is not None:
            never = f"the skill was never offered: {unoffered}"
            return key.failed(never, kind=ErrorClass.AGENT_SETUP)
        transcript = transcript_path(self.transcripts_dir, key)
        base: Path | None = None
        try:
            transcript.parent.mkdir(parents=True, exist_ok=True)
            base = Path(tempfile.mkdtemp(prefix="activation-run-"))
            dirs = RunDirs(base / "work", base / "home", base / "tmp")
            async with AsyncExitStack() as stack:
                confined = await self._confine(stack, dirs, base, 1 + len(self._turns(key)))
                return await self._run_in(key, base, dirs, transcript, throttled, confined)
        except RUN_FAILURES as error:
            reason = f"could not run {self.agent.command}: {type(error).__name__}: {error}"
            return key.failed(scrub(reason, self._secrets), transcript=str(transcript),
                              kind=run_failure_class(error))  # fmt: skip
        finally:
            if base is not None:
                shutil.rmtree(base, ignore_errors=True)

    async def _confine(
        self, stack: AsyncExitStack, dirs: RunDirs, base: Path, prompts: int
    ) -> Confined:
        """The run's sandbox, entered on `stack`, its request budget a run's for each of
        the trial's `prompts`; one that cannot start (its folders, the proxy's sockets) is
        an InfrastructureFailure: retried, never the agent's fault."""
        budget = request_budget(self.settings.max_turns) * prompts
        confining = self.sandbox.confined(self._view(dirs), self.api_urls(), budget, base)
        try:
            return await stack.enter_async_context(confining)
        except RUN_FAILURES as error:
            reason = (
                f"the {self.sandbox.name} sandbox did not start: {type(error).__name__}: {error}"
            )
            raise InfrastructureFailure(scrub(reason, self._secrets)) from error

    def _view(self, dirs: RunDirs) -> View:
        """What a run in `dirs` may see in a sandbox: its folders, and the skill copies."""
        copies = [*self.copies.sets.values(), *self.copies.catalog.plugins]
        if self.copies.catalog.user_skills is not None:
            copies.append(self.copies.catalog.user_skills)
        shared = (Path(os.path.commonpath(copies)),) if copies else ()
        return View(dirs.work, (dirs.work, dirs.home, dirs.tmp), shared)

    def api_urls(self) -> dict[str, str]:
        """The base URL of each of the agent's providers that has a key here (variable ->
        URL): where a sandboxed run's requests may go."""
        urls = {}
        for provider in map(provider_named, self.agent.providers):
            keyed = any(self._parent_env.get(name) for name in provider.key_variables)
            url = self._parent_env.get(provider.url_variable or "") or provider.default_url
            if keyed and provider.url_variable and url:
                urls[provider.url_variable] = url
        return urls

    async def _run_in(
        self,
        key: TrialKey,
        base: Path,
        dirs: RunDirs,
        transcript: Path,
        throttled: Callable[[], None],
        confined: Confined,
    ) -> Trial:
        """The trial's run: its first prompt, then each of the case's `turns` in the same
        folders, sandbox and session (the adapter's `resume`), each once the previous turn
        ended; the first turn that errs is the trial's error."""
        for folder in (dirs.work, dirs.home, dirs.tmp):
            folder.mkdir(parents=True)
        skills = self.skills[key.variant]
        await self._lay_out(key, dirs)
        prompts = (self._prompt(key, skills), *self._turns(key))
        run = Run(self.settings, self.agent_model, self.executable, prompts[0], dirs, skills,
                  work=self.works, shell=self.shell, continued=len(prompts) > 1,
                  mcp_servers=self._mcp_servers(key, dirs, confined.node))  # fmt: skip
        launch = self.adapter.prepare(run, self._parent_env)
        self._laid_out(key, dirs)
        turns: list[Turn] = []
        with transcript.open("wb") as out:
            for number, prompt in enumerate(prompts, 1):
                if number > 1:
                    session = turns[-1].session
                    if session is None:
                        unnamed = NO_SESSION.format(agent=self.agent.title)
                        turns.append(Turn(key.failed(unnamed, kind=ErrorClass.AGENT_SETUP)))
                        break
                    next_run = replace(run, prompt=prompt)
                    launch = self.adapter.resume(next_run, session, self._parent_env)
                turn = await self._turn(key, base, dirs, confined.wrap(launch), out, throttled,
                                        confined, transcript)  # fmt: skip
                turns.append(turn)
                if turn.trial.is_error:
                    break
        trial = joined(key, self.skill_id, turns, str(transcript), self.adapter.session_cost)
        return await self._finish(key, trial, dirs)

    async def _turn(
        self,
        key: TrialKey,
        base: Path,
        dirs: RunDirs,
        launch: Launch,
        out: BinaryIO,
        throttled: Callable[[], None],
        confined: Confined,
        transcript: Path,
    ) -> Turn:
        """One prompt's run to its end (or its verdict), its stream read and written to
        `out`."""
        reader = self.adapter.reader(self.skills[key.variant], self._settled(key), throttled)
        state = await self._drive(launch, base, dirs.work, reader, out)
        ended_by_us = state.stopped_early or state.timed_out
        stderr = scrub(state.stderr.decode("utf-8", "replace"), self._secrets)
        unstarted = confined.never_started(None if ended_by_us else state.returncode, stderr)
        if unstarted is not None:
            return Turn(key.failed(unstarted, transcript=str(transcript),
                                   kind=ErrorClass.INFRASTRUCTURE))  # fmt: skip
        trial = self._trial(key, reader, state.returncode, state, transcript)
        if confined.over_budget is not None:
            trial = key.failed(confined.over_budget, trial.usage, str(transcript),
                               kind=ErrorClass.BUDGET)  # fmt: skip
        reading = reader.reading()
        roots = (str(dirs.work), str(dirs.work.resolve()))
        did = in_workspace(reading.trajectory, roots, trial.usage.cost_usd is not None)
        return Turn(replace(trial, trajectory=did), reading.session)

    async def _drive(
        self, launch: Launch, base: Path, cwd: Path, reader: Detector, out: BinaryIO
    ) -> _RunState:
        """Start the run `launch` in `cwd` and read its stream into `reader` and the
        transcript `out` until the verdict, its end or its time budget; its group stopped."""
        state = _RunState()
        with ExitStack() as files:
            stdin: int | BinaryIO = subprocess.DEVNULL
            if launch.stdin is not None:
                prompt = base / PROMPT_FILE
                prompt.write_text(launch.stdin, encoding="utf-8")
                stdin = files.enter_context(prompt.open("rb"))
            process = await start_group(launch.argv, cwd, launch.env, stdin, subprocess.PIPE)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._drain_stderr, process, state)
                with anyio.move_on_after(self.settings.timeout) as deadline:
                    await self._follow(process, reader, out, state)
                state.timed_out = deadline.cancelled_caught
                # Also after a natural exit: a straggling child could hold the pipes.
                with anyio.CancelScope(shield=True):
                    await stop_group(process)
                with anyio.move_on_after(_DRAIN_GRACE):
                    await state.stderr_closed.wait()
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await stop_group(process)
                await process.aclose()
        state.returncode = process.returncode
        return state

    async def _lay_out(self, key: TrialKey, dirs: RunDirs) -> None:
        """Put what the trial starts from in its folders, before the adapter's own layout."""
        return None

    def _laid_out(self, key: TrialKey, dirs: RunDirs) -> None:
        """The adapter has laid the run out; it has not started."""
        return None

    def _prompt(self, key: TrialKey, skills: SkillSet) -> str:
        return key.case.prompt

    def _mcp_servers(self, key: TrialKey, dirs: RunDirs, node: str) -> tuple[McpLaunch, ...]:
        """The MCP servers the run's agent gets, laid out in `dirs` (Stage C's cases), a
        shipped one run by the sandbox's `node`."""
        return ()

    def _turns(self, key: TrialKey) -> tuple[str, ...]:
        """The prompts sent after the first, in the same session (a case's `turns`)."""
        return ()

    def _settled(self, key: TrialKey) -> Settled:
        """When a run can stop: as soon as the skills that fired decide the case."""
        return lambda fired: key.case.settled(fired, self.skill_id)

    async def _finish(self, key: TrialKey, trial: Trial, dirs: RunDirs) -> Trial:
        """The trial, once its run is over and before its folders go."""
        return trial

    async def _follow(
        self, process: Process, reader: Detector, out: BinaryIO, state: _RunState
    ) -> None:
        """Feed stdout to the detector and the transcript until the verdict or the end.

        The result event is the last one a run writes, so reading stops there and only the
        exit code is awaited (a child still holding stdout open cannot stall the trial).
        """
        assert process.stdout is not None
        async with aclosing(_lines(process.stdout)) as lines:
            async for line in lines:
                out.write(scrub_bytes(line, self._secret_bytes))
                reader.feed(line)
                if reader.decided:
                    state.stopped_early = True
                    return
                if reader.saw_result:
                    break
        await process.wait()

    @staticmethod
    async def _drain_stderr(process: Process, state: _RunState) -> None:
        """Keep the tail of stderr; reading it also keeps the CLI from blocking on a full pipe."""
        assert process.stderr is not None
        try:
            async for chunk in process.stderr:
                state.stderr += chunk
                if len(state.stderr) > STDERR_LIMIT:
                    del state.stderr[: len(state.stderr) - STDERR_LIMIT]
        finally:
            state.stderr_closed.set()

    def _usage(self, reading: Reading) -> Usage:
        """The CLI's own cost when it reported the whole run's; else (a run stopped early,
        an agent that reports none) its tokens at the list price of the model that
        answered, unknown when the tokens are."""
        tokens = Usage(
            requests=max(reading.model_calls, 1),  # a run that got no answer still asked
            input_tokens=reading.input_tokens,
            output_tokens=reading.output_tokens,
            cache_write_tokens=reading.cache_write_tokens,
            cache_read_tokens=reading.cache_read_tokens,
            throttled=reading.throttled,
        )
        cost = reading.cost_usd
        if cost is None and reading.tokens_known:
            prices = self.pricing.for_model(self.model or reading.model) if self.pricing else None
            cost = None if prices is None else prices.cost(tokens)
        return replace(tokens, cost_usd=cost)

    def cache_key(self, key: TrialKey) -> str:
        """The trial's cache key: the CLI's version, the variant's copy of the set and the
        catalog's (by content, nonces included: they follow from it), what the run asks as
        the adapter says (prompt, model, turns, tools) and the trial."""
        return request_digest(self.agent.name, self._asked(key), key)

    def _asked(self, key: TrialKey) -> dict[str, object]:
        """What a trial's run asks, as its cache key holds it: a sandboxed run is another
        run than one on the host (what the agent could read differs), so never shares a key
        with it; a case's later prompts are in it too (a key of one prompt reads as before
        them)."""
        skills = self.skills[key.variant]
        prompt = self._prompt(key, skills)
        asked = Asked(self.settings, self.agent_model, prompt, skills, work=self.works,
                      shell=self.shell)  # fmt: skip
        sandboxed = {} if self.sandbox.name == HOST else {"sandbox": self.sandbox.name}
        turns = self._turns(key)
        return {
            "version": self.settings.version,
            "plugin": self.copy_digests[key.variant],
            **sandboxed,
            **self.adapter.request(asked),
            **({"turns": list(turns)} if turns else {}),
        }

    def _trial(
        self,
        key: TrialKey,
        reader: Detector,
        returncode: int | None,
        state: _RunState,
        transcript: Path,
    ) -> Trial:
        stderr = scrub(state.stderr.decode("utf-8", "replace"), self._secrets).strip()
        if reader.auth_status is not None:
            raise AuthError(
                f"the API refused the credentials (HTTP {reader.auth_status}) in the "
                f"{self.agent.title} run; check {self.adapter.credentials}"
            )
        ended_by_us = state.stopped_early or state.timed_out
        reading = reader.reading(None if ended_by_us else returncode)
        usage = self._usage(reading)
        where = str(transcript)
        if state.timed_out and not reader.decided:
            reason = f"{TIME_BUDGET}: timed out after {self.settings.timeout:g}s"
            reason += f" ({self._progress(reading)})"
            return key.failed(reason, usage, where, kind=ErrorClass.BUDGET)
        if reading.outcome == "error":
            reason = reading.reason
            if not reading.saw_result and stderr:
                reason += f"; stderr: {_tail(stderr)}"
            if not state.stopped_early and returncode not in (None, 0):
                reason += f" (exit code {returncode})"
            kind = ended_class(reading.error_class, None if ended_by_us else returncode)
            return key.failed(scrub(reason, self._secrets), usage, where, kind)
        evidence = reading.reason
        if state.stopped_early:
            evidence += "; run stopped early at that point"
        return key.fired(reading.fired, self.skill_id, scrub(evidence, self._secrets), usage,
                         where)  # fmt: skip

    def _progress(self, reading: Reading) -> str:
        if not reading.saw_init:
            return f"no output from {self.agent.command} yet"
        return f"{reading.events} events read, no result yet"


def _tail(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _REASON_STDERR else "…" + flat[-_REASON_STDERR:]
