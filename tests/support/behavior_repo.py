"""The bundled behavior example (examples/behavior) as a user's repo, and a model at a local
stand-in that does its tasks the way the skill it loaded teaches, for each real agent CLI.

The repo holds the greetlib plugin and its evals, committed; the working tree's SKILL.md is
the candidate (the committed one, or `edits/broken-body.md`: the same description over a
body that teaches the removed 1.x API). The scripted model reads what the Skill call brought
back: the 2.x body makes it write the right answer (`solutions/right`), the 1.x body the
wrong one (`solutions/v1`), no skill at all a guess that never uses greetlib. It reads the
file first and then writes it whole, as Claude Code's Write tool requires. The judge's
requests (a structured answer, no tools) are answered by what the files hold; the `llm` arm's
one request (no tools) gets the guess in a code block.

The same model for OpenCode (`opencode_does_the_task`, at the Messages API stand-in): its
own `skill` tool loads the skill, and its body is that call's result; then `read` and
`write`, which also writes only a file the session has read. For Codex
(`codex_does_the_task`, at the Responses API stand-in): the load is its shell's
`cat .agents/skills/greetlib/SKILL.md`, the body that command's output, and the answer one
`apply_patch` that replaces the scaffold's lines with the solution's. Codex's judge and
`llm` arm are an `openai:` model at the same stand-in: requests that are no stream, the
judge's with a JSON schema for its answer. For GitHub Copilot CLI (`copilot_does_the_task`,
at the Messages API stand-in): its `skill` tool loads the skill (the body comes back as a
`<skill-context>` message), then `view` and `edit` rewrite the file whole. For Gemini CLI
(`gemini_does_the_task`, at the Gemini API stand-in): `activate_skill`, then `write_file`;
its judge and `llm` arm are a `google:` model there, requests that are no stream, the
judge's asking for JSON.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import orjson

from tests.support import gemini_api, responses_api
from tests.support.agent_writes import update_file
from tests.support.messages_api import FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import commit_all

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "behavior"
SKILL_ID = "greetlib:greetlib"
SKILL_FILE = Path("plugins/greetlib/skills/greetlib/SKILL.md")
BROKEN_BODY = EXAMPLE / "edits" / "broken-body.md"
FOLDERS = {"welcome_banner": "welcome-banner", "configure_once": "configure-once",
           "batch_cards": "batch-cards"}  # fmt: skip
FILES = {"welcome_banner": "app.py", "configure_once": "server.py", "batch_cards": "cards.py"}
GUESS = "def todo():\n    return 'I do not know greetlib, so here is a plain greeting.'\n"
"""What the agent writes without the skill: it has never seen greetlib's API."""
LOADED = "Base directory for this skill"
"""How Claude Code starts a loaded skill's body in the conversation."""
CODEX_LOAD = "cat .agents/skills/greetlib/SKILL.md"
"""Codex's load of the skill: a look at its file."""
_WORKDIR = re.compile(r"Primary working directory: (\S+?)(?:\\n|\s)")
COPILOT_WORKDIR = re.compile(r"Current working directory: (\S+?)(?:\\n|\s)")


def example_repo(root: Path, *, broken: bool = False) -> Path:
    """The example committed at `root`; with `broken`, the working tree's SKILL.md is the
    broken body (the candidate)."""
    root.mkdir(parents=True)
    for part in ("plugins", "evals"):
        shutil.copytree(EXAMPLE / part, root / part)
    commit_all(root, "greetlib and its evals").close()
    if broken:
        shutil.copyfile(BROKEN_BODY, root / SKILL_FILE)
    return root


def case_of(prompt: str) -> str:
    """Which example case a prompt is (each names its file)."""
    return next(case for case, file in FILES.items() if file in prompt)


def workdir(request: FakeRequest, said: re.Pattern[str] = _WORKDIR) -> str:
    """The run's workspace, as the agent's system prompt `said` it."""
    found = said.search(orjson.dumps(request.body).decode())
    assert found is not None, "no working directory in the request"
    return found.group(1)


def taught(request: FakeRequest) -> str | None:
    """Which API the body the agent loaded teaches: "right" (2.x, its heading says so),
    "v1" (any other greetlib body), or None (no skill loaded)."""
    for message in request.messages:
        text = orjson.dumps(message.get("content")).decode()
        if LOADED in text:
            return "right" if "# greetlib 2" in text else "v1"
    return None


def teaches(body: str) -> str:
    """Which API a loaded greetlib body teaches: the 2.x one's heading says so."""
    return "right" if "# greetlib 2" in body else "v1"


def scaffold(case: str) -> str:
    """The case's file as the workspace starts with it."""
    return (EXAMPLE / "evals" / FOLDERS[case] / "scaffold" / FILES[case]).read_text()


def solution(kind: str | None, case: str) -> str:
    if kind is None:
        return GUESS
    return (EXAMPLE / "solutions" / kind / FOLDERS[case] / FILES[case]).read_text()


def verdict(prompt: str) -> str:
    """The judge's answer (as JSON): YES when the files use greetlib's 2.x API, NO
    otherwise."""
    text = prompt.partition("The workspace's files:")[2]
    right = "import greetlib" in text and not re.search(r"\b(hello|hello_all|init)\(", text)
    return orjson.dumps({"reasoning": "scripted", "verdict": "YES" if right else "NO"}).decode()


def judged(request: FakeRequest) -> Reply:
    """The judge at the Messages API stand-in."""
    return Text(verdict(request.prompt))


def calls(request: FakeRequest) -> list[dict[str, Any]]:
    """Every tool call the conversation so far holds, oldest first."""
    return [
        block
        for message in request.messages
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


def does_the_task(request: FakeRequest) -> Reply:
    """Claude Code at work: load the skill when it is offered (unless the prompt already
    brought its body: `--invoke`), read the file, write the answer the loaded body teaches,
    then say it is done."""
    if request.schema is not None:
        return judged(request)
    if not request.tool_names:  # the llm arm: one answer, no agent, no skill
        return Text(f"```python\n{GUESS}```")
    case = case_of(request.prompt)
    path = f"{workdir(request)}/{FILES[case]}"
    used = [call.get("name") for call in calls(request)]
    if not used and SKILL_ID in request.menu and taught(request) is None:
        return ToolUse("Skill", {"skill": SKILL_ID})
    if "Read" not in used:
        return ToolUse("Read", {"file_path": path})
    if "Write" not in used:
        return ToolUse("Write", {"file_path": path, "content": solution(taught(request), case)})
    return Text("Done.")


def opencode_taught(request: FakeRequest) -> str | None:
    """Which API the body OpenCode's `skill` call brought back teaches (None: no load)."""
    loads = {call.get("id") for call in calls(request) if call.get("name") == "skill"}
    for result in request.tool_results:
        if result.get("tool_use_id") in loads:
            return teaches(orjson.dumps(result.get("content")).decode())
    return None


def opencode_does_the_task(request: FakeRequest) -> Reply:
    """OpenCode at work (a request that offers tools): load the skill when its listing
    holds it, read the file, write the answer the loaded body teaches, say it is done."""
    if request.schema is not None:
        return judged(request)
    if not request.tool_names:  # the llm arm (OpenCode's own side requests are off)
        return Text(f"```python\n{GUESS}```")
    case = case_of(request.prompt)
    (system,) = request.body["system"]
    used = [call.get("name") for call in calls(request)]
    offered = "<name>greetlib</name>" in str(system["text"])
    if not used and offered and "skill" in request.tool_names:
        return ToolUse("skill", {"name": "greetlib"})
    if "read" not in used:
        return ToolUse("read", {"filePath": FILES[case]})
    if "write" not in used:
        content = solution(opencode_taught(request), case)
        return ToolUse("write", {"filePath": FILES[case], "content": content})
    return Text("Done.")


def codex_taught(request: responses_api.ResponsesRequest) -> str | None:
    """Which API the SKILL.md Codex's `cat` printed teaches (None: it printed none)."""
    for output in request.tool_outputs:
        if "name: greetlib" in output:
            return teaches(output)
    return None


def codex_calls(request: responses_api.ResponsesRequest) -> str:
    """Every tool call the conversation so far holds, as JSON text."""
    return orjson.dumps(
        [item for item in request.input if str(item.get("type", "")).endswith("call")]
    ).decode()


def codex_does_the_task(request: responses_api.ResponsesRequest) -> responses_api.Reply:
    """Codex at work (a streamed request): `cat` the skill when its listing holds it,
    patch the file to the answer the body it printed teaches, say it is done. A request
    that is no stream is the `openai:` judge's (a JSON schema for its answer) or the `llm`
    arm's."""
    if request.body.get("stream") is not True:
        if (request.body.get("text") or {}).get("format"):
            return responses_api.Text(verdict(request.prompt))
        return responses_api.Text(f"```python\n{GUESS}```")
    case = case_of(request.prompt)
    done = codex_calls(request)
    offered = "- greetlib: " in (request.listing or "")
    if offered and request.turn == 0:
        return responses_api.Shell(CODEX_LOAD)
    if "*** Begin Patch" not in done:
        patch = update_file(FILES[case], scaffold(case), solution(codex_taught(request), case))
        return responses_api.Patch(patch)
    return responses_api.Text("Done.")


def copilot_taught(request: FakeRequest) -> str | None:
    """Which API the body Copilot brought into the conversation teaches (its
    `<skill-context>` message), or None when no skill was loaded."""
    for message in request.messages[1:]:
        text = orjson.dumps(message.get("content")).decode()
        if "<skill-context" in text:
            return teaches(text)
    return None


def copilot_does_the_task(request: FakeRequest) -> Reply:
    """Copilot CLI at work: `skill` when greetlib is listed, `view` the file, `edit` it whole
    into what the loaded body teaches, then say it is done."""
    if request.schema is not None:
        return judged(request)
    if not request.tool_names:  # the llm arm
        return Text(f"```python\n{GUESS}```")
    case = case_of(request.prompt)
    path = f"{workdir(request, COPILOT_WORKDIR)}/{FILES[case]}"
    results = len(request.tool_results)
    offered = "<name>greetlib</name>" in orjson.dumps(request.body["system"]).decode()
    if offered and results == 0:
        return ToolUse("skill", {"skill": "greetlib"})
    steps = results - (1 if offered else 0)
    if steps == 0:
        return ToolUse("view", {"path": path})
    if steps == 1:
        return ToolUse("edit", {"path": path, "old_str": scaffold(case),
                                "new_str": solution(copilot_taught(request), case)})  # fmt: skip
    return Text("Done.")


def gemini_judge(request: gemini_api.GeminiRequest) -> bool:
    """Whether a Gemini API request is the judge's: no stream, a JSON answer asked for."""
    config = request.body.get("generationConfig") or {}
    return not request.stream and config.get("responseMimeType") == "application/json"


def gemini_taught(request: gemini_api.GeminiRequest) -> str | None:
    """Which API the activated body teaches (None: no `activate_skill` brought one)."""
    for response in request.function_responses:
        output = str((response.get("response") or {}).get("output", ""))
        if response.get("name") == "activate_skill" and "<activated_skill" in output:
            return teaches(output)
    return None


def gemini_does_the_task(request: gemini_api.GeminiRequest) -> gemini_api.Reply:
    """Gemini CLI at work: activate the skill when it is listed, write the answer the body
    teaches, then say it is done. A request that is no stream is the judge's or the `llm`
    arm's."""
    if gemini_judge(request):
        return gemini_api.Text(verdict(request.prompt))
    if not request.stream:
        return gemini_api.Text(f"```python\n{GUESS}```")
    case = case_of(request.prompt)
    listed = "<name>greetlib</name>" in request.system
    if listed and request.turn == 0:
        return gemini_api.Call("activate_skill", {"name": "greetlib"})
    if request.turn == (1 if listed else 0):
        content = solution(gemini_taught(request), case)
        return gemini_api.Call("write_file", {"file_path": FILES[case], "content": content})
    return gemini_api.Text("Done.")
