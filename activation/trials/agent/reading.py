"""What one agent run shows about the target skill (`Reading`), what the agent did in it
(its `Trajectory`: tool calls, commands, files read and written, turns, the figures its
stream gives), and the line handling every agent's event-stream reader shares (`JsonLines`).

Every agent CLI Stage B runs writes one JSON object per line, so the readers agree on what a
line is: a blank line, or one that does not even start like a JSON object, is noise (a
warning some runtime printed to stdout), skipped and counted, because it cannot have been an
event; a line that starts with `{` but does not parse is a corrupt *event*, which may have
been the very one that decides the trial, so the reading is an error unless a successful
load was already seen (positive evidence stays valid). Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import orjson

from activation._models import ErrorClass, ToolCall, Trajectory

if TYPE_CHECKING:
    from activation.trials.agent.installed import SkillCopy, SkillSet

Outcome = Literal["activated", "not_activated", "error"]

MAX_EVIDENCE = 40
"""Evidence lines kept per reading: enough to explain any verdict, bounded for reports."""

Settled = Callable[[tuple[str, ...]], bool]
"""Whether the skills fired so far, in order, already decide the case."""

SNIPPET = 200
"""Characters of a tool result or result text kept in one evidence line."""


@dataclass(frozen=True)
class Reading:
    """What one agent run shows about the target skill.

    `outcome` is the verdict; `reason` is one line a person can act on; `evidence` lists the
    events that led there (line numbers are 1-based positions in the stream).
    """

    outcome: Outcome
    reason: str
    evidence: tuple[str, ...]
    cost_usd: float | None
    """The CLI's own figure for the whole run, when it gave one (None: price the tokens)."""
    num_turns: int | None
    input_tokens: int
    output_tokens: int
    saw_init: bool
    saw_result: bool
    events: int
    skipped_lines: int
    auth_status: int | None = None
    model_calls: int = 0
    """Distinct model responses in the stream (the CLI repeats one per content block)."""
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    model: str | None = None
    """The model that answered (the last response's), for pricing a run stopped early."""
    throttled: int = 0
    """API retries after a 429 or 529 (too many requests, overloaded)."""
    fired: tuple[str, ...] = ()
    """Every skill a successful load loaded, first first (the target by its full id)."""
    tokens_known: bool = True
    """False when the stream stopped before the CLI said what the run used (Codex reports
    its tokens only when a turn ends): the tokens are then unknown, not zero."""
    trajectory: Trajectory = field(default_factory=Trajectory)
    """What the agent did: its tool calls, commands, files read and written, turns."""
    error_class: ErrorClass | None = None
    """Whose the error is, as the stream showed it (None: not an error): the model's when
    its API failed the run, else the agent's setup (refused credentials, a refused load, no
    run of this agent, output it cannot read)."""
    returned: tuple[tuple[str, str], ...] = ()
    """Each tool call's successful result as the stream gave it, in order: the tool's name
    and the result's text (the canary looks for its nonce there, never in the prose)."""
    reads_shown: bool = True
    """Whether the stream shows what a file tool's read returned (Gemini CLI's does not:
    only that the read succeeded, `trajectory.files_read`)."""

    session: str | None = None
    """The id of the agent's session, as its stream gave it: what `Adapter.resume` sends
    the next prompt of a case's `turns` to (None: the stream gave none)."""

    @property
    def activated(self) -> bool | None:
        """The trial's vote: None for an error, which is never a vote."""
        if self.outcome == "error":
            return None
        return self.outcome == "activated"

    def to_dict(self) -> dict[str, object]:
        return {
            "reading": self.outcome,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "cost_usd": self.cost_usd,
            "num_turns": self.num_turns,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "events": self.events,
            "skipped_lines": self.skipped_lines,
            "auth_status": self.auth_status,
            "model_calls": self.model_calls,
            "fired": list(self.fired),
        }


def decided(
    activation: str | None,
    auth_status: int | None,
    corrupt: str | None,
    fired: tuple[str, ...],
    settles: bool,
    target: str,
) -> tuple[Outcome, str] | None:
    """What decides a run the same way for every agent, in this order: a load of the
    target, refused credentials, output that cannot be read, another skill that settles
    the case (`settles`); None when the agent's own ending has to say."""
    if activation is not None:
        return "activated", activation
    if auth_status is not None:
        return "error", f"the API refused the credentials (HTTP {auth_status})"
    if corrupt is not None:
        return "error", corrupt
    if fired and settles:
        return "not_activated", (
            f"{', '.join(fired)} fired, which settles the case, and not {target!r}"
        )
    return None


def short(text: object, limit: int = SNIPPET) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class JsonLines:
    """The line handling of an event-stream reader: `feed` parses each line and hands every
    JSON object to `event`; the evidence notes are numbered by line and bounded."""

    def __init__(self) -> None:
        self._line = 0
        self._events = 0
        self._skipped = 0
        self._corrupt: str | None = None
        self._evidence: list[str] = []
        self._dropped_evidence = 0

    def event(self, event: dict[str, Any]) -> None:
        """One parsed event (a subclass reads it)."""
        raise NotImplementedError

    def feed(self, line: str | bytes) -> None:
        """Take one line of stdout (with or without its newline)."""
        self._line += 1
        stripped = line.strip()
        if not stripped:
            return
        if stripped[:1] not in (b"{", "{"):
            self._skipped += 1
            return
        try:
            event = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            if self._corrupt is None:
                text = (
                    stripped.decode("utf-8", "replace") if isinstance(stripped, bytes) else stripped
                )
                self._corrupt = f"line {self._line} is not valid JSON: {short(text, 80)}"
            return
        if not isinstance(event, dict):
            self._skipped += 1
            return
        self._events += 1
        self.event(event)

    def _note(self, text: str) -> None:
        if len(self._evidence) < MAX_EVIDENCE:
            self._evidence.append(f"line {self._line}: {text}")
        else:
            self._dropped_evidence += 1

    def _evidence_lines(self) -> tuple[str, ...]:
        """The notes, then how many were left out and how many lines were noise."""
        evidence = list(self._evidence)
        if self._dropped_evidence:
            evidence.append(f"(+{self._dropped_evidence} more events)")
        if self._skipped:
            evidence.append(f"{self._skipped} non-JSON line(s) skipped")
        return tuple(evidence)


def mapping(value: object) -> dict[str, Any]:
    """An event's object field, or an empty one when it is missing or of another type."""
    return value if isinstance(value, dict) else {}


_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_FILE_READERS = frozenset({"cat", "head", "tail", "less", "more", "nl", "bat", "sed", "awk"})
"""Programs whose file arguments a command reads (`sed` and `awk` after their script)."""
_SCRIPTED = frozenset({"sed", "awk"})
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ";;"})
_CWD = ("$PWD/", "${PWD}/", "./")


def shell_reads(command: str) -> tuple[str, ...]:
    """The files a shell command reads with a file reader (`cat`, `sed -n '1,80p'`, `head`,
    ...), in order; a shell wrapper (`/bin/bash -lc '...'`) is looked through. What the
    agent read by hand, for an agent whose only reading tool is its shell (Codex)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return ()
    if len(words) == 3 and PurePosixPath(words[0]).name in _SHELLS and words[1].endswith("c"):
        return shell_reads(words[2])
    reads: list[str] = []
    segment: list[str] = []
    for word in [*words, ";"]:
        if word not in _OPERATORS:
            segment.append(word)
            continue
        if segment and PurePosixPath(segment[0]).name in _FILE_READERS:
            operands = [arg for arg in segment[1:] if not arg.startswith("-")]
            if PurePosixPath(segment[0]).name in _SCRIPTED:
                operands = operands[1:]
            reads += [_from_cwd(arg) for arg in operands if _pathlike(arg)]
        segment = []
    return tuple(reads)


def _pathlike(word: str) -> bool:
    """A command's operand that names a file (not a count such as `head -n 20`'s)."""
    return "/" in word or "." in word.strip(".")


def _from_cwd(path: str) -> str:
    """A path as written relative to the working folder, without its `$PWD/` or `./`."""
    for prefix in _CWD:
        if path.startswith(prefix):
            return path.removeprefix(prefix)
    return path


def in_workspace(trajectory: Trajectory, roots: Sequence[str], cost_known: bool) -> Trajectory:
    """The trajectory as a trial keeps it: a file under the run's workspace (any of its
    `roots`, the folder as given and as resolved) by its path relative to it, as graders
    name files, and the cost among the figures when the run's cost is known."""

    def relative(path: str) -> str:
        for root in roots:
            if path.startswith(root.rstrip("/") + "/"):
                return path[len(root.rstrip("/")) + 1 :]
        return path

    return replace(
        trajectory,
        files_read=tuple(map(relative, trajectory.files_read)),
        files_written=tuple(map(relative, trajectory.files_written)),
        measured=(trajectory.measured | {"cost_usd"}) if cost_known else trajectory.measured,
    )


AUTH_STATUSES = (401, 403)
"""HTTP statuses of refused credentials: the whole run is aborted at the first one."""

Handler = Callable[[Any, dict[str, Any]], None]


class AgentReader(JsonLines):
    """What every agent's event-stream reader keeps, so an agent's reader is only its event
    mapping (`EVENTS`: event type -> handler) and its ending: the target and the `settled`
    rule, the skills fired, the load and a refused load, refused credentials, retries, the
    model, the usage, and the verdict's prologue (not a run of this agent, then `decided`,
    then a refused load) and epilogue (a non-zero exit code, else no load).

    A subclass sets `EVENTS`, `AGENT` (its executable's name, for "<agent> exited with code
    N"), `NOT_A_RUN` (why a stream without its first event is no run of it), `NO_LOAD` (the
    load it looked for, formatted with `target`), `START` and `LAST` (the events that open
    and close a run; None: any event, the exit code), `MEASURED` (the figures its stream
    gives), `SESSION` (the key naming its session), and overrides `_ending` only when
    something else ends its runs in an error.
    Its handlers also record the trajectory: `_called` for each tool call, `_ran` for a
    shell command, `_touched` for a file a file tool read or wrote."""

    EVENTS: ClassVar[Mapping[str, Handler]] = {}
    AGENT: ClassVar[str] = ""
    NOT_A_RUN: ClassVar[str] = ""
    NO_LOAD: ClassVar[str] = "a successful skill call for {target!r}"
    START: ClassVar[str | None] = None
    LAST: ClassVar[str | None] = None
    """The event that closes a run (None: the exit code says it finished)."""
    STATUS: ClassVar[re.Pattern[str]] = re.compile(r"\bstatus:? (\d{3})\b")
    """Where a message names an HTTP status."""
    SESSION: ClassVar[str | None] = None
    """The key of its events that holds the session's id (the first event with it says it);
    None: its stream names no session."""
    REFUSAL_DECIDES: ClassVar[bool] = False
    """Whether a refused load stops the run at once (else the run goes on to its end)."""
    MEASURED: ClassVar[frozenset[str]] = frozenset({"tool_calls", "seconds"})
    """The FIGURES its stream gives (`_models.FIGURES`): the tokens by kind it reports
    (unknown in a run stopped before it said them), `turns` when it shows each model
    turn, and always the tool calls and the wall time. The cost is the run's when the CLI
    says it or its tokens can be priced (the backend adds it)."""
    READS_SHOWN: ClassVar[bool] = True
    """Whether its stream shows what a file tool's read returned (`Reading.reads_shown`)."""
    TOKENS: ClassVar[frozenset[str]] = frozenset(
        {"input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"}
    )

    def __init__(
        self,
        target: str,
        settled: Settled | None = None,
        on_throttle: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__()
        self.target_id = target
        self._settled = settled or (lambda fired: target in fired)
        self._on_throttle = on_throttle
        self._fired: list[str] = []
        self._activation: str | None = None
        self._refused: str | None = None
        self._failure: str | None = None
        self._auth_status: int | None = None
        self._throttled = 0
        self._started = False
        self._model: str | None = None
        self._model_calls = 0
        self._tokens = [0, 0, 0, 0]
        """Input (not cached), output, cache write, cache read."""
        self._cost: float | None = None
        self._tokens_known = True
        self._tool_calls: list[ToolCall] = []
        self._commands: list[str] = []
        self._files_read: list[str] = []
        self._files_written: list[str] = []
        self._returned_texts: list[tuple[str, str]] = []

        self._session: str | None = None

    @property
    def decided(self) -> bool:
        return (
            self._settled(tuple(self._fired))
            or self._auth_status is not None
            or (self.REFUSAL_DECIDES and self._refused is not None)
        )

    @property
    def saw_result(self) -> bool:
        return False

    @property
    def auth_status(self) -> int | None:
        return self._auth_status

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind is not None and kind == self.START:
            self._started = True
        if self._session is None and self.SESSION is not None:
            session = event.get(self.SESSION)
            self._session = session if isinstance(session, str) and session else None
        handler = self.EVENTS.get(str(kind))
        if handler is not None:
            handler(self, event)

    # -- what the handlers record ---------------------------------------------------------

    def _fire(self, skill: str, activation: str | None = None) -> None:
        """`skill` was loaded; `activation` says how, when it is the target."""
        self._fired.append(skill)
        if activation is not None and self._activation is None:
            self._activation = activation

    def _refuse(self, reason: str) -> None:
        """The agent would not load the target: an error, never a vote."""
        if self._refused is None:
            self._refused = reason

    def _fail(self, reason: str) -> None:
        """The run failed (the API, the turn): the first reason is kept."""
        if self._failure is None:
            self._failure = reason

    def _auth(self, status: object) -> None:
        """Remember a refusal of the credentials."""
        if status in AUTH_STATUSES and self._auth_status is None:
            self._auth_status = int(str(status))

    def _throttle(self) -> None:
        self._throttled += 1
        self._on_throttle()

    def _status(self, message: str) -> int | None:
        """The HTTP status a message names (`STATUS`); a refused key is remembered."""
        found = self.STATUS.search(message)
        groups = [group for group in found.groups() if group] if found else []
        status = int(groups[0]) if groups else None
        self._auth(status)
        return status

    def _api_error(self, status: object, message: object, name: object) -> None:
        """An error event of the API: noted, and the run's failure."""
        self._auth(status)
        text = short(message or name or "no message", 300)
        prefix = f"API error {status}" if status is not None else str(name or "error")
        self._note(f"error: {prefix}: {text}")
        self._fail(f"{prefix}: {text}")

    def _usage(self, usage: Mapping[str, Any], names: tuple[str, str, str | None, str]) -> None:
        """The run's tokens from a usage record whose fields are `names` (input, output,
        cache write, cache read); input counts the cached tokens, so they are taken out."""
        tokens = [int(usage.get(name) or 0) if name else 0 for name in names]
        tokens[0] -= tokens[3]
        self._tokens = tokens
        self._tokens_known = True

    def _called(self, name: str, given: object) -> None:
        """The agent called the tool `name` with the input `given` (its stream's JSON)."""
        text = "" if given is None else orjson.dumps(given, option=orjson.OPT_SORT_KEYS).decode()
        self._tool_calls.append(ToolCall(name, text))

    def _returned(self, name: str, output: object) -> None:
        """The tool `name` succeeded and returned `output` (its text) to the agent."""
        if isinstance(output, str) and output:
            self._returned_texts.append((name, output))

    def _ran(self, command: object, read: bool = True) -> None:
        """The agent ran a shell command: kept, and (when it is known to have succeeded,
        `read`) the files it read by hand with it."""
        if isinstance(command, str) and command.strip():
            self._commands.append(command)
            if read:
                self._files_read.extend(shell_reads(command))

    def _touched(self, path: object, written: bool = False) -> None:
        """The agent read (or wrote) the file at `path` with a file tool."""
        if isinstance(path, str) and path:
            (self._files_written if written else self._files_read).append(path)

    def _turns(self) -> int | None:
        """The model turns its stream shows (None: it shows none)."""
        return self._model_calls if "turns" in self.MEASURED else None

    def trajectory(self) -> Trajectory:
        """What the agent did so far, and the figures its stream gave of it."""
        measured = self.MEASURED if self._tokens_known else self.MEASURED - self.TOKENS
        turns = self._turns()
        return Trajectory(
            tool_calls=tuple(self._tool_calls),
            commands=tuple(self._commands),
            files_read=tuple(self._files_read),
            files_written=tuple(self._files_written),
            turns=turns,
            measured=measured if turns is not None else measured - {"turns"},
        )

    def _writes(self, text: object) -> None:
        if str(text or "").strip():
            self._note(f"the agent writes {short(text, 100)!r}")

    # -- the verdict ----------------------------------------------------------------------

    def _began(self) -> bool:
        return self._started if self.START is not None else self._events > 0

    def _ending(self, exit_code: int | None) -> str | None:
        """Why the run is an error by its own ending: a failure, no `LAST` event (or, with
        none, no exit code); None when it ended well."""
        if self._failure is not None:
            return self._failure
        if self.LAST is not None:
            return None if self.saw_result else f"the run ended without a {self.LAST} event"
        return "the run did not finish (no exit code)" if exit_code is None else None

    def _model_failed(self) -> bool:
        """Whether the model's API failed the run (an error event, a failed turn)."""
        return self._failure is not None

    def _error_class(self) -> ErrorClass:
        """Whose an error reading is, in the verdict's order: no run of this agent, refused
        credentials, unreadable output or a refused load are the agent's setup; then a
        failure of the model's API is the model's; any other ending (no closing event, a
        non-zero exit code) is the agent's setup."""
        setup = not self._began() or self._auth_status is not None or self._corrupt is not None
        if setup or self._refused is not None or not self._model_failed():
            return ErrorClass.AGENT_SETUP
        return ErrorClass.MODEL

    def reading(self, exit_code: int | None = None) -> Reading:
        outcome, reason = self._verdict(exit_code)
        input_tokens, output_tokens, cache_write, cache_read = self._tokens
        return Reading(
            outcome=outcome,
            reason=reason,
            evidence=self._evidence_lines(),
            cost_usd=self._cost,
            num_turns=self._model_calls or None,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            saw_init=self._began(),
            saw_result=self.saw_result,
            events=self._events,
            skipped_lines=self._skipped,
            auth_status=self._auth_status,
            model_calls=self._model_calls,
            cache_write_tokens=cache_write,
            cache_read_tokens=cache_read,
            model=self._model,
            throttled=self._throttled,
            fired=tuple(self._fired),
            tokens_known=self._tokens_known,
            trajectory=self.trajectory(),
            error_class=self._error_class() if outcome == "error" else None,
            returned=tuple(self._returned_texts),
            reads_shown=self.READS_SHOWN,
            session=self._session,
        )

    def _prologue(self) -> tuple[Outcome, str] | None:
        """What decides a run before its ending: not a run of this agent, then `decided`
        (a refused load before anything but a load of the target), then a refused load."""
        if not self._began():
            return "error", self.NOT_A_RUN
        fired = tuple(self._fired)
        found = decided(self._activation, self._auth_status, self._corrupt, fired,
                        bool(fired) and self._settled(fired), self.target_id)  # fmt: skip
        if found is not None and (found[0] == "activated" or self._refused is None):
            return found
        if self._refused is not None:
            return "error", self._refused
        return None

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        found = self._prologue()
        if found is not None:
            return found
        ending = self._ending(exit_code)
        if ending is not None:
            return "error", ending
        if exit_code not in (None, 0):
            return "error", f"{self.AGENT} exited with code {exit_code}"
        return "not_activated", (
            f"the run completed without {self.NO_LOAD.format(target=self.target_id)}"
        )


class CopiesReader(AgentReader):
    """An agent reader of a run of this tool's copies (a `SkillSet`): the target's copy,
    each copy by the name the agent loads it by (`loaded_by`), and the agent's own state
    (`setup`)."""

    def __init__(
        self,
        skills: SkillSet,
        settled: Settled | None = None,
        on_throttle: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__(skills.target.id, settled, on_throttle)
        self.target = skills.target
        self.copies = tuple(skills.skills)
        self._ids = {skill.id for skill in skills.skills}
        self._by_name: dict[str, SkillCopy] = {}
        for skill in skills.skills:
            name = self.loaded_by(skill)
            if name is not None:
                self._by_name.setdefault(name, skill)
        self.setup()

    def loaded_by(self, skill: SkillCopy) -> str | None:
        """The name the agent loads `skill` by (None: it cannot be loaded by name)."""
        return None if skill.absent else skill.name or skill.folder.name

    def setup(self) -> None:
        """The agent's own state, set before the first line."""

    def _copy_loaded(self, skill: SkillCopy, call: str, activation: str, how: str = "") -> None:
        """`call` (the load action and the name it gave) loaded the run's copy `skill`: the
        target (`activation` says how), or another skill."""
        if skill is not self.target:
            self._fire(skill.id)
            self._note(f"{call} loaded {skill.id} (another skill)")
            return
        self._note(f"{call} loaded the target{how}")
        self._fire(skill.id, activation)
