"""Stage B's own backend running the real OpenCode, Codex or GitHub Copilot CLI against a
local stand-in (the Messages API for OpenCode and Copilot, the Responses API for Codex), on
the `billing` plugin with its `refunds` skill (the target, a long description in the
working tree) and a `charts` sibling, with a planted "real" user home and a planted skill
above the run folders that must never reach a measured run."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from activation._models import AgentSettings, Case, Inputs, RunSpec, Trial, TrialKey, VariantName
from activation.inputs.load import load_inputs
from activation.trials.agent.backend import AgentBackend
from tests.support.npm_cli import processes_using
from tests.support.real_agents import REAL_AGENTS, StandIn
from tests.support.skill_repo import REFERENCE, SKILL_ID, SKILL_PATH, SkillRepo, SkillRepos

BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = (
    'Use when issuing refunds: "partial" or full, # never chargebacks;  keep  spaces. ' * 14
).strip()
"""Over 1,024 characters, with the colons, quotes, `#` and double spaces a description may
hold: OpenCode shows it whole and as written, Codex collapses the spaces and cuts it."""
CHARTS = "---\nname: charts\ndescription: Use when plotting charts.\n---\n# Charts\n\nPlot them.\n"
SIBLING_ID = "billing:charts"
AXES = {
    "plugins/payments/skills/charts/axes/SKILL.md": (
        "---\nname: axes\ndescription: Use when labelling chart axes.\n---\n# Axes\n"
    )
}
"""A SKILL.md inside the `charts` folder: Codex and OpenCode list it as a skill of its own."""
AXES_ID = "billing:charts-axes"
LEAKY = "leaky-user-skill"
"""A skill planted in the real HOME: it must never show up in a measured run."""
ABOVE = "leaky-parent-skill"
"""A skill planted in the temp folder the run folders are made in."""
PROMPT = "Refund order 1234, please"


def leaky_skill(folder: Path, name: str) -> None:
    (folder / name).mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: Planted, never to be listed.\n---\nbody\n"
    (folder / name / "SKILL.md").write_text(text)


def plant_user_config(home: Path) -> None:
    """The agents' user configuration and skills, in the real HOME."""
    leaky_skill(home / ".agents" / "skills", LEAKY)
    leaky_skill(home / ".copilot" / "skills", LEAKY)
    leaky_skill(home / ".config" / "opencode" / "skills", LEAKY)
    leaky_skill(home / ".codex" / "skills", LEAKY)
    leaky_skill(home / ".gemini" / "skills", LEAKY)
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}, '
        '"model": {"name": "leaky-model"}, "tools": {"core": ["read_file"]}}'
    )
    (home / ".config" / "opencode" / "opencode.json").write_text(
        '{"model": "anthropic/leaky-model", "provider": {"anthropic": {"options": '
        '{"baseURL": "http://127.0.0.1:1/v1"}}}}'
    )
    (home / ".codex" / "config.toml").write_text(
        'model = "leaky-model"\nmodel_provider = "leak"\n[model_providers.leak]\n'
        'name = "leak"\nbase_url = "http://127.0.0.1:1/v1"\nwire_api = "responses"\n'
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def working_tree(root: Path) -> dict[str, bytes]:
    """A repo's files, leaving out git's internals and activation's own state folder."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and not {".git", ".activation"} & set(path.relative_to(root).parts)
    }


@dataclass
class AgentHarness:
    agent: str
    executable: Path
    repo: SkillRepo
    inputs: Inputs
    transcripts: Path
    systemp: Path
    home: Path
    entered: list[AgentBackend] = field(default_factory=list)

    @property
    def key(self) -> str:
        return REAL_AGENTS[self.agent].key

    def parent_env(self, api: StandIn) -> dict[str, str]:
        """What the user's shell would hand over: credentials, the API's address, and the
        planted home and config locations (which the run must not use)."""
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "CODEX_HOME": str(self.home / ".codex"),
            "OPENCODE_CONFIG": str(self.home / ".config" / "opencode" / "opencode.json"),
            "COPILOT_HOME": str(self.home / ".copilot"),
            "GEMINI_CLI_HOME": str(self.home),
        }
        return {**env, **REAL_AGENTS[self.agent].variables(api.base_url, self.key)}

    def spec(self, model: str | None = None, timeout: float = 60.0) -> RunSpec:
        settings = AgentSettings(
            max_turns=3, timeout=timeout, executables={self.agent: str(self.executable)}
        )
        return RunSpec(stage="B", model=model, agent=settings, coding_agent=self.agent)

    def backend(
        self, api: StandIn, model: str | None = None, timeout: float = 60.0
    ) -> AgentBackend:
        backend = AgentBackend(
            self.spec(model, timeout), self.inputs, self.transcripts, env=self.parent_env(api)
        )
        self.entered.append(backend)
        return backend

    def run(
        self,
        api: StandIn,
        *,
        variant: VariantName = "candidate",
        prompt: str = PROMPT,
        model: str | None = None,
        timeout: float = 60.0,
    ) -> Trial:
        backend = self.backend(api, model, timeout)
        case = Case("refund", prompt, True, "the refunds skill covers refunds")

        async def one() -> Trial:
            async with backend:
                return await backend.run(TrialKey(case, variant, 0))

        trial = anyio.run(one)
        self.assert_clean()
        return trial

    def assert_clean(self) -> None:
        """No copy or run folder left in the temp folder (only the planted skill), no
        process still using one."""
        assert [path.name for path in self.systemp.iterdir()] == [".agents"]
        assert processes_using(str(self.systemp)) == []

    def events(self, trial: Trial) -> list[dict[str, Any]]:
        assert trial.transcript is not None
        return [orjson.loads(line) for line in Path(trial.transcript).read_bytes().splitlines()]


def harness_for(
    agent: str,
    executable: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    more: Mapping[str, str] | None = None,
    siblings: Sequence[str] = (SIBLING_ID,),
) -> Iterator[AgentHarness]:
    """The harness (`more`: files the repository holds too, `siblings`: the set's other
    skills it then has), and after the test: nothing left in the temp folder, the user's
    working tree untouched."""
    systemp = tmp_path / "systemp"
    leaky_skill(systemp / ".agents" / "skills", ABOVE)
    monkeypatch.setattr(tempfile, "tempdir", str(systemp))
    files = {**REFERENCE, "plugins/payments/skills/charts/SKILL.md": CHARTS, **(more or {})}
    repo = skill_repo(BASELINE, files=files, candidate=CANDIDATE)
    cases = tmp_path / "cases.json"
    cases.write_text(
        '[{"id": "refund", "prompt": "Refund it", "should_activate": true, "why": "w"}]'
    )
    inputs = load_inputs(repo.root, repo=repo.root, skill_path=SKILL_PATH, cases=cases)
    assert inputs.target.skill_id == SKILL_ID
    assert [skill.name for skill in inputs.candidate.siblings] == list(siblings)
    home = tmp_path / "real-home"
    plant_user_config(home)
    before = snapshot(repo.root)
    harness = AgentHarness(agent, executable, repo, inputs, tmp_path / "transcripts", systemp,
                           home)  # fmt: skip
    yield harness
    harness.assert_clean()
    assert snapshot(repo.root) == before
