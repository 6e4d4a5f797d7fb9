"""The fast tier: a test is marked `slow` (and `real_cli`) by the fixtures it uses, a run
that is about to install the pinned CLIs says so first, a Hypothesis property tries fewer
examples in the fast tier and all of them in the full suite, and a test never sees the
runner's terminal width."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import pytest
from hypothesis import settings

from tests import conftest
from tests.support.npm_cli import PinnedCli, install_notice
from tests.support.tiers import FAST, FAST_EXAMPLES, FAST_TIER, examples


@dataclass
class Collected:
    """What the marking hook reads and writes of a collected test."""

    fixturenames: list[str]
    markers: list[str] = field(default_factory=list)

    def add_marker(self, marker: str) -> None:
        self.markers.append(marker)


def marked(*fixtures: str) -> list[str]:
    item = Collected(list(fixtures))
    conftest.pytest_collection_modifyitems(cast(list[pytest.Item], [item]))
    return sorted(item.markers)


def test_a_test_is_marked_by_the_fixtures_it_uses() -> None:
    assert marked("tmp_path", "repo", "fake_api") == []
    assert marked("tmp_path", "claude") == ["real_cli", "slow"]
    assert marked("opencode_cli") == marked("codex_cli") == ["real_cli", "slow"]
    for fixture in ("chromium", "wheel", "fresh_python", "venv_bin", "spawn_activation",
                    "search_suite", "search_with_sibling"):  # fmt: skip
        assert marked("tmp_path", fixture) == ["slow"], fixture
    assert sorted(set(marked("claude", "chromium"))) == ["real_cli", "slow"]


def cli(folder: Path, megabytes: int) -> PinnedCli:
    return PinnedCli(title="Tool CLI", package="@scope/tool", version="1.2.3", folder=folder,
                     command="tool", megabytes=megabytes)  # fmt: skip


def install(tool: PinnedCli, version: str) -> None:
    manifest = tool.folder / "node_modules" / "@scope" / "tool" / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"name": "@scope/tool", "version": version}))
    tool.binary.parent.mkdir(parents=True)
    tool.binary.write_text("#!/bin/sh\n")


def test_a_run_says_which_clis_it_is_about_to_install(tmp_path: Path) -> None:
    first, second = cli(tmp_path / "a", 380), cli(tmp_path / "b", 350)
    assert install_notice([first, second]) == (
        "activation tests: installing 2 pinned agent CLIs with npm on first use, ~730 MB: "
        f"@scope/tool@1.2.3 (~380 MB, into {tmp_path / 'a'}/), "
        f"@scope/tool@1.2.3 (~350 MB, into {tmp_path / 'b'}/)"
    )
    install(first, "1.2.3")
    assert install_notice([first, second]) == (
        "activation tests: installing 1 pinned agent CLI with npm on first use, ~350 MB: "
        f"@scope/tool@1.2.3 (~350 MB, into {tmp_path / 'b'}/)"
    )
    install(second, "1.2.2")  # another version is installed over
    assert install_notice([second]) is not None
    assert install_notice([first]) is None
    assert install_notice([]) is None


@dataclass
class Options:
    markexpr: str
    hypothesis_profile: str | None = None


@dataclass
class Configured:
    """What the configure hook reads of a run's options."""

    option: Options

    def getoption(self, name: str) -> str | None:
        return cast(str | None, getattr(self.option, name))


def profile_after_configure(markexpr: str, hypothesis_profile: str | None = None) -> str:
    """The Hypothesis profile a run with these options loads, from Hypothesis's default."""
    before = settings.get_current_profile_name()
    try:
        settings.load_profile("default")
        configured = Configured(Options(markexpr, hypothesis_profile))
        conftest.pytest_configure(cast(pytest.Config, configured))
        return settings.get_current_profile_name()
    finally:
        settings.load_profile(before)


def test_the_fast_tier_tries_fewer_examples_and_the_full_suite_every_one() -> None:
    assert profile_after_configure(FAST_TIER) == FAST
    assert profile_after_configure("") == "default"
    assert profile_after_configure("not real_cli") == "default"
    assert profile_after_configure(FAST_TIER, "ci") == "default"  # Hypothesis loads that one
    before = settings.get_current_profile_name()
    try:
        settings.load_profile("default")
        assert examples(150).max_examples == 150
        settings.load_profile(FAST)
        assert examples(150).max_examples == FAST_EXAMPLES < 150
        assert examples(150).deadline is None
    finally:
        settings.load_profile(before)


def test_a_test_does_not_see_the_runners_terminal_width() -> None:
    """tests/conftest.py's `no_terminal_size`: readline, which pytest imports, exports
    COLUMNS=80 to the processes it starts (xdist's workers among them)."""
    assert "COLUMNS" not in os.environ
    assert "LINES" not in os.environ
