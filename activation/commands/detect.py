"""`activation detect FILE --skill ID [--json]`: the Stage B reading of a saved transcript.

Every Stage B trial keeps its stream-json transcript, and this command re-reads one with the
very detector the run used, so a person can check the verdict behind any trial (or read a
transcript captured by hand). Exit 0 for any reading, including `error`: the reading is the
answer. Exit 2 when the input is not a transcript at all (unreadable, no JSON events, no
init event), because then there is nothing to read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from activation._errors import ExitCode, InputError
from activation.commands.flags import DETECT
from activation.commands.session import Session
from activation.trials.agent.stream import Reading, read_stream


def render_reading(reading: Reading) -> str:
    """The plain-text form: reading, reason, figures, then the evidence lines."""
    lines = [f"reading: {reading.outcome}", f"reason: {reading.reason}"]
    figures = []
    if reading.num_turns is not None:
        figures.append(f"turns: {reading.num_turns}")
    if reading.cost_usd is not None:
        figures.append(f"cost: ${reading.cost_usd:.4f}")
    if figures:
        lines.append(", ".join(figures))
    if reading.evidence:
        lines.append("evidence:")
        lines.extend(f"  {item}" for item in reading.evidence)
    return "\n".join(lines)


def read_file(name: str, skill: str) -> Reading:
    if name == "-":
        return read_stream(sys.stdin.buffer, skill)
    try:
        with Path(name).open("rb") as handle:
            return read_stream(handle, skill)
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror}") from None


def main_detect(session: Session, argv: list[str]) -> int:
    args = DETECT.parse(argv)
    name = "stdin" if args.file == "-" else args.file
    reading = read_file(args.file, args.skill)
    if reading.events == 0:
        raise InputError(f"{name} holds no JSON events: not a transcript")
    if not reading.saw_init:
        raise InputError(
            f"{name} has no init event: not a Claude Code stream-json transcript "
            "(was it written with --output-format stream-json --verbose?)"
        )
    if args.json:
        payload = {"file": name, "skill": args.skill, **reading.to_dict()}
        text = orjson.dumps(payload).decode()
    else:
        text = render_reading(reading)
    session.out.print(text, markup=False, highlight=False, soft_wrap=True)
    return ExitCode.OK
