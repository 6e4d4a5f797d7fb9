"""Reading Claude Code's `stream-json` output: did the agent really load the skill?

Pure: no I/O, no clock. The runner feeds lines as they arrive (so it can stop a run the
moment the verdict is known) and `activation detect` feeds a saved transcript; both get the
same `Reading`, so what a trial reports is exactly what a person re-reading its transcript
gets.

The rules, and why:

- **Activated** only by a `Skill` tool call naming the target (its full id
  `<plugin>:<skill>` or the bare skill name; a leading `/` is ignored because the CLI strips
  it; names are case-sensitive because the CLI's are) *whose tool result succeeded*. A call
  is only the model's intent: the CLI may reject it (unknown skill, tool disabled, plugin not
  loaded), so the result, matched to the call by `tool_use_id`, is what counts. Calls from a
  subagent (`parent_tool_use_id` set) count: the skill was loaded all the same.
- **Not activated**: everything else in a run that completed: prose about the skill, a
  `Read` of its files, a call naming another skill (failed or not), a run that hit
  `--max-turns` without such a call.
- **Refused** (an error, never a "did not activate"): a `Skill` call naming the target
  that the CLI answered with an error result (`is_error`, `success: false`), or that the
  result event lists in `permission_denials`: the model chose the skill and the agent did
  not let it load, so the trial says nothing about the description.
- **Error** (never a vote): the init event does not offer the skill (the target is missing
  from `skills`, or `Skill` is missing from `tools`), the result says `is_error` (API
  failures keep `subtype: "success"`, so `subtype` is never used to judge failure), there is
  no init or no result event, a line that should be an event is corrupt, or the process
  exit code is non-zero without a max-turns result to explain it.

What the stream shows of a load, and why no nonce is checked here: the successful result
is `Launching skill: <id>` with `tool_use_result {"success": true, "commandName": <id>}`,
and the skill's body follows one line later as an `isSynthetic` user message ("Base
directory for this skill: ..." and the body). `commandName` is the CLI's own word on which
skill it loaded, from the plugin copy it was given (the run's only copy of the target), so
the result line decides and the run stops there; waiting for the body would only delay
the stop. Claude Code's copies therefore carry no nonce (see `adapter.Adapter.marks_copies`).

Lines are handled as every agent's are (`reading.JsonLines`): noise is skipped and counted,
a corrupt event is an error unless a successful activation was already seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import orjson

from activation._models import ErrorClass
from activation.trials.agent.adapter import Settled, read_through
from activation.trials.agent.installed import SkillSet
from activation.trials.agent.reading import (
    MAX_EVIDENCE,
    AgentReader,
    Handler,
    Outcome,
    Reading,
    short,
)

__all__ = ["MAX_EVIDENCE", "Reading", "StreamReader", "read_stream"]

_MAX_TURNS_SUBTYPE = "error_max_turns"
_READS = {"Read": "file_path", "NotebookRead": "notebook_path"}
_WRITES = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
           "NotebookEdit": "notebook_path"}  # fmt: skip
"""Claude Code's file tools, and the input field naming the file."""
_THROTTLED_STATUSES = (429, 529)


@dataclass(frozen=True)
class _Call:
    line: int
    name: str
    by_subagent: bool


def _result_text(content: object) -> str:
    """A tool_result's content is a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        return " ".join(parts)
    return ""


def _untagged(text: str) -> str:
    """A tool error's text without the CLI's `<tool_use_error>` wrapping."""
    return text.removeprefix("<tool_use_error>").removesuffix("</tool_use_error>")


class StreamReader(AgentReader):
    """An incremental reader of one run's stream-json lines for one target skill.

    Feed lines in order with `feed`; `activation_seen` turns true on the line carrying the
    successful tool result (not on the tool call, which the CLI may still reject), and
    `decided` also turns true when the init event already rules the run out, so a runner can
    stop the process at once in both cases. Every successful Skill call is kept, first
    first (`fired`); `settled` says when the skills fired so far already decide the case
    (by default: once the target fired). `reading()` gives the verdict at any point.
    """

    NOT_A_RUN = "no init event: the output is not a Claude Code stream-json run"
    SESSION = "session_id"
    MEASURED = AgentReader.MEASURED | AgentReader.TOKENS | {"turns"}

    def __init__(
        self,
        skill_id: str,
        on_throttle: Callable[[], None] = lambda: None,
        settled: Callable[[tuple[str, ...]], bool] | None = None,
        offered: bool = True,
    ) -> None:
        super().__init__(skill_id, settled, on_throttle)
        self.skill_id = skill_id
        self.offered = offered
        """Whether the run must offer the skill (not in Stage C's `none` arm)."""
        self.bare_name = skill_id.rsplit(":", 1)[-1]
        self._init: dict[str, Any] | None = None
        self._offer_error: str | None = None
        self._result: dict[str, Any] | None = None
        self._calls: dict[str, _Call] = {}
        self._message_usage: dict[str, tuple[int, int, int, int]] = {}
        self._uses: dict[str, str] = {}
        """Each tool call's name by its id."""
        self._file_uses: dict[str, tuple[object, bool]] = {}
        """A file tool's call by id: its path and whether it writes, until its result."""

    # -- state a runner polls -------------------------------------------------------------

    @property
    def activation_seen(self) -> bool:
        """True from the line with the successful tool result of a target Skill call."""
        return self._activation is not None

    @property
    def decided(self) -> bool:
        """The verdict cannot change any more, so the run can be stopped.

        True once the skills fired settle the case, once the init event shows the skill is
        not offered, and once the API refused the credentials (the CLI retries a 401 with
        back-off for minutes, and no later call can succeed).
        """
        return super().decided or self._offer_error is not None

    @property
    def saw_init(self) -> bool:
        return self._init is not None

    @property
    def saw_result(self) -> bool:
        return self._result is not None

    # -- feeding --------------------------------------------------------------------------

    def _system(self, event: dict[str, Any]) -> None:
        subtype = event.get("subtype")
        if subtype == "init" and self._init is None:
            self._init = event
            self._check_offer(event)
        elif subtype == "api_retry":
            status = event.get("error_status")
            self._auth(status)
            if status in _THROTTLED_STATUSES:
                self._throttle()
            self._note(
                f"API retry {event.get('attempt')}/{event.get('max_retries')} "
                f"(status {event.get('error_status')}, {event.get('error')})"
            )
        elif subtype == "permission_denied":
            self._note(f"permission denied for {event.get('tool_name')}")

    def _check_offer(self, init: dict[str, Any]) -> None:
        tools = init.get("tools")
        skills = init.get("skills")
        if skills is None:
            # A CLI without the `skills` list still lists every skill as a slash command.
            skills = init.get("slash_commands")
        plugins = [
            str(plugin.get("name"))
            for plugin in init.get("plugins") or []
            if isinstance(plugin, dict) and plugin.get("path") != "builtin"
        ]
        problems: list[str] = []
        if self.offered and (not isinstance(tools, list) or "Skill" not in tools):
            problems.append("the Skill tool is not available (init.tools lacks 'Skill')")
        if self.offered and (not isinstance(skills, list) or self.skill_id not in skills):
            problems.append(f"the skill {self.skill_id!r} is not offered (init.skills lacks it)")
        self._note(
            f"init: claude {init.get('claude_code_version', '?')}, "
            f"plugins: {', '.join(plugins) or 'none'}, "
            f"{'offers' if not problems else 'does not offer'} {self.skill_id!r}"
        )
        if not problems:
            return
        errors = [
            short(error.get("message") or error, 300) if isinstance(error, dict) else short(error)
            for error in init.get("plugin_errors") or []
        ]
        reason = "; ".join(problems)
        if errors:
            reason += "; plugin errors: " + " | ".join(errors)
        self._offer_error = reason

    def _assistant(self, event: dict[str, Any]) -> None:
        message = event.get("message")
        if not isinstance(message, dict):
            return
        self._count_usage(message)
        by_subagent = event.get("parent_tool_use_id") is not None
        who = "a subagent" if by_subagent else "the agent"
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and str(block.get("text", "")).strip():
                self._note(f"{who} writes {short(block['text'], 100)!r}")
                continue
            if block.get("type") != "tool_use":
                continue
            name = block.get("name")
            given = block.get("input")
            tool_input: dict[str, Any] = given if isinstance(given, dict) else {}
            self._record(str(block.get("id")), str(name), tool_input)
            if name == "Skill":
                skill = tool_input.get("skill")
                skill = skill if isinstance(skill, str) else repr(skill)
                use_id = block.get("id")
                if isinstance(use_id, str):
                    self._calls[use_id] = _Call(self._line, skill, by_subagent)
                target = "the target" if self._names_target(skill) else "another skill"
                self._note(f"{who} calls Skill {skill!r} ({target})")
            elif name in ("Read", "Glob", "Grep"):
                self._note(f"{who} calls {name} {short(orjson.dumps(tool_input).decode(), 120)}")

    def _record(self, use_id: str, name: str, tool_input: dict[str, Any]) -> None:
        """A tool call in the trajectory, once per call (its id), with what it ran, read
        or wrote."""
        if use_id in self._uses:
            return
        self._uses[use_id] = name
        self._called(name, tool_input)
        if name == "Bash":
            self._ran(tool_input.get("command"))
        elif name in _READS:
            self._file_uses[use_id] = (tool_input.get(_READS[name]), False)
        elif name in _WRITES:
            self._file_uses[use_id] = (tool_input.get(_WRITES[name]), True)

    def _turns(self) -> int | None:
        """The result's `num_turns` (None: no result yet)."""
        turns = (self._result or {}).get("num_turns")
        return turns if isinstance(turns, int) else None

    def _count_usage(self, message: dict[str, Any]) -> None:
        """Tokens per API message; the CLI repeats a message once per content block."""
        usage = message.get("usage")
        message_id = message.get("id")
        if message.get("model") == "<synthetic>":
            return  # the CLI's own text (e.g. "API Error: ..."), not a model response
        if isinstance(usage, dict) and isinstance(message_id, str):
            self._message_usage[message_id] = (
                int(usage.get("input_tokens") or 0),
                int(usage.get("output_tokens") or 0),
                int(usage.get("cache_creation_input_tokens") or 0),
                int(usage.get("cache_read_input_tokens") or 0),
            )
            if isinstance(message.get("model"), str):
                self._model = message["model"]

    def _names_target(self, name: str) -> bool:
        name = name.removeprefix("/")
        return name in (self.skill_id, self.bare_name)

    def _user(self, event: dict[str, Any]) -> None:
        message = event.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            return
        for block in message["content"]:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            use_id = str(block.get("tool_use_id"))
            file_use = self._file_uses.pop(use_id, None)
            if block.get("is_error") is not True:
                self._returned(self._uses.get(use_id, "?"), _result_text(block.get("content")))
                if file_use is not None:
                    self._touched(*file_use)
            call = self._calls.pop(use_id, None)
            if call is None:
                continue
            text = _result_text(block.get("content"))
            detail = event.get("tool_use_result")
            succeeded = block.get("is_error") is not True and not (
                isinstance(detail, dict) and detail.get("success") is False
            )
            if isinstance(detail, str) and detail.startswith("Error"):
                succeeded = False
            if not succeeded:
                self._note(f"Skill {call.name!r} failed: {short(text or detail)}")
                if self._names_target(call.name):
                    self._refuse(
                        f"the agent refused to load {call.name!r} (line {self._line}): "
                        f"{short(_untagged(text) or detail, 200)}"
                    )
                continue
            command = detail.get("commandName") if isinstance(detail, dict) else None
            loaded = (command if isinstance(command, str) else call.name).removeprefix("/")
            # A bare name could resolve to a same-named skill of another plugin: when the CLI
            # says which command it launched, that must be the target too.
            if not (self._names_target(call.name) and self._names_target(loaded)):
                self._fired.append(loaded)
                self._note(f"Skill {call.name!r} succeeded (another skill: {loaded!r})")
                continue
            self._note(f"Skill {call.name!r} succeeded: {short(text)}")
            who = "a subagent" if call.by_subagent else "the agent"
            self._fire(self.skill_id, (
                f"{who} called Skill {call.name!r} (line {call.line}) and it succeeded "
                f"(line {self._line})"
            ))  # fmt: skip

    def _result_event(self, event: dict[str, Any]) -> None:
        if self._result is not None:
            return
        self._result = event
        for denial in event.get("permission_denials") or []:
            if not isinstance(denial, dict) or denial.get("tool_name") != "Skill":
                continue
            given = denial.get("tool_input")
            name = given.get("skill") if isinstance(given, dict) else None
            if isinstance(name, str) and self._names_target(name):
                self._refuse(f"the agent denied the permission to load {name!r}")
        if event.get("is_error") is True:
            self._auth(event.get("api_error_status"))
        self._note(
            f"result: is_error={event.get('is_error')}, subtype={event.get('subtype')}, "
            f"num_turns={event.get('num_turns')}, terminal_reason={event.get('terminal_reason')}"
        )

    EVENTS: ClassVar[Mapping[str, Handler]] = {
        "system": _system,
        "assistant": _assistant,
        "user": _user,
        "result": _result_event,
    }

    # -- verdict --------------------------------------------------------------------------

    def _is_max_turns(self) -> bool:
        result = self._result or {}
        return (
            result.get("subtype") == _MAX_TURNS_SUBTYPE
            or result.get("terminal_reason") == "max_turns"
        )

    def reading(self, exit_code: int | None = None) -> Reading:
        """The verdict so far; `exit_code` is the process's, when it is known.

        An activation stands whatever comes after it (the runner stops the process on it, so
        a missing result or a kill signal's exit code is expected then).
        """
        result = self._result or {}
        usage = result.get("usage")
        if isinstance(usage, dict):
            names = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                     "cache_read_input_tokens")  # fmt: skip
            self._tokens = [int(usage.get(name) or 0) for name in names]
        else:
            self._tokens = [sum(each[i] for each in self._message_usage.values()) for i in range(4)]
        cost, turns = result.get("total_cost_usd"), result.get("num_turns")
        self._cost = float(cost) if isinstance(cost, int | float) else None
        self._model_calls = len(self._message_usage)
        return replace(super().reading(exit_code),
                       num_turns=turns if isinstance(turns, int) else None)  # fmt: skip

    def _began(self) -> bool:
        return self._init is not None

    def _model_failed(self) -> bool:
        """The result event says the API failed the run (not that it ran out of turns)."""
        failed = (self._result or {}).get("is_error") is True
        return failed and not self._is_max_turns()

    def _error_class(self) -> ErrorClass:
        if self._offer_error is not None:
            return ErrorClass.AGENT_SETUP
        return super()._error_class()

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        if self._offer_error is not None:
            return "error", f"the skill was never offered: {self._offer_error}"
        found = self._prologue()
        if found is not None:
            return found
        result = self._result
        if result is None:
            return "error", "the run ended without a result event"
        if result.get("is_error") is True and not self._is_max_turns():
            status = result.get("api_error_status")
            text = short(result.get("result") or result.get("errors") or "no message", 300)
            prefix = f"API error {status}" if status is not None else "the run failed"
            return "error", f"{prefix}: {text}"
        if exit_code not in (None, 0) and not self._is_max_turns():
            return "error", f"claude exited with code {exit_code}"
        if self._is_max_turns():
            return "not_activated", (
                f"max turns reached ({result.get('num_turns')}) without a successful "
                f"Skill call for {self.skill_id!r}"
            )
        return (
            "not_activated",
            f"the run completed without a successful Skill call for {self.skill_id!r}",
        )


def copies_reader(
    skills: SkillSet, settled: Settled, on_throttle: Callable[[], None]
) -> StreamReader:
    """The reader of a run of the tool's copies, as the agent kit makes one (`READER`):
    Claude Code loads a skill by its id, and must offer the target unless Stage C's `none`
    arm installs nothing."""
    return StreamReader(skills.target.id, on_throttle=on_throttle, settled=settled,
                        offered=not skills.target.absent)  # fmt: skip


READER = copies_reader


def read_stream(
    lines: Iterable[str | bytes], skill_id: str, exit_code: int | None = None
) -> Reading:
    """Read a whole transcript (a saved file's lines, or any iterable of lines)."""
    return read_through(StreamReader(skill_id), lines, exit_code)
