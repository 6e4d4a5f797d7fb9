"""`activation detect FILE --skill ID [--agent NAME] [--json]`: the Stage B reading of a
saved transcript.

Every Stage B trial keeps its agent's event stream, and this command re-reads one with the
very detector the run used, so a person can check the verdict behind any trial (or read a
Claude Code transcript captured by hand). OpenCode's and Codex's detectors count a load
only when the copy's nonce came back, so they read the run's record of its skills, kept
beside its transcripts (`skills-<variant>.json`). Exit 0 for any reading, including
`error`: the reading is the answer (`--exit-code` gives the agent's exit code where its
stream alone cannot say the run finished). Exit 2 when the input is not a transcript at all
(unreadable, no JSON events, no init event), because then there is nothing to read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from activation._config import AGENT
from activation._errors import ExitCode, InputError
from activation._models import VariantName
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


def lines_of(name: str) -> list[bytes]:
    if name == "-":
        return sys.stdin.buffer.read().splitlines(keepends=True)
    try:
        return Path(name).read_bytes().splitlines(keepends=True)
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror}") from None


def read_agent(
    name: str, lines: list[bytes], skill: str, agent: str, exit_code: int | None
) -> Reading:
    """The reading of another agent's transcript, with the skills its run recorded."""
    from activation.inputs.load import read_json
    from activation.trials.agent.adapter import adapter_for, read_through
    from activation.trials.agent.backend import skills_file_name
    from activation.trials.agent.installed import skills_from_record

    if name == "-":
        raise InputError(f"--agent {agent}: pass the transcript's path, not '-'")
    path = Path(name)
    variant: VariantName = "baseline" if path.name.startswith("baseline-") else "candidate"
    record = path.parent.parent / skills_file_name(variant)
    if not record.is_file():
        raise InputError(
            f"{record}: missing; a {agent} transcript is read with the skills record its run "
            "kept beside the transcripts"
        )
    skills = skills_from_record(read_json(record, "skills record"), skill, str(record))
    reader = adapter_for(agent).reader(skills, lambda fired: skill in fired, lambda: None)
    return read_through(reader, lines, exit_code)


def main_detect(session: Session, argv: list[str]) -> int:
    args = DETECT.parse(argv)
    name = "stdin" if args.file == "-" else args.file
    lines = lines_of(args.file)
    if args.agent == AGENT:
        reading = read_stream(lines, args.skill, args.exit_code)
        if reading.events == 0:
            raise InputError(f"{name} holds no JSON events: not a transcript")
        if not reading.saw_init:
            raise InputError(
                f"{name} has no init event: not a Claude Code stream-json transcript "
                "(was it written with --output-format stream-json --verbose?)"
            )
    else:
        reading = read_agent(args.file, lines, args.skill, args.agent, args.exit_code)
        if reading.events == 0:
            raise InputError(f"{name} holds no JSON events: not a transcript")
    if args.json:
        payload = {"file": name, "skill": args.skill, **reading.to_dict()}
        text = orjson.dumps(payload).decode()
    else:
        text = render_reading(reading)
    session.out.print(text, markup=False, highlight=False, soft_wrap=True)
    return ExitCode.OK
