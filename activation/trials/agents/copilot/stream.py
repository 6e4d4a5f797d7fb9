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
- **Not activated**: prose about the skill, a `view` of its SKILL.md (not how Copilot loads
  a skill: its listing tells the model to call the skill tool), a load of another skill.
- **Error** (never a vote): a `skill` call that failed (the CLI's reason, e.g. "Skill not
  found: x", which is also what a skill the CLI rejected gives), `session.error` (the API
  failed), a 401 or 403 (a refused key, which aborts the whole run at its first attempt),
  no event at all, a corrupt event line, a non-zero exit code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from activation.trials.agent.adapter import Settled
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.reading import JsonLines, Outcome, Reading, decided, short

_AUTH_STATUSES = (401, 403)
_THROTTLED = (429, 529)
_LOOKS = ("view", "glob", "grep")
"""Tools that only look at files: noted in the evidence, never a load."""


def listed_name(skill: SkillCopy) -> str:
    """The name Copilot lists and loads a copy by: its frontmatter name, else its folder."""
    return skill.name or skill.folder.name


class CopilotReader(JsonLines):
    """An incremental reader of one Copilot CLI run's JSON lines for one target skill."""

    def __init__(
        self,
        skills: SkillSet,
        settled: Settled | None = None,
        on_throttle: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__()
        self.target = skills.target
        self._settled = settled or (lambda fired: self.target.id in fired)
        self._on_throttle = on_throttle
        self._by_name: dict[str, SkillCopy] = {}
        for skill in skills.skills:
            if not skill.absent:
                self._by_name.setdefault(listed_name(skill), skill)
        self._calls: dict[str, str] = {}
        self._fired: list[str] = []
        self._activation: str | None = None
        self._auth_status: int | None = None
        self._error: str | None = None
        self._failed_load: str | None = None
        self._result: dict[str, Any] | None = None
        self._model_calls = 0
        self._throttled = 0
        self._model: str | None = None

    @property
    def decided(self) -> bool:
        return self._settled(tuple(self._fired)) or self._auth_status is not None

    @property
    def saw_result(self) -> bool:
        return self._result is not None

    @property
    def auth_status(self) -> int | None:
        return self._auth_status

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        data = _mapping(event.get("data"))
        if kind == "assistant.message":
            self._model_calls += 1
            self._model = data.get("model") if isinstance(data.get("model"), str) else self._model
            if str(data.get("content", "")).strip():
                self._note(f"the agent writes {short(data['content'], 100)!r}")
        elif kind == "tool.execution_start":
            self._start(data)
        elif kind == "tool.execution_complete":
            self._complete(data)
        elif kind == "model.call_failure":
            self._call_failure(data)
        elif kind == "session.error":
            self._session_error(data)
        elif kind == "result":
            self._result = event
            self._note(f"result: exit code {event.get('exitCode')}")

    def _start(self, data: dict[str, Any]) -> None:
        tool = data.get("toolName")
        arguments = _mapping(data.get("arguments"))
        call = str(data.get("toolCallId", ""))
        if tool == "skill":
            name = arguments.get("skill")
            self._calls[call] = name if isinstance(name, str) else repr(name)
            self._note(f"the agent calls skill {self._calls[call]!r}")
        elif tool in _LOOKS:
            self._note(f"the agent calls {tool} {short(arguments, 120)}")
        else:
            self._note(f"the agent calls {tool}")

    def _complete(self, data: dict[str, Any]) -> None:
        name = self._calls.pop(str(data.get("toolCallId", "")), None)
        if name is None:
            return
        if data.get("success") is not True:
            reason = short(_mapping(data.get("error")).get("message") or "no reason", 200)
            self._note(f"skill {name!r} failed: {reason}")
            if self._failed_load is None:
                self._failed_load = f"the skill call for {name!r} failed: {reason}"
            return
        skill = self._by_name.get(name)
        fired = name if skill is None else skill.id
        self._fired.append(fired)
        if skill is not self.target:
            self._note(f"skill {name!r} loaded {fired} (not the target)")
            return
        self._note(f"skill {name!r} loaded the target")
        if self._activation is None:
            self._activation = (
                f"the agent called skill {name!r} and Copilot CLI loaded it (line {self._line})"
            )

    def _call_failure(self, data: dict[str, Any]) -> None:
        status = data.get("statusCode")
        if status in _AUTH_STATUSES and self._auth_status is None:
            self._auth_status = int(status)
        if status in _THROTTLED:
            self._throttled += 1
            self._on_throttle()
        self._note(f"model call failed: HTTP {status}")

    def _session_error(self, data: dict[str, Any]) -> None:
        status = data.get("statusCode")
        if status in _AUTH_STATUSES and self._auth_status is None:
            self._auth_status = int(status)
        message = short(data.get("message") or data.get("errorType") or "no message", 300)
        prefix = f"API error {status}" if status is not None else str(data.get("errorType"))
        self._note(f"error: {prefix}: {message}")
        if self._error is None:
            self._error = f"{prefix}: {message}"

    def reading(self, exit_code: int | None = None) -> Reading:
        outcome, reason = self._verdict(exit_code)
        return Reading(
            outcome=outcome,
            reason=reason,
            evidence=self._evidence_lines(),
            cost_usd=None,
            num_turns=self._model_calls or None,
            input_tokens=0,
            output_tokens=0,
            saw_init=self._events > 0,
            saw_result=self._result is not None,
            events=self._events,
            skipped_lines=self._skipped,
            auth_status=self._auth_status,
            model_calls=self._model_calls,
            model=self._model,
            throttled=self._throttled,
            fired=tuple(self._fired),
            tokens_known=False,
        )

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        if self._events == 0:
            return "error", "no events: the output is not a Copilot CLI JSON run"
        fired = tuple(self._fired)
        found = decided(self._activation, self._auth_status, self._corrupt, fired,
                        bool(fired) and self._settled(fired), self.target.id)  # fmt: skip
        if found is not None:
            return found
        if self._failed_load is not None:
            return "error", self._failed_load
        if self._error is not None:
            return "error", self._error
        if exit_code is None:
            return "error", "the run did not finish (no exit code)"
        if exit_code != 0:
            return "error", f"copilot exited with code {exit_code}"
        return "not_activated", (
            f"the run completed without a successful skill call for {self.target.id!r}"
        )


def _mapping(value: object) -> dict[str, Any]:
    """An event's object field, or an empty one when it is missing or of another type."""
    return value if isinstance(value, dict) else {}
