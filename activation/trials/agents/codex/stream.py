"""Reading Codex's `exec --json` output: did the agent really load the skill?

What Codex 0.171.0 writes (research/agents/NOTES.md 2.4-2.5, and the captures in
tests/fixtures/streams/codex/): `thread.started`, `turn.started`, then `item.started` /
`item.completed` per item (`command_execution`, `agent_message`, `error` warnings such as
the skills budget's), and last `turn.completed` with the usage, or `error` events and
`turn.failed` (exit 1). Retries show as `error` events "Reconnecting... k/5 (...)".

Codex has no skill tool: it loads a skill by reading its SKILL.md with a shell command (its
listing says where the file is), so the rules read `command_execution` items:

- **Activated** only when a command completed with exit code 0 and its
  `aggregated_output` (what went back to the model) holds the nonce of the target's copy:
  the target's own file came back, however the command was written (`cat`, `sed -n
  '1,200p'`, an absolute or a relative path, the shell wrapper around it). Every skill whose
  nonce is in one command's output fired, in the order their content appears.
- **Refused** (an ERROR with Codex's reason, never a "did not activate"): a command naming
  the target's SKILL.md by the path Codex lists (`.agents/skills/<folder>/SKILL.md`, as
  written or under the workspace's absolute path) that Codex declined (`status:
  declined`, its word for a command an approval refused) or that ran and failed with a
  message (`status: failed` or a non-zero exit code, a non-empty output without the
  nonce). The file is installed there, so such a command failed because the agent could
  not read it: the model chose the skill and the load did not happen, so the trial says
  nothing about the description. A search of the file that found nothing (exit code 1, no
  output) is no failure. What the stream cannot show: a command Codex's own rules reject
  before it runs (an execpolicy `forbidden` rule, a write the sandbox stops) makes no item
  at all (measured on 0.171.0: only the model is told), so such a refusal reads as no load.
- **Not activated**: prose about the skill, a command that failed on another path (a
  missing file, a mistyped folder), listing the skills folder (`ls`), a `grep` of
  descriptions, reading only the frontmatter (no nonce), reading another skill (that skill
  fired) or one of Codex's bundled skills (`skills/.system/<name>/SKILL.md`, fired by name).
- **Error** (never a vote): `turn.failed` (the API failed; 401/403 are a refused key, read
  from the first retry, which aborts the whole run), no `thread.started`, no
  `turn.completed`, a corrupt event line, a non-zero exit code. Whether the target is
  listed at all Codex does not say in its stream: the backend checks its listing first.

Codex reports tokens only in `turn.completed`: a run stopped at the load has unknown tokens
(`Reading.tokens_known`), and no cost (Codex reports none).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from activation.trials.agent.adapter import Settled
from activation.trials.agent.installed import SkillSet
from activation.trials.agent.reading import JsonLines, Outcome, Reading, decided, short
from activation.trials.agents.codex.listing import bundled_id

_AUTH_STATUSES = (401, 403)
_THROTTLED_STATUSES = (429,)
_STATUS = re.compile(r"\bstatus:? (\d{3})\b")
_BUNDLED = re.compile(r"skills/\.system/([^/\s'\"\\]+)/SKILL\.md")
_RETRY = "Reconnecting..."
_DECLINED = "declined"
_SKILLS_DIR = ".agents/skills"


def skill_file_pattern(folder_name: str) -> re.Pattern[str]:
    """A command's mention of one skill's SKILL.md at the path Codex lists it by: relative
    to the workspace (bare, `./`, `$PWD/`) or under a run's workspace (`<run>/work/`)."""
    relative = re.escape(f"{_SKILLS_DIR}/{folder_name}/SKILL.md")
    return re.compile(
        rf"(?:^|[\s'\"=<])(?:\./|\$PWD/|\$\{{PWD\}}/|/[^\s'\"]*/work/)?{relative}(?!\w)"
    )


class CodexReader(JsonLines):
    """An incremental reader of one Codex run's JSON lines for one target skill."""

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
        self._nonces = [(skill.nonce, skill.id) for skill in skills.skills if skill.nonce]
        self._ids = {skill.id for skill in skills.skills}
        self._fired: list[str] = []
        self._activation: str | None = None
        self._refused: str | None = None
        self._target_file = skill_file_pattern(self.target.folder.name)
        self._auth_status: int | None = None
        self._throttled = 0
        self._started = False
        self._failed: str | None = None
        self._usage: dict[str, Any] | None = None

    @property
    def decided(self) -> bool:
        return self._settled(tuple(self._fired)) or self._auth_status is not None

    @property
    def saw_result(self) -> bool:
        return self._usage is not None or self._failed is not None

    @property
    def auth_status(self) -> int | None:
        return self._auth_status

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "thread.started":
            self._started = True
        elif kind == "item.completed" and isinstance(event.get("item"), dict):
            self._item(event["item"])
        elif kind == "error":
            self._error(str(event.get("message", "")))
        elif kind == "turn.completed":
            usage = event.get("usage")
            self._usage = usage if isinstance(usage, dict) else {}
            self._note("turn completed")
        elif kind == "turn.failed":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            self._failed = short(message or "no message", 300)
            self._status(self._failed)
            self._note(f"turn failed: {self._failed}")

    def _item(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "agent_message" and str(item.get("text", "")).strip():
            self._note(f"the agent writes {short(item['text'], 100)!r}")
        elif kind == "error":
            self._note(f"warning: {short(item.get('message'), 200)}")
        elif kind == "command_execution":
            self._command(item)
        elif kind != "reasoning":
            self._note(f"item {kind}")

    def _command(self, item: dict[str, Any]) -> None:
        command = str(item.get("command", ""))
        output = item.get("aggregated_output")
        output = output if isinstance(output, str) else ""
        code, status = item.get("exit_code"), item.get("status")
        ran = f"the agent runs {short(command, 120)!r}"
        if status != "completed" or code != 0:
            self._note(f"{ran}: failed (status {status}, exit code {code})")
            self._failed_read(command, output, status, code)
            return
        loaded = sorted((output.index(nonce), id) for nonce, id in self._nonces if nonce in output)
        found = [] if loaded else _BUNDLED.findall(command)
        bundled = [bundled_id(name, self._ids) for name in found]
        for skill in [id for _, id in loaded] + bundled:
            self._fired.append(skill)
        if not loaded and not bundled:
            self._note(f"{ran}: no skill's SKILL.md came back")
            return
        names = ", ".join(id for _, id in loaded) or ", ".join(bundled)
        self._note(f"{ran}: returned the SKILL.md of {names}")
        if self._activation is None and any(id == self.target.id for _, id in loaded):
            self._activation = (
                f"the agent ran {short(command, 120)!r} and it returned the target's "
                f"SKILL.md, nonce included (line {self._line})"
            )

    def _failed_read(self, command: str, output: str, status: object, code: object) -> None:
        """A command on the target's own SKILL.md that Codex declined, or that failed with
        a message: a refused load (a search that found nothing prints nothing)."""
        if self._refused is not None or not self._target_file.search(command):
            return
        if self.target.nonce is not None and self.target.nonce in output:
            return
        if status == _DECLINED:
            self._refused = (
                f"Codex declined the agent's command reading the target's SKILL.md (line "
                f"{self._line}): {short(command, 120)!r}"
            )
        elif output.strip():
            self._refused = (
                f"the agent's command reading the target's SKILL.md failed (line {self._line}, "
                f"exit code {code}): {short(output, 200)}"
            )

    def _error(self, message: str) -> None:
        status = self._status(message)
        if message.startswith(_RETRY) and status in _THROTTLED_STATUSES:
            self._throttled += 1
            self._on_throttle()
        self._note(f"error: {short(message, 200)}")

    def _status(self, message: str) -> int | None:
        """The HTTP status a message names; a refused key is remembered."""
        found = _STATUS.search(message)
        status = int(found.group(1)) if found else None
        if status in _AUTH_STATUSES and self._auth_status is None:
            self._auth_status = status
        return status

    def reading(self, exit_code: int | None = None) -> Reading:
        outcome, reason = self._verdict(exit_code)
        usage = self._usage or {}
        cached = int(usage.get("cached_input_tokens") or 0)
        return Reading(
            outcome=outcome,
            reason=reason,
            evidence=self._evidence_lines(),
            cost_usd=None,
            num_turns=None,
            input_tokens=int(usage.get("input_tokens") or 0) - cached,
            output_tokens=int(usage.get("output_tokens") or 0),
            saw_init=self._started,
            saw_result=self.saw_result,
            events=self._events,
            skipped_lines=self._skipped,
            auth_status=self._auth_status,
            cache_write_tokens=int(usage.get("cache_write_input_tokens") or 0),
            cache_read_tokens=cached,
            throttled=self._throttled,
            fired=tuple(self._fired),
            tokens_known=self._usage is not None,
        )

    def _verdict(self, exit_code: int | None) -> tuple[Outcome, str]:
        if not self._started:
            return "error", "no thread.started event: the output is not a Codex JSON run"
        fired = tuple(self._fired)
        found = decided(self._activation, self._auth_status, self._corrupt, fired,
                        bool(fired) and self._settled(fired), self.target.id)  # fmt: skip
        if found is not None and (found[0] == "activated" or self._refused is None):
            return found
        if self._refused is not None:
            return "error", self._refused
        if self._failed is not None:
            return "error", f"the turn failed: {self._failed}"
        if self._usage is None:
            return "error", "the run ended without a turn.completed event"
        if exit_code not in (None, 0):
            return "error", f"codex exited with code {exit_code}"
        return "not_activated", (
            f"the run completed without a command that returned {self.target.id!r}'s SKILL.md"
        )
