"""The fake agent's CLI: `--version` says `fake-agent 1.0.0`; otherwise it reads the prompt
on stdin and writes JSON lines: a `start` event, a `load` event with the SKILL.md text of
each project skill under `.agents/skills/` whose folder name the prompt names as a word,
then an `end` event. Run as a script (through the `fake-agent` shim), standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

VERSION = "fake-agent 1.0.0"


def events(prompt: str, work: Path) -> list[dict[str, object]]:
    found: list[dict[str, object]] = [{"type": "start", "version": VERSION.split()[-1]}]
    for skill_file in sorted(work.glob(".agents/skills/*/SKILL.md")):
        folder = skill_file.parent.name
        if re.search(rf"\b{re.escape(folder)}\b", prompt):
            text = skill_file.read_text(encoding="utf-8")
            found.append({"type": "load", "skill": folder, "content": text})
    return [*found, {"type": "end", "cost_usd": 0.0}]


def main(argv: list[str]) -> int:
    if argv == ["--version"]:
        print(VERSION)
        return 0
    for event in events(sys.stdin.read(), Path.cwd()):
        print(json.dumps(event), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
