"""The skill the project ships (`skills/activation/`) is gated as any user's skill would be:
clean under `lint --strict`, its own suite passing on the mock model, and a description that
loses the suite's words caught by that suite."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from tests.support.cli import read_report

REPO = Path(__file__).resolve().parents[1]
SKILL = REPO / "skills" / "activation"
CASES = SKILL / "cases.json"
TARGET = ["--repo", str(REPO), "--skill-path", "skills/activation", "--cases", str(CASES)]


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def case_ids() -> list[str]:
    return [case["id"] for case in orjson.loads(CASES.read_bytes())["cases"]]


def positives() -> list[str]:
    cases = orjson.loads(CASES.read_bytes())["cases"]
    return [case["id"] for case in cases if case["should_activate"]]


def test_the_shipped_skill_and_its_cases_pass_lint_strict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", "--strict", *TARGET]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "lint: checked skills/activation/SKILL.md (its description and menu, the files it "
        "refers to) and 1 case file (skills/activation/cases.json): no problems found"
    ]


def test_its_own_suite_passes_on_the_mock(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    shipped = str(SKILL / "SKILL.md")
    code = main(["--model", "mock", *TARGET, "--baseline", shipped, "--json", str(report)])
    read = read_report(report)
    assert code == read["exit_code"] == 0
    assert [(case["id"], case["status"]) for case in read["cases"]] == [
        (case_id, "PASS") for case_id in case_ids()
    ]
    assert len(case_ids()) == 16
    assert len(positives()) == 7


def test_a_description_that_loses_its_words_is_caught(tmp_path: Path) -> None:
    vague = tmp_path / "SKILL.md"
    vague.write_text(
        "---\nname: activation\ndescription: Helps with agent skills and their quality.\n---\n"
    )
    report = tmp_path / "report.json"
    shipped = str(SKILL / "SKILL.md")
    code = main([
        "--model", "mock", *TARGET, "--baseline", shipped, "--candidate", str(vague),
        "--json", str(report),
    ])  # fmt: skip
    read = read_report(report)
    assert code == read["exit_code"] == 1
    assert sorted(read["summary"]["regressed"]) == sorted(positives())


def test_ci_gates_the_skill_from_the_installed_wheel_as_the_docs_show() -> None:
    """`.ci/run` runs the two commands `docs/ci.md` shows, with the wheel's `activation`."""
    ci_run = (REPO / ".ci" / "run").read_text().splitlines()
    page = (REPO / "docs" / "ci.md").read_text()
    gate = "--skill-path skills/activation --cases skills/activation/cases.json"
    for command in (f"activation lint --strict {gate}", f"activation --model mock {gate}"):
        assert f"\n{command}\n" in page
        (line,) = [line for line in ci_run if line.endswith(command.removeprefix("activation"))]
        assert '"$wheel_venv/venv/bin/activation"' in line
    build = ci_run.index(".venv/bin/python -m build --no-isolation --outdir dist .")
    assert build < next(i for i, line in enumerate(ci_run) if gate in line)
