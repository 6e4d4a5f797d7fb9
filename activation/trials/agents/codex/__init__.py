"""Codex (0.171.0): project skills, a `skills_instructions` list, loads by reading SKILL.md."""

from activation.trials.agents.record import read_record

AGENT = read_record(__name__)
