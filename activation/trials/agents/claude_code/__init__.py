"""Claude Code (CLI 2.1.332): plugins and skills folders, a `Skill` tool, `stream-json`."""

from activation.trials.agents.record import Agent

AGENT = Agent(
    name="claude-code",
    title="Claude Code",
    package="@anthropic-ai/claude-code@2.1.332",
    command="claude",
    flag="--claude",
    providers=("anthropic",),
    load_action="a `Skill` tool call",
    instructions="""\
You are the skill router of an AI coding agent. The agent has skills: packaged instructions \
it loads with the Skill tool when a user's request matches what a skill says it is for. \
The user's request follows. Decide which skills the agent would invoke with the Skill tool \
before doing anything else for this request: only skills whose description fits the \
request, possibly none. Answer with the skill ids exactly as listed (without a name in \
parentheses), the one it would invoke first first.

""",
    module=__name__,
    # The user's skills folder (~/.claude/skills), as the CLI's docs and NOTES.md say.
    user_skills=(".claude/skills",),
)
