"""`activation history REPORTS...`: a series of runs saved as a user's CI saves them (the
billing example run with the mock model: first as committed, then with its edit, then
again), rendered as one static page, a badge per skill, and a delta against the base
branch's last green run."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from tests.support.browser import ARTIFACTS, Launcher, visit
from tests.support.cli import one_line_error

REFUNDS = "plugins/billing/skills/refunds/SKILL.md"
CELL = "A/claude-code/mock"


@dataclass(frozen=True)
class Saved:
    root: Path
    runs: Path
    """01.json (as committed: exit 0), 02.json.gz and 03.json (the edit: exit 1)."""
    base: Path
    """The base branch's folder: 01.json and a later failing 02.json."""


def _run(json: Path) -> int:
    return main(["--model", "mock", "--repo", "demo", "--cases", "demo/cases.json",
                 "--json", str(json)])  # fmt: skip


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Saved]:
    root = tmp_path_factory.mktemp("history")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("ACTIVATION_CACHE_DIR", str(root / "cache"))
        patch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        patch.delenv("ANTHROPIC_API_KEY", raising=False)
        assert main(["example", "billing", "demo"]) == 1
        skill = root / "demo" / REFUNDS
        edited = skill.read_text()
        import git

        git.Repo(root / "demo").git.checkout("--", REFUNDS)
        runs, base = root / "runs", root / "base"
        runs.mkdir()
        base.mkdir()
        assert _run(runs / "01.json") == 0
        skill.write_text(edited)
        assert _run(runs / "02.json.gz") == 1
        assert _run(runs / "03.json") == 1
        changed = ["changed", "--repo", "demo", "--base", "git:HEAD", "--model", "mock"]
        assert main([*changed, "--json", str(root / "changed.json")]) == 1
        shutil.copy(runs / "01.json", base / "01.json")
        shutil.copy(runs / "03.json", base / "02.json")
        yield Saved(root, runs, base)


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:12]


def test_a_folder_of_runs_is_one_series_with_its_edit_marked(
    saved: Saved, capsys: pytest.CaptureFixture[str]
) -> None:
    page, badges = saved.root / "history.html", saved.root / "badges"
    assert main(["history", str(saved.runs), "--html", str(page), "--badges", str(badges)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "3 run(s), 1 series (skill x stage/agent/model)",
        f"billing:refunds {CELL}: 3 point(s); recall 3/3 -> 3/3; "
        "false positives 0/9 -> 3/9; 1 edit(s), 0 drift(s)",
    ]
    assert sorted(path.name for path in badges.iterdir()) == ["billing-refunds.json"]
    assert orjson.loads((badges / "billing-refunds.json").read_bytes()) == {
        "schemaVersion": 1,
        "label": "activation billing:refunds",
        "message": "recall 100%, fp 33%",
        "color": "red",
    }
    html = page.read_text()
    first = orjson.loads((saved.runs / "01.json").read_bytes())
    edited = orjson.loads(gzip.decompress((saved.runs / "02.json.gz").read_bytes()))
    for report in (first, edited):
        assert _digest(report["candidate"]["description"] + "\n") in html
    assert html.count('<circle class="dot') == 3 * 3  # recall, false positives, cost
    assert html.count('<line class="edit"') == 3
    assert "http" not in html.replace("http-equiv", "")


def test_against_the_base_branch_adds_the_delta_from_its_last_green_run(
    saved: Saved, capsys: pytest.CaptureFixture[str]
) -> None:
    page = saved.root / "against.html"
    runs = [str(saved.runs / "01.json"), str(saved.runs / "03.json")]
    argv = ["history", *runs, "--html", str(page), "--against", str(saved.base)]
    assert main(argv) == 0
    base = saved.base / "01.json"
    assert capsys.readouterr().out.splitlines()[2:] == [
        f"  against {base}: recall +0 pts, false positives +33 pts, cost (USD) +0.0000 USD"
    ]
    html = page.read_text()
    assert f"Deltas against the base branch's last green run: <code>{base}</code>" in html
    assert f"against {base}: recall +0 pts, false positives +33 pts" in html


DELTA = "recall +0 pts, false positives +33 pts, cost (USD) +0.0000 USD"
"""The edit's run against the base branch's green 01.json: three more false positives of 9."""


def test_a_run_against_the_base_branch_says_its_delta_in_every_output(
    saved: Saved, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(saved.root)
    out = saved.root / "run-against"
    files = {name: out / f"report.{name}" for name in ("json", "markdown", "html", "junit")}
    argv = ["--model", "mock", "--repo", "demo", "--cases", "demo/cases.json",
            "--against", str(saved.base), *(f"--{n}={p}" for n, p in files.items())]  # fmt: skip
    out.mkdir()
    assert main(argv) == 1
    line = f"against {saved.base / '01.json'}: {DELTA}"
    assert line in capsys.readouterr().out.splitlines()
    assert orjson.loads(files["json"].read_bytes())["against"] == {
        "base_run": str(saved.base / "01.json"),
        "changes": {"recall": 0.0, "false_positives": 1 / 3, "cost_usd": 0.0},
    }
    escaped = line.replace("+", r"\+").replace("(", r"\(").replace(")", r"\)")
    assert f"**{escaped}**" in files["markdown"].read_text().splitlines()
    assert f'<p class="meta" id="against"><strong>{line}</strong></p>' in files["html"].read_text()
    assert f'<property name="against" value="{line}"' in files["junit"].read_text()


def test_changed_against_the_base_branch_says_each_gates_delta(
    saved: Saved, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(saved.root)
    markdown = saved.root / "changed-against.md"
    argv = ["changed", "--repo", "demo", "--base", "git:HEAD", "--model", "mock",
            "--against", str(saved.base), "--markdown", str(markdown)]  # fmt: skip
    assert main(argv) == 1
    line = f"against {saved.base / '01.json'}: {DELTA}"
    assert f"    {line}" in capsys.readouterr().out.splitlines()
    assert f"- {line}" in markdown.read_text().splitlines()


def test_against_a_folder_that_is_not_one_is_refused_before_any_run(
    saved: Saved, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(saved.root)
    missing = saved.root / "no-such-folder"
    argv = ["--model", "mock", "--repo", "demo", "--cases", "demo/cases.json"]
    assert main([*argv, "--against", str(missing)]) == 2
    assert one_line_error(capsys) == (
        f"activation: error: --against {missing}: not a folder of saved reports"
    )


def test_a_changed_report_counts_each_gate_as_a_run(
    saved: Saved, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = saved.root / "changed.json"
    argv = ["history", str(saved.runs / "01.json"), str(changed), "--html",
            str(saved.root / "changed.html")]  # fmt: skip
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"billing:refunds {CELL}: 2 point(s); recall 3/3 -> 3/3; "
        "false positives 0/9 -> 3/9; 1 edit(s), 0 drift(s)"
    )
    assert f"<code>{changed}#billing:refunds</code>" in (saved.root / "changed.html").read_text()


def test_no_green_run_in_the_base_folder_says_so(
    saved: Saved, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    red = tmp_path / "red"
    red.mkdir()
    shutil.copy(saved.runs / "03.json", red / "03.json")
    argv = ["history", str(saved.runs / "03.json"), "--html", str(tmp_path / "h.html"),
            "--against", str(red)]  # fmt: skip
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "no green run of the base branch found: no delta"
    )


def test_a_run_that_stopped_early_is_left_out_with_a_warning(
    saved: Saved, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(saved.runs / "01.json", folder / "01.json")
    crashed = {"schema": "activation-report/4", "version": "0.3.0", "exit_code": 4,
               "error": "the API key was refused"}  # fmt: skip
    (folder / "02.json").write_bytes(orjson.dumps(crashed))
    assert main(["history", str(folder), "--html", str(tmp_path / "h.html")]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        f"warning: {folder / '02.json'}: a run that stopped early (the API key was refused): "
        "left out"
    )
    assert captured.out.splitlines()[0] == "1 run(s), 1 series (skill x stage/agent/model)"


def test_bad_input_is_one_line_and_exit_2(
    saved: Saved, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["history", str(empty), "--html", str(tmp_path / "h.html")]) == 2
    assert one_line_error(capsys) == (
        f"activation history: error: {empty}: no saved report (*.json, *.json.gz) in this folder"
    )
    cases = saved.root / "demo" / "cases.json"
    assert main(["history", str(cases), "--html", str(tmp_path / "h.html")]) == 2
    assert one_line_error(capsys).startswith(
        f"activation history: error: {cases}: not an activation report"
    )
    assert main(["history", str(saved.runs), "--html", str(tmp_path / "h.html"),
                 "--against", str(cases)]) == 2  # fmt: skip
    assert one_line_error(capsys) == (
        f"activation history: error: --against {cases}: not a folder of saved reports"
    )


def test_the_page_shows_every_run_in_a_browser_and_loads_nothing(
    saved: Saved, chromium: Launcher, capsys: pytest.CaptureFixture[str]
) -> None:
    page_file = saved.root / "browser.html"
    assert main(["history", str(saved.runs), "--html", str(page_file)]) == 0
    capsys.readouterr()
    with chromium() as browser, visit(browser, page_file) as seen:
        page = seen.page
        assert page.locator("svg.history-chart").count() == 3
        assert page.locator("table.points tbody tr").count() == 3
        changes = page.locator("table.points tbody tr td:nth-child(3)").all_inner_texts()
        assert changes == ["first", "edit", "same"]
        recall = page.locator("figure[data-metric=recall] circle")
        assert recall.count() == 3
        first = page.locator("figure[data-metric=recall] circle title").first.text_content()
        assert (first or "").startswith(
            f"{saved.runs / '01.json'}: 3/3 (95% 44%-100%); exit 0; first;"
        )
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "html-history.png"), full_page=True)
        assert seen.errors == []
        assert seen.requests == [page_file.as_uri()]
