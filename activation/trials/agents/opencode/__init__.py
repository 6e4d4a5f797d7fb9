"""OpenCode (1.18.33): project skills, Agent Skills XML, a `skill` tool, `run --format json`."""

from activation.trials.agents.record import read_record

AGENT = read_record(__name__)
