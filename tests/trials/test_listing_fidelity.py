"""Stage A shows the model what the agent shows it: for a skill set read from a repo, the
listing lines of Stage A's request are byte for byte those of the first request the real
Claude Code CLI sends when Stage B's own backend runs it on the same inputs (its copies of
the set, its argv, its isolated environment), for a plugin and for a skills folder.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from activation._models import AgentSettings, Inputs, RunSpec, TrialKey
from activation.inputs.load import load_inputs
from activation.trials.agent.backend import AgentBackend
from activation.trials.agents import agent_named
from activation.trials.classifier.prompt import Requests
from activation.trials.stage import stage_named
from tests.support.listing import sent_listing
from tests.support.messages_api import FakeMessagesAPI, Text

MODEL = "claude-sonnet-5-5"
LONG = "Summarise release notes into a changelog. " + "Keep every entry short and exact. " * 60
SKILLS = {
    "deploy": "description: Deploy the app to staging or production.\n"
    "when_to_use: When the user asks to ship, release or roll back.\n",
    "notes": f'description: "{LONG}"\n',
    "review": "name: code-check\ndescription: Check a diff for <risky> changes.\n",
    "quiet": "description: Never offered.\ndisable-model-invocation: true\n",
}
CASES = '[{"id": "c", "prompt": "ship it", "should_activate": true, "why": "deploys"}]'


def write_set(folder: Path) -> None:
    for name, frontmatter in SKILLS.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(f"---\n{frontmatter}---\n# {name}\n\nBody.\n")


def cli_request(claude: Path, inputs: Inputs, tmp_path: Path) -> dict[str, Any]:
    """The CLI's first request when Stage B's backend runs the candidate on `inputs`."""
    spec = RunSpec(
        stage="B",
        model=MODEL,
        agent=AgentSettings(1, 60.0, executables={"claude-code": str(claude)}),
    )
    with FakeMessagesAPI(Text("ok")) as api:
        env = {"PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": "sk-ant-fidelity",
               "ANTHROPIC_BASE_URL": api.base_url, "CLAUDE_CODE_MAX_RETRIES": "0"}  # fmt: skip
        backend = AgentBackend(spec, inputs, tmp_path / "transcripts", env=env)

        async def one() -> None:
            async with backend:
                await backend.run(TrialKey(inputs.cases[0], "candidate", 0))

        anyio.run(one)
        body: dict[str, Any] = api.message_requests[0].body
    return body


def stage_a_lines(inputs: Inputs) -> tuple[str, list[str]]:
    """Stage A's listing in the agent's order, and the lines of one trial's system prompt."""
    requests = Requests.for_run(RunSpec(model=MODEL), inputs)
    shown = requests.listings["candidate"]
    (block,) = requests.system(TrialKey(inputs.cases[0], "candidate", 1))
    listing = block["text"].removeprefix(agent_named("claude-code").instructions)
    return shown.as_sent, listing.split("\n\n", 1)[1].split("\n")


def check(claude: Path, inputs: Inputs, tmp_path: Path) -> str:
    without_distractors = replace(inputs, distractors=())  # Stage A's own additions
    _role, sent = sent_listing(cli_request(claude, without_distractors, tmp_path))
    canonical, lines = stage_a_lines(without_distractors)
    assert canonical == sent
    assert sorted(lines) == sorted(sent.split("\n\n", 1)[1].split("\n"))
    assert stage_named("B").listings(RunSpec(model=MODEL), inputs)["candidate"].as_sent == sent
    return sent


def measured(tmp_path: Path, skills: str, catalog: Path | None = None) -> Inputs:
    """The inputs of a run on the set written under `<repo>/<skills>`, its deploy skill
    measured (the working tree against itself)."""
    repo = tmp_path / "repo"
    write_set(repo / skills)
    cases = tmp_path / "cases.json"
    cases.write_text(CASES)
    path = f"{skills}/deploy/SKILL.md"
    return load_inputs(
        repo, repo=repo, skill_path=path, cases=cases, baseline=path, catalog=catalog
    )


def test_a_plugins_listing_is_the_clis(claude: Path, tmp_path: Path) -> None:
    sent = check(claude, measured(tmp_path, "plugins/kit/skills"), tmp_path)
    assert (
        "- kit:deploy: Deploy the app to staging or production. - When the user asks to ship, "
        "release or roll back.\n"
    ) in sent
    assert "- kit:notes: Summarise release notes" in sent and "…\n" in sent  # cut at 1,536
    assert "- kit:review (kit:code-check): Check a diff for &lt;risky&gt; changes." in sent
    assert "kit:quiet" not in sent


def test_a_skills_folders_listing_is_the_clis(claude: Path, tmp_path: Path) -> None:
    inputs = measured(tmp_path, ".claude/skills")
    assert inputs.target.skill_id == "deploy"
    sent = check(claude, inputs, tmp_path)
    assert "- deploy: Deploy the app" in sent
    assert "- review (code-check): Check a diff" in sent


def test_the_catalogs_listing_is_the_clis(claude: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "mine").mkdir(parents=True)
    (catalog / "mine" / "SKILL.md").write_text("---\ndescription: My own widgets.\n---\n")
    write_set(catalog / "shop" / "skills")
    sent = check(claude, measured(tmp_path, "plugins/kit/skills", catalog), tmp_path)
    assert "- mine: My own widgets." in sent
    assert "- shop:deploy: Deploy the app" in sent
