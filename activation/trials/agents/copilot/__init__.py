"""GitHub Copilot CLI (1.0.102): project skills, Agent Skills XML in its `skill` tool's
guidance, a `skill` tool, `-p --output-format json` in its offline provider mode."""

from activation.trials.agents.record import Agent, question

AGENT = Agent(
    name="copilot",
    title="GitHub Copilot CLI",
    package="@github/copilot@1.0.102",
    command="copilot",
    providers=("anthropic", "openai"),
    load_action="a `skill` tool call",
    instructions=question(
        "packaged instructions it loads with the skill tool",
        "skills the agent would load with the skill tool",
        "load",
    ),
    module=__name__,
)
