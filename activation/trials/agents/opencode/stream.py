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

from collections.abc import Callable
from typing import Any

from activation.trials.agent.adapter import Settled
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.reading import JsonLines, Outcome, Reading, decided, short

_AUTH_STATUSES = (401, 403)
_LOOKS = ("read", "glob", "grep", "list", "bash")
"""Tools that only look at files: noted in the evidence, never a load."""


class OpenCodeReader(JsonLines):
    """An incremental reader of one OpenCode run's JSON lines for one target skill."""

    def __init__(
        self,
        skills: SkillSet,
        settled: Settled | None = None,
        on_throttle: Callable[[], None] = lambda: None,
    ) -> None:
        super().__init__()
        self.target = skills.target
        self._settled = settled or (lambda fired: self.target.id in fired)
        self._by_name: dict[str, SkillCopy] = {}
        for skill in skills.skills:
            if skill.name is not None:
                self._by_name.setdefault(skill.name, skill)
        self._fired: list[str] = []
        self._activation: str | None = None
        self._auth_status: int | None = None
        self._error: str | None = None
        self._refused: str | None = None
        self._steps = 0
        self._in_step = False
        self._tokens = [0, 0, 0, 0]  # input, output, cache write, cache read
        self._cost: float | None = None
        self._settled_at_step_end = False

    @property
    def decided(self) -> bool:
        return self._settled_at_step_end or self._auth_status is not None

    @property
    def saw_result(self) -> bool:
        """OpenCode writes no last event: the stream ends with the process."""
        return False

    @property
    def auth_status(self) -> int | None:
        return self._auth_status

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        part = _mapping(event.get("part"))
        if kind == "step_start":
            self._steps += 1
            self._in_step = True
        elif kind == "step_finish":
            self._step_finish(part)
        elif kind == "tool_use":
            self._tool(part)
        elif kind == "text" and str(part.get("text", "")).strip():
            self._note(f"the agent writes {short(part['text'], 100)!r}")
        elif kind == "error":
            self._failure(event.get("error"))
        if not self._in_step and not self._settled_at_step_end:
            self._settled_at_step_end = self._settled(tuple(self._fired))

    def _step_finish(self, part: dict[str, Any]) -> None:
        self._in_step = False
        tokens = part.get("tokens")
        if isinstance(tokens, dict):
            cache = _mapping(tokens.get("cache"))
            counts = (tokens.get("input"), tokens.get("output"), cache.get("write"),
                      cache.get("read"))  # fmt: skip
            for index, count in enumerate(counts):
                self._tokens[index] += int(count or 0)
        cost = part.get("cost")
        if isinstance(cost, int | float):
            self._cost = (self._cost or 0.0) + float(cost)

    def _tool(self, part: dict[str, Any]) -> None:
        tool = part.get("tool")
        state = _mapping(part.get("state"))
        tool_input = _mapping(state.get("input"))
        status = state.get("status")
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
            if skill is self.target and self._refused is None:
                self._refused = (
                    f"OpenCode refused to load {name!r} (line {self._line}, status {status}): "
                    f"{reason}"
                )
            return
        output = state.get("output")
        output = output if isinstance(output, str) else ""
        if skill is None:  # the built-in skill, or one this run did not install
            self._fired.append(name)
            self._note(f"skill {name!r} loaded (not one of the run's copies)")
            return
        if skill.nonce is None or skill.nonce not in output:
            self._note(f"skill {name!r} completed, but its output lacks {skill.id}'s nonce")
            return
        self._fired.append(skill.id)
        if skill is not self.target:
            self._note(f"skill {name!r} loaded {skill.id} (another skill)")
            return
        self._note(f"skill {name!r} loaded the target: {short(output, 120)}")
        if self._activation is None:
            self._activation = (
                f"the agent called skill {name!r} and it returned the target's SKILL.md, "
                f"nonce included (line {self._line})"
            )

    def _failure(self, error: object) -> None:
        error = _mapping(error)
        data = _mapping(error.get("data"))
        status = data.get("statusCode")
        message = short(data.get("message") or error.get("name") or "no message", 300)
        if status in _AUTH_STATUSES and self._auth_status is None:
            self._auth_status = int(status)
        prefix = f"API error {status}" if status is not None else str(error.get("name", "error"))
        self._note(f"error: {prefix}: {message}")
        if self._error is None:
            self._error = f"{prefix}: {message}"

    def reading(self, exit_code: int | None = None) -> Reading:
        outcome, reason = self._verdict(exit_code)
        input_tokens, output_tokens, cache_write, cache_read = self._tokens
        return Reading(
            outcome=outcome,
            reason=reason,
            evidence=self._evidence_lines(),
            cost_usd=self._cost,
            num_turns=self._steps or None,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            saw_init=self._events > 0,
            saw_result=False,
            events=self._events,
            skipped_lines=self._skipped,
            auth_status=self._auth_status,
            model_calls=self._steps,
            cache_write_tokens=cache_write,
            cache_read_tokens=cache_read,
            fired=tuple(self._fired),
        )

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        if self._events == 0:
            return "error", "no events: the output is not an OpenCode JSON run"
        fired = tuple(self._fired)
        found = decided(self._activation, self._auth_status, self._corrupt, fired,
                        bool(fired) and self._settled(fired), self.target.id)  # fmt: skip
        if found is not None and (found[0] == "activated" or self._refused is None):
            return found
        if self._refused is not None:
            return "error", self._refused
        if self._error is not None:
            return "error", self._error
        if exit_code is None:
            return "error", "the run did not finish (no exit code)"
        if exit_code != 0:
            return "error", f"opencode exited with code {exit_code}"
        return "not_activated", (
            f"the run completed without a successful skill call for {self.target.id!r}"
        )


def _mapping(value: object) -> dict[str, Any]:
    """An event's object field, or an empty one when it is missing or of another type."""
    return value if isinstance(value, dict) else {}
