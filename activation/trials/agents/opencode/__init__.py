"""OpenCode (1.18.33): project skills, Agent Skills XML, a `skill` tool, `run --format json`."""

from activation.trials.agents.record import Agent, question

AGENT = Agent(
    name="opencode",
    title="OpenCode",
    package="opencode-ai@1.18.33",
    command="opencode",
    providers=("anthropic",),
    load_action="a `skill` tool call",
    instructions=question(
        "packaged instructions it loads with the skill tool",
        "skills the agent would load with the skill tool",
        "load",
    ),
    module=__name__,
    # packages/opencode/src/skill/index.ts discoverSkills: ~/.config/opencode/skills and the
    # external ~/.claude/skills and ~/.agents/skills.
    user_skills=(".config/opencode/skills", ".claude/skills", ".agents/skills"),
)
