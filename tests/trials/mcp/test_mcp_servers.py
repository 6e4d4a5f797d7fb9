"""A behavior case's MCP servers without a real agent: read from both case shapes, refused
in one line when wrong, linted, written into each agent's own configuration, laid out for a
run, their tool calls named `<server>.<tool>`; and the shipped scripted server answering
over stdio."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from activation._behavior import BehaviorCase, McpServer
from activation._errors import InputError
from activation._models import AgentSettings, ToolCall, Trajectory
from activation.commands.main import main
from activation.graders.tool_used import ToolUsed
from activation.inputs.behavior_cases import parse_case_file
from activation.inputs.behavior_mcp import bundled_servers, parse_mcp_servers
from activation.inputs.lint import lint_behavior
from activation.inputs.load import load_behavior_suite
from activation.trials.agent import mcp
from activation.trials.agent.adapter import McpLaunch
from activation.trials.agent.sandbox import Bubblewrapped, Unconfined, View
from activation.trials.agent.sandbox_docker import Contained, Container
from activation.trials.agent.sandbox_egress import Egress
from activation.trials.agents import agent_named, known
from activation.trials.agents.claude_code.adapter import build_argv as claude_argv
from activation.trials.agents.codex.adapter import config as codex_config
from activation.trials.agents.copilot.adapter import build_argv as copilot_argv
from activation.trials.agents.gemini.adapter import policy, settings_file
from activation.trials.agents.opencode.adapter import config as opencode_config
from tests.support.cli import read_report
from tests.support.fake_agent_runs import fake_agent_on_path
from tests.support.skill_repo import commit_all

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "behavior" / "mcp"
SERVER = REPO / "activation" / "mcp" / "invoices.mjs"
INVOICES = McpServer("invoices", "{mcp:invoices}")
LAUNCHED = McpLaunch("invoices", "/usr/bin/node", ("/h/.activation-mcp/invoices.mjs",),
                     (("REGION", "eu"),))  # fmt: skip
SETTINGS = AgentSettings(max_turns=8)


def test_the_example_case_gives_the_agent_the_shipped_invoices_server() -> None:
    (case,) = load_behavior_suite(EXAMPLE / "evals").cases
    assert case.id == "invoice_status"
    assert case.mcp_servers == (INVOICES,)
    assert case.unread == ()
    assert [(grader.type, grader.summary()) for grader in case.graders] == [
        ("tool_used", "tool_used invoices.lookup_invoice with input /INV-1042/"),
        ("tool_not_used", "tool_not_used invoices.list_invoices"),
    ]
    assert bundled_servers() == ("invoices",)


def test_a_case_file_gives_its_servers_to_each_of_its_cases() -> None:
    data = {
        "slug": "bills",
        "evals": [{"prompt": "Is INV-1042 paid?"}, {"prompt": "And INV-1043?"}],
        "mcp_servers": {
            "invoices": {"command": "{mcp:invoices}"},
            "ledger": {"command": "ledger-mcp", "args": ["--stdio"], "env": ["LEDGER_TOKEN"]},
        },
    }
    cases = parse_case_file(data, "bills.json")
    ledger = McpServer("ledger", "ledger-mcp", ("--stdio",), ("LEDGER_TOKEN",))
    assert [(case.id, case.mcp_servers, case.unread) for case in cases] == [
        ("bills", (INVOICES, ledger), ()),
        ("bills-2", (INVOICES, ledger), ()),
    ]


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ([], "x: 'mcp_servers' must be an object of {name: {command}}"),
        ({"Invoices": {"command": "a"}},
         "x: the MCP server name 'Invoices' must be lower-case letters and digits, starting "
         "with a letter (each agent joins it to its tools' names)"),
        ({"my_server": {"command": "a"}},
         "x: the MCP server name 'my_server' must be lower-case letters and digits, starting "
         "with a letter (each agent joins it to its tools' names)"),
        ({"invoices": "node s.js"}, "x: MCP server 'invoices' must be an object with a 'command'"),
        ({"invoices": {"args": []}}, "x: MCP server 'invoices': 'command' must be non-empty text"),
        ({"invoices": {"command": "{mcp:ledger}"}},
         "x: MCP server 'invoices': no server {mcp:ledger} is shipped (there is {mcp:invoices})"),
        ({"invoices": {"command": "a", "args": "b"}},
         "x: MCP server 'invoices': 'args' must be a list of text"),
        ({"invoices": {"command": "a", "env": {"TOKEN": "secret"}}},
         "x: MCP server 'invoices': 'env' must be a list of environment variable names"),
        ({"invoices": {"command": "a", "cwd": "/"}},
         "x: MCP server 'invoices': unknown key 'cwd' (it takes command, args and env)"),
    ],
)  # fmt: skip
def test_a_wrong_server_is_refused_naming_it(raw: object, said: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_mcp_servers(raw, "x")
    assert str(refused.value) == said


def test_a_wrong_server_in_an_eval_folder_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evals = tmp_path / "evals"
    shutil.copytree(EXAMPLE / "evals", evals)
    prompt = evals / "invoice-status" / "PROMPT.md"
    prompt.write_text(prompt.read_text().replace("{mcp:invoices}", "{mcp:payroll}"))
    assert main(["lint", "--behavior", str(evals)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "case 'invoice_status': MCP server 'invoices': no server {mcp:payroll} is shipped "
        "(there is {mcp:invoices})"
    )
    assert "\n" not in err and "Traceback" not in err


def lint_messages(name: str, servers: tuple[McpServer, ...]) -> list[str]:
    grader = ToolUsed(name=name, description="Looked it up", level="L1")
    case = BehaviorCase("c", "c", "Is INV-1042 paid?", "c.json", graders=(grader,),
                        mcp_servers=servers)  # fmt: skip
    return [f.message for f in lint_behavior([case]) if f.level == "error"]


def test_lint_refuses_a_tool_of_a_server_the_case_does_not_give() -> None:
    assert lint_messages("invoices.lookup_invoice", (INVOICES,)) == []
    assert lint_messages("invoices.lookup_invoice", ()) == [
        "grader 1 (Looked it up) names the MCP tool 'invoices.lookup_invoice', but the case "
        "gives no MCP server 'invoices'"
    ]


@pytest.mark.parametrize(
    "own",
    ["mcp__invoices__lookup_invoice", "mcp_invoices_lookup_invoice", "invoices_lookup_invoice",
     "invoices-lookup_invoice"],
)  # fmt: skip
def test_lint_refuses_an_agents_own_name_of_a_servers_tool(own: str) -> None:
    assert lint_messages(own, (INVOICES,)) == [
        f"grader 1 (Looked it up) names {own!r}: name an MCP tool "
        "invoices.lookup_invoice, on every agent"
    ]


def test_a_built_in_tool_name_is_no_mcp_tool() -> None:
    assert lint_messages("read_file", (INVOICES,)) == []
    assert lint_messages("Bash", ()) == []


def test_claude_code_gets_the_servers_by_mcp_config_strictly_and_may_call_their_tools() -> None:
    argv = claude_argv(SETTINGS, None, "claude", "Is INV-1042 paid?", work=True,
                       servers=[LAUNCHED])  # fmt: skip
    at = argv.index("--mcp-config")
    assert argv[at + 2] == "--strict-mcp-config"
    assert json.loads(argv[at + 1]) == {
        "mcpServers": {
            "invoices": {"type": "stdio", "command": "/usr/bin/node",
                         "args": ["/h/.activation-mcp/invoices.mjs"], "env": {"REGION": "eu"},
                         "alwaysLoad": True}
        }
    }  # fmt: skip
    assert argv[argv.index("--allowedTools") + 1] == "Read,Glob,Grep,Skill,Edit(./**),mcp__invoices"
    plain = claude_argv(SETTINGS, None, "claude", "Is INV-1042 paid?", work=True)
    assert "--mcp-config" not in plain and "--strict-mcp-config" not in plain


def test_codex_gets_an_mcp_servers_table_in_its_config_toml() -> None:
    toml = tomllib.loads(codex_config("http://api.test/v1", work=True, servers=[LAUNCHED]))
    assert toml["mcp_servers"] == {
        "invoices": {"command": "/usr/bin/node", "args": ["/h/.activation-mcp/invoices.mjs"],
                     "env": {"REGION": "eu"}, "required": True,
                     "default_tools_approval_mode": "approve"}
    }  # fmt: skip
    assert "mcp_servers" not in tomllib.loads(codex_config("http://api.test/v1", work=True))


def test_gemini_gets_mcp_servers_in_its_settings_and_a_policy_rule_for_their_tools() -> None:
    settings = settings_file(SETTINGS, work=True, servers=[LAUNCHED])
    assert settings["mcpServers"] == {
        "invoices": {"command": "/usr/bin/node", "args": ["/h/.activation-mcp/invoices.mjs"],
                     "env": {"REGION": "eu"}}
    }  # fmt: skip
    assert "mcpServers" not in settings_file(SETTINGS, work=True)
    rules = tomllib.loads(policy(work=True, servers=["invoices"]))["rule"]
    assert rules[-1] == {"mcpName": "invoices", "toolName": "*", "decision": "allow",
                         "priority": 100}  # fmt: skip
    assert len(rules) == len(tomllib.loads(policy(work=True))["rule"]) + 1


def test_opencode_gets_a_local_mcp_server_and_the_permission_of_its_tools() -> None:
    config = opencode_config(SETTINGS, None, work=True, servers=[LAUNCHED])
    assert config["mcp"] == {
        "invoices": {"type": "local",
                     "command": ["/usr/bin/node", "/h/.activation-mcp/invoices.mjs"],
                     "environment": {"REGION": "eu"}, "enabled": True}
    }  # fmt: skip
    plain = opencode_config(SETTINGS, None, work=True)
    assert config["permission"] == {**plain["permission"], "invoices_*": "allow"}  # type: ignore[dict-item]
    assert "mcp" not in plain


def test_copilot_gets_additional_mcp_config_and_the_server_among_its_available_tools() -> None:
    argv = copilot_argv("copilot", "Is INV-1042 paid?", work=True, servers=[LAUNCHED])
    at = argv.index("--additional-mcp-config")
    assert json.loads(argv[at + 1]) == {
        "mcpServers": {
            "invoices": {"type": "local", "command": "/usr/bin/node",
                         "args": ["/h/.activation-mcp/invoices.mjs"], "env": {"REGION": "eu"},
                         "tools": ["*"]}
        }
    }  # fmt: skip
    tools = argv[argv.index("--available-tools") + 1 :]
    assert tools == ["skill", "view", "glob", "grep", "create", "edit", "invoices"]


OWN_NAMES = {
    "mcp__invoices__lookup_invoice",
    "mcp_invoices_lookup_invoice",
    "invoices_lookup_invoice",
    "invoices-lookup_invoice",
}
"""Each agent's own name of the tool, as the adapters' docstrings say (measured)."""


@pytest.mark.parametrize("agent", known())
def test_every_agents_name_of_an_mcp_tool_reads_back_as_server_dot_tool(agent: str) -> None:
    prefix = agent_named(agent).mcp_prefix
    own = f"{prefix('invoices')}lookup_invoice"
    assert own in OWN_NAMES
    did = Trajectory(tool_calls=(ToolCall(own, '{"invoice_id":"INV-1042"}', 2),
                                 ToolCall("Read", "{}", 1)))  # fmt: skip
    named = mcp.named(did, [INVOICES], prefix)
    assert named.tool_calls == (
        ToolCall("invoices.lookup_invoice", '{"invoice_id":"INV-1042"}', 2),
        ToolCall("Read", "{}", 1),
    )


def test_a_run_gets_its_copy_of_the_shipped_server_run_by_the_sandboxs_node(
    tmp_path: Path,
) -> None:
    ledger = McpServer("ledger", "ledger-mcp", ("--stdio",), ("LEDGER_TOKEN",))
    parent = {"LEDGER_TOKEN": "t-123", "HOME": "/h"}
    laid = mcp.laid_out([INVOICES, ledger], tmp_path, parent, IMAGE_NODE)
    copy = tmp_path / ".activation-mcp" / "invoices.mjs"
    assert laid == (
        McpLaunch("invoices", IMAGE_NODE, (str(copy),)),
        McpLaunch("ledger", "ledger-mcp", ("--stdio",), (("LEDGER_TOKEN", "t-123"),)),
    )
    assert copy.read_bytes() == SERVER.read_bytes()
    assert mcp.asked([INVOICES, ledger]) == {
        "mcp_servers": [["invoices", "{mcp:invoices}", [], []],
                        ["ledger", "ledger-mcp", ["--stdio"], ["LEDGER_TOKEN"]]]
    }  # fmt: skip
    assert mcp.asked([]) == {}


IMAGE_NODE = "/usr/local/bin/node"
"""Where an image `activation sandbox build` made holds its Node (its `activation.node`)."""


def test_the_sandboxs_node_is_the_images_where_it_has_one_else_the_hosts(tmp_path: Path) -> None:
    """A shipped server starts by the Node the run's sandbox has: in an image holding its
    own (not the host's path, which is not mounted there), that one; else, on the host,
    under bwrap and in an image without one, this machine's by its real path."""
    host = str(Path(shutil.which("node") or "").resolve())
    view = View(tmp_path, (), ())
    built = Container("activation-7-abc", "img:1", 1000, 1000, {}, IMAGE_NODE)
    plain = replace(built, node=None)
    egress = Egress((), 16)
    assert Contained(view, egress, built).node == IMAGE_NODE
    assert Contained(view, egress, plain).node == host
    assert Bubblewrapped(view, egress, tmp_path / "hosts").node == host
    assert Unconfined().node == host


def test_a_variable_a_server_needs_must_be_set_before_any_run() -> None:
    ledger = McpServer("ledger", "ledger-mcp", env=("LEDGER_TOKEN", "LEDGER_URL"))
    with pytest.raises(InputError) as refused:
        mcp.check_environment([ledger], {"LEDGER_URL": "http://l"}, "bills")
    assert str(refused.value) == "case 'bills': its MCP servers need LEDGER_TOKEN set"
    mcp.check_environment([ledger], {"LEDGER_URL": "u", "LEDGER_TOKEN": "t"}, "bills")


def rpc(*messages: dict[str, object]) -> list[dict[str, object]]:
    """The shipped server's answers to `messages`, one JSON-RPC line each, over stdio."""
    lines = "".join(orjson.dumps({"jsonrpc": "2.0", **m}).decode() + "\n" for m in messages)
    done = subprocess.run(["node", str(SERVER)], input=lines, capture_output=True, text=True,
                          timeout=30, check=True)  # fmt: skip
    return [orjson.loads(line) for line in done.stdout.splitlines()]


def test_the_shipped_server_answers_fixed_data_over_stdio() -> None:
    answers = rpc(
        {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
        {"method": "notifications/initialized"},
        {"id": 2, "method": "tools/list"},
        {"id": 3, "method": "tools/call",
         "params": {"name": "lookup_invoice", "arguments": {"invoice_id": "INV-1042"}}},
        {"id": 4, "method": "tools/call",
         "params": {"name": "lookup_invoice", "arguments": {"invoice_id": "INV-9"}}},
        {"id": 5, "method": "tools/call", "params": {"name": "list_invoices"}},
        {"id": 6, "method": "resources/list"},
    )  # fmt: skip
    assert answers[0] == {"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
        "serverInfo": {"name": "invoices", "version": "1.0.0"}}}  # fmt: skip
    tools = answers[1]["result"]["tools"]  # type: ignore[index]
    assert [tool["name"] for tool in tools] == ["lookup_invoice", "list_invoices"]
    assert answers[2:] == [
        {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text":
            "INV-1042: Ada Lovelace, EUR 1,234.50, overdue, due 2026-03-31"}], "isError": False}},
        {"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text":
            "No invoice INV-9 on file."}], "isError": True}},
        {"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text":
            "INV-1042\nINV-1043"}], "isError": False}},
        {"jsonrpc": "2.0", "id": 6,
         "error": {"code": -32601, "message": "Method not found: resources/list"}},
    ]  # fmt: skip


def test_a_case_whose_server_changed_is_run_again_not_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the fake agent (it starts no server): the servers are part of a trial's
    cache key, by name, command, arguments and variables' names."""
    fake_agent_on_path(tmp_path / "bin", monkeypatch)
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    commit_all(repo, "invoices and its eval").close()
    monkeypatch.chdir(repo)
    saved = tmp_path / "behavior.json"

    def cached() -> list[bool]:
        main(["behavior", "--agent", "fake", "--suite", "evals", "--no-control", "--trials",
              "1", "--max-trials", "1", "--json", str(saved)])  # fmt: skip
        (case,) = read_report(saved)["cases"]
        return [trial.get("cached", False) for trial in case["trials"]]

    assert cached() == [False, False]
    assert cached() == [True, True]
    prompt = repo / "evals" / "invoice-status" / "PROMPT.md"
    text = prompt.read_text()
    prompt.write_text(text.replace('"{mcp:invoices}"\n', '"{mcp:invoices}"\n    args: ["-v"]\n'))
    assert cached() == [False, False]
    prompt.write_text(text.replace('"{mcp:invoices}"\n', '"{mcp:invoices}"\n    env: [REGION]\n'))
    capsys.readouterr()
    assert main(["behavior", "--agent", "fake", "--suite", "evals", "--no-control"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("case 'invoice_status': its MCP servers need REGION set")
    )
    monkeypatch.setenv("REGION", "eu")
    assert cached() == [False, False]
