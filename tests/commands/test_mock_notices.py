"""Every output of every command that used the mock model says so, as the README promises:
each command runs once with the mock (Stage A's classifier, Stage C's judge and `llm` arm),
writing every format it can, and each format carries the mock's notice, word for word."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import junitparser
import orjson
import pytest

from activation.commands.main import main
from activation.report.markdown import escape
from activation.trials.providers import provider_of
from tests.support.behavior_repo import BROKEN_BODY, example_repo
from tests.support.billing_repo import EDIT, REFUNDS
from tests.support.fake_behavior import FakeBehavior, passing, taught_by

NOTICE = str(provider_of("mock")[1].notice())
TERMINAL = f"NOTE: {NOTICE}"
MARKDOWN = f"> **Note:** {escape(NOTICE)}"
HTML = f"Note: {NOTICE}"
OUTPUTS = ("--json", "out.json", "--markdown", "out.md", "--junit", "out.xml", "--html", "out.html")


@dataclass
class Ran:
    """A command's exit code, its terminal output and the files it wrote."""

    code: int
    out: str
    folder: Path
    files: list[str] = field(default_factory=list)

    def text(self, name: str) -> str:
        return (self.folder / name).read_text(encoding="utf-8")

    def json(self, name: str = "out.json") -> Any:
        return orjson.loads((self.folder / name).read_bytes())


Runner = Callable[[Path, pytest.MonkeyPatch, pytest.CaptureFixture[str]], Ran]


def ran(code: int, capsys: pytest.CaptureFixture[str], *files: str) -> Ran:
    return Ran(code, capsys.readouterr().out, Path.cwd(), list(files))


def run_main(tmp: Path, mp: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Ran:
    code = main(["--model", "mock", "--cases", "cases.json", "--candidate", EDIT, *OUTPUTS])
    return ran(code, capsys, "json", "markdown", "junit", "html")


def changed(tmp: Path, mp: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Ran:
    shutil.copyfile(EDIT, REFUNDS)
    code = main(["changed", "--base", "git:main", "--model", "mock", *OUTPUTS])
    return ran(code, capsys, "json", "markdown", "junit", "html")


def calibrate(tmp: Path, mp: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Ran:
    flags = ["--model", "mock", "--cases", "cases.json", "--skill-path", REFUNDS]
    code = main(["calibrate", *flags, "--json", "out.json", "--record", "records"])
    (markdown,) = Path("records").glob("*.md")
    (record,) = Path("records").glob("*.json")
    shutil.copyfile(markdown, "out.md")
    shutil.copyfile(record, "record.json")
    return ran(code, capsys, "json", "record", "markdown")


def behavior(tmp: Path, mp: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Ran:
    mp.chdir(example_repo(tmp / "greetlib"))
    stages = FakeBehavior(passing({}))
    flags = ["--judge-model", "mock", "--baseline", "git:HEAD", "--trials", "2"]
    code = main(["behavior", *flags, "--max-trials", "2", *OUTPUTS], stages)
    return ran(code, capsys, "json", "markdown", "junit", "html")


def calibrate_behavior(
    tmp: Path, mp: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Ran:
    mp.chdir(example_repo(tmp / "greetlib"))
    stages = FakeBehavior(taught_by("# greetlib 2"))
    flags = ["--behavior", "--broken", str(BROKEN_BODY), "--judge-model", "mock"]
    code = main(["calibrate", *flags, "--trials", "2", "--max-trials", "2", "--json", "out.json"],
                stages)  # fmt: skip
    return ran(code, capsys, "json")


def junit_notices(path: Path) -> list[str | None]:
    """Each testsuite's notice property."""
    suites = list(junitparser.JUnitXml.fromfile(str(path)))
    assert suites
    found: list[str | None] = []
    for suite in suites:
        properties = suite.properties()  # type: ignore[no-untyped-call]
        found.append({p.name: p.value for p in properties}.get("notice"))
    return found


CHECKS: dict[str, Callable[[Ran], None]] = {
    "json": lambda done: _json(done.json()),
    "record": lambda done: _json(done.json("record.json")),
    "markdown": lambda done: _once(MARKDOWN, done.text("out.md")),
    "junit": lambda done: _all(junit_notices(done.folder / "out.xml")),
    "html": lambda done: _once(HTML, done.text("out.html")),
}


def _json(data: dict[str, Any]) -> None:
    assert data["notice"] == NOTICE
    runs = data.get("gates") or data.get("reports") or {}
    inner = [gate["run"] for gate in runs] if "gates" in data else list(runs.values())
    inner += [data[name] for name in ("same", "broken") if data.get(name)]
    assert all(run["notice"] == NOTICE for run in inner)


def _once(line: str, text: str) -> None:
    assert line in text


def _all(found: list[str | None]) -> None:
    assert found == [NOTICE] * len(found)


@pytest.mark.parametrize(
    "command",
    [run_main, changed, calibrate, behavior, calibrate_behavior],
    ids=["run", "changed", "calibrate", "behavior", "calibrate-behavior"],
)
def test_every_output_of_a_mock_run_says_so(
    command: Runner,
    billing: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = command(tmp_path, monkeypatch, capsys)
    assert done.code in (0, 1), done.out
    assert TERMINAL in done.out.splitlines()
    for name in done.files:
        CHECKS[name](done)
