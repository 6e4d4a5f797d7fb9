"""The HTML report: escaped, self-contained, and working in a real browser (Chromium from
the system packages): the charts and the table render, sorting and filtering work, the
transcript links lead to the files, nothing is fetched and nothing logs an error. The
screenshot is kept in test-artifacts/ as the test run's artefact."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from playwright.sync_api import Page

from activation.report.html import Bar, render_html, transcript_href
from tests.support.browser import ARTIFACTS, Launcher, visit
from tests.support.reports import HOSTILE, STATUSES, every_status_report

RATE_X = {0.0: Bar.x(0.0), 0.6: Bar.x(0.6), 1.0: Bar.x(1.0)}
FLAGGED_FIRST = [
    "stripe-dispute", "chargeback-neg", "flaky", "broken", "plain-refund", "never", "charts-neg",
]  # fmt: skip
"""The case table's order: REGRESSED, IMPROVED, UNSTABLE and ERROR first (as every report
lists the flagged statuses), then the others in the suite's order."""


def test_user_text_is_escaped_and_nothing_is_fetched() -> None:
    page = render_html(every_status_report())
    assert "<script>alert" not in page
    assert "refund &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    assert "a &lt;warning&gt; &amp; more" in page
    assert page.count("<script>") == 1  # the page's own, inline
    assert re.findall(r'(?:src|href)="(?!#|data:)[^"]*"', page) == []
    assert "default-src 'none'" in page


def test_transcript_links_are_relative_to_the_page_when_they_can_be() -> None:
    base = PurePosixPath("/work/out")
    assert transcript_href("/work/out/runs/a b/c.jsonl", base) == "runs/a%20b/c.jsonl"
    assert transcript_href("/work/state/x.jsonl", base) == "../state/x.jsonl"
    assert transcript_href("/work/state/x.jsonl", None) == "file:///work/state/x.jsonl"
    assert transcript_href("runs/x.jsonl", base) == "runs/x.jsonl"


def ids(page: Page) -> list[str]:
    return page.locator("#cases tbody tr:visible td.id").all_inner_texts()


def test_in_a_browser(chromium: Launcher, tmp_path: Path) -> None:
    runs = tmp_path / "state" / "runs"
    report = every_status_report("B", transcripts=runs)
    for entry in report.cases:
        for trial in entry.trials:
            Path(trial.transcript or "").parent.mkdir(parents=True, exist_ok=True)
            Path(trial.transcript or "").write_text('{"type":"system"}\n')
    page_file = tmp_path / "out" / "report.html"
    page_file.parent.mkdir()
    page_file.write_text(render_html(report, page_file.parent))
    with chromium() as browser, visit(browser, page_file) as seen:
        page = seen.page
        assert page.inner_text("#verdict") == "FAILED: the candidate regressed. (exit code 1)"
        assert ids(page) == FLAGGED_FIRST
        # A chart per case, two variants each, drawn where the rates are.
        assert page.locator("svg.chart").count() == 7
        assert page.locator("svg.chart g.bar").count() == 14
        dispute = page.locator("#cases tbody tr").nth(0)
        assert dispute.locator("g.bar-baseline circle").get_attribute("cx") == str(RATE_X[1.0])
        assert dispute.locator("g.bar-candidate circle").get_attribute("cx") == str(RATE_X[0.0])
        box = dispute.locator("svg.chart").bounding_box()
        assert box is not None and (box["width"], box["height"]) == (200, 44)
        flaky = page.locator("#cases tbody tr").nth(2)
        assert flaky.locator("g.bar-candidate circle").get_attribute("cx") == str(RATE_X[0.6])
        assert flaky.locator("td.prompt").inner_text().startswith(HOSTILE)
        broken = page.locator("#cases tbody tr").nth(3)
        assert broken.locator("g.bar-candidate text").text_content() == "no valid trial"
        assert "refunds & <credits> for `orders`." in page.inner_text("#diff ins")
        # Sorting: by id, then by how far the case moved, both ways.
        page.click("th[data-key=id]")
        assert ids(page) == sorted(STATUSES)
        page.click("th[data-key=delta]")
        assert ids(page)[0] == "stripe-dispute"
        page.click("th[data-key=delta]")
        assert page.get_attribute("th[data-key=delta]", "aria-sort") == "descending"
        assert ids(page)[0] == "chargeback-neg"
        # Filtering: by text, by status, and both cleared.
        page.fill("#filter", "refund")
        assert sorted(ids(page)) == ["broken", "flaky", "plain-refund"]
        assert page.inner_text("#shown") == "3"
        page.fill("#filter", "")
        page.select_option("#status-filter", "ERROR")
        assert ids(page) == ["broken"]
        page.select_option("#status-filter", "")
        assert len(ids(page)) == 7
        # Stage B: a link per trial, to the transcript file beside the page.
        links = page.locator("#cases a.transcript")
        assert links.count() == 70
        first = page.locator("#cases tr[data-status=ERROR] a.transcript").first
        assert first.get_attribute("href") == "../state/runs/broken/baseline-0.jsonl"
        target = first.evaluate("link => link.href")
        assert target == (runs / "broken" / "baseline-0.jsonl").as_uri()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "html-report.png"), full_page=True)
        assert seen.errors == []
        assert seen.requests == [page_file.as_uri()]
    assert (ARTIFACTS / "html-report.png").stat().st_size > 10_000
