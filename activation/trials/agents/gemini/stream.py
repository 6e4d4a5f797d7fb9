"""Reading Gemini CLI's `--output-format stream-json` output: did the agent really load the
skill?

What Gemini CLI 0.61.0 writes (bundle/gemini-3HFX2LNT.js, the `streamFormatter.emitEvent`
calls of its non-interactive loop, and ../shared/agents/captures-turn4/gemini-events.jsonl):
one JSON object per line, `init` (session and model), `message` (the user's prompt, the
assistant's text in deltas), `tool_use` (`tool_name`, `tool_id`, `parameters`),
`tool_result` (`tool_id`, `status` "success" or "error", `output`, and on error `error`
with its `type` and `message`), `error` (a warning or an error the loop survived) and last
`result` (`status` "success" or "error" with `error`, and `stats` with the tokens). A failed
API call ends the run with a `result` of status "error" whose message quotes the API's
error body (a bad key: HTTP 400, `API_KEY_INVALID`), and a non-zero exit code.

The rules, and why:

- **Activated** only by the agent's own load action for the target: an `activate_skill`
  call naming it (by its listed name, which the CLI matches case-insensitively) whose
  `tool_result` is a success and says the skill's resources were loaded from the target's
  own folder (`.../.agents/skills/<folder>`). The stream does not carry the body (it goes to
  the model in the next request, and to the session's chat record), so the folder is what
  proves that the target's own copy was activated, not a built-in of the same name; the
  tests check that the copy's nonce reached the model.
- **Refused** (an ERROR with the CLI's reason, never a "did not activate"): an
  `activate_skill` call the CLI would not run, `tool_not_registered` (a policy that denies
  the tool removes it) or `policy_violation`: the listing was sent but the load could not
  happen, so the run measured nothing.
- **Not activated**: prose about the skill, a `read_file` of its SKILL.md (noted: a read is
  not how Gemini CLI loads a skill, its listing says to call `activate_skill`, and the
  stream carries no content of the read), an `activate_skill` call that failed otherwise
  (a name the CLI does not list), a call for another skill or a built-in.
- **Error** (never a vote): no `init`, no `result`, a `result` of status "error" (the API
  failed; a refused key, 401, 403 or `API_KEY_INVALID`, aborts the whole run), a corrupt
  event line, a non-zero exit code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from activation.trials.agent.adapter import Settled
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.reading import JsonLines, Outcome, Reading, decided, short
from activation.trials.agents.gemini.listing import listed_name

LOAD_TOOL = "activate_skill"
READ_TOOL = "read_file"
REFUSALS = ("tool_not_registered", "policy_violation")
"""The `error.type` of a tool call the CLI would not run at all."""
_AUTH_STATUSES = (401, 403)
_BAD_KEY = "API_KEY_INVALID"
_THROTTLED_STATUS = 429
_CODE = re.compile(r'"code":\s*(\d{3})|\bstatus:? (\d{3})\b')
_LOADED_FROM = re.compile(r"Resources loaded from `([^`]*)`")
_SKILLS_DIRS = ("/.agents/skills/", "/.gemini/skills/")


class GeminiReader(JsonLines):
    """An incremental reader of one Gemini CLI run's stream-json lines for one target."""

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
            if skill.name is not None and not skill.absent:
                self._by_name.setdefault(listed_name(skill.name).lower(), skill)
        self._calls: dict[str, tuple[str, dict[str, Any], int]] = {}
        self._fired: list[str] = []
        self._activation: str | None = None
        self._refused: str | None = None
        self._auth_status: int | None = None
        self._throttled = 0
        self._model: str | None = None
        self._started = False
        self._stats: dict[str, Any] | None = None
        self._failed: str | None = None

    @property
    def decided(self) -> bool:
        return (
            self._settled(tuple(self._fired))
            or self._auth_status is not None
            or self._refused is not None
        )

    @property
    def saw_result(self) -> bool:
        return self._stats is not None

    @property
    def auth_status(self) -> int | None:
        return self._auth_status

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "init":
            self._started = True
            model = event.get("model")
            self._model = model if isinstance(model, str) else None
        elif kind == "message" and event.get("role") == "assistant":
            if str(event.get("content", "")).strip():
                self._note(f"the agent writes {short(event['content'], 100)!r}")
        elif kind == "tool_use":
            parameters = event.get("parameters")
            self._calls[str(event.get("tool_id"))] = (
                str(event.get("tool_name")),
                parameters if isinstance(parameters, dict) else {},
                self._line,
            )
        elif kind == "tool_result":
            self._tool_result(event)
        elif kind == "error":
            self._warning(event)
        elif kind == "result":
            self._result(event)

    def _tool_result(self, event: dict[str, Any]) -> None:
        tool, parameters, _ = self._calls.get(str(event.get("tool_id")), ("?", {}, 0))
        ok = event.get("status") == "success"
        if tool == READ_TOOL:
            self._read(parameters, ok)
        elif tool != LOAD_TOOL:
            self._note(f"the agent calls {tool} {short(parameters, 120)} ({event.get('status')})")
        elif ok:
            self._loaded(parameters, str(event.get("output") or ""))
        else:
            self._load_failed(parameters, _mapping(event.get("error")))

    def _read(self, parameters: dict[str, Any], ok: bool) -> None:
        path = str(parameters.get("file_path", ""))
        read = next(
            (s for s in self._by_name.values() if path.endswith(f"{s.folder.name}/SKILL.md")),
            None,
        )
        what = f"{read.id}'s SKILL.md" if read is not None else repr(short(path, 120))
        status = "" if ok else " (failed)"
        self._note(
            f"the agent reads {what} with read_file{status}: not a load (Gemini CLI loads a "
            "skill with activate_skill)"
        )

    def _loaded(self, parameters: dict[str, Any], output: str) -> None:
        name = str(parameters.get("name"))
        skill = self._by_name.get(name.lower())
        found = _LOADED_FROM.search(output)
        folder = found.group(1) if found else ""
        if (
            skill is None
            or not folder.endswith(f"/{skill.folder.name}")
            or not any(part in f"{folder}/" for part in _SKILLS_DIRS)
        ):
            self._fired.append(name)
            self._note(f"activate_skill {name!r} loaded {short(folder or output, 120)} "
                       "(not one of the run's copies)")  # fmt: skip
            return
        self._fired.append(skill.id)
        if skill is not self.target:
            self._note(f"activate_skill {name!r} loaded {skill.id} (another skill)")
            return
        self._note(f"activate_skill {name!r} loaded the target from {short(folder, 120)}")
        if self._activation is None:
            self._activation = (
                f"the agent called activate_skill {name!r} and the CLI activated the target "
                f"from its own folder (line {self._line})"
            )

    def _load_failed(self, parameters: dict[str, Any], error: dict[str, Any]) -> None:
        name = str(parameters.get("name"))
        kind = str(error.get("type") or "error")
        message = short(error.get("message") or "no message", 200)
        if kind in REFUSALS:
            self._note(f"activate_skill {name!r} refused by the CLI ({kind}): {message}")
            if self._refused is None:
                self._refused = (
                    f"Gemini CLI refused the agent's activate_skill {name!r} ({kind}: "
                    f"{message}), so no load could happen"
                )
            return
        self._note(f"activate_skill {name!r} failed ({kind}): {message}")

    def _warning(self, event: dict[str, Any]) -> None:
        message = str(event.get("message", ""))
        if self._status(message) == _THROTTLED_STATUS:
            self._throttled += 1
            self._on_throttle()
        self._note(f"{event.get('severity', 'error')}: {short(message, 200)}")

    def _result(self, event: dict[str, Any]) -> None:
        stats = event.get("stats")
        self._stats = stats if isinstance(stats, dict) else {}
        if event.get("status") == "success":
            self._note("the run completed")
            return
        error = _mapping(event.get("error"))
        message = str(error.get("message") or "no message")
        status = self._status(message)
        if _BAD_KEY in message and self._auth_status is None:
            self._auth_status = status or 400
        self._failed = short(message, 300)
        self._note(f"the run failed: {self._failed}")

    def _status(self, message: str) -> int | None:
        """The HTTP status a message names; a refused key is remembered."""
        found = _CODE.search(message)
        status = int(found.group(1) or found.group(2)) if found else None
        if status in _AUTH_STATUSES and self._auth_status is None:
            self._auth_status = status
        return status

    def reading(self, exit_code: int | None = None) -> Reading:
        outcome, reason = self._verdict(exit_code)
        stats = self._stats or {}
        cached = int(stats.get("cached") or 0)
        return Reading(
            outcome=outcome,
            reason=reason,
            evidence=self._evidence_lines(),
            cost_usd=None,
            num_turns=None,
            input_tokens=int(stats.get("input_tokens") or 0) - cached,
            output_tokens=int(stats.get("output_tokens") or 0),
            saw_init=self._started,
            saw_result=self.saw_result,
            events=self._events,
            skipped_lines=self._skipped,
            auth_status=self._auth_status,
            cache_read_tokens=cached,
            model=self._model,
            throttled=self._throttled,
            fired=tuple(self._fired),
            tokens_known=self._stats is not None,
        )

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        if not self._started:
            return "error", "no init event: the output is not a Gemini CLI stream-json run"
        fired = tuple(self._fired)
        found = decided(self._activation, self._auth_status, self._corrupt, fired,
                        bool(fired) and self._settled(fired), self.target.id)  # fmt: skip
        if found is not None:
            return found
        if self._refused is not None:
            return "error", self._refused
        if self._failed is not None:
            return "error", f"the run failed: {self._failed}"
        if self._stats is None:
            return "error", "the run ended without a result event"
        if exit_code not in (None, 0):
            return "error", f"gemini exited with code {exit_code}"
        return "not_activated", (
            f"the run completed without a successful activate_skill of {self.target.id!r}"
        )


def _mapping(value: object) -> dict[str, Any]:
    """An event's object field, or an empty one when it is missing or of another type."""
    return value if isinstance(value, dict) else {}
