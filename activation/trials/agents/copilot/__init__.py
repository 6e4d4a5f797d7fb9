"""GitHub Copilot CLI (1.0.102): project skills, Agent Skills XML in its `skill` tool's
guidance, a `skill` tool, `-p --output-format json` in its offline provider mode."""

from activation.trials.agents.record import Agent

AGENT = Agent(
    name="copilot",
    title="GitHub Copilot CLI",
    package="@github/copilot@1.0.102",
    command="copilot",
    flag="--copilot",
    providers=("anthropic", "openai"),
    load_action="a `skill` tool call",
    instructions="""\
You are the skill router of an AI coding agent. The agent has skills: packaged instructions \
it loads with the skill tool when a user's request matches what a skill says it is for. \
The user's request follows. Decide which skills the agent would load with the skill tool \
before doing anything else for this request: only skills whose description fits the \
request, possibly none. Answer with the skill names exactly as listed, the one it would \
load first first.

""",
    module=__name__,
)
