"""What the agent did, read from every agent's stream into one `Trajectory`: the captures
in tests/fixtures/streams/ (each CLI's own lines) and small streams in each CLI's format
with the work tools (a shell command, a write), exact; which figures each agent's stream
gives (never a missing one as 0); a command's reads; paths made relative to the workspace."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import orjson
import pytest

from activation._models import ToolCall, Trajectory
from activation.trials.agent.adapter import read_through
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agent.reading import AgentReader, in_workspace, shell_reads
from activation.trials.agents.claude_code.stream import StreamReader, read_stream
from activation.trials.agents.codex.stream import CodexReader
from activation.trials.agents.copilot.stream import CopilotReader
from activation.trials.agents.gemini.stream import GeminiReader
from activation.trials.agents.opencode.stream import OpenCodeReader

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"
SKILLS_ROOT = Path("/tmp/demo/work/.agents/skills")
TARGET = SkillCopy("billing:refunds", SKILLS_ROOT / "refunds", "refunds", "1ed1a0429b0d7a77")
SKILLS = SkillSet(Path("/tmp/demo/copy/payments"), True, CatalogCopy(), (TARGET,))
TOKENS = {"input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"}
ALWAYS = {"tool_calls", "seconds"}
SKILL_FILE = "/tmp/demo/work/.agents/skills/refunds/SKILL.md"

Reader = type[CodexReader] | type[GeminiReader] | type[OpenCodeReader] | type[CopilotReader]


def capture(name: str) -> list[bytes]:
    return (STREAMS / name).read_bytes().splitlines()


def events(*items: Mapping[str, object]) -> list[bytes]:
    return [orjson.dumps(item) for item in items]


def test_claude_codes_capture_keeps_the_call_and_not_a_denied_read() -> None:
    did = read_stream(capture("read-denied.jsonl"), "auth0:auth0").trajectory
    path = "/tmp/demo/plugins/auth0/skills/auth0/SKILL.md"
    assert did == Trajectory(
        tool_calls=(ToolCall("Read", orjson.dumps({"file_path": path}).decode()),),
        turns=2,
        measured=frozenset(ALWAYS | TOKENS | {"turns"}),
    )


def claude(*blocks: Mapping[str, object], results: tuple[str, ...] = ()) -> list[bytes]:
    """A Claude Code run: the init, one assistant message per tool call, its results, the
    result event with its turns."""
    init = {"type": "system", "subtype": "init", "tools": ["Skill"], "skills": ["a:b"]}
    calls = [{"type": "assistant", "message": {"id": f"m{n}", "content": [block]}}
             for n, block in enumerate(blocks)]  # fmt: skip
    done = [{"type": "user", "message": {"content": [{"type": "tool_result",
             "tool_use_id": use, "content": "ok"}]}} for use in results]  # fmt: skip
    result = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 4}
    return events(init, *calls, *done, result)


def test_claude_codes_work_tools_are_commands_reads_and_writes() -> None:
    bash = {
        "type": "tool_use",
        "id": "u1",
        "name": "Bash",
        "input": {"command": "python scripts/validate.py && cat references/api.md"},
    }
    write = {
        "type": "tool_use",
        "id": "u2",
        "name": "Write",
        "input": {"file_path": "/w/app.py", "content": "x"},
    }
    read = {"type": "tool_use", "id": "u3", "name": "Read", "input": {"file_path": "/w/a.md"}}
    stream = claude(bash, write, read, bash, results=("u1", "u2", "u3"))  # fmt: skip
    did = read_stream(stream, "a:b").trajectory
    assert [call.name for call in did.tool_calls] == ["Bash", "Write", "Read"]
    assert did.tool_calls[0].input == (
        '{"command":"python scripts/validate.py && cat references/api.md"}'
    )
    assert did.commands == ("python scripts/validate.py && cat references/api.md",)
    assert did.files_read == ("references/api.md", "/w/a.md")
    assert did.files_written == ("/w/app.py",)
    assert did.turns == 4


def test_a_claude_run_without_its_result_has_no_turns() -> None:
    did = read_stream(claude()[:-1], "a:b").trajectory
    assert (did.turns, "turns" in did.measured) == (None, False)


def test_codexs_capture_reads_the_file_a_command_printed() -> None:
    reading = read_through(CodexReader(SKILLS), capture("codex/shell-sed-absolute.jsonl"), 0)
    command = "/bin/bash -lc \"sed -n '1,200p' \\\"\"'$PWD/.agents/skills/refunds/SKILL.md\"'"
    assert reading.trajectory == Trajectory(
        tool_calls=(ToolCall("command_execution", orjson.dumps({"command": command}).decode()),),
        commands=(command,),
        files_read=(".agents/skills/refunds/SKILL.md",),
        measured=frozenset(ALWAYS | TOKENS),
    )


def test_codexs_patches_are_writes_and_a_run_cut_short_has_no_tokens() -> None:
    change = {
        "type": "item.completed",
        "item": {
            "id": "i1",
            "type": "file_change",
            "changes": [{"path": "/w/app.py", "kind": "add"}],
            "status": "completed",
        },
    }
    declined = {
        "type": "item.completed",
        "item": {
            "id": "i2",
            "type": "command_execution",
            "command": "cat x.md",
            "status": "declined",
            "exit_code": None,
        },
    }
    stream = events({"type": "thread.started"}, {"type": "turn.started"}, change, declined)
    did = read_through(CodexReader(SKILLS), stream, None).trajectory
    assert did.files_written == ("/w/app.py",)
    assert (did.commands, did.files_read) == ((), ())
    assert [call.name for call in did.tool_calls] == ["file_change", "command_execution"]
    assert did.measured == frozenset(ALWAYS)


@pytest.mark.parametrize(
    ("reader", "name", "call", "read", "turns", "measured"),
    [
        (GeminiReader, "gemini/read-target.jsonl", ToolCall("read_file",
         '{"file_path":".agents/skills/refunds/SKILL.md"}'), ".agents/skills/refunds/SKILL.md",
         None, ALWAYS | {"input_tokens", "cache_read_tokens", "output_tokens"}),
        (OpenCodeReader, "opencode/read-target.jsonl", ToolCall("read",
         f'{{"filePath":"{SKILL_FILE}"}}'), SKILL_FILE, 2, ALWAYS | TOKENS | {"turns"}),
        (CopilotReader, "copilot/view-target.jsonl", ToolCall("view",
         f'{{"path":"{SKILL_FILE}"}}'), SKILL_FILE, 2, ALWAYS | {"turns"}),
    ],
)  # fmt: skip
def test_each_agents_capture_is_one_trajectory(
    reader: Reader, name: str, call: ToolCall, read: str, turns: int | None, measured: set[str]
) -> None:
    did = read_through(reader(SKILLS), capture(name), 0).trajectory
    assert did == Trajectory(tool_calls=(call,), files_read=(read,), turns=turns,
                             measured=frozenset(measured))  # fmt: skip


def test_geminis_shell_and_writes() -> None:
    stream = events(
        {"type": "init", "model": "m"},
        {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "t1",
         "parameters": {"command": "head -n 20 references/api.md"}},
        {"type": "tool_result", "tool_id": "t1", "status": "success", "output": "x"},
        {"type": "tool_use", "tool_name": "write_file", "tool_id": "t2",
         "parameters": {"file_path": "app.py", "content": "x"}},
        {"type": "tool_result", "tool_id": "t2", "status": "error", "output": ""},
        {"type": "result", "status": "success", "stats": {"input_tokens": 1}},
    )  # fmt: skip
    did = read_through(GeminiReader(SKILLS), stream, 0).trajectory
    assert did.commands == ("head -n 20 references/api.md",)
    assert (did.files_read, did.files_written) == (("references/api.md",), ())


def test_opencodes_and_copilots_shell_and_writes() -> None:
    def tool(name: str, given: dict[str, str]) -> dict[str, object]:
        state = {"status": "completed", "input": given, "output": ""}
        return {"type": "tool_use", "part": {"type": "tool", "tool": name, "state": state}}

    opencode = events({"type": "step_start"}, tool("bash", {"command": "python s.py"}),
                      tool("write", {"filePath": "/w/app.py"}))  # fmt: skip
    did = read_through(OpenCodeReader(SKILLS), opencode, 0).trajectory
    assert (did.commands, did.files_written, did.turns) == (("python s.py",), ("/w/app.py",), 1)

    def start(call: str, name: str, given: dict[str, str]) -> dict[str, object]:
        data = {"toolCallId": call, "toolName": name, "arguments": given}
        return {"type": "tool.execution_start", "data": data}

    def complete(call: str, success: bool) -> dict[str, object]:
        return {"type": "tool.execution_complete", "data": {"toolCallId": call, "success": success}}

    copilot = events(start("c1", "bash", {"command": "ls"}), complete("c1", True),
                     start("c2", "create", {"path": "/w/a.py"}), complete("c2", True),
                     start("c3", "create", {"path": "/w/b.py"}), complete("c3", False))  # fmt: skip
    did = read_through(CopilotReader(SKILLS), copilot, 0).trajectory
    assert (did.commands, did.files_written) == (("ls",), ("/w/a.py",))
    assert [call.name for call in did.tool_calls] == ["bash", "create", "create"]


@pytest.mark.parametrize(
    ("command", "reads"),
    [
        ("cat references/api.md", ("references/api.md",)),
        ("/bin/bash -lc 'cat a.md b.md | head -n 20'", ("a.md", "b.md")),
        ("sed -n '1,80p' \"$PWD/x/SKILL.md\" && tail -5 ./log.txt", ("x/SKILL.md", "log.txt")),
        ("awk '{print $1}' data.csv; python run.py notes.md", ("data.csv",)),
        ("echo 'unclosed", ()),
        ("head -n 20", ()),
    ],
)
def test_the_files_a_shell_command_reads(command: str, reads: tuple[str, ...]) -> None:
    assert shell_reads(command) == reads


def test_a_kept_trajectory_names_workspace_files_relative_to_it_and_a_known_cost() -> None:
    did = Trajectory(
        files_read=("/tmp/w/a.md", "/elsewhere/b.md"),
        files_written=("/private/tmp/w/c.py",),
        measured=frozenset(ALWAYS),
    )
    kept = in_workspace(did, ("/tmp/w", "/private/tmp/w"), cost_known=True)
    assert kept.files_read == ("a.md", "/elsewhere/b.md")
    assert kept.files_written == ("c.py",)
    assert kept.measured == frozenset(ALWAYS | {"cost_usd"})
    assert in_workspace(did, ("/tmp/w",), cost_known=False).measured == frozenset(ALWAYS)


@pytest.mark.parametrize(
    ("reader", "figures"),
    [
        (StreamReader, ALWAYS | TOKENS | {"turns"}),
        (CodexReader, ALWAYS | TOKENS),
        (GeminiReader, ALWAYS | {"input_tokens", "cache_read_tokens", "output_tokens"}),
        (OpenCodeReader, ALWAYS | TOKENS | {"turns"}),
        (CopilotReader, ALWAYS | {"turns"}),
    ],
)
def test_the_figures_each_agents_stream_gives_as_the_docs_say(
    reader: type[AgentReader], figures: set[str]
) -> None:
    assert figures == reader.MEASURED
