"""Gemini CLI (0.61.0): project skills, Agent Skills XML, an `activate_skill` tool,
`-p ... --output-format stream-json`."""

from activation.trials.agents.record import Agent, question

AGENT = Agent(
    name="gemini",
    title="Gemini CLI",
    package="@google/gemini-cli@0.61.0",
    command="gemini",
    providers=("google",),
    load_action="an `activate_skill` tool call",
    instructions=question(
        "specialized instructions it activates with the activate_skill tool",
        "skills the agent would activate with the activate_skill tool",
        "activate",
    ),
    module=__name__,
)
