"""Gemini CLI (0.61.0): project skills, Agent Skills XML, an `activate_skill` tool,
`-p ... --output-format stream-json`."""

from activation.trials.agents.record import read_record

AGENT = read_record(__name__)
