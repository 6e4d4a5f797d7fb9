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
from collections.abc import Mapping
from typing import Any, ClassVar

from activation.trials.agent.installed import SkillCopy
from activation.trials.agent.reading import CopiesReader, Handler, mapping, short
from activation.trials.agents.gemini.listing import listed_name

LOAD_TOOL = "activate_skill"
READ_TOOL = "read_file"
REFUSALS = ("tool_not_registered", "policy_violation")
"""The `error.type` of a tool call the CLI would not run at all."""
_BAD_KEY = "API_KEY_INVALID"
_THROTTLED_STATUS = 429
_LOADED_FROM = re.compile(r"Resources loaded from `([^`]*)`")
_SKILLS_DIRS = ("/.agents/skills/", "/.gemini/skills/")
_SHELL_TOOL = "run_shell_command"
_WRITE_TOOLS = ("write_file", "replace")


class GeminiReader(CopiesReader):
    """An incremental reader of one Gemini CLI run's stream-json lines for one target."""

    AGENT = "gemini"
    START = "init"
    SESSION = "session_id"
    NOT_A_RUN = "no init event: the output is not a Gemini CLI stream-json run"
    NO_LOAD = "a successful activate_skill of {target!r}"
    STATUS = re.compile(r'"code":\s*(\d{3})|\bstatus:? (\d{3})\b')
    REFUSAL_DECIDES = True

    LAST = "result"
    MEASURED = CopiesReader.MEASURED | {"input_tokens", "cache_read_tokens", "output_tokens"}
    """`result.stats` has no cache writes, and no event marks a model turn."""
    READS_SHOWN = False
    """A `read_file` result's `output` is empty: the content goes to the model only."""
    _stats = False

    def loaded_by(self, skill: SkillCopy) -> str | None:
        """Its listed name, matched case-insensitively; a skill without a `name` is not
        listed."""
        if skill.name is None or skill.absent:
            return None
        return listed_name(skill.name).lower()

    def setup(self) -> None:
        self._calls: dict[str, tuple[str, dict[str, Any], int]] = {}
        self._tokens_known = False

    @property
    def saw_result(self) -> bool:
        return self._stats

    def _init(self, event: dict[str, Any]) -> None:
        model = event.get("model")
        self._model = model if isinstance(model, str) else None

    def _message(self, event: dict[str, Any]) -> None:
        if event.get("role") == "assistant":
            self._writes(event.get("content"))

    def _tool_use(self, event: dict[str, Any]) -> None:
        tool, parameters = str(event.get("tool_name")), mapping(event.get("parameters"))
        self._calls[str(event.get("tool_id"))] = (tool, parameters, self._line)
        self._called(tool, parameters)
        if tool == _SHELL_TOOL:
            self._ran(parameters.get("command"))

    def _tool_result(self, event: dict[str, Any]) -> None:
        tool, parameters, _ = self._calls.get(str(event.get("tool_id")), ("?", {}, 0))
        ok = event.get("status") == "success"
        if ok:
            self._returned(tool, event.get("output"))
        if ok and tool in (READ_TOOL, *_WRITE_TOOLS):
            self._touched(parameters.get("file_path"), written=tool in _WRITE_TOOLS)
        if tool == READ_TOOL:
            self._read(parameters, ok)
        elif tool != LOAD_TOOL:
            self._note(f"the agent calls {tool} {short(parameters, 120)} ({event.get('status')})")
        elif ok:
            self._loaded(parameters, str(event.get("output") or ""))
        else:
            self._load_failed(parameters, mapping(event.get("error")))

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
            self._fire(name)
            self._note(f"activate_skill {name!r} loaded {short(folder or output, 120)} "
                       "(not one of the run's copies)")  # fmt: skip
            return
        activation = (
            f"the agent called activate_skill {name!r} and the CLI activated the target "
            f"from its own folder (line {self._line})"
        )
        self._copy_loaded(skill, f"activate_skill {name!r}", activation,
                          f" from {short(folder, 120)}")  # fmt: skip

    def _load_failed(self, parameters: dict[str, Any], error: dict[str, Any]) -> None:
        name = str(parameters.get("name"))
        kind = str(error.get("type") or "error")
        message = short(error.get("message") or "no message", 200)
        if kind in REFUSALS:
            self._note(f"activate_skill {name!r} refused by the CLI ({kind}): {message}")
            self._refuse(
                f"Gemini CLI refused the agent's activate_skill {name!r} ({kind}: "
                f"{message}), so no load could happen"
            )
            return
        self._note(f"activate_skill {name!r} failed ({kind}): {message}")

    def _warning(self, event: dict[str, Any]) -> None:
        message = str(event.get("message", ""))
        if self._status(message) == _THROTTLED_STATUS:
            self._throttle()
        self._note(f"{event.get('severity', 'error')}: {short(message, 200)}")

    def _result(self, event: dict[str, Any]) -> None:
        self._usage(mapping(event.get("stats")), ("input_tokens", "output_tokens", None, "cached"))
        self._stats = True
        if event.get("status") == "success":
            self._note("the run completed")
            return
        message = str(mapping(event.get("error")).get("message") or "no message")
        status = self._status(message)
        if _BAD_KEY in message and self._auth_status is None:
            self._auth_status = status or 400
        failed = short(message, 300)
        self._fail(f"the run failed: {failed}")
        self._note(f"the run failed: {failed}")

    EVENTS: ClassVar[Mapping[str, Handler]] = {
        "init": _init,
        "message": _message,
        "tool_use": _tool_use,
        "tool_result": _tool_result,
        "error": _warning,
        "result": _result,
    }


READER = GeminiReader
