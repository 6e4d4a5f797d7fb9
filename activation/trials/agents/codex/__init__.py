"""Codex (0.171.0): project skills, a `skills_instructions` list, loads by reading SKILL.md."""

from activation.trials.agents.record import Agent

AGENT = Agent(
    name="codex",
    title="Codex",
    package="@openai/codex@0.171.0",
    command="codex",
    flag="--codex",
    providers=("openai",),
    load_action="reading its SKILL.md with a shell command",
    instructions="""\
You are the skill router of an AI coding agent. The agent has skills: local instructions in \
a SKILL.md file, which it reads with a shell command when a user's request matches what a \
skill says it is for. The user's request follows. Decide which skills' SKILL.md the agent \
would read before doing anything else for this request: only skills whose description \
fits the request, possibly none. Answer with the skill names exactly as listed, the one it \
would read first first.

""",
    module=__name__,
    # codex-rs/core-skills/src/loader.rs: $HOME/.agents/skills, and the deprecated
    # $CODEX_HOME/skills (~/.codex/skills).
    user_skills=(".agents/skills", ".codex/skills"),
)
