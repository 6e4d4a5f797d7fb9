"""OpenCode (1.18.33): project skills, Agent Skills XML, a `skill` tool, `run --format json`."""

from activation.trials.agents.record import Agent

AGENT = Agent(
    name="opencode",
    title="OpenCode",
    package="opencode-ai@1.18.33",
    command="opencode",
    flag="--opencode",
    providers=("anthropic",),
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
    # packages/opencode/src/skill/index.ts discoverSkills: ~/.config/opencode/skills and the
    # external ~/.claude/skills and ~/.agents/skills.
    user_skills=(".config/opencode/skills", ".claude/skills", ".agents/skills"),
)
