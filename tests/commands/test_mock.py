"""`activation --model mock`: the whole pipeline on the bundled suite with no API key, every
output saying plainly that the answers are a mock's."""

from __future__ import annotations

from pathlib import Path

import junitparser
import pytest

from activation.commands.main import main
from activation.report.markdown import escape
from activation.trials.providers.mock import NOTICE
from tests.support.cli import one_line_error, read_report
from tests.support.skill_repo import SkillRepos

AUTH0 = "plugins/auth0/skills/auth0/SKILL.md"
DESCRIPTION = "Use when adding login, signup, or authentication to a web app with Auth0."
NARROWER = "Use when adding Auth0 to a web app."


@pytest.fixture
def auth0(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repo with the auth0 skill the bundled suite was written for, its working tree
    narrowing the description; no key and no API address in the environment."""
    made = skill_repo(
        DESCRIPTION, plugin_dir="plugins/auth0", plugin_name="auth0", skill_name="auth0",
        candidate=NARROWER,
    )  # fmt: skip
    monkeypatch.chdir(made.root)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return made.root


def test_the_bundled_suite_runs_offline_and_every_output_says_it_is_a_mock(
    auth0: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = {name: tmp_path / f"report.{name}" for name in ("json", "md", "html", "xml")}
    code = main(
        [
            "--model", "mock", "--json", str(outputs["json"]), "--markdown", str(outputs["md"]),
            "--html", str(outputs["html"]), "--junit", str(outputs["xml"]),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    report = read_report(outputs["json"])
    assert code == report["exit_code"] == 1  # the narrower description loses prompts
    assert report["model"] == "mock"
    assert report["notice"] == NOTICE
    assert len(report["cases"]) == 95
    assert report["usage"]["cost_usd"] == 0.0
    assert report["summary"]["regressed"]
    assert out.startswith(f"NOTE: {NOTICE}")
    assert "cost $0.0000 (the mock model is free)" in out
    assert "more case(s) not flagged" in out  # 95 cases: the table shows the flagged ones
    assert f"**Note:** {escape(NOTICE)}" in outputs["md"].read_text()
    assert f"Note: {NOTICE}" in outputs["html"].read_text()
    suite = next(iter(junitparser.JUnitXml.fromfile(str(outputs["xml"]))))
    properties = {p.name: p.value for p in suite.properties()}  # type: ignore[no-untyped-call]
    assert properties["notice"] == NOTICE


def test_the_same_mock_run_twice_gives_the_same_verdicts_from_the_cache(
    auth0: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert main(["--model", "mock", "--json", str(first)]) == 1
    assert main(["--model", "mock", "--json", str(second)]) == 1
    one, two = (read_report(path) for path in (first, second))
    assert [c["status"] for c in one["cases"]] == [c["status"] for c in two["cases"]]
    assert two["usage"]["from_cache"] == sum(
        c["trials_run"]["baseline"] + c["trials_run"]["candidate"] for c in two["cases"]
    )


def test_the_mock_takes_no_batch(auth0: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--model", "mock", "--batch"]) == 2
    assert one_line_error(capsys) == (
        "activation: error: --batch is for the Messages API: --model mock is asked at once"
    )


def test_a_real_model_without_a_key_is_still_refused(
    auth0: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 2
    assert one_line_error(capsys) == (
        "activation: error: no API key: set ANTHROPIC_API_KEY (--dry-run needs none)"
    )
