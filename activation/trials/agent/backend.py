"""Stage B's backend: one isolated, headless Claude Code run per trial.

Each trial starts the real `claude` CLI on the case prompt with the variant's plugin copy,
reads its stream-json output line by line as it arrives (every line goes to the detector and
to the trial's transcript file), and stops the whole process group the moment the verdict is
known. Every run gets a fresh empty working directory, a fresh HOME / CLAUDE_CONFIG_DIR /
TMPDIR and an environment built from an allowlist (see `env`). Cancellation (Ctrl-C,
SIGTERM) kills the process group and removes the run's folders on the way out.

The prompt goes after `--`, not right after `-p` as the shape in the design shows: the CLI's
argument parser reads a prompt that starts with `-` as an unknown option (measured on
2.1.332: `claude -p "--help me"` exits 1 with "unknown option"), while after `--` any text
is the prompt. It is still one argv item, and no shell is involved.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import ExitStack, aclosing, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import BinaryIO, Self

import anyio
from anyio.abc import ByteReceiveStream, Process

from activation import _config
from activation._errors import AuthError, InputError
from activation._models import AgentSettings, Inputs, RunSpec, Trial, TrialKey, Usage, VariantName
from activation.trials.agent.env import agent_env, scrub, scrub_bytes, secret_values
from activation.trials.agent.plugin_copy import CatalogCopy, Copies, paired_copies, tree_digest
from activation.trials.agent.stream import Reading, StreamReader
from activation.trials.backend import Round, request_digest

ALLOWED_TOOLS = "Read,Glob,Grep,Skill"
"""Enough for the agent to look around and load skills; nothing that writes or runs code."""

STDERR_LIMIT = 8192
"""Bytes of the CLI's stderr kept (the tail) for an error reason."""
_REASON_STDERR = 500
"""Characters of that tail quoted in an error reason."""
_VERSION_TIMEOUT = 30.0
_DRAIN_GRACE = 2.0
"""Seconds to wait for the last of stderr after the process is gone."""
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
RUN_FAILURES = (
    OSError,
    subprocess.SubprocessError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    UnicodeError,
)
"""What can go wrong with a run itself (starting the process, its pipes, the transcript
file, undecodable output): an error trial. Anything else is a bug, and surfaces as one."""


def build_argv(
    settings: AgentSettings,
    model: str | None,
    claude: str,
    prompt: str,
    plugin_dirs: Sequence[Path] = (),
) -> list[str]:
    """The exact command line of one run (no shell; the prompt is the last argv item)."""
    argv = [claude, "-p"]
    for plugin_dir in plugin_dirs:
        argv += ["--plugin-dir", str(plugin_dir)]
    argv += [
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        str(settings.max_turns),
        "--no-session-persistence",
        "--permission-mode",
        "dontAsk",
        "--allowedTools",
        ALLOWED_TOOLS,
    ]
    if model:
        argv += ["--model", model]
    return [*argv, "--", prompt]


def transcript_path(transcripts_dir: Path, key: TrialKey) -> Path:
    """`<dir>/<case>/<variant>-<index>.jsonl`, with the case id made safe as a folder name.

    An id that had to be changed gets a digest of the original, so two ids that read alike
    once made safe (`x/y`, `x_y`) never share, and corrupt, one transcript.
    """
    case = _SAFE_NAME.sub("_", key.case.id).strip(".") or "case"
    if case != key.case.id:
        case += "-" + hashlib.sha256(key.case.id.encode()).hexdigest()[:8]
    return transcripts_dir / case / f"{key.variant}-{key.index}.jsonl"


def resolve_claude(claude: str) -> str:
    """An absolute path to the executable (runs start in a temp dir, so `./claude` must not
    stay relative); unchanged when it cannot be found, so the run reports that."""
    found = shutil.which(claude)
    return str(Path(found).absolute()) if found else claude


def check_claude(claude: str) -> str:
    """Resolve the CLI and ask for its version before any run; InputError if unusable.

    `--version` runs with the same kind of isolated environment as a trial, so the check
    never touches the user's Claude Code configuration.
    """
    hint = (
        f"install it with `npm install -g {_config.CLAUDE_PACKAGE}` (or into a folder with "
        f"`npm install --prefix DIR {_config.CLAUDE_PACKAGE}`) and pass --claude PATH if it is "
        "not on PATH"
    )
    if shutil.which(claude) is None:
        raise InputError(f"cannot find the Claude Code CLI {claude!r}: {hint}")
    path = resolve_claude(claude)
    scratch = Path(tempfile.mkdtemp(prefix="activation-check-"))
    try:
        env = agent_env(os.environ, scratch, scratch / ".claude", scratch)
        completed = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=_VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=scratch,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(
            f"{path} --version did not answer within {_VERSION_TIMEOUT:g} s: {hint}"
        ) from None
    except OSError as error:
        raise InputError(f"cannot run {path}: {error.strerror}; {hint}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    version = completed.stdout.strip()
    if completed.returncode != 0 or not version:
        detail = scrub(completed.stderr.strip(), secret_values(os.environ))[:300]
        raise InputError(
            f"{path} --version failed (exit {completed.returncode}"
            f"{': ' + detail if detail else ''}): {hint}"
        )
    return version.splitlines()[0]


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


def _kill_group(process: Process) -> None:
    """SIGKILL the run's whole process group (the CLI and anything it started)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@dataclass
class _RunState:
    stderr: bytearray = field(default_factory=bytearray)
    stderr_closed: anyio.Event = field(default_factory=anyio.Event)
    stopped_early: bool = False
    timed_out: bool = False


class AgentBackend:
    """The Stage B backend: entered, it holds the two copies of the skill set (and the
    catalog's); each trial is one run. A plugin is loaded with `--plugin-dir`, a skills
    folder installed as the throwaway workspace's project skills (`.claude/skills`), the
    catalog's own skills as the throwaway home's.

    `env` is the environment credentials come from (default: this process's).
    """

    def __init__(
        self,
        spec: RunSpec,
        inputs: Inputs,
        transcripts_dir: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = spec.agent or AgentSettings()
        self.model = spec.model
        self.inputs = inputs
        self.skill_id = inputs.target.skill_id
        self.transcripts_dir = transcripts_dir
        self.claude = resolve_claude(self.settings.claude)
        self.copies = Copies({}, CatalogCopy())
        self.copy_digests: dict[str, str] = {}
        self.pricing = spec.pricing
        self._parent_env = dict(os.environ if env is None else env)
        self._secrets = secret_values(self._parent_env)
        self._secret_bytes = tuple(secret.encode() for secret in self._secrets)
        self._stack = ExitStack()

    async def __aenter__(self) -> Self:
        self.copies = self._stack.enter_context(
            paired_copies(
                self.inputs.target,
                self.inputs.baseline,
                self.inputs.candidate,
                self.inputs.catalog,
            )
        )
        catalog = self.copies.catalog
        installed = [*catalog.plugins, *([catalog.user_skills] if catalog.user_skills else [])]
        also = "".join(tree_digest(folder) for folder in installed)
        self.copy_digests = {
            variant: tree_digest(copy) + also for variant, copy in self.copies.sets.items()
        }
        return self

    def plugin_dirs(self, variant: VariantName) -> list[Path]:
        """The `--plugin-dir`s of a run: the variant's plugin (a skills folder is installed
        instead), then the catalog's plugins."""
        own = [self.copies.sets[variant]] if self.inputs.target.in_plugin else []
        return [*own, *self.copies.catalog.plugins]

    def install(self, variant: VariantName, work: Path, config_dir: Path) -> None:
        """Put the skills a run finds on disk into its throwaway folders."""
        if not self.inputs.target.in_plugin:
            shutil.copytree(self.copies.sets[variant], work / ".claude" / "skills")
        if self.copies.catalog.user_skills is not None:
            shutil.copytree(self.copies.catalog.user_skills, config_dir / "skills")

    async def __aexit__(self, *exc_info: object) -> None:
        self._stack.close()

    async def run_round(self, round: Round) -> None:
        await round.each(partial(self.run, throttled=round.slots.throttled))

    async def run(self, key: TrialKey, throttled: Callable[[], None] = lambda: None) -> Trial:
        """Run one trial in its own temp dirs; they are removed on every way out."""
        transcript = transcript_path(self.transcripts_dir, key)
        base: Path | None = None
        try:
            transcript.parent.mkdir(parents=True, exist_ok=True)
            base = Path(tempfile.mkdtemp(prefix="activation-run-"))
            return await self._run_in(key, base, transcript, throttled)
        except RUN_FAILURES as error:
            reason = scrub(f"could not run claude: {type(error).__name__}: {error}", self._secrets)
            return key.failed(reason, transcript=str(transcript))
        finally:
            if base is not None:
                shutil.rmtree(base, ignore_errors=True)

    async def _run_in(
        self, key: TrialKey, base: Path, transcript: Path, throttled: Callable[[], None]
    ) -> Trial:
        work, home, tmp = base / "work", base / "home", base / "tmp"
        config_dir = home / ".claude"
        for folder in (work, config_dir, tmp):
            folder.mkdir(parents=True)
        self.install(key.variant, work, config_dir)
        env = agent_env(self._parent_env, home, config_dir, tmp)
        argv = build_argv(
            self.settings, self.model, self.claude, key.case.prompt, self.plugin_dirs(key.variant)
        )
        case = key.case
        reader = StreamReader(
            self.skill_id,
            on_throttle=throttled,
            settled=lambda fired: case.settled(fired, self.skill_id),
        )
        state = _RunState()
        process = await anyio.open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=work,
            env=env,
            start_new_session=True,
        )
        try:
            with transcript.open("wb") as out:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._drain_stderr, process, state)
                    with anyio.move_on_after(self.settings.timeout) as deadline:
                        await self._follow(process, reader, out, state)
                    state.timed_out = deadline.cancelled_caught
                    # Also after a natural exit: a straggling child could hold the pipes.
                    _kill_group(process)
                    await process.wait()
                    with anyio.move_on_after(_DRAIN_GRACE):
                        await state.stderr_closed.wait()
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                _kill_group(process)
                await process.wait()
                await process.aclose()
        return self._trial(key, reader, process.returncode, state, transcript)

    async def _follow(
        self, process: Process, reader: StreamReader, out: BinaryIO, state: _RunState
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
        """The CLI's own `total_cost_usd` when the run reached its result event; else (a run
        stopped early) its tokens at the list price of the model that answered."""
        tokens = Usage(
            requests=max(reading.model_calls, 1),  # a run that got no answer still asked
            input_tokens=reading.input_tokens,
            output_tokens=reading.output_tokens,
            cache_write_tokens=reading.cache_write_tokens,
            cache_read_tokens=reading.cache_read_tokens,
            throttled=reading.throttled,
        )
        cost = reading.cost_usd if reading.saw_result else None
        if cost is None:
            prices = self.pricing.for_model(self.model or reading.model) if self.pricing else None
            cost = None if prices is None else prices.cost(tokens)
        return replace(tokens, cost_usd=cost)

    def cache_key(self, key: TrialKey) -> str:
        """The trial's cache key: the CLI's version, the variant's copy of the set and the
        catalog's (by content), the command line as `run` builds it (prompt, model, max
        turns, tools) and the trial."""
        plugins = [Path(f"plugin-{i}") for i, _ in enumerate(self.plugin_dirs(key.variant))]
        argv = build_argv(self.settings, self.model, "claude", key.case.prompt, plugins)
        run = {
            "version": self.settings.version,
            "plugin": self.copy_digests[key.variant],
            "argv": argv,
        }
        return request_digest("claude-code", run, key)

    def _trial(
        self,
        key: TrialKey,
        reader: StreamReader,
        returncode: int | None,
        state: _RunState,
        transcript: Path,
    ) -> Trial:
        stderr = scrub(state.stderr.decode("utf-8", "replace"), self._secrets).strip()
        if reader.auth_status is not None:
            raise AuthError(
                f"the API refused the credentials (HTTP {reader.auth_status}) in the Claude "
                "Code run; check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN"
            )
        ended_by_us = state.stopped_early or state.timed_out
        reading = reader.reading(None if ended_by_us else returncode)
        usage = self._usage(reading)
        where = str(transcript)
        if state.timed_out and not reader.decided:
            reason = f"timed out after {self.settings.timeout:g}s"
            reason += f" ({_progress(reading)})"
            return key.failed(reason, usage, where)
        if reading.outcome == "error":
            reason = reading.reason
            if not reading.saw_result and stderr:
                reason += f"; stderr: {_tail(stderr)}"
            if not state.stopped_early and returncode not in (None, 0):
                reason += f" (exit code {returncode})"
            return key.failed(scrub(reason, self._secrets), usage, where)
        evidence = reading.reason
        if state.stopped_early:
            evidence += "; run stopped early at that point"
        return key.fired(reading.fired, self.skill_id, scrub(evidence, self._secrets), usage,
                         where)  # fmt: skip


def _progress(reading: Reading) -> str:
    if not reading.saw_init:
        return "no output from claude yet"
    return f"{reading.events} events read, no result yet"


def _tail(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _REASON_STDERR else "…" + flat[-_REASON_STDERR:]
