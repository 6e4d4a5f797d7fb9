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
from collections.abc import Mapping
from typing import Any, ClassVar

from activation.trials.agent.reading import CopiesReader, Handler, mapping, short
from activation.trials.agents.codex.listing import bundled_id

_THROTTLED_STATUSES = (429,)
_BUNDLED = re.compile(r"skills/\.system/([^/\s'\"\\]+)/SKILL\.md")
_RETRY = "Reconnecting..."
_DECLINED = "declined"
_SKILLS_DIR = ".agents/skills"
_TOOL_ITEMS = ("command_execution", "file_change", "mcp_tool_call", "web_search")
"""The items that are one of the model's tool calls (the rest are its text and warnings)."""


def skill_file_pattern(folder_name: str) -> re.Pattern[str]:
    """A command's mention of one skill's SKILL.md at the path Codex lists it by: relative
    to the workspace (bare, `./`, `$PWD/`) or under a run's workspace (`<run>/work/`)."""
    relative = re.escape(f"{_SKILLS_DIR}/{folder_name}/SKILL.md")
    return re.compile(
        rf"(?:^|[\s'\"=<])(?:\./|\$PWD/|\$\{{PWD\}}/|/[^\s'\"]*/work/)?{relative}(?!\w)"
    )


class CodexReader(CopiesReader):
    """An incremental reader of one Codex run's JSON lines for one target skill."""

    AGENT = "codex"
    START = "thread.started"
    SESSION = "thread_id"
    NOT_A_RUN = "no thread.started event: the output is not a Codex JSON run"
    NO_LOAD = "a command that returned {target!r}'s SKILL.md"

    LAST = "turn.completed"
    MEASURED = CopiesReader.MEASURED | CopiesReader.TOKENS
    """Its tokens, in `turn.completed`; no cost, and no event per model turn."""
    _completed = False

    def setup(self) -> None:
        self._nonces = [(copy.nonce, copy.id) for copy in self.copies if copy.nonce]
        self._target_file = skill_file_pattern(self.target.folder.name)
        self._tokens_known = False

    @property
    def saw_result(self) -> bool:
        return self._completed or self._failure is not None

    def _item_completed(self, event: dict[str, Any]) -> None:
        item = mapping(event.get("item"))
        kind = item.get("type")
        if kind in _TOOL_ITEMS:
            self._traced(item)
        if kind == "agent_message":
            self._writes(item.get("text"))
        elif kind == "error":
            self._note(f"warning: {short(item.get('message'), 200)}")
        elif kind == "command_execution":
            self._command(item)
        elif kind not in ("reasoning", None):
            self._note(f"item {kind}")

    def _traced(self, item: dict[str, Any]) -> None:
        """A tool item in the trajectory: a command (and what it read), the files a patch
        changed, an MCP tool by its own name."""
        kind = str(item.get("type"))
        if kind == "mcp_tool_call":
            # The name Codex's model calls it by: `mcp__<server>__<tool>` (adapter.py).
            self._called(f"mcp__{item.get('server')}__{item.get('tool')}", item.get("arguments"))
            return
        given = {
            key: value for key, value in item.items() if key in ("command", "changes", "query")
        }
        self._called(kind, given)
        if item.get("status") == _DECLINED:
            return
        self._ran(item.get("command"), read=item.get("exit_code") == 0)
        if item.get("status") == "completed":
            for change in item.get("changes") or ():
                self._touched(mapping(change).get("path"), written=True)

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
        self._returned("command_execution", output)
        loaded = sorted((output.index(nonce), id) for nonce, id in self._nonces if nonce in output)
        found = [] if loaded else _BUNDLED.findall(command)
        bundled = [bundled_id(name, self._ids) for name in found]
        if not loaded and not bundled:
            self._note(f"{ran}: no skill's SKILL.md came back")
            return
        names = ", ".join(id for _, id in loaded) or ", ".join(bundled)
        self._note(f"{ran}: returned the SKILL.md of {names}")
        activation = (
            f"the agent ran {short(command, 120)!r} and it returned the target's "
            f"SKILL.md, nonce included (line {self._line})"
        )
        for skill in [id for _, id in loaded] + bundled:
            self._fire(skill, activation if skill == self.target_id and loaded else None)

    def _failed_read(self, command: str, output: str, status: object, code: object) -> None:
        """A command on the target's own SKILL.md that Codex declined, or that failed with
        a message: a refused load (a search that found nothing prints nothing)."""
        if self._refused is not None or not self._target_file.search(command):
            return
        if self.target.nonce is not None and self.target.nonce in output:
            return
        if status == _DECLINED:
            self._refuse(
                f"Codex declined the agent's command reading the target's SKILL.md (line "
                f"{self._line}): {short(command, 120)!r}"
            )
        elif output.strip():
            self._refuse(
                f"the agent's command reading the target's SKILL.md failed (line {self._line}, "
                f"exit code {code}): {short(output, 200)}"
            )

    def _error(self, event: dict[str, Any]) -> None:
        message = str(event.get("message", ""))
        status = self._status(message)
        if message.startswith(_RETRY) and status in _THROTTLED_STATUSES:
            self._throttle()
        self._note(f"error: {short(message, 200)}")

    def _turn_completed(self, event: dict[str, Any]) -> None:
        names = ("input_tokens", "output_tokens", "cache_write_input_tokens", "cached_input_tokens")
        self._usage(mapping(event.get("usage")), names)
        self._completed = True
        self._note("turn completed")

    def _turn_failed(self, event: dict[str, Any]) -> None:
        error = event.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        failed = short(message or "no message", 300)
        self._status(failed)
        self._fail(f"the turn failed: {failed}")
        self._note(f"turn failed: {failed}")

    EVENTS: ClassVar[Mapping[str, Handler]] = {
        "item.completed": _item_completed,
        "error": _error,
        "turn.completed": _turn_completed,
        "turn.failed": _turn_failed,
    }


READER = CodexReader
