"""GitHub Copilot CLI (1.0.102): project skills, Agent Skills XML in its `skill` tool's
guidance, a `skill` tool, `-p --output-format json` in its offline provider mode."""

from activation.trials.agents.record import read_record

AGENT = read_record(__name__)
