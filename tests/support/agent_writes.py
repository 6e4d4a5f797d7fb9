"""Stage C's stand-in models: scripts that make a real agent CLI load a skill and change
files in its workspace its own way, then answer a final text; and `run_cli`, one run of an
adapter's command line with no backend around it.

A script is a list of steps, each one model turn:

- `Load(skill)`: the agent's own load. Claude Code calls `Skill` with the skill's id,
  OpenCode and Copilot CLI call `skill` with its name, Codex runs `cat
  .agents/skills/<folder>/SKILL.md`.
- `Write(path, content)`: a new file. Claude Code's `Write`, OpenCode's `write`, Codex's
  `apply_patch` (`*** Add File:`; a patch writes whole lines, so `content` must end with a
  newline). A path may be relative to the workspace, absolute, or lead out of it.
- `Replace(path, old, new)`: a change to a file already there (a scaffold's). Claude Code
  and OpenCode edit only a file the session has read, so it is a `Read` / `read` turn and
  then `Edit` / `edit`; Codex's is one `apply_patch` (`*** Update File:`).

`writes(agent, files, load_skill)` is the usual script: optionally the load, then every
file written, then the final text.
"""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from activation.trials.agent.adapter import Adapter, Run
from tests.support import messages_api, responses_api

DONE = "Done."


@dataclass(frozen=True)
class Load:
    skill: str
    """How the agent names it: Claude Code's skill id (`billing:refunds`), OpenCode's skill
    name, Codex's folder under `.agents/skills/`."""


@dataclass(frozen=True)
class Write:
    path: str
    content: str


@dataclass(frozen=True)
class Replace:
    path: str
    old: str
    new: str


Step: TypeAlias = Load | Write | Replace
Script: TypeAlias = messages_api.Script | responses_api.Script


def claude_code(steps: Sequence[Step], final: str = DONE) -> messages_api.Script:
    """Claude Code's agent loop (it offers `Skill`) by turn; side calls get text."""
    replies: list[messages_api.Reply] = []
    for step in steps:
        match step:
            case Load(skill):
                replies.append(messages_api.ToolUse("Skill", {"skill": skill}))
            case Write(path, content):
                replies.append(
                    messages_api.ToolUse("Write", {"file_path": path, "content": content})
                )
            case Replace(path, old, new):
                edit = {"file_path": path, "old_string": old, "new_string": new}
                replies += [
                    messages_api.ToolUse("Read", {"file_path": path}),
                    messages_api.ToolUse("Edit", edit),
                ]
    return _by_turn(replies, messages_api.Text(final), lambda r: r.is_main_loop)


def opencode(steps: Sequence[Step], final: str = DONE) -> messages_api.Script:
    """OpenCode's agent loop (a request that offers tools) by turn; others get text."""
    replies: list[messages_api.Reply] = []
    for step in steps:
        match step:
            case Load(skill):
                replies.append(messages_api.ToolUse("skill", {"name": skill}))
            case Write(path, content):
                write = {"filePath": path, "content": content}
                replies.append(messages_api.ToolUse("write", write))
            case Replace(path, old, new):
                edit = {"filePath": path, "oldString": old, "newString": new}
                replies += [
                    messages_api.ToolUse("read", {"filePath": path}),
                    messages_api.ToolUse("edit", edit),
                ]
    return _by_turn(replies, messages_api.Text(final), lambda r: bool(r.tool_names))


def copilot(steps: Sequence[Step], final: str = DONE) -> messages_api.Script:
    """GitHub Copilot CLI's agent loop (a request that offers tools) by turn; its file
    tools take absolute paths only, so a relative one is joined to the working directory
    its request names (a `../` one then still leads out of the workspace)."""

    def replies(workdir: str) -> list[messages_api.Reply]:
        made: list[messages_api.Reply] = []
        for step in steps:
            match step:
                case Load(skill):
                    made.append(messages_api.ToolUse("skill", {"skill": skill}))
                case Write(path, content):
                    create = {"path": posixpath.join(workdir, path), "file_text": content}
                    made.append(messages_api.ToolUse("create", create))
                case Replace(path, old, new):
                    where = posixpath.join(workdir, path)
                    made += [
                        messages_api.ToolUse("view", {"path": where}),
                        messages_api.ToolUse(
                            "edit", {"path": where, "old_str": old, "new_str": new}
                        ),
                    ]
        return made

    def script(request: messages_api.FakeRequest) -> messages_api.Reply:
        if not request.tool_names:
            return messages_api.Text("ok")
        found = _COPILOT_WORKDIR.search(json.dumps(request.body["system"]))
        assert found is not None, "no working directory in Copilot's request"
        made = replies(found.group(1))
        return made[request.turn] if request.turn < len(made) else messages_api.Text(final)

    return script


_COPILOT_WORKDIR = re.compile(r"Current working directory: (\S+?)(?:\\n|\s)")
"""Where Copilot CLI's request says it works (its environment context)."""


def _by_turn(
    replies: list[messages_api.Reply],
    final: messages_api.Reply,
    in_loop: Callable[[messages_api.FakeRequest], bool],
) -> messages_api.Script:
    """Each turn of the loop its reply, then `final` for ever (keyed on the conversation's
    own turn count, so a retried request gets the same answer)."""

    def script(request: messages_api.FakeRequest) -> messages_api.Reply:
        if not in_loop(request):
            return messages_api.Text("ok")
        return replies[request.turn] if request.turn < len(replies) else final

    return script


def codex(steps: Sequence[Step], final: str = DONE) -> responses_api.Script:
    """Codex by turn (the tool outputs so far), then `final` for ever."""
    replies: list[responses_api.Reply] = []
    for step in steps:
        match step:
            case Load(skill):
                replies.append(responses_api.Shell(f"cat .agents/skills/{skill}/SKILL.md"))
            case Write(path, content):
                replies.append(responses_api.Patch(add_file(path, content)))
            case Replace(path, old, new):
                replies.append(responses_api.Patch(update_file(path, old, new)))

    def script(request: responses_api.ResponsesRequest) -> responses_api.Reply:
        turn = request.turn
        return replies[turn] if turn < len(replies) else responses_api.Text(final)

    return script


def add_file(path: str, content: str) -> str:
    """An apply_patch that creates `path` holding `content` (whole lines)."""
    if not content.endswith("\n"):
        raise ValueError(f"apply_patch writes whole lines: end {path}'s content with a newline")
    lines = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch"


def update_file(path: str, old: str, new: str) -> str:
    """An apply_patch that replaces the lines `old` of `path` with the lines `new`."""
    removed = "".join(f"-{line}\n" for line in old.splitlines())
    added = "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{removed}{added}*** End Patch"


SCRIPTS: dict[str, Callable[..., Script]] = {
    "claude-code": claude_code,
    "opencode": opencode,
    "codex": codex,
    "copilot": copilot,
}


def writes(
    agent: str, files: Mapping[str, str], load_skill: str | None = None, final: str = DONE
) -> Script:
    """`agent` loads `load_skill` (when given) its own way, writes every file, then says
    `final`."""
    steps: list[Step] = [Load(load_skill)] if load_skill is not None else []
    steps += [Write(path, content) for path, content in files.items()]
    return SCRIPTS[agent](steps, final)


@dataclass(frozen=True)
class Finished:
    """What one run of a CLI left: its exit code and output."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(
    adapter: Adapter, run: Run, parent: Mapping[str, str], timeout: float = 120.0
) -> Finished:
    """Lay `run` out with `adapter` and run its command line in the workspace to the end."""
    launch = adapter.prepare(run, parent)
    done = subprocess.run(
        launch.argv,
        cwd=run.dirs.work,
        env=launch.env,
        input=launch.stdin if launch.stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Finished(done.returncode, done.stdout, done.stderr)
