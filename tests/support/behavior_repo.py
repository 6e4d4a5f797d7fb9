"""The bundled behavior example (examples/behavior) as a user's repo, and a model at the local
Messages API stand-in that does its tasks the way the skill it loaded teaches.

The repo holds the greetlib plugin and its evals, committed; the working tree's SKILL.md is
the candidate (the committed one, or `edits/broken-body.md`: the same description over a
body that teaches the removed 1.x API). The scripted model reads what the Skill call brought
back: the 2.x body makes it write the right answer (`solutions/right`), the 1.x body the
wrong one (`solutions/v1`), no skill at all a guess that never uses greetlib. It reads the
file first and then writes it whole, as Claude Code's Write tool requires. The judge's
requests (a structured answer, no tools) are answered by what the files hold; the `llm` arm's
one request (no tools) gets the guess in a code block.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import git
import orjson

from tests.support.messages_api import FakeRequest, Reply, Text, ToolUse

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
_WORKDIR = re.compile(r"Primary working directory: (\S+?)(?:\\n|\s)")


def example_repo(root: Path, *, broken: bool = False) -> Path:
    """The example committed at `root`; with `broken`, the working tree's SKILL.md is the
    broken body (the candidate)."""
    root.mkdir(parents=True)
    for part in ("plugins", "evals"):
        shutil.copytree(EXAMPLE / part, root / part)
    repo = git.Repo.init(root, initial_branch="main")
    try:
        with repo.config_writer() as config:
            config.set_value("user", "name", "Test")
            config.set_value("user", "email", "test@example.invalid")
            config.set_value("commit", "gpgsign", "false")
        repo.git.add(all=True)
        repo.index.commit("greetlib and its evals")
    finally:
        repo.close()
    if broken:
        shutil.copyfile(BROKEN_BODY, root / SKILL_FILE)
    return root


def case_of(prompt: str) -> str:
    """Which example case a prompt is (each names its file)."""
    return next(case for case, file in FILES.items() if file in prompt)


def workdir(request: FakeRequest) -> str:
    found = _WORKDIR.search(orjson.dumps(request.body).decode())
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


def solution(kind: str | None, case: str) -> str:
    if kind is None:
        return GUESS
    return (EXAMPLE / "solutions" / kind / FOLDERS[case] / FILES[case]).read_text()


def judged(request: FakeRequest) -> Reply:
    """The judge: YES when the files use greetlib's 2.x API, NO otherwise."""
    text = request.prompt.partition("The workspace's files:")[2]
    right = "import greetlib" in text and not re.search(r"\b(hello|hello_all|init)\(", text)
    verdict = "YES" if right else "NO"
    return Text(orjson.dumps({"reasoning": "scripted", "verdict": verdict}).decode())


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
    used = [
        block.get("name")
        for message in request.messages
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]
    if not used and SKILL_ID in request.menu and taught(request) is None:
        return ToolUse("Skill", {"skill": SKILL_ID})
    if "Read" not in used:
        return ToolUse("Read", {"file_path": path})
    if "Write" not in used:
        return ToolUse("Write", {"file_path": path, "content": solution(taught(request), case)})
    return Text("Done.")
