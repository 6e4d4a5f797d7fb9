"""GitHub Copilot CLI's listing rules and adapter without a run: what the renderer keeps,
cuts and names on its overflow line, what the adapter checks before any run, and the
command line and environment of one run (the real CLI's behaviour is measured in
tests/trials/agents/fidelity_cases.py and tests/trials/agent/test_copilot.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._errors import InputError
from activation._models import AgentSettings, Case, RunSpec, TrialKey
from activation.trials.agent.adapter import Run, RunDirs
from activation.trials.agent.installed import SkillCopy, SkillSet
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agents.copilot.adapter import ADAPTER, environment
from activation.trials.agents.copilot.listing import loads, overflow, render
from activation.trials.classifier.answer import parse_answer
from activation.trials.classifier.prompt import Requests
from activation.trials.listing.model import ListedSkill

BUILTINS = ("customize-cloud-agent", "github-pr-media")


def skill(name: str, description: object = "Use it.", **fields: object) -> ListedSkill:
    return ListedSkill(id=name, folder=name, source="project", description=description,
                       name=name, **fields)  # type: ignore[arg-type]  # fmt: skip


def test_rejected_and_hidden_skills_are_not_listed() -> None:
    skills = [skill("ok"), skill("long", "x" * 1025), skill("edge", "x" * 1024),
              skill("_under"), skill("hidden", disable_model_invocation=True)]  # fmt: skip
    assert [loads(s) for s in skills[:4]] == [True, False, True, False]
    assert render(skills).ids == ("edge", "ok", *BUILTINS)


def test_over_the_budget_the_rest_is_named_and_can_still_be_loaded() -> None:
    skills = [skill("a"), skill("b", "x" * 500), skill("c")]
    full = render(skills)
    width = len(full.entries[0].line) + 1
    shown = render(skills, budget=width)
    assert shown.ids == ("a",)
    assert overflow(shown) == ("b", "c", *BUILTINS)
    assert shown.text.endswith(
        "\nAdditional skills available (invoke by name): b, c, customize-cloud-agent, "
        "github-pr-media\n</available_skills>\n</skill>"
    )
    assert (shown.width, shown.budget) == (width, width)
    assert overflow(full) == ()


def test_a_stage_a_answer_naming_an_overflow_skill_counts_for_that_skill() -> None:
    """Past the budget a skill is only named on the overflow line, and Copilot CLI loads it
    by that name: Stage A's answer may choose it (the schema's enum has the name) and the
    name maps back to the skill's id, never "names not on the menu"."""
    skills = [ListedSkill(id="billing:refunds", folder="refunds", source="project",
                          description="x" * 600, name="refunds"), skill("audit")]  # fmt: skip
    shown = render(skills, budget=len(render(skills).entries[0].line) + 1)
    assert shown.ids == ("audit",)
    assert shown.named == (("refunds", "billing:refunds"),
                           *((name, name) for name in BUILTINS))  # fmt: skip
    made = Requests("m", 4096, 0, {"baseline": shown, "candidate": shown}, agent="copilot")
    key = TrialKey(Case("c", "refund it", True, "w"), "baseline", 0)
    request = made.request(key)
    assert "invoke by name): refunds, customize-cloud-agent" in request["system"][0]["text"]
    enum = request["output_config"]["format"]["schema"]["properties"]["skills"]["items"]["enum"]
    assert enum == ["audit", *BUILTINS, "refunds"]
    answer = [{"type": "text", "text": '{"skills": ["refunds"]}'}]
    chosen = parse_answer(answer, "end_turn", made.names)
    assert made.ids_of(chosen) == ("billing:refunds",)


def test_a_skill_without_a_description_lists_its_body() -> None:
    (entry, *_) = render([skill("b", None, body="# Title\n\nFirst line\nsecond.\n")]).entries
    assert "<description>First line second.</description>" in entry.line


def copies(tmp_path: Path, description: str) -> SkillSet:
    folder = tmp_path / "refunds"
    folder.mkdir()
    text = f"---\nname: refunds\ndescription: {description}\n---\nBody\n"
    (folder / "SKILL.md").write_text(text)
    return SkillSet(tmp_path, False, CatalogCopy(), (SkillCopy("refunds", folder, "refunds"),))


def test_a_target_the_cli_rejects_is_refused_before_any_run(tmp_path: Path) -> None:
    skills = copies(tmp_path, "Use it.")
    listed = render([skill("refunds")])
    assert ADAPTER.check(skills, listed) is None
    assert ADAPTER.check(skills, render([skill("refunds")], budget=1)) is None  # overflow
    refused = ADAPTER.check(skills, render([skill("refunds", "x" * 1025)]))
    assert refused is not None and refused.startswith("GitHub Copilot CLI does not list refunds")


def test_a_model_is_required_and_kept_with_its_provider() -> None:
    assert ADAPTER.model("claude-sonnet-4.6") == "anthropic:claude-sonnet-4.6"
    assert ADAPTER.model("openai:gpt-5.5") == "openai:gpt-5.5"
    assert ADAPTER.model(None) is None
    with pytest.raises(InputError, match="needs --model"):
        ADAPTER.configure(RunSpec(stage="B", model=None, coding_agent="copilot"))
    with pytest.raises(InputError, match=r"^--max-cost-usd: GitHub Copilot CLI's stream"):
        ADAPTER.configure(RunSpec(stage="B", model="anthropic:x", coding_agent="copilot",
                                  max_cost_usd=1.0))  # fmt: skip
    ADAPTER.configure(RunSpec(stage="B", model="anthropic:x", coding_agent="copilot"))
    with pytest.raises(InputError, match="runs models of anthropic, openai"):
        ADAPTER.model("mock")


def test_a_run_is_offline_with_the_providers_own_variables(tmp_path: Path) -> None:
    dirs = RunDirs(tmp_path / "work", tmp_path / "home", tmp_path / "tmp")
    for folder in (dirs.work, dirs.home, dirs.tmp):
        folder.mkdir()
    parent = {"PATH": "/bin", "HOME": "/home/me", "OPENAI_API_KEY": "sk-o",
              "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "GITHUB_TOKEN": "gh-secret",
              "ANTHROPIC_API_KEY": "sk-a"}  # fmt: skip
    env = environment(parent, dirs, "openai:gpt-5.5")
    assert env == {
        "PATH": "/bin", "HOME": str(dirs.home), "USERPROFILE": str(dirs.home),
        "TMPDIR": str(dirs.tmp), "TMP": str(dirs.tmp), "TEMP": str(dirs.tmp),
        "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_HOME": str(dirs.home / ".copilot"),
        "COPILOT_PKG_CACHE_HOME": "/home/me/.cache/copilot",
        "COPILOT_PROVIDER_WIRE_API": "responses", "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1",
        "COPILOT_PROVIDER_API_KEY": "sk-o", "COPILOT_MODEL": "gpt-5.5",
    }  # fmt: skip
    anthropic = environment({"ANTHROPIC_API_KEY": "sk-a"}, dirs, "anthropic:claude-x")
    assert anthropic["COPILOT_PROVIDER_BASE_URL"] == "https://api.anthropic.com"
    assert "COPILOT_PROVIDER_WIRE_API" not in anthropic
    (tmp_path / "copy").mkdir()
    skills = copies(tmp_path / "copy", "Use it.")
    run = Run(AgentSettings(), "anthropic:claude-x", "/bin/copilot", "Refund it", dirs, skills)
    launch = ADAPTER.prepare(run, {"ANTHROPIC_API_KEY": "sk-a"})
    assert launch.argv == [
        "/bin/copilot", "-p", "Refund it", "--output-format", "json", "--allow-all-tools",
        "--no-ask-user", "--no-auto-update", "--disable-client-telemetry",
        "--no-custom-instructions", "--disallow-temp-dir",
        "--available-tools", "skill", "view", "glob", "grep",
    ]  # fmt: skip
    assert launch.stdin is None
    assert (dirs.work / ".agents" / "skills" / "refunds" / "SKILL.md").exists()
    assert (dirs.work / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
