"""The fake agent's CLI: `--version` says `fake-agent 1.0.0`; otherwise it reads the prompt
on stdin and writes JSON lines: a `start` event, a `load` event with the SKILL.md text of
each project skill under `.agents/skills/` whose folder name the prompt names as a word,
a `read` event with the text of each file the prompt names by its absolute path (its tool
that reads a file: the agent canary's), then an `end` event. Run as a script (through the
`fake-agent` shim), standard library only.

With `--work` (Stage C) it also does what it is told: every line `WRITE <path>: <text>` of
the prompt, then of each SKILL.md it loaded, writes `<text>` and a newline to `<path>`
(relative to the workspace, its working directory), and says so in a `write` event; a
path that leads outside the workspace is refused (`"ok": false`), nothing written, as the
real agents' permissions and sandboxes refuse it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

VERSION = "fake-agent 1.0.0"
WORK = "--work"
WRITE = re.compile(r"^WRITE (?P<path>[^:\n]+): (?P<text>.*)$", re.MULTILINE)


def events(prompt: str, work: Path, *, writes: bool = False) -> list[dict[str, object]]:
    found: list[dict[str, object]] = [{"type": "start", "version": VERSION.split()[-1]}]
    told = [prompt]
    for skill_file in sorted(work.glob(".agents/skills/*/SKILL.md")):
        folder = skill_file.parent.name
        if re.search(rf"\b{re.escape(folder)}\b", prompt):
            text = skill_file.read_text(encoding="utf-8")
            found.append({"type": "load", "skill": folder, "content": text})
            told.append(text)
    for word in prompt.split():
        if word.startswith("/") and Path(word).is_file():
            found.append({"type": "read", "path": word, "content": Path(word).read_text()})
    if writes:
        found += [write(work, order["path"], order["text"])
                  for text in told for order in WRITE.finditer(text)]  # fmt: skip
    return [*found, {"type": "end", "cost_usd": 0.0}]


def write(work: Path, path: str, text: str) -> dict[str, object]:
    """Write `text` to `path` when it stays inside `work`."""
    root = work.resolve()
    target = (root / path).resolve()
    inside = target.is_relative_to(root)
    if inside:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n", encoding="utf-8")
    return {"type": "write", "path": path, "ok": inside}


def main(argv: list[str]) -> int:
    if argv == ["--version"]:
        print(VERSION)
        return 0
    for event in events(sys.stdin.read(), Path.cwd(), writes=WORK in argv):
        print(json.dumps(event), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
