"""Claude Code (CLI 2.1.332): plugins and skills folders, a `Skill` tool, `stream-json`."""

from activation.trials.agents.record import read_record

AGENT = read_record(__name__)
