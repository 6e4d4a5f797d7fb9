"""Gemini CLI (0.61.0): project skills, Agent Skills XML, an `activate_skill` tool,
`-p ... --output-format stream-json`."""

from activation.trials.agents.record import Agent

AGENT = Agent(
    name="gemini",
    title="Gemini CLI",
    package="@google/gemini-cli@0.61.0",
    command="gemini",
    flag="--gemini",
    providers=("google",),
    load_action="an `activate_skill` tool call",
    instructions="""\
You are the skill router of an AI coding agent. The agent has skills: specialized \
instructions it activates with the activate_skill tool when a user's request matches what \
a skill says it is for. The user's request follows. Decide which skills the agent would \
activate with the activate_skill tool before doing anything else for this request: only \
skills whose description fits the request, possibly none. Answer with the skill names \
exactly as listed, the one it would activate first first.

""",
    module=__name__,
)
