"""Stage C's write mode and explicit invocation, through each real pinned CLI (Claude Code,
OpenCode, Codex, GitHub Copilot CLI) laid out by its adapter and run against a local
stand-in model that scripts the agent's own file writes (tests/support/agent_writes.py):
with `work` the writes land in the workspace, exactly; a write aimed anywhere else is
refused and nothing appears there; without it (Stage B) every write is refused as before;
the `none` arm installs nothing of the set; `invoked` makes the agent load the skill. Then
the command lines and configs each adapter builds, without a run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from activation._models import AgentSettings
from activation.trials.agent.adapter import Adapter, Asked, Run, RunDirs
from activation.trials.agent.installed import SkillCopy, SkillSet, without_set
from activation.trials.agent.plugin_copy import CatalogCopy
from activation.trials.agents import agent_named
from activation.trials.agents.claude_code import adapter as claude_code
from activation.trials.agents.codex import adapter as codex
from activation.trials.agents.opencode import adapter as opencode
from tests.support import agent_writes
from tests.support.agent_writes import Finished, Load, Replace, Step, Write, run_cli, writes
from tests.support.copilot_cli import PACKAGE_CACHE
from tests.support.fake_agent import write_shim
from tests.support.fake_agent.adapter import ADAPTER as FAKE
from tests.support.messages_api import FakeMessagesAPI, FakeRequest
from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest, Shell, Text

AGENTS = ("claude-code", "opencode", "codex", "copilot")
SKILL_ID = "billing:refunds"
REFUNDS = (
    "---\nname: refunds\ndescription: Use when issuing refunds.\n---\n# Refunds\n\n"
    "REFUNDS-BODY: refund through the ledger.\n"
)
CHARTS = "---\nname: charts\ndescription: Use when plotting charts.\n---\n# Charts\n\nCHARTS-BODY\n"
NOTES = "---\nname: notes\ndescription: Use when taking notes.\n---\n# Notes\n\nNOTES-BODY\n"
KEY = "sk-test-work-mode-key"
PROMPT = "Refund order 1234"
LOADS = {"claude-code": SKILL_ID, "opencode": "refunds", "codex": "refunds", "copilot": "refunds"}
"""How each agent's own load names the target (tests/support/agent_writes.py `Load`)."""
PATH = "/usr/local/bin:/usr/bin:/bin"
COPILOT_MODEL = "anthropic:claude-sonnet-4.6"
"""Copilot CLI needs a model in its offline provider mode."""


def adapter_of(agent: str) -> Adapter:
    return agent_named(agent).adapter()


def skill_set(folder: Path) -> SkillSet:
    """The `billing` plugin (`refunds`, the target, and `charts`) and a catalog user skill
    `notes`, copied as a run installs them."""
    plugin = folder / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "billing"}')
    for name, text in (("refunds", REFUNDS), ("charts", CHARTS)):
        (plugin / "skills" / name).mkdir(parents=True)
        (plugin / "skills" / name / "SKILL.md").write_text(text)
    user = folder / "catalog" / "user-skills"
    (user / "notes").mkdir(parents=True)
    (user / "notes" / "SKILL.md").write_text(NOTES)
    catalog = CatalogCopy(user_skills=user, folders=(("notes", user / "notes"),))
    return SkillSet(plugin, True, catalog, (
        SkillCopy(SKILL_ID, plugin / "skills" / "refunds", "refunds"),
        SkillCopy("billing:charts", plugin / "skills" / "charts", "charts"),
        SkillCopy("notes", user / "notes", "notes"),
    ))  # fmt: skip


@dataclass
class Bench:
    """One agent's CLI, the skill set, and fresh run folders for each run."""

    agent: str
    executable: Path
    skills: SkillSet
    folder: Path
    runs: int = 0

    @property
    def adapter(self) -> Adapter:
        return adapter_of(self.agent)

    def fresh_dirs(self) -> RunDirs:
        self.runs += 1
        base = self.folder / f"run-{self.runs}"
        dirs = RunDirs(base / "work", base / "home", base / "tmp")
        for folder in (dirs.work, dirs.home, dirs.tmp):
            folder.mkdir(parents=True)
        return dirs

    def api(self, script: Any) -> FakeMessagesAPI | FakeResponsesAPI:
        return FakeResponsesAPI(script) if self.agent == "codex" else FakeMessagesAPI(script)

    def parent(self, api: FakeMessagesAPI | FakeResponsesAPI) -> dict[str, str]:
        if self.agent == "codex":
            return {"PATH": PATH, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": f"{api.base_url}/v1"}
        if self.agent == "copilot":
            return {"PATH": PATH, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url,
                    "COPILOT_PKG_CACHE_HOME": str(PACKAGE_CACHE)}  # fmt: skip
        return {"PATH": PATH, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": api.base_url,
                "CLAUDE_CODE_MAX_RETRIES": "0"}  # fmt: skip

    def run(
        self,
        api: FakeMessagesAPI | FakeResponsesAPI,
        dirs: RunDirs,
        prompt: str = PROMPT,
        *,
        work: bool = True,
        skills: SkillSet | None = None,
        model: str | None = None,
    ) -> Finished:
        settings = AgentSettings(max_turns=12)
        if self.agent == "copilot":
            model = self.adapter.model(model or COPILOT_MODEL)
        run = Run(settings, model, str(self.executable), prompt, dirs, skills or self.skills,
                  work=work)  # fmt: skip
        finished = run_cli(self.adapter, run, self.parent(api))
        assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-2000:]
        return finished

    def loop(self, api: FakeMessagesAPI | FakeResponsesAPI) -> list[Any]:
        """The agent loop's requests, in order."""
        if isinstance(api, FakeResponsesAPI):
            return [request for request in api.requests if request.is_responses]
        if self.agent == "claude-code":
            return [request for request in api.message_requests if request.is_main_loop]
        return [request for request in api.message_requests if request.tool_names]

    def results(self, api: FakeMessagesAPI | FakeResponsesAPI) -> list[str]:
        """What each tool call returned, as the last request of the loop shows it."""
        last = self.loop(api)[-1]
        if isinstance(last, ResponsesRequest):
            return last.tool_outputs
        return [str(result.get("content")) for result in last.tool_results]


@pytest.fixture
def bench_for(
    claude: Path, opencode_cli: Path, codex_cli: Path, copilot_cli: Path, tmp_path: Path
) -> Iterator[Any]:
    executables = {"claude-code": claude, "opencode": opencode_cli, "codex": codex_cli,
                   "copilot": copilot_cli}  # fmt: skip

    def make(agent: str) -> Bench:
        folder = tmp_path / agent
        return Bench(agent, executables[agent], skill_set(folder / "copy"), folder)

    yield make


def files_under(folder: Path) -> dict[str, str]:
    """Every file under `folder` (but a `.git` marker's) by relative path, with its text."""
    return {
        str(path.relative_to(folder)): path.read_text(errors="replace")
        for path in sorted(folder.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(folder).parts
    }


# --- writing in the workspace, and nowhere else --------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_a_work_run_writes_and_edits_in_its_workspace_and_nowhere_else(
    agent: str, bench_for: Any
) -> None:
    """The agent loads the skill its own way; writes aimed out of the workspace (an absolute
    path under the run's temp folder or home, and a `../` path) are each refused and
    nothing appears there; after them it writes two new files (one in a new folder) and
    edits a scaffold file: each lands in the workspace with exactly that content."""
    bench = bench_for(agent)
    dirs = bench.fresh_dirs()
    (dirs.work / "config.txt").write_text("mode = old\nkeep = yes\n")
    if agent == "copilot":  # its create tool: "Parent directories must exist"
        (dirs.work / "src").mkdir()
    outside = [
        Write(str(dirs.tmp / "escaped.txt"), "tmp\n"),
        Write(str(dirs.home / "escaped.txt"), "home\n"),
        Write("../escaped.txt", "parent\n"),
    ]
    steps = [
        Load(LOADS[agent]),
        *outside,
        Write("src/refund.py", "def refund(order):\n    return ledger.refund(order)\n"),
        Write("NOTES.md", "# Refunds\n\nThrough the ledger.\n"),
        Replace("config.txt", "mode = old", "mode = new"),
    ]
    with bench.api(agent_writes.SCRIPTS[agent](steps)) as api:
        bench.run(api, dirs)
        first, after_load, *_ = bench.loop(api)
        results = bench.results(api)
    assert "REFUNDS-BODY" in sent_text(after_load)  # the skill loaded
    assert_no_shell_or_web(agent, first)
    assert not (dirs.tmp / "escaped.txt").exists()
    assert not (dirs.home / "escaped.txt").exists()
    assert not (dirs.work.parent / "escaped.txt").exists()
    refused = [index for index, result in enumerate(results) if REFUSED[agent] in result]
    assert refused == [1, 2, 3], results  # the three writes out, after the load
    written = {name: text for name, text in files_under(dirs.work).items()
               if not name.startswith((".agents", ".claude"))}  # fmt: skip
    assert written == {
        "NOTES.md": "# Refunds\n\nThrough the ledger.\n",
        "config.txt": "mode = new\nkeep = yes\n",
        "src/refund.py": "def refund(order):\n    return ledger.refund(order)\n",
    }


def assert_no_shell_or_web(agent: str, request: Any) -> None:
    """The tools a work run offers the model: ways to edit files, no shell (but Codex's,
    in its sandbox) and no web."""
    names = request.tool_names
    if agent == "claude-code":
        assert {"Read", "Write", "Edit", "Skill"} <= set(names)
        assert "Bash" not in names
        assert "WebFetch" not in json.dumps(request.body)  # nor among the deferred tools
        assert "WebSearch" not in json.dumps(request.body)
    elif agent == "opencode":
        assert names == ["edit", "glob", "grep", "read", "skill", "todowrite", "write"]
    elif agent == "copilot":
        assert sorted(names) == ["create", "edit", "glob", "grep", "skill", "view"]
    else:
        assert "exec" in names  # code mode: its shell and apply_patch are nested in it
        assert "web_search" not in names


REFUSED = {
    "claude-code": "Permission to use Write has been denied",
    "opencode": "The user has specified a rule which prevents you from using this specific tool",
    "codex": "patch rejected: writing outside of the project",
    # A path outside the workspace needs a person's approval, which a headless run denies.
    "copilot": "Permission denied because no interactive user response was available.",
}
STAGE_B_REFUSED = {
    "claude-code": "Permission to use Write has been denied",
    "opencode": "Model tried to call unavailable tool 'write'",
    "codex": "patch rejected: writing is blocked by read-only sandbox",
    "copilot": "Tool 'create' does not exist. Available tools that can be called are view,",
}


@pytest.mark.parametrize("agent", AGENTS)
def test_stage_b_refuses_every_write(agent: str, bench_for: Any) -> None:
    """Without `work` the run only looks around, as before: a write inside the workspace
    is refused too."""
    bench = bench_for(agent)
    dirs = bench.fresh_dirs()
    with bench.api(writes(agent, {"stage-b.txt": "no\n"})) as api:
        bench.run(api, dirs, work=False)
        (result,) = bench.results(api)
    assert not (dirs.work / "stage-b.txt").exists()
    assert "stage-b.txt" not in "".join(files_under(dirs.work))
    assert STAGE_B_REFUSED[agent] in result, result


def test_codex_patches_with_the_top_level_apply_patch_tool_too(bench_for: Any) -> None:
    """gpt-5.5 is offered `apply_patch` itself (its default model only through code mode's
    `exec`, as the tests above run it): the same patches land, and one aimed out of the
    workspace is refused."""
    bench = bench_for("codex")
    dirs = bench.fresh_dirs()
    (dirs.work / "config.txt").write_text("mode = old\n")
    steps: list[Step] = [
        Write("src/refund.py", "LEDGER = True\n"),
        Replace("config.txt", "mode = old", "mode = new"),
        Write(str(dirs.tmp / "escaped.txt"), "x\n"),
    ]
    with bench.api(agent_writes.codex(steps)) as api:
        bench.run(api, dirs, model="gpt-5.5")
        first, *_ = bench.loop(api)
        outputs = bench.results(api)
    assert "apply_patch" in first.tool_names and "exec" not in first.tool_names
    assert (dirs.work / "src" / "refund.py").read_text() == "LEDGER = True\n"
    assert (dirs.work / "config.txt").read_text() == "mode = new\n"
    assert not (dirs.tmp / "escaped.txt").exists()
    assert REFUSED["codex"] in outputs[2], outputs[2]


def test_codex_commands_write_in_the_workspace_only_and_reach_no_network(
    bench_for: Any,
) -> None:
    """Codex's shell runs in its sandbox: a command writes in the workspace, not to the
    run's temp folder, its home or `../`, and cannot reach even the API's own address."""
    bench = bench_for("codex")
    dirs = bench.fresh_dirs()
    commands = [
        "printf 'in\\n' > inside.txt",
        f"printf 'x\\n' > {dirs.tmp}/escaped.txt",
        f"printf 'x\\n' > {dirs.home}/escaped.txt",
        "printf 'x\\n' > ../escaped.txt",
    ]
    replies: list[Any] = [Shell(command) for command in commands]

    def script(request: ResponsesRequest) -> Any:
        if request.turn < len(replies):
            return replies[request.turn]
        if request.turn == len(replies):
            return Shell(f"curl -sS -m 5 {api.base_url}/reached; echo exit=$?")
        return Text("Done.")

    with FakeResponsesAPI(script) as api:
        bench.run(api, dirs)
        outputs = bench.results(api)
        paths = {request.path for request in api.requests}
    assert (dirs.work / "inside.txt").read_text() == "in\n"
    assert [path for path in (dirs.tmp, dirs.home, dirs.work.parent)
            if (path / "escaped.txt").exists()] == []  # fmt: skip
    for output in outputs[1:4]:
        assert "Read-only file system" in output, output
    assert "Couldn't connect to server" in outputs[4]
    assert "exit=7" in outputs[4]
    assert paths == {"/v1/responses"}  # the command never reached the stand-in


# --- the none arm and the explicit invocation -----------------------------------------


def listed(agent: str, request: Any) -> str:
    """The skill listing of an agent's first request, as text."""
    if agent == "codex":
        return str(request.listing)
    if agent == "claude-code":
        return "\n".join(request.menu)
    return "\n".join(block["text"] for block in request.body["system"])


@pytest.mark.parametrize("agent", [agent for agent in AGENTS if agent != "opencode"])
def test_the_none_arm_installs_and_lists_nothing_of_the_set(agent: str, bench_for: Any) -> None:
    """`without_set`: no file of the set in the workspace or the home, none of its skills
    listed; the catalog's `notes` is installed and listed as before. (OpenCode's none arm,
    a run that starts in about 17 s of CPU: the conformance suite's, which checks its
    listing too, tests/trials/agents/test_conformance.py.)"""
    bench = bench_for(agent)
    dirs = bench.fresh_dirs()
    empty = bench.folder / "empty"
    empty.mkdir()
    none = without_set(bench.skills, empty)
    with bench.api(writes(agent, {"answer.txt": "done\n"})) as api:
        bench.run(api, dirs, skills=none)
        first = bench.loop(api)[0]
    installed = {**files_under(dirs.work), **files_under(dirs.home)}
    texts = "\n".join(installed.values())
    assert "REFUNDS-BODY" not in texts
    assert "CHARTS-BODY" not in texts
    listing = listed(agent, first)
    for name in ("refunds", "charts"):
        assert name not in listing
    assert "notes" in listing
    assert (dirs.work / "answer.txt").read_text() == "done\n"


def sent_text(request: Any) -> str:
    """Every message of a request, as JSON text."""
    if isinstance(request, ResponsesRequest):
        return json.dumps(request.input)
    assert isinstance(request, FakeRequest)
    return json.dumps(request.messages)


@pytest.mark.parametrize("agent", [agent for agent in AGENTS if agent != "copilot"])
def test_the_explicit_invocation_loads_the_skill(agent: str, bench_for: Any) -> None:
    """`invoked` is the user's own way to force the skill: the first request already
    holds its body, with the prompt, before the model has done anything."""
    bench = bench_for(agent)
    dirs = bench.fresh_dirs()
    prompt = bench.adapter.invoked(PROMPT, bench.skills.target)
    with bench.api(writes(agent, {"receipt.txt": "refunded\n"})) as api:
        bench.run(api, dirs, prompt)
        first = bench.loop(api)[0]
    sent = sent_text(first)
    assert "REFUNDS-BODY: refund through the ledger." in sent
    assert "CHARTS-BODY" not in sent
    assert PROMPT in sent
    assert (dirs.work / "receipt.txt").read_text() == "refunded\n"
    if agent == "claude-code":
        assert "<command-name>/billing:refunds</command-name>" in sent
    elif agent == "opencode":
        (message,) = first.messages
        text = message["content"][0]["text"]
        assert text.startswith("# Refunds\n\nREFUNDS-BODY: refund through the ledger.")
        assert text.endswith(f"\n\n{PROMPT}")
    else:
        (skill,) = [item for item in first.input if "<skill>" in json.dumps(item)]
        assert skill["content"][0]["text"].startswith("<skill>\n<name>refunds</name>\n<path>")


def test_copilots_explicit_invocation_names_the_skill_in_the_prompt(bench_for: Any) -> None:
    """Copilot CLI in prompt mode does not expand a `/<name>` command: its users name the
    skill in the prompt ("Use the /<name> skill"), the model then calls `skill`, and the
    body arrives at its next request."""
    bench = bench_for("copilot")
    dirs = bench.fresh_dirs()
    prompt = bench.adapter.invoked(PROMPT, bench.skills.target)
    assert prompt == f"Use the /refunds skill: {PROMPT}"
    with bench.api(writes("copilot", {"receipt.txt": "refunded\n"}, "refunds")) as api:
        bench.run(api, dirs, prompt)
        first, second, *_ = bench.loop(api)
    assert prompt in sent_text(first)
    assert "REFUNDS-BODY" not in sent_text(first)
    assert "REFUNDS-BODY: refund through the ledger." in sent_text(second)
    assert (dirs.work / "receipt.txt").read_text() == "refunded\n"


# --- the fake agent ---------------------------------------------------------------------


def test_the_fake_agent_writes_what_it_is_told_inside_its_workspace_only(
    tmp_path: Path,
) -> None:
    """With `--work` it follows the `WRITE` lines of the prompt and of every skill it
    loaded; a path out of the workspace is refused; without it, it writes nothing."""
    skills = skill_set(tmp_path / "copy")
    target = skills.target.folder / "SKILL.md"
    target.write_text(target.read_text() + "WRITE src/ledger.py: LEDGER = 'v2'\n")
    shim = write_shim(tmp_path)
    prompt = FAKE.invoked("Do it.\nWRITE out.txt: hello\nWRITE ../escaped.txt: no", skills.target)
    found: dict[bool, tuple[list[dict[str, Any]], dict[str, str]]] = {}
    for work in (True, False):
        base = tmp_path / f"run-{work}"
        dirs = RunDirs(base / "work", base / "home", base / "tmp")
        for folder in (dirs.work, dirs.home, dirs.tmp):
            folder.mkdir(parents=True)
        run = Run(AgentSettings(), None, str(shim), prompt, dirs, skills, work=work)
        finished = run_cli(FAKE, run, {"PATH": PATH})
        events = [json.loads(line) for line in finished.stdout.splitlines()]
        files = {k: v for k, v in files_under(dirs.work).items() if not k.startswith(".agents")}
        found[work] = ([e for e in events if e["type"] in ("load", "write")], files)
        assert not (base / "escaped.txt").exists()
    events, files = found[True]
    assert [(e["type"], e.get("skill") or e["path"]) for e in events] == [
        ("load", "refunds"), ("write", "out.txt"), ("write", "../escaped.txt"),
        ("write", "src/ledger.py"),
    ]  # fmt: skip
    assert [e["ok"] for e in events[1:]] == [True, False, True]
    assert files == {"out.txt": "hello\n", "src/ledger.py": "LEDGER = 'v2'\n"}
    assert found[False] == ([events[0]], {})


# --- the command lines and configs, without a run -------------------------------------


def test_claude_codes_work_argv_allows_edits_in_the_working_directory_only() -> None:
    settings = AgentSettings(max_turns=7)
    stage_b = claude_code.build_argv(settings, None, "claude", "hi")
    stage_c = claude_code.build_argv(settings, "claude-x", "claude", "hi", work=True)
    assert stage_b == [
        "claude", "-p", "--output-format", "stream-json", "--verbose", "--max-turns", "7",
        "--no-session-persistence", "--permission-mode", "dontAsk", "--allowedTools",
        "Read,Glob,Grep,Skill", "--", "hi",
    ]  # fmt: skip
    assert stage_c == [
        "claude", "-p", "--output-format", "stream-json", "--verbose", "--max-turns", "7",
        "--no-session-persistence", "--permission-mode", "dontAsk", "--allowedTools",
        "Read,Glob,Grep,Skill,Edit(./**)", "--disallowedTools", "Bash,WebFetch,WebSearch",
        "--model", "claude-x", "--", "hi",
    ]  # fmt: skip


def test_opencodes_work_config_allows_edits_and_keeps_the_rest_denied() -> None:
    settings = AgentSettings(max_turns=4)
    stage_b = opencode.config(settings, None)
    stage_c = opencode.config(settings, "http://127.0.0.1:9", work=True)
    assert stage_b["permission"] == {
        "edit": "deny", "bash": "deny", "webfetch": "deny", "websearch": "deny",
        "task": "deny", "external_directory": "deny", "skill": "allow",
    }  # fmt: skip
    assert stage_c["permission"] == {**stage_b["permission"], "edit": "allow"}
    assert {k: v for k, v in stage_c.items() if k not in ("permission", "provider")} == {
        k: v for k, v in stage_b.items() if k not in ("permission", "provider")
    }


def test_codexs_work_sandbox_writes_the_workspace_only_with_no_network() -> None:
    assert codex.build_argv("codex", "gpt-5.5", work=True) == [
        "codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--sandbox",
        "workspace-write", "--disable", "plugins", "--disable", "remote_plugin", "--disable",
        "apps", "-m", "gpt-5.5", "-",
    ]  # fmt: skip
    assert codex.build_argv("codex", None) == [
        "codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--sandbox",
        "read-only", "--disable", "plugins", "--disable", "remote_plugin", "--disable",
        "apps", "-",
    ]  # fmt: skip
    assert codex.config("http://127.0.0.1:8/v1", work=True) == (
        'model_provider = "activation"\napproval_policy = "never"\n'
        'sandbox_mode = "workspace-write"\nweb_search = "disabled"\n\n'
        "[sandbox_workspace_write]\nnetwork_access = false\nexclude_tmpdir_env_var = true\n"
        "exclude_slash_tmp = true\n\n[analytics]\nenabled = false\n\n"
        '[model_providers.activation]\nname = "activation"\n'
        'base_url = "http://127.0.0.1:8/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
    )
    assert 'sandbox_mode = "read-only"\n\n[analytics]' in codex.config(None)


@pytest.mark.parametrize(
    ("agent", "invoked"),
    [
        ("claude-code", f"/billing:refunds {PROMPT}"),
        ("opencode", f"/refunds {PROMPT}"),
        ("codex", f"$refunds {PROMPT}"),
        ("copilot", f"Use the /refunds skill: {PROMPT}"),
        ("fake", f"/refunds {PROMPT}"),
    ],
)
def test_each_agent_invokes_a_skill_its_own_way(agent: str, invoked: str, tmp_path: Path) -> None:
    adapter = FAKE if agent == "fake" else adapter_of(agent)
    assert adapter.invoked(PROMPT, skill_set(tmp_path).target) == invoked


def test_opencode_runs_an_invoked_skill_as_its_command_in_a_work_run(tmp_path: Path) -> None:
    """`opencode run` reads no slash in its message: a work run's `/<skill> ...` becomes
    `--command <skill>` with the rest on stdin, for a skill the run installs only."""
    skills = skill_set(tmp_path)
    assert opencode.split_command("/refunds Refund\norder 1234", skills) == (
        "refunds", "Refund\norder 1234",
    )  # fmt: skip
    assert opencode.split_command("/notes", skills) == ("notes", "")
    assert opencode.split_command("/unknown x", skills) == (None, "/unknown x")
    assert opencode.split_command("refunds x", skills) == (None, "refunds x")
    none = without_set(skills, tmp_path / "empty")
    assert opencode.split_command("/refunds x", none) == (None, "/refunds x")
    settings = AgentSettings()
    asked = opencode.ADAPTER.request(Asked(settings, None, "/refunds x", skills, work=True))
    assert asked["argv"] == ["opencode", "run", "--format", "json", "--title", "activation",
                             "--command", "refunds"]  # fmt: skip
    assert asked["prompt"] == "x"
    stage_b = opencode.ADAPTER.request(Asked(settings, None, "/refunds x", skills))
    assert stage_b["prompt"] == "/refunds x"
    assert "--command" not in stage_b["argv"]  # type: ignore[operator]


@pytest.mark.parametrize("agent", [*AGENTS, "fake"])
def test_a_work_run_never_shares_a_stage_b_request(agent: str, tmp_path: Path) -> None:
    adapter = FAKE if agent == "fake" else adapter_of(agent)
    skills = skill_set(tmp_path)
    settings = AgentSettings()
    stage_b = adapter.request(Asked(settings, None, PROMPT, skills))
    assert adapter.request(Asked(settings, None, PROMPT, skills, work=False)) == stage_b
    assert adapter.request(Asked(settings, None, PROMPT, skills, work=True)) != stage_b


@pytest.mark.parametrize("agent", [*AGENTS, "fake"])
@pytest.mark.parametrize("in_plugin", [True, False], ids=["plugin", "skills-folder"])
def test_the_none_arm_lays_out_no_file_of_the_set(
    agent: str, in_plugin: bool, tmp_path: Path
) -> None:
    """A plugin or a skills folder: `without_set` leaves no file of it in the run's folders
    and no `--plugin-dir` of it in the command line; the catalog's skill is still there."""
    skills = skill_set(tmp_path / "copy")
    if not in_plugin:
        skills = replace(skills, root=skills.root / "skills", in_plugin=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    dirs = RunDirs(tmp_path / "work", tmp_path / "home", tmp_path / "tmp")
    for folder in (dirs.work, dirs.home, dirs.tmp):
        folder.mkdir()
    adapter = FAKE if agent == "fake" else adapter_of(agent)
    none = without_set(skills, empty)
    run = Run(AgentSettings(), None, f"/bin/{agent}", PROMPT, dirs, none, work=True)
    launch = adapter.prepare(run, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    laid = {**files_under(dirs.work), **files_under(dirs.home)}
    skill_files = sorted(name for name in laid if name.endswith("SKILL.md"))
    assert skill_files == [
        ".claude/skills/notes/SKILL.md"
        if agent == "claude-code"
        else ".agents/skills/notes/SKILL.md"
    ]
    assert str(skills.root) not in " ".join(launch.argv)
    assert str(empty) not in " ".join(launch.argv)
