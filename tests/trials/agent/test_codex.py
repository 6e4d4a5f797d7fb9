"""Stage B on Codex: the real pinned CLI (@openai/codex@0.171.0, tests/support/codex_cli.py) run
by Stage B's own backend against the local Responses API stand-in over real HTTP with SSE;
only the model is scripted. First what reaches the model (the target's description as
Codex cuts it, in the listing Stage A renders), then what counts as a load, errors, and
isolation."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from activation._errors import AuthError
from activation.inputs.load import load_catalog
from activation.trials.agent.adapter import Launch, Run
from activation.trials.agents.codex import adapter
from activation.trials.agents.codex.listing import collapse_whitespace
from activation.trials.stage import stage_named
from tests.support.agent_harness import (
    ABOVE,
    CANDIDATE,
    LEAKY,
    SIBLING_ID,
    AgentHarness,
    harness_for,
)
from tests.support.responses_api import (
    Error,
    FakeResponsesAPI,
    Reply,
    ResponsesRequest,
    Shell,
    Text,
)
from tests.support.skill_repo import SKILL_ID, SkillRepos


@pytest.fixture
def harness(
    codex_cli: Path, skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AgentHarness]:
    yield from harness_for("codex", codex_cli, skill_repo, tmp_path, monkeypatch)


def turns(*replies: Reply) -> FakeResponsesAPI:
    """A stand-in answering by turn (tool outputs so far), the last reply repeating."""
    return FakeResponsesAPI(lambda request: replies[min(request.turn, len(replies) - 1)])


def responses(api: FakeResponsesAPI) -> list[ResponsesRequest]:
    return [request for request in api.requests if request.is_responses]


def roots(listing: str) -> dict[str, str]:
    """The listing's root table: alias -> folder."""
    table = [line for line in listing.split("\n") if line.startswith("- `r")]
    return {line.split("`")[1]: line.split("`")[3] for line in table}


def test_the_description_reaches_the_model_as_codex_cuts_it_in_stage_as_listing(
    harness: AgentHarness,
) -> None:
    """Codex collapses every run of whitespace and cuts a description over 1,024
    characters to 1,021 and `...`; the whole listing is the one Stage A renders for Codex,
    but for where the run's workspace and CODEX_HOME are."""
    with turns(Text("ok")) as api:
        trial = harness.run(api)
        (first,) = responses(api)
    assert trial.error is None, trial.error
    sent = first.listing
    assert sent is not None
    collapsed = collapse_whitespace(CANDIDATE)
    assert "  " in CANDIDATE and len(collapsed) > 1024
    alias, root = next((a, r) for a, r in roots(sent).items() if r.endswith("/.agents/skills"))
    assert root.endswith("/work/.agents/skills")
    assert f"- refunds: {collapsed[:1021]}... (file: {alias}/refunds/SKILL.md)" in sent.split("\n")
    shown = stage_named("B").listings(harness.spec(), harness.inputs)["candidate"]
    entry = shown.entry(SKILL_ID)
    assert entry is not None and entry.state == "cut"
    (system,) = (r for r in roots(sent).values() if r.endswith("/skills/.system"))
    expected = shown.text.replace(str(harness.repo.root / ".agents" / "skills"), root)
    expected = expected.replace(str(Path.home() / ".codex"), system.removesuffix("/skills/.system"))
    assert sent == expected
    assert first.body["model"] == "gpt-6.2-sol"  # Codex's own default without --model
    assert first.prompt == "Refund order 1234, please"  # on stdin, verbatim
    assert first.headers["authorization"] == f"Bearer {harness.key}"


@pytest.mark.parametrize("model", [None, "openai:gpt-5.5"], ids=["code-mode", "gpt-5.5"])
def test_a_command_that_returns_the_copy_activates_and_stops_early(
    harness: AgentHarness, model: str | None
) -> None:
    """In code mode (the default model) the shell is the nested `exec_command` of the `exec`
    tool; for gpt-5.5 it is a top-level function. The stream shows the same either way."""
    with turns(Shell("cat .agents/skills/refunds/SKILL.md"), Text("Refunded.")) as api:
        trial = harness.run(api, model=model)
        (first, *_) = responses(api)
    assert (trial.activated, trial.chose, trial.error) == (True, (SKILL_ID,), None), trial.error
    assert trial.evidence == (
        "the agent ran \"/bin/bash -lc 'cat .agents/skills/refunds/SKILL.md'\" and it returned "
        "the target's SKILL.md, nonce included (line 4); run stopped early at that point"
    )
    assert first.body["model"] == (model or "openai:gpt-6.2-sol").removeprefix("openai:")
    assert harness.events(trial)[-1]["item"]["type"] == "command_execution"
    assert trial.usage.cost_usd is None  # stopped before Codex said what the run used


def test_prose_about_the_skill_is_not_activated(harness: AgentHarness) -> None:
    with turns(Text("I'll use the refunds skill. Refund issued.")) as api:
        trial = harness.run(api, model="openai:gpt-5.5")
    assert (trial.activated, trial.error) == (False, None)
    assert trial.evidence == (
        f"the run completed without a command that returned '{SKILL_ID}''s SKILL.md"
    )
    assert trial.usage.input_tokens > 0  # from turn.completed


def test_a_failed_read_is_not_activated(harness: AgentHarness) -> None:
    with turns(Shell("cat .agents/skills/refund/SKILL.md"), Text("Done.")) as api:
        trial = harness.run(api)
        outputs = responses(api)[-1].tool_outputs
    assert (trial.activated, trial.chose, trial.error) == (False, (), None)
    assert "No such file or directory" in outputs[0]


def test_a_command_its_rules_forbid_never_shows_in_codexs_stream(
    harness: AgentHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What Codex's stream cannot show: a read its execpolicy rules forbid is rejected
    before it runs, and only the model is told; the stream has no item for it, so the run
    reads as no load. (The run's own CODEX_HOME has no rules: only an admin's could do
    this.) A read that ran and failed does show, and is an error (test_codex_stream)."""
    prepare = adapter.Codex.prepare

    def with_rule(self: adapter.Codex, run: Run, parent: Mapping[str, str]) -> Launch:
        launch = prepare(self, run, parent)
        rules = run.dirs.home / adapter.HOME_DIR / "rules"
        rules.mkdir()
        (rules / "default.rules").write_text('prefix_rule(pattern=["cat"], decision="forbidden")\n')
        return launch

    monkeypatch.setattr(adapter.Codex, "prepare", with_rule)
    with turns(Shell("cat .agents/skills/refunds/SKILL.md"), Text("Done.")) as api:
        trial = harness.run(api, model="openai:gpt-5.5")
        (output,) = responses(api)[-1].tool_outputs
    assert "rejected: policy forbids commands starting with `cat`" in output
    assert [event["type"] for event in harness.events(trial)] == [
        "thread.started", "turn.started", "item.completed", "turn.completed",
    ]  # fmt: skip
    assert (trial.activated, trial.error) == (False, None)


def test_listing_the_skills_and_reading_another_are_not_a_load(harness: AgentHarness) -> None:
    replies = (Shell("ls .agents/skills"), Shell("cat .agents/skills/charts/SKILL.md"), Text("ok"))
    with turns(*replies) as api:
        trial = harness.run(api, model="openai:gpt-5.5")
        outputs = responses(api)[-1].tool_outputs
    assert (trial.activated, trial.chose, trial.error) == (False, (SIBLING_ID,), None)
    assert "charts\nrefunds\n" in outputs[0]
    assert "<!-- activation nonce: " in outputs[1]


def test_the_sandbox_is_read_only(harness: AgentHarness) -> None:
    """A command that writes fails (and Codex shows no item for it in its stream: only the
    model learns of it)."""
    with turns(Shell("touch written-by-the-agent && echo wrote"), Text("ok")) as api:
        trial = harness.run(api, model="openai:gpt-5.5")
        (output,) = responses(api)[-1].tool_outputs
    assert (trial.activated, trial.error) == (False, None)
    assert "Process exited with code 1" in output
    assert "touch: cannot touch 'written-by-the-agent': Read-only file system" in output


def test_an_api_error_is_an_error_not_a_miss(harness: AgentHarness) -> None:
    with turns(Error(400, message=f"bad request {harness.key}")) as api:
        trial = harness.run(api)
    assert trial.activated is None
    assert trial.error is not None
    assert trial.error.startswith('the turn failed: {"error":{"message":"bad request [redacted]"')
    assert trial.error.endswith("(exit code 1)")
    assert harness.key.encode() not in Path(str(trial.transcript)).read_bytes()


def test_refused_credentials_abort_the_run_at_the_first_retry(harness: AgentHarness) -> None:
    with turns(Error(401, message="bad key")) as api:
        with pytest.raises(AuthError, match=r"HTTP 401.*Codex run; check OPENAI_API_KEY"):
            harness.run(api)
        assert 1 <= len(responses(api)) <= 3  # Codex would try 6 times over seconds


def test_the_users_config_and_skills_do_not_leak(harness: AgentHarness) -> None:
    """Control first: run by hand with the planted HOME and CODEX_HOME, Codex lists the
    planted skill. Stage B's run lists neither planted skill and uses its own provider."""
    project = harness.systemp / "by-hand"
    project.mkdir()
    with turns(Text("ok")) as api:
        env = harness.parent_env(api)
        config = Path(env["CODEX_HOME"]) / "config.toml"
        config.write_text(config.read_text().replace("http://127.0.0.1:1", api.base_url))
        argv = [str(harness.executable), "exec", "--json", "--skip-git-repo-check", "-"]
        done = subprocess.run(argv, input=b"hi", cwd=project, env=env, capture_output=True,
                              timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        control = responses(api)[0].listing
    project.rmdir()
    assert control is not None and f"- {LEAKY}: " in control
    with turns(Text("ok")) as api:
        trial = harness.run(api)
        (first,) = responses(api)
    assert trial.error is None, trial.error
    assert first.listing is not None
    assert LEAKY not in first.listing
    assert ABOVE not in first.listing
    assert first.body["model"] == "gpt-6.2-sol"  # not the planted config's model
    assert str(harness.repo.root) not in str(first.body)


def test_the_catalog_is_installed_as_project_skills(harness: AgentHarness, tmp_path: Path) -> None:
    """A user skill and a plugin's skill of `--catalog` are project skills of the run, as
    Stage A's Codex listing shows them; reading one fires it by its id."""
    catalog = tmp_path / "catalog"
    for relative, text in {
        "mine/SKILL.md": "---\ndescription: My own widget skill.\n---\nwidgets\n",
        "shop/.claude-plugin/plugin.json": '{"name": "shop"}',
        "shop/skills/cart/SKILL.md": "---\ndescription: Fill a shopping cart.\n---\ncarts\n",
    }.items():
        (catalog / relative).parent.mkdir(parents=True, exist_ok=True)
        (catalog / relative).write_text(text)
    before = {path: path.read_bytes() for path in catalog.rglob("*") if path.is_file()}
    harness.inputs = replace(harness.inputs, catalog=load_catalog(catalog))
    with turns(Shell("cat .agents/skills/cart/SKILL.md"), Text("ok")) as api:
        trial = harness.run(api)
        (first, *_) = responses(api)
    assert (trial.activated, trial.chose, trial.error) == (False, ("shop:cart",), None)
    assert first.listing is not None
    lines = first.listing.split("\n")
    assert any(line.startswith("- cart: Fill a shopping cart. (file: r") for line in lines)
    assert any(line.startswith("- mine: My own widget skill. (file: r") for line in lines)
    assert {path: path.read_bytes() for path in catalog.rglob("*") if path.is_file()} == before
