"""Codex (0.171.0): project skills, a `skills_instructions` list, loads by reading SKILL.md."""

from activation.trials.agents.record import Agent, question

AGENT = Agent(
    name="codex",
    title="Codex",
    package="@openai/codex@0.171.0",
    command="codex",
    providers=("openai",),
    load_action="reading its SKILL.md with a shell command",
    instructions=question(
        "local instructions in a SKILL.md file, which it reads with a shell command",
        "skills' SKILL.md the agent would read",
        "read",
    ),
    module=__name__,
    # codex-rs/core-skills/src/loader.rs: $HOME/.agents/skills, and the deprecated
    # $CODEX_HOME/skills (~/.codex/skills).
    user_skills=(".agents/skills", ".codex/skills"),
)
