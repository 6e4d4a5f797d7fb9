"""`activation detect FILE --skill ID [--json]`: the Stage B reading of a saved transcript.

Every Stage B trial keeps its stream-json transcript, and this command re-reads one with the
very detector the run used, so a person can check the verdict behind any trial (or read a
transcript captured by hand). Exit 0 for any reading, including `error`: the reading is the
answer. Exit 2 when the input is not a transcript at all (unreadable, no JSON events, no
init event), because then there is nothing to read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import BinaryIO, TextIO

import orjson

from activation.arguments import OneLineParser
from activation.detection import Reading, read_stream

EXIT_OK = 0
EXIT_NOT_A_TRANSCRIPT = 2


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="activation detect",
        description=(
            "Read a saved Claude Code stream-json transcript and say whether the skill was "
            "activated (a successful Skill tool call naming it)."
        ),
    )
    parser.add_argument("file", metavar="FILE", help="the transcript (.jsonl); '-' for stdin")
    parser.add_argument(
        "--skill",
        required=True,
        metavar="ID",
        help="the skill id, '<plugin>:<skill folder>' (the bare skill name is also matched)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


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


def main_detect(
    argv: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command; returns the exit code (argparse usage errors also give 2).

    The streams default to the process's; tests pass their own.
    """
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_NOT_A_TRANSCRIPT
    name = "stdin" if args.file == "-" else args.file
    try:
        if args.file == "-":
            reading = read_stream(stdin or sys.stdin.buffer, args.skill)
        else:
            with Path(args.file).open("rb") as handle:
                reading = read_stream(handle, args.skill)
    except OSError as error:
        print(f"activation detect: cannot read {name}: {error.strerror}", file=err)
        return EXIT_NOT_A_TRANSCRIPT
    if reading.events == 0:
        print(f"activation detect: {name} holds no JSON events: not a transcript", file=err)
        return EXIT_NOT_A_TRANSCRIPT
    if not reading.saw_init:
        print(
            f"activation detect: {name} has no init event: not a Claude Code stream-json "
            "transcript (was it written with --output-format stream-json --verbose?)",
            file=err,
        )
        return EXIT_NOT_A_TRANSCRIPT
    if args.json:
        payload = {"file": name, "skill": args.skill, **reading.to_dict()}
        out.write(orjson.dumps(payload).decode() + "\n")
    else:
        out.write(render_reading(reading) + "\n")
    return EXIT_OK
