"""`activation detect FILE --skill ID [--agent NAME] [--json]`: the Stage B reading of a
saved transcript.

Every Stage B trial keeps its agent's event stream, and this command re-reads one with the
very detector the run used (the agent's own), so a person can check the verdict behind any
trial. A detector that counts a load only when the copy's nonce came back reads the run's
record of its skills, kept beside its transcripts (`skills-<variant>.json`); one whose
stream names the skill it loaded (Claude Code) also reads a transcript captured by hand.
Exit 0 for any reading, including `error`: the reading is the answer (`--exit-code` gives
the agent's exit code where its stream alone cannot say the run finished). Exit 2 when the
input is not a transcript at all (unreadable, no JSON events, no start event), because then
there is nothing to read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from activation._errors import ExitCode, InputError
from activation._models import VariantName
from activation.commands.flags import DETECT
from activation.commands.session import Session
from activation.trials.agent.adapter import read_through
from activation.trials.agent.installed import SkillSet
from activation.trials.agent.reading import Reading
from activation.trials.agents import agent_named
from activation.trials.agents.record import Agent


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


def skills_of(name: str, skill: str, agent: Agent) -> SkillSet:
    """The skills a transcript's run installed: the record its run kept beside its
    transcripts; without one, the skill alone, for an agent whose stream names what it
    loads (a transcript captured by hand)."""
    from activation.inputs.load import read_json
    from activation.trials.agent.backend import skills_file_name
    from activation.trials.agent.installed import named_only, skills_from_record

    path = Path(name)
    variant: VariantName = "baseline" if path.name.startswith("baseline-") else "candidate"
    record = path.parent.parent / skills_file_name(variant)
    if name != "-" and record.is_file():
        return skills_from_record(read_json(record, "skills record"), skill, str(record))
    if not agent.adapter().marks_copies:
        return named_only(skill)
    where = "pass the transcript's path, not '-'" if name == "-" else f"{record} is missing"
    raise InputError(
        f"--agent {agent.name}: a {agent.title} transcript is read with the skills record its "
        f"run kept beside the transcripts ({where})"
    )


def main_detect(session: Session, argv: list[str]) -> int:
    args = DETECT.parse(argv)
    name = "stdin" if args.file == "-" else args.file
    lines = lines_of(args.file)
    agent = agent_named(args.agent)
    skills = skills_of(args.file, args.skill, agent)
    reader = agent.adapter().reader(skills, lambda fired: args.skill in fired, lambda: None)
    reading = read_through(reader, lines, args.exit_code)
    if reading.events == 0:
        raise InputError(f"{name} holds no JSON events: not a transcript")
    if not reading.saw_init:
        raise InputError(f"{name} has no start event: not a {agent.title} transcript")
    if args.json:
        payload = {"file": name, "skill": args.skill, **reading.to_dict()}
        text = orjson.dumps(payload).decode()
    else:
        text = render_reading(reading)
    session.out.print(text, markup=False, highlight=False, soft_wrap=True)
    return ExitCode.OK
