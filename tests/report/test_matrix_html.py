"""The HTML page of a run of several cells: the grid of cells with their figures, the
flagged cases under the cells that flagged them, the agreement, each cell's own report with
ids of its own, nothing fetched, and each cell's table filtering and sorting on its own in a
real browser (Chromium from the system packages). The screenshot is kept in test-artifacts/."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import anyio
from playwright.sync_api import Page

from activation._models import Inputs, RunSpec, Target, TrialKey, Variant
from activation.report.matrix import Matrix, assembled
from activation.report.matrix_html import render_matrix_html
from activation.report.model import Report, build_report
from activation.trials.engine import execute_async
from activation.trials.fake import Answer, FakeBackend
from tests.support.browser import ARTIFACTS, Launcher, visit
from tests.support.reports import (
    BASELINE,
    CANDIDATE,
    CASES,
    STATUSES,
    answer,
    every_status_report,
)
from tests.support.skill_repo import SKILL_PATH

HAIKU, SONNET, OPENCODE = (
    "A/claude-code/claude-haiku-4-5",
    "A/claude-code/claude-sonnet-4-5",
    "A/opencode/claude-sonnet-4-5",
)


def steady(key: TrialKey) -> Answer:
    """The answers of every_status_report, but the candidate keeps the dispute."""
    return True if key.case.id == "stripe-dispute" else answer(key)


def steady_report() -> Report:
    """The run every_status_report makes, with the candidate keeping the dispute: there it
    PASSes, every other case keeps its status."""
    repo = Path("/work/skills")
    target = Target(repo, Path(SKILL_PATH), repo / "plugins/payments", "billing", "refunds")
    inputs = Inputs(
        target,
        CASES,
        (),
        Variant("git:main", BASELINE, "", "git main:" + SKILL_PATH),
        Variant(SKILL_PATH, CANDIDATE, "", "file " + SKILL_PATH),
    )
    spec = RunSpec(model="claude-sonnet-4-5", trials=5, max_trials=5)
    outcome = anyio.run(execute_async, spec, inputs, FakeBackend(steady, target=target.skill_id))
    return build_report(outcome, "0.2.0", rerun=("--baseline", "git:main"))


def three_cells() -> Matrix:
    """Haiku regresses the dispute; Sonnet, in Claude Code's listing and OpenCode's, does not."""
    haiku = replace(every_status_report(), model="claude-haiku-4-5")
    sonnet = steady_report()
    opencode = replace(sonnet, coding_agent="opencode")
    return assembled((haiku, sonnet, opencode), "0.2.0", "fingerprint")


class Ids(HTMLParser):
    """Every `id` and every in-page link (`href="#..."`) of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.anchors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value is not None:
                self.ids.append(value)
            if name == "href" and value is not None and value.startswith("#"):
                self.anchors.append(value[1:])


def parsed(page: str) -> Ids:
    found = Ids()
    found.feed(page)
    return found


def row_texts(page: str, table: str) -> list[list[str]]:
    """The text of each body row's cells of the table with this id."""
    body = page.split(f'<table id="{table}">', 1)[1].split("</table>", 1)[0]
    body = body.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL)
    return [
        [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in rows
    ]


def test_the_grid_names_each_cell_with_its_figures() -> None:
    matrix = three_cells()
    assert matrix.names == (HAIKU, SONNET, OPENCODE)
    page = render_matrix_html(matrix)
    statuses = "1 IMPROVED, 1 UNSTABLE, 2 PASS, 1 FAIL, 1 ERROR"
    assert row_texts(page, "matrix") == [
        [HAIKU, "3/4 75% (30%-95%)", "2/4 50% (15%-85%)",
         "1/2 50% (9%-91%)", "0/2 0% (0%-66%)",
         f"1 REGRESSED, {statuses}"],
        [SONNET, "3/4 75% (30%-95%)", "3/4 75% (30%-95%)",
         "1/2 50% (9%-91%)", "0/2 0% (0%-66%)",
         statuses.replace("2 PASS", "3 PASS")],
        [OPENCODE, "3/4 75% (30%-95%)", "3/4 75% (30%-95%)",
         "1/2 50% (9%-91%)", "0/2 0% (0%-66%)",
         statuses.replace("2 PASS", "3 PASS")],
    ]  # fmt: skip
    assert '<div class="verdict exit-1" id="verdict">' in page
    assert f"FAILED: the candidate regressed in {HAIKU}. (exit code 1)" in page


def test_a_case_regressed_in_one_cell_is_flagged_under_that_cell_only() -> None:
    page = render_matrix_html(three_cells())
    flagged = {row[0]: row[1:] for row in row_texts(page, "flagged")}
    assert flagged == {
        "stripe-dispute": ["REGRESSED", "PASS", "PASS"],
        "chargeback-neg": ["IMPROVED", "IMPROVED", "IMPROVED"],
        "flaky": ["UNSTABLE", "UNSTABLE", "UNSTABLE"],
        "broken": ["ERROR", "ERROR", "ERROR"],
    }
    # Coloured as the single-run page colours a status.
    assert (
        '<tr><td class="id mono">stripe-dispute</td><td class="status s-REGRESSED">REGRESSED</td>'
        '<td class="status s-PASS">PASS</td><td class="status s-PASS">PASS</td></tr>'
    ) in page


def test_the_agreement_lines_name_the_cells_and_where_they_differ() -> None:
    page = render_matrix_html(three_cells())
    lines = re.findall(r"<li>(.*?)</li>", page.split('<ul id="agreement">')[1].split("</ul>")[0])
    assert lines == [
        f"{HAIKU} vs {SONNET} (candidate): 5 of 6 cases alike (83%), Cohen&#39;s kappa 0.57 "
        "(95% -0.12 to 1.00); they differ on stripe-dispute",
        f"{HAIKU} vs {OPENCODE} (candidate): 5 of 6 cases alike (83%), Cohen&#39;s kappa 0.57 "
        "(95% -0.12 to 1.00); they differ on stripe-dispute",
        f"{SONNET} vs {OPENCODE} (candidate): 6 of 6 cases alike (100%), Cohen&#39;s kappa 1.00 "
        "(95% 1.00 to 1.00)",
    ]


def test_ids_are_unique_and_nothing_is_fetched() -> None:
    page = render_matrix_html(three_cells())
    found = parsed(page)
    assert len(found.ids) == len(set(found.ids))
    assert [name for name in found.ids if name.endswith("cases")] == [
        "cell-1-cases", "cell-2-cases", "cell-3-cases",
    ]  # fmt: skip
    assert {"cell-3-heat-difference", "cell-3-routing"} <= set(found.ids)
    assert {"heat-difference", "routing", "cases"}.isdisjoint(found.ids)
    assert set(found.anchors) == {"cell-1-report", "cell-2-report", "cell-3-report"}
    assert set(found.anchors) <= set(found.ids)
    assert re.findall(r'(?:src|href)="(?!#|data:)[^"]*"', page) == []
    assert "default-src 'none'" in page
    assert page.count("<script>") == 1
    assert '["cell-1-", "cell-2-", "cell-3-"].forEach(wire);' in page


def shown(page: Page, cell: int) -> list[str]:
    return page.locator(f"#cell-{cell}-cases tbody tr:visible td.id").all_inner_texts()


def test_each_cell_filters_and_sorts_on_its_own_in_a_browser(
    chromium: Launcher, tmp_path: Path
) -> None:
    page_file = tmp_path / "matrix.html"
    page_file.write_text(render_matrix_html(three_cells(), tmp_path))
    # Flagged cases first: the dispute REGRESSED under Haiku only, and PASSes in the others.
    haiku = ["stripe-dispute", "chargeback-neg", "flaky", "broken", "plain-refund", "never",
             "charts-neg"]  # fmt: skip
    steady = ["chargeback-neg", "flaky", "broken", "stripe-dispute", "plain-refund", "never",
              "charts-neg"]  # fmt: skip
    with chromium() as browser, visit(browser, page_file) as seen:
        page = seen.page
        assert page.locator("#matrix tbody tr").count() == 3
        assert page.locator("svg.chart").count() == 21
        assert [shown(page, cell) for cell in (1, 2, 3)] == [haiku, steady, steady]
        # Filtering in the second cell hides its rows only.
        page.fill("#cell-2-filter", "refund")
        assert shown(page, 2) == ["flaky", "broken", "plain-refund"]
        assert page.inner_text("#cell-2-shown") == "3"
        assert shown(page, 1) == haiku and shown(page, 3) == steady
        assert page.inner_text("#cell-1-shown") == page.inner_text("#cell-3-shown") == "7"
        page.select_option("#cell-3-status-filter", "REGRESSED")
        assert shown(page, 3) == []
        assert shown(page, 2) == ["flaky", "broken", "plain-refund"]
        # Sorting the first cell's table leaves the others in their order.
        page.click("#cell-1-cases th[data-key=id]")
        assert shown(page, 1) == sorted(STATUSES)
        assert page.get_attribute("#cell-1-cases th[data-key=id]", "aria-sort") == "ascending"
        assert page.get_attribute("#cell-2-cases th[data-key=id]", "aria-sort") is None
        assert shown(page, 2) == ["flaky", "broken", "plain-refund"]
        page.select_option("#cell-3-status-filter", "")
        page.fill("#cell-2-filter", "")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "html-matrix.png"), full_page=True)
        assert seen.errors == []
        assert seen.requests == [page_file.as_uri()]
    assert (ARTIFACTS / "html-matrix.png").stat().st_size > 10_000
