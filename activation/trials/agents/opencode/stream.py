"""Reading OpenCode's `run --format json` output: did the agent really load the skill?

What OpenCode 1.18.33 writes (research/agents/NOTES.md 1.4-1.5, and the captures in
tests/fixtures/streams/opencode/): one JSON object per line, `step_start` (one model
request begins), `tool_use` (a tool call once it has finished, with its state), `text`,
`step_finish` (with the step's tokens and cost) and `error` (an API failure, then exit 1).
There is no init event and no result event: the stream ends when the process exits.

The rules, and why:

- **Activated** only by the agent's own load action for the target: a `skill` tool call
  whose `state.status` is `completed` and whose `state.output` holds the nonce of the
  target's copy. The output is the skill's body as the tool returned it to the model
  (`<skill_content name=...>` with the body, frontmatter removed), so the nonce proves that
  the target's own file came back, not another skill of the same name. The call names the
  skill by its frontmatter `name`; it is mapped back to the skill's id.
- **Refused** (an ERROR with OpenCode's reason, never a "did not activate"): a `skill`
  call naming the target that ended in `status: error`. The target is installed, so the
  tool could only fail to load it because OpenCode would not: a permission rule that
  denies it ("The user has specified a rule which prevents you from using this specific
  tool call"), or an `ask` that `opencode run` answers by itself with a rejection ("The
  user rejected permission to use this specific tool call"). The model chose the skill and
  the agent did not let it load, so the trial says nothing about the description.
- **Not activated**: prose about the skill, a `read` (or `glob`, `grep`) of its files (a
  read is not how OpenCode loads a skill: its listing tells the model to use the skill
  tool), a skill call for a name the run did not install that failed (`status: error`,
  e.g. "Skill ... not found"), a call for another skill or for OpenCode's built-in
  `customize-opencode`.
- **Error** (never a vote): an `error` event (the API failed; 401/403 are a refused key,
  which aborts the whole run), no event at all, a corrupt event line, a non-zero exit code.
  Whether the target is offered at all cannot be read here (no init event): the backend
  checks OpenCode's listing before any run (`OpenCode.check`).

The run can stop once the skills fired settle the case and the step that fired them has
finished (`step_finish` follows the tool's event at once), so its tokens and cost are in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from activation.trials.agent.installed import SkillCopy
from activation.trials.agent.reading import CopiesReader, Handler, mapping, short

_LOOKS = ("read", "glob", "grep", "list", "bash")
"""Tools that only look at files: noted in the evidence, never a load."""
_FILES = {"read": False, "write": True, "edit": True}
"""Its file tools (`filePath`), and whether each writes."""


class OpenCodeReader(CopiesReader):
    """An incremental reader of one OpenCode run's JSON lines for one target skill."""

    AGENT = "opencode"
    SESSION = "sessionID"
    NOT_A_RUN = "no events: the output is not an OpenCode JSON run"

    MEASURED = CopiesReader.MEASURED | CopiesReader.TOKENS | {"turns"}
    """Each step's tokens and cost in `step_finish`; a turn is a step."""
    _in_step = False
    _settled_at_step_end = False

    def loaded_by(self, skill: SkillCopy) -> str | None:
        """Its frontmatter `name` (OpenCode lists no skill without one)."""
        return skill.name

    @property
    def decided(self) -> bool:
        """Once the step that settled the case has finished (its tokens and cost are in)."""
        return self._settled_at_step_end or self._auth_status is not None

    def event(self, event: dict[str, Any]) -> None:
        super().event(event)
        if not self._in_step and not self._settled_at_step_end:
            self._settled_at_step_end = self._settled(tuple(self._fired))

    def _step_start(self, event: dict[str, Any]) -> None:
        self._model_calls += 1
        self._in_step = True

    def _step_finish(self, event: dict[str, Any]) -> None:
        part = mapping(event.get("part"))
        self._in_step = False
        tokens = part.get("tokens")
        if isinstance(tokens, dict):
            cache = mapping(tokens.get("cache"))
            counts = (tokens.get("input"), tokens.get("output"), cache.get("write"),
                      cache.get("read"))  # fmt: skip
            for index, count in enumerate(counts):
                self._tokens[index] += int(count or 0)
        cost = part.get("cost")
        if isinstance(cost, int | float):
            self._cost = (self._cost or 0.0) + float(cost)

    def _text(self, event: dict[str, Any]) -> None:
        self._writes(mapping(event.get("part")).get("text"))

    def _tool(self, event: dict[str, Any]) -> None:
        part = mapping(event.get("part"))
        tool = part.get("tool")
        state = mapping(part.get("state"))
        tool_input = mapping(state.get("input"))
        status = state.get("status")
        self._called(str(tool), tool_input)
        if status == "completed":
            self._returned(str(tool), state.get("output"))
        if tool == "bash":
            self._ran(tool_input.get("command"))
        elif tool in _FILES and status == "completed":
            self._touched(tool_input.get("filePath"), written=_FILES[str(tool)])
        if tool in _LOOKS:
            self._note(f"the agent calls {tool} {short(tool_input, 120)} ({status})")
            return
        if tool != "skill":
            self._note(f"the agent calls {tool} ({status})")
            return
        name = tool_input.get("name")
        name = name if isinstance(name, str) else repr(name)
        skill = self._by_name.get(name)
        if status != "completed":
            reason = short(state.get("error") or status, 200)
            self._note(f"skill {name!r} failed: {reason}")
            if skill is self.target:
                self._refuse(
                    f"OpenCode refused to load {name!r} (line {self._line}, status {status}): "
                    f"{reason}"
                )
            return
        output = state.get("output")
        output = output if isinstance(output, str) else ""
        if skill is None:  # the built-in skill, or one this run did not install
            self._fire(name)
            self._note(f"skill {name!r} loaded (not one of the run's copies)")
            return
        if skill.nonce is None or skill.nonce not in output:
            self._note(f"skill {name!r} completed, but its output lacks {skill.id}'s nonce")
            return
        activation = (
            f"the agent called skill {name!r} and it returned the target's SKILL.md, "
            f"nonce included (line {self._line})"
        )
        self._copy_loaded(skill, f"skill {name!r}", activation, f": {short(output, 120)}")

    def _error(self, event: dict[str, Any]) -> None:
        error = mapping(event.get("error"))
        data = mapping(error.get("data"))
        self._api_error(data.get("statusCode"), data.get("message"), error.get("name"))

    EVENTS: ClassVar[Mapping[str, Handler]] = {
        "step_start": _step_start,
        "step_finish": _step_finish,
        "tool_use": _tool,
        "text": _text,
        "error": _error,
    }


READER = OpenCodeReader
