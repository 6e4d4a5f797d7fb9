"""The agent adapters without a run: the model ids each takes, the options it refuses, its
version check and install hint, its plan line and listing, the nonce each copied SKILL.md
gets, and the cache key it makes (stable between identical runs, nonces included)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import anyio
import orjson
import pytest

from activation._errors import InputError
from activation._models import AgentSettings, Case, Inputs, RunSpec, TrialKey
from activation.inputs.load import load_inputs
from activation.trials.agent.adapter import Adapter, Launch, Run, RunDirs
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.installed import SkillCopy, SkillSet, project_folders
from activation.trials.agent.plugin_copy import NONCE_LINE, CatalogCopy, mark
from activation.trials.agents import agent_named, known
from activation.trials.stage import stage_named
from tests.support.skill_repo import SKILL_ID, SKILL_PATH, SkillRepos

BODY = "# Refunds\n\nSteps for issuing refunds.\n"
CHARTS = "---\nname: charts\ndescription: Use when plotting charts.\n---\n# Charts\n"


# --- models and options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "model", "expected"),
    [
        ("claude-code", None, None),
        ("claude-code", "claude-haiku-4-5", "claude-haiku-4-5"),
        ("claude-code", "us.anthropic.claude-haiku-4-5-v1:0", "us.anthropic.claude-haiku-4-5-v1:0"),
        ("claude-code", "anthropic:claude-haiku-4-5", "claude-haiku-4-5"),
        ("opencode", None, None),
        ("opencode", "claude-haiku-4-5", "anthropic/claude-haiku-4-5"),
        ("opencode", "anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4-5"),
        ("codex", None, None),
        ("codex", "openai:gpt-5.5", "gpt-5.5"),
    ],
)
def test_each_agent_takes_its_providers_model_ids(
    agent: str, model: str | None, expected: str
) -> None:
    assert adapter_of(agent).model(model) == expected


@pytest.mark.parametrize(
    ("agent", "model", "message"),
    [
        ("claude-code", "openai:gpt-5.5", "--model openai:gpt-5.5: Claude Code runs models of "
         "anthropic"),
        ("claude-code", "mock", "--model mock: Claude Code runs models of anthropic"),
        ("opencode", "openai-compatible:qwen3", "--model openai-compatible:qwen3: OpenCode runs "
         "models of anthropic"),
        ("codex", "claude-haiku-4-5", "--model claude-haiku-4-5: Codex runs models of openai"),
    ],
)  # fmt: skip
def test_a_model_the_agent_cannot_run_is_one_input_error(
    agent: str, model: str, message: str
) -> None:
    spec = RunSpec(stage="B", model=model, coding_agent=agent)
    with pytest.raises(InputError) as raised:
        stage_named("B").configure(spec)
    assert str(raised.value) == message


def adapter_of(agent: str) -> Adapter:
    return agent_named(agent).adapter()


def test_codex_refuses_a_cost_ceiling() -> None:
    spec = RunSpec(stage="B", coding_agent="codex", max_cost_usd=1.0)
    with pytest.raises(InputError, match=r"^--max-cost-usd: Codex reports its tokens only"):
        stage_named("B").configure(spec)
    assert stage_named("B").configure(replace(spec, coding_agent="opencode")).max_cost_usd == 1.0


def test_an_unknown_agent_is_an_input_error() -> None:
    with pytest.raises(InputError, match=rf"^unknown agent 'cursor': one of {', '.join(known())}$"):
        adapter_of("cursor")


# --- the CLI, its version and the plan ---------------------------------------------------


@pytest.mark.parametrize("agent", ["opencode", "codex"])
def test_the_version_check_runs_the_pinned_cli(
    agent: str, opencode_cli: Path, codex_cli: Path
) -> None:
    adapter = adapter_of(agent)
    path = {"opencode": opencode_cli, "codex": codex_cli}[agent]
    assert adapter.version(str(path)) == adapter.agent.version


@pytest.mark.parametrize(
    ("agent", "package", "flag"),
    [
        ("opencode", "opencode-ai@1.18.33", "--opencode"),
        ("codex", "@openai/codex@0.171.0", "--codex"),
    ],
)
def test_a_missing_cli_names_the_pinned_package(agent: str, package: str, flag: str) -> None:
    adapter = adapter_of(agent)
    with pytest.raises(InputError) as raised:
        adapter.version("/nonexistent/cli")
    assert str(raised.value) == (
        f"cannot find the {adapter.agent.title} CLI '/nonexistent/cli': install it with "
        f"`npm install -g {package}` (or into a folder with `npm install --prefix DIR "
        f"{package}`) and pass {flag} PATH if it is not on PATH"
    )


@pytest.fixture
def inputs(skill_repo: SkillRepos, tmp_path: Path) -> Inputs:
    repo = skill_repo(
        "Use when issuing refunds.",
        files={"plugins/payments/skills/charts/SKILL.md": CHARTS},
        candidate="Refunds only.",
    )
    cases = tmp_path / "cases.json"
    cases.write_text('[{"id": "c", "prompt": "Refund it", "should_activate": true, "why": "w"}]')
    return load_inputs(repo.root, repo=repo.root, skill_path=SKILL_PATH, cases=cases)


@pytest.mark.parametrize(
    ("agent", "line"),
    [
        ("claude-code", "agent: Claude Code 2.1.332 (Claude Code) (claude), skill "
         "billing:refunds, up to 8 turns and 300 s a run"),
        ("opencode", "agent: OpenCode 1.18.33 (opencode), skill billing:refunds, up to 8 turns "
         "and 300 s a run"),
        ("codex", "agent: Codex 0.171.0 (codex), skill billing:refunds, no turn limit (Codex has "
         "none) and 300 s a run"),
    ],
)  # fmt: skip
def test_the_plan_line_names_the_agent(agent: str, line: str, inputs: Inputs) -> None:
    version = {"claude-code": "2.1.332 (Claude Code)", "opencode": "1.18.33", "codex": "0.171.0"}
    spec = RunSpec(stage="B", coding_agent=agent, agent=AgentSettings(version=version[agent]))
    assert stage_named("B").plan(spec, inputs) == [line, "canary: none on the host"]


def test_the_listings_are_the_agents_own(inputs: Inputs) -> None:
    stage = stage_named("B")
    by_agent = {
        agent: stage.listings(RunSpec(stage="B", coding_agent=agent), inputs)["candidate"]
        for agent in ("claude-code", "opencode", "codex")
    }
    assert by_agent["claude-code"].text.startswith(
        "The following skills are available for use with the Skill tool:"
    )
    assert "<description>Refunds only.</description>" in by_agent["opencode"].text
    assert "- refunds: Refunds only. (file: r1/refunds/SKILL.md)" in by_agent["codex"].text


def test_cost_basis_follows_what_the_agent_reports() -> None:
    stage = stage_named("B")
    priced = RunSpec(stage="B", coding_agent="codex", model="openai:gpt-5.5")
    assert stage.cost_basis(priced) is None  # no price for it, and Codex reports none
    assert stage.cost_basis(RunSpec(stage="B", coding_agent="opencode")) == (
        "the CLI's reported cost"
    )


# --- nonces and the skill sets -----------------------------------------------------------


def test_a_nonce_goes_at_the_top_of_the_body_and_follows_from_the_content(tmp_path: Path) -> None:
    texts = {
        "lf": f"---\nname: refunds\ndescription: Refunds.\n---\n{BODY}",
        "crlf": f"---\r\nname: refunds\r\ndescription: Refunds.\r\n---\r\n{BODY}".replace(
            "\n\n", "\r\n\r\n"
        ),
    }
    nonces = {}
    for name, text in texts.items():
        skill = tmp_path / name / "refunds" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_bytes(text.encode())
        nonce = mark(skill)
        assert nonce is not None and len(nonce) == 16
        nonces[name] = nonce
        newline = "\r\n" if name == "crlf" else "\n"
        head, body = text.split(f"---{newline}", 2)[1:]
        assert skill.read_bytes().decode() == (
            f"---{newline}{head}---{newline}{NONCE_LINE.format(nonce)}{newline}{body}"
        )
    again = tmp_path / "again" / "refunds" / "SKILL.md"
    again.parent.mkdir(parents=True)
    again.write_text(texts["lf"])
    assert mark(again) == nonces["lf"]  # the same content, the same nonce
    assert nonces["lf"] != nonces["crlf"]
    plain = tmp_path / "plain" / "SKILL.md"
    plain.parent.mkdir()
    plain.write_text("no frontmatter\n")
    assert mark(plain) is None
    assert plain.read_text() == "no frontmatter\n"


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "systemp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    assert list(folder.iterdir()) == []


def keys(agent: str, inputs: Inputs, tmp_path: Path) -> tuple[dict[str, str | None], list[str]]:
    """Each variant's nonces, and the four trials' cache keys, of a freshly entered backend."""
    spec = RunSpec(stage="B", coding_agent=agent, agent=AgentSettings(version="1"))
    backend = AgentBackend(spec, inputs, tmp_path / "transcripts", env={})

    async def both() -> tuple[dict[str, str | None], list[str]]:
        async with backend:
            nonces = {
                f"{variant}/{skill.id}": skill.nonce
                for variant, skills in backend.skills.items()
                for skill in skills.skills
            }
            case = Case("c", "Refund it", True, "w")
            made = [
                backend.cache_key(TrialKey(case, variant, index))
                for variant in ("baseline", "candidate")
                for index in (0, 1)
            ]
            return nonces, made

    return anyio.run(both)


@pytest.mark.parametrize("agent", ["opencode", "codex"])
def test_the_copies_carry_nonces_and_the_cache_key_stays_the_same(
    agent: str, inputs: Inputs, tmp_path: Path, private_tmp: Path
) -> None:
    nonces, first = keys(agent, inputs, tmp_path)
    assert set(nonces) == {f"{v}/{s}" for v in ("baseline", "candidate") for s in
                           (SKILL_ID, "billing:charts")}  # fmt: skip
    assert all(nonce is not None for nonce in nonces.values())
    assert nonces["baseline/billing:charts"] == nonces["candidate/billing:charts"]  # same file
    assert nonces[f"baseline/{SKILL_ID}"] != nonces[f"candidate/{SKILL_ID}"]  # descriptions
    again, second = keys(agent, inputs, tmp_path)
    assert (again, second) == (nonces, first)  # identical runs, identical keys
    assert len(set(first)) == 4
    other_agent = keys("codex" if agent == "opencode" else "opencode", inputs, tmp_path)[1]
    assert set(other_agent).isdisjoint(first)


def test_claude_codes_copies_carry_no_nonce(
    inputs: Inputs, tmp_path: Path, private_tmp: Path
) -> None:
    nonces, _ = keys("claude-code", inputs, tmp_path)
    assert set(nonces.values()) == {None}


def test_two_skills_in_one_folder_name_cannot_be_project_skills(tmp_path: Path) -> None:
    one = SkillCopy("billing:cart", tmp_path / "a" / "cart", "cart")
    two = SkillCopy("shop:cart", tmp_path / "b" / "cart", "cart")
    skills = SkillSet(tmp_path, True, CatalogCopy(), (one, two))
    with pytest.raises(InputError, match=r"^shop:cart and billing:cart are both in a folder named"):
        project_folders(skills)
    assert list(project_folders(replace(skills, skills=(one,)))) == ["cart"]


def test_a_target_the_agent_would_not_list_is_an_error_before_any_run(
    skill_repo: SkillRepos, tmp_path: Path, private_tmp: Path
) -> None:
    """OpenCode and Gemini CLI skip a SKILL.md without a `name`: no run could load it, so
    every trial is an error (never a miss) and no process starts."""
    repo = skill_repo(text="---\ndescription: Use when issuing refunds.\n---\nBody\n")
    cases = tmp_path / "cases.json"
    cases.write_text('[{"id": "c", "prompt": "Refund it", "should_activate": true, "why": "w"}]')
    nameless = load_inputs(repo.root, repo=repo.root, skill_path=SKILL_PATH, cases=cases)
    settings = AgentSettings(
        executables={agent: f"/nonexistent/{agent}" for agent in ("opencode", "codex", "gemini")}
    )
    models = {"gemini": "google:gemini-3.1-pro-preview"}
    trials: dict[str, tuple[bool | None, str | None]] = {}
    for agent in ("opencode", "codex", "gemini"):
        spec = RunSpec(stage="B", coding_agent=agent, agent=settings, model=models.get(agent))
        backend = AgentBackend(spec, nameless, tmp_path / "t", env={})

        async def one(backend: AgentBackend = backend) -> tuple[bool | None, str | None]:
            async with backend:
                trial = await backend.run(TrialKey(nameless.cases[0], "baseline", 0))
                return trial.activated, trial.error

        trials[agent] = anyio.run(one)
    assert trials["opencode"] == (
        None,
        f"the skill was never offered: OpenCode does not list {SKILL_ID} (it skips a SKILL.md "
        "whose frontmatter has no string `name`, and lists none without a description)",
    )
    assert trials["gemini"] == (
        None,
        f"the skill was never offered: Gemini CLI does not list {SKILL_ID} (it skips a SKILL.md "
        "whose frontmatter lacks a string `name` or `description`, and lists one skill per name)",
    )
    assert trials["codex"][0] is None  # Codex names it by its folder: it starts, and fails
    assert (trials["codex"][1] or "").startswith("could not run codex: FileNotFoundError")


# --- one run's layout --------------------------------------------------------------------


def laid_out(agent: str, tmp_path: Path, parent: dict[str, str]) -> tuple[Launch, RunDirs]:
    """`prepare` of one run of a two-skill set, in fresh folders under `tmp_path`."""
    copy = tmp_path / "copy" / "skills"
    for name, text in (("refunds", f"---\nname: refunds\ndescription: R.\n---\n{BODY}"),
                       ("charts", CHARTS)):  # fmt: skip
        (copy / name).mkdir(parents=True)
        (copy / name / "SKILL.md").write_text(text)
    skills = SkillSet(copy.parent, True, CatalogCopy(), (
        SkillCopy(SKILL_ID, copy / "refunds", "refunds"),
        SkillCopy("billing:charts", copy / "charts", "charts"),
    ))  # fmt: skip
    dirs = RunDirs(tmp_path / "work", tmp_path / "home", tmp_path / "tmp")
    for folder in (dirs.work, dirs.home, dirs.tmp):
        folder.mkdir()
    settings = AgentSettings(max_turns=5)
    adapter = adapter_of(agent)
    run = Run(settings, adapter.model("openai:gpt-5.5" if agent == "codex" else "claude-x"),
              f"/bin/{agent}", "-p refund it", dirs, skills)  # fmt: skip
    return adapter.prepare(run, parent), dirs


PARENT = {
    "PATH": "/bin",
    "LANG": "C.UTF-8",
    "HOME": "/home/user",
    "XDG_CONFIG_HOME": "/home/user/.config",
    "CODEX_HOME": "/home/user/.codex",
    "OPENCODE_CONFIG": "/home/user/opencode.json",
    "ANTHROPIC_API_KEY": "sk-ant-key",
    "ANTHROPIC_AUTH_TOKEN": "token",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/",
    "OPENAI_API_KEY": "sk-openai-key",
    "OPENAI_BASE_URL": "http://127.0.0.1:8/v1",
    "GITHUB_TOKEN": "ghp_dont_pass_me",
}


def test_an_opencode_run_is_laid_out_in_its_own_folders(tmp_path: Path) -> None:
    launch, dirs = laid_out("opencode", tmp_path, PARENT)
    assert launch.argv == ["/bin/opencode", "run", "--format", "json", "--title", "activation",
                           "--model", "anthropic/claude-x"]  # fmt: skip
    assert launch.stdin == "-p refund it"
    home = dirs.home
    assert launch.env == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": "sk-ant-key",
        "HOME": str(home),
        "USERPROFILE": str(home),
        "TMPDIR": str(dirs.tmp),
        "TMP": str(dirs.tmp),
        "TEMP": str(dirs.tmp),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    }
    config = orjson.loads((home / ".config" / "opencode" / "opencode.json").read_bytes())
    assert config["provider"] == {"anthropic": {"options": {"baseURL": "http://127.0.0.1:9/v1"}}}
    assert config["enabled_providers"] == ["anthropic"]
    assert config["agent"] == {"build": {"steps": 5}}
    assert config["permission"]["bash"] == config["permission"]["edit"] == "deny"
    assert config["permission"]["skill"] == "allow"
    assert sorted(p.name for p in (dirs.work / ".agents" / "skills").iterdir()) == [
        "charts", "refunds",
    ]  # fmt: skip
    assert sorted(p.name for p in (dirs.work / ".git").iterdir()) == ["HEAD", "objects", "refs"]


def test_a_codex_run_is_laid_out_in_its_own_folders(tmp_path: Path) -> None:
    launch, dirs = laid_out("codex", tmp_path, PARENT)
    assert launch.argv == [
        "/bin/codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--sandbox",
        "read-only", "--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps",
        "-m", "gpt-5.5", "-",
    ]  # fmt: skip
    assert launch.stdin == "-p refund it"
    assert launch.env == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "OPENAI_API_KEY": "sk-openai-key",
        "OPENAI_BASE_URL": "http://127.0.0.1:8/v1",
        "HOME": str(dirs.home),
        "USERPROFILE": str(dirs.home),
        "TMPDIR": str(dirs.tmp),
        "TMP": str(dirs.tmp),
        "TEMP": str(dirs.tmp),
        "CODEX_HOME": str(dirs.home / ".codex"),
    }
    assert (dirs.home / ".codex" / "config.toml").read_text() == (
        'model_provider = "activation"\napproval_policy = "never"\nsandbox_mode = "read-only"\n'
        '\n[analytics]\nenabled = false\n\n[model_providers.activation]\nname = "activation"\n'
        'base_url = "http://127.0.0.1:8/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
    )
    assert not (dirs.work / ".git").exists()
    without = laid_out("codex", tmp_path / "default", {"OPENAI_API_KEY": "k"})[1]
    config = (without.home / ".codex" / "config.toml").read_text()
    assert 'base_url = "https://api.openai.com/v1"' in config
