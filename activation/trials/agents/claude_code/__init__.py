"""Claude Code (CLI 2.1.332): plugins and skills folders, a `Skill` tool, `stream-json`."""

from activation.trials.agents.record import Agent, question

AGENT = Agent(
    name="claude-code",
    title="Claude Code",
    package="@anthropic-ai/claude-code@2.1.332",
    command="claude",
    providers=("anthropic",),
    load_action="a `Skill` tool call",
    instructions=question(
        "packaged instructions it loads with the Skill tool",
        "skills the agent would invoke with the Skill tool",
        "invoke",
        "ids exactly as listed (without a name in parentheses)",
    ),
    module=__name__,
    # The user's skills folder (~/.claude/skills), as the CLI's docs and NOTES.md say.
    user_skills=(".claude/skills",),
)
