"""Reading Copilot CLI's `-p --output-format json` output: did the agent load the skill?

What Copilot CLI 1.0.102 writes (measured at the local stand-ins; docs/agents.md): one JSON
object per line, each with a `type` and its `data`: `session.skills_loaded` (the skills it
discovered), `assistant.message` (with `toolRequests`), `tool.execution_start` (`toolName`,
`arguments`, `toolCallId`), `tool.execution_complete` (`success`, then `result.content` or
`error.message`), `model.call_failure` (`statusCode`, once per attempt), `session.error`
(the run failed: `errorType`, `message`, `statusCode`) and last `result` (`exitCode`).
Token counts are not in this stream (only in the session's own files), so none are read.

The rules, and why:

- **Activated** only by the agent's own load action for the target: `tool.execution_start`
  of `skill` whose `arguments.skill` is the target's listed name, then a
  `tool.execution_complete` of the same call with `success: true`. The tool's result is a
  fixed "Skill ... loaded successfully" text: the body reaches the model as a separate
  message the stream does not show, so the stream proves that the CLI loaded the skill of
  that name, not which file's body the model saw (the tests check the copy's nonce at the
  model's next request).
- **Refused** (an ERROR with the CLI's reason, never a "did not activate"): a `skill` call
  naming the target that failed. The target is installed and listed (the adapter's `check`
  says before any run when the CLI would reject it), so the model chose it and the load did
  not happen: the trial says nothing about the description.
- **Not activated**: prose about the skill, a `view` of its SKILL.md (not how Copilot loads
  a skill: its listing tells the model to call the skill tool), a load of another skill, and
  a failed `skill` call for a name the run did not install ("Skill not found: x"), as on
  every other agent (a decoy name reads the same everywhere).
- **Error** (never a vote): `session.error` (the API failed), a 401 or 403 (a refused key,
  which aborts the whole run at its first attempt), no event at all, a corrupt event line,
  a non-zero exit code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from activation.trials.agent.installed import SkillCopy
from activation.trials.agent.reading import CopiesReader, Handler, mapping, short

_THROTTLED = (429, 529)
_LOOKS = ("view", "glob", "grep")
"""Tools that only look at files: noted in the evidence, never a load."""
_FILES = {"view": False, "create": True, "edit": True}
"""Its file tools (`path`), and whether each writes."""


def listed_name(skill: SkillCopy) -> str:
    """The name Copilot lists and loads a copy by: its frontmatter name, else its folder."""
    return skill.name or skill.folder.name


class CopilotReader(CopiesReader):
    """An incremental reader of one Copilot CLI run's JSON lines for one target skill."""

    AGENT = "copilot"
    SESSION = "sessionId"
    NOT_A_RUN = "no events: the output is not a Copilot CLI JSON run"

    MEASURED = CopiesReader.MEASURED | {"turns"}
    """No tokens and no cost in its stream; a turn is an `assistant.message`."""
    _result = False

    def setup(self) -> None:
        self._calls: dict[str, str] = {}
        self._file_calls: dict[str, tuple[object, bool]] = {}
        """A file tool's call by id: its path and whether it writes, until it completes."""
        self._tools: dict[str, str] = {}
        """Each tool call's name by its id."""
        self._tokens_known = False

    @property
    def saw_result(self) -> bool:
        return self._result

    def _assistant(self, event: dict[str, Any]) -> None:
        data = mapping(event.get("data"))
        self._model_calls += 1
        self._model = data.get("model") if isinstance(data.get("model"), str) else self._model
        self._writes(data.get("content"))

    def _start(self, event: dict[str, Any]) -> None:
        data = mapping(event.get("data"))
        tool = data.get("toolName")
        arguments = mapping(data.get("arguments"))
        call = str(data.get("toolCallId", ""))
        self._called(str(tool), arguments)
        self._tools[call] = str(tool)
        if tool == "bash":
            self._ran(arguments.get("command"))
        elif tool in _FILES:
            self._file_calls[call] = (arguments.get("path"), _FILES[str(tool)])
        if tool == "skill":
            name = arguments.get("skill")
            self._calls[call] = name if isinstance(name, str) else repr(name)
            self._note(f"the agent calls skill {self._calls[call]!r}")
        elif tool in _LOOKS:
            self._note(f"the agent calls {tool} {short(arguments, 120)}")
        else:
            self._note(f"the agent calls {tool}")

    def _complete(self, event: dict[str, Any]) -> None:
        data = mapping(event.get("data"))
        call = str(data.get("toolCallId", ""))
        if data.get("success") is True:
            self._returned(self._tools.get(call, "?"), mapping(data.get("result")).get("content"))
        file_call = self._file_calls.pop(call, None)
        if file_call is not None and data.get("success") is True:
            self._touched(*file_call)
        name = self._calls.pop(call, None)
        if name is None:
            return
        skill = self._by_name.get(name)
        if data.get("success") is not True:
            reason = short(mapping(data.get("error")).get("message") or "no reason", 200)
            self._note(f"skill {name!r} failed: {reason}")
            if skill is self.target:
                self._refuse(f"Copilot CLI did not load {name!r} (line {self._line}): {reason}")
            return
        if skill is None:
            self._fire(name)
            self._note(f"skill {name!r} loaded (not one of the run's copies)")
            return
        activation = (
            f"the agent called skill {name!r} and Copilot CLI loaded it (line {self._line})"
        )
        self._copy_loaded(skill, f"skill {name!r}", activation)

    def _call_failure(self, event: dict[str, Any]) -> None:
        status = mapping(event.get("data")).get("statusCode")
        self._auth(status)
        if status in _THROTTLED:
            self._throttle()
        self._note(f"model call failed: HTTP {status}")

    def _session_error(self, event: dict[str, Any]) -> None:
        data = mapping(event.get("data"))
        self._api_error(data.get("statusCode"), data.get("message"), data.get("errorType"))

    def _result_event(self, event: dict[str, Any]) -> None:
        self._result = True
        self._note(f"result: exit code {event.get('exitCode')}")

    EVENTS: ClassVar[Mapping[str, Handler]] = {
        "assistant.message": _assistant,
        "tool.execution_start": _start,
        "tool.execution_complete": _complete,
        "model.call_failure": _call_failure,
        "session.error": _session_error,
        "result": _result_event,
    }


READER = CopilotReader
