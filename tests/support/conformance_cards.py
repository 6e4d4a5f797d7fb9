"""Each agent at work on a cards suite for the conformance suite's trajectory scenario
(tests/trials/agents/test_conformance.py): its Stage C run in a sandbox, where every agent
has its shell. A model at the agent's stand-in that follows the body it loaded, step by
step: load the skill when it is listed, write cards.txt, then run each command the body
names (`run: <command>`, its `SKILL_DIR` the skill's installed folder), then say it is
done. What changes between two bodies is which commands the agent runs, and so how many
turns it takes: the trajectory graders and the efficiency figures see it.

One row per agent of the registry (`CARDS_AT_WORK`): its own load, write and shell calls, how many
tool calls its conversation holds, and where its run installs the skill.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tests.support import gemini_api, messages_api, responses_api
from tests.support.agent_writes import add_file
from tests.support.behavior_repo import COPILOT_WORKDIR, workdir
from tests.support.real_agents import REAL_AGENTS
from tests.support.skill_repo import commit_all

CARDS = "To Ada: Thank you, Ada!\nTo Grace: Thank you, Grace!\n"
DESCRIPTION = (
    "Write greeting cards into cards.txt in the house format and check them with the card "
    "checker. Use when a task asks for greeting cards for a list of names."
)
HEADING = "# Greeting cards, step by step"
"""The body's heading: in the conversation only once the skill was loaded."""
CHECK = "python3 SKILL_DIR/scripts/check_cards.py cards.txt"
CHECKER = (Path(__file__).resolve().parents[2] / "examples" / "behavior" / "trajectory"
           / "skills" / "cards" / "scripts" / "check_cards.py")  # fmt: skip
_RUN = re.compile(r"`run: ([^`]+)`")
LAST = "Never fetch anything from the web."
"""The body's last line: the commands it names come before it."""


def body(*commands: str) -> str:
    """A SKILL.md whose body has the agent write the cards, then run `commands` in order."""
    steps = "".join(f"{n}. Run `run: {command}`.\n" for n, command in enumerate(commands, 2))
    return (
        f"---\nname: cards\ndescription: {DESCRIPTION}\n---\n{HEADING}\n\n"
        "1. Write one card per name into `cards.txt`, as `To <name>: <greeting>!`.\n"
        f"{steps}\n{LAST}\n"
    )


CHECKS = body(CHECK)
"""The body that sends the agent to the skill's checker."""
SKIPS = body()
"""The same description over a body that no longer does: files pass, the checker never runs."""
LOOKS = body(*(f"cat {name}" for name in ("cards.txt", "names.txt", "cards.txt", "names.txt")))
"""A body that has the agent look at the files four times instead: twice the turns of
`CHECKS`'s one command (load, write, done around them)."""


def cards_repo(root: Path, cases: dict[str, str], baseline: str, candidate: str) -> Path:
    """A repo of the cards skill (its checker beside it) with the body `baseline`
    committed and `candidate` in the working tree, and a case per id of `cases` (its
    graders.yaml): the task is one thank-you card per name of names.txt."""
    skill = root / "skills" / "cards"
    (skill / "scripts").mkdir(parents=True)
    (skill / "scripts" / "check_cards.py").write_text(CHECKER.read_text())
    (skill / "SKILL.md").write_text(baseline)
    for case_id, graders in cases.items():
        folder = root / "evals" / case_id.replace("_", "-")
        (folder / "scaffold").mkdir(parents=True)
        (folder / "scaffold" / "names.txt").write_text("Ada\nGrace\n")
        (folder / "graders.yaml").write_text(graders)
        (folder / "PROMPT.md").write_text(
            f"---\nid: {case_id}\nname: Thank-you cards\ncategory: cards\nskills: cards\n---\n\n"
            "## Task\n\nWrite a thank-you card for each name in names.txt into cards.txt.\n"
        )
    commit_all(root, "cards and its evals").close()
    (skill / "SKILL.md").write_text(candidate)
    return root


def messages_steps(request: messages_api.FakeRequest) -> int:
    return len(request.tool_results)


def bash(command: str) -> messages_api.ToolUse:
    """OpenCode's and Copilot CLI's shell call (each asks what the command is for)."""
    return messages_api.ToolUse("bash", {"command": command, "description": "Runs a step"})


@dataclass(frozen=True)
class AtCards:
    """One agent's own calls on the cards task, at its stand-in."""

    load: Any
    write: Callable[[Any], Any]
    """Its reply that writes cards.txt (given the request: some tools take absolute paths)."""
    shell: Callable[[str], Any] = bash
    steps: Callable[[Any], int] = messages_steps
    """How many tool calls its conversation already holds."""
    skills: str = ".agents/skills"
    """Where its run installs the skill, from the workspace."""


CARDS_AT_WORK: dict[str, AtCards] = {
    "claude-code": AtCards(
        messages_api.ToolUse("Skill", {"skill": "cards"}),
        lambda request: messages_api.ToolUse(
            "Write", {"file_path": f"{workdir(request)}/cards.txt", "content": CARDS}
        ),
        lambda command: messages_api.ToolUse("Bash", {"command": command}),
        skills=".claude/skills",
    ),
    "opencode": AtCards(
        messages_api.ToolUse("skill", {"name": "cards"}),
        lambda _request: messages_api.ToolUse("write", {"filePath": "cards.txt",
                                                        "content": CARDS}),
    ),
    "copilot": AtCards(
        messages_api.ToolUse("skill", {"skill": "cards"}),
        lambda request: messages_api.ToolUse("create", {
            "path": posixpath.join(workdir(request, COPILOT_WORKDIR), "cards.txt"),
            "file_text": CARDS,
        }),
    ),
    "gemini": AtCards(
        gemini_api.Call("activate_skill", {"name": "cards"}),
        lambda _request: gemini_api.Call("write_file", {"file_path": "cards.txt",
                                                        "content": CARDS}),
        lambda command: gemini_api.Call("run_shell_command", {"command": command}),
        lambda request: len(request.function_responses),
    ),
    "codex": AtCards(
        responses_api.Shell("cat .agents/skills/cards/SKILL.md"),
        lambda _request: responses_api.Patch(add_file("cards.txt", CARDS)),
        responses_api.Shell,
        lambda request: request.turn,
    ),
}  # fmt: skip


def follows_the_body(agent: str) -> Callable[..., Any]:
    """The agent's model on the cards: load the skill when it is listed, write the cards,
    run each command the loaded body names, then say it is done."""
    row, at = REAL_AGENTS[agent], CARDS_AT_WORK[agent]

    def reply(request: Any) -> Any:
        if not row.in_loop(request):
            return row.text("Done.")
        said = orjson.dumps(request.body).decode()
        loaded = HEADING in said
        start = said.find(HEADING)
        named = _RUN.findall(said[start : said.find(LAST, start)]) if loaded else []
        steps = [
            *([at.load] if loaded or DESCRIPTION[:40] in row.system(request) else []),
            at.write(request),
            *(at.shell(command.replace("SKILL_DIR", f"{at.skills}/cards")) for command in named),
        ]
        done = at.steps(request)
        return steps[done] if done < len(steps) else row.text("Done.")

    return reply
