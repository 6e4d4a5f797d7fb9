"""The layouts with the real Claude Code CLI at the local Messages API stand-in: the copy a
Stage B run installs of a root plugin and of a marketplace's plugin is listed by the agent
with the ids the tool measures, its set and nothing else, and a Skill call by that id loads.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from activation.commands.main import main
from tests.support.cli import read_report
from tests.support.layouts import CANDIDATE, LAYOUTS, Layout, build_layout
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse

REAL = ["root-plugin", "marketplace", "plugins", "root-plugin-mixed"]


@pytest.mark.parametrize("name", REAL)
def test_the_agent_lists_and_loads_the_copy_by_the_measured_id(
    name: str, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout: Layout = LAYOUTS[name]
    root = tmp_path / "repo"
    build_layout(root, layout)
    systemp = tmp_path / "systemp"
    systemp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(systemp))
    monkeypatch.chdir(root)
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-layouts")
    menus: list[dict[str, str]] = []

    def load(request: FakeRequest) -> Reply:
        if not request.is_main_loop:
            return Text("ok")
        menus.append(request.menu)
        if request.turn == 0:
            return ToolUse("Skill", {"skill": layout.skill_id})
        return Text("Refunded.")

    report = tmp_path / "report.json"
    with FakeMessagesAPI(load) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        code = main(["--real", "--claude", str(claude), "--cases", "cases.json", "--only",
                     "refund", "--distractors", "none", "--max-turns", "3", "--timeout", "30",
                     "--trials", "1", "--max-trials", "1", "--json", str(report)])  # fmt: skip
    data = read_report(report)
    assert data["skill"]["id"] == layout.skill_id
    (entry,) = data["cases"]
    assert (entry["baseline"]["activated"], entry["candidate"]["activated"]) == (1, 1)
    assert code == 0
    ours = {layout.skill_id, layout.sibling}
    assert menus
    for menu in menus:
        assert ours <= set(menu)
        assert not (set(layout.skills.values()) - ours) & set(menu)
    assert CANDIDATE in {menu[layout.skill_id] for menu in menus}
    assert list(systemp.iterdir()) == []
