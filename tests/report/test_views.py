"""A stage's view is all the report layer draws a stage's cells from: a fake stage's view,
registered in the test with no other edit, renders in every format through it alone."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import replace

import pytest
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from activation._models import CaseVerdict, Inputs, Tally, Trial, VariantName
from activation.report import behavior_words, run_words, views
from activation.report.history import figures_of
from activation.report.html import render_html
from activation.report.junit import render_junit
from activation.report.markdown import render_markdown
from activation.report.matrix import assembled
from activation.report.matrix_markdown import render_matrix_markdown
from activation.report.model import Report
from activation.report.terminal import render_report
from activation.report.views import ExtraTest, Figure, PageFigures, TrialWords, view_of
from activation.verdicts.judge_agreement import JudgeAgreement
from tests.support.behavior_reports import behavior_report


class FakeCase:
    routes = "fake-routed to"
    correct = "fake-counted"

    def expected(self, entry: CaseVerdict) -> str:
        return "fake expectation"

    def cell(self, entry: CaseVerdict, variant: VariantName) -> str:
        return f"fake {variant} cell"

    def counted(self, entry: CaseVerdict) -> str:
        return "fakes"

    def went(self, entry: CaseVerdict, target: str) -> str | None:
        return f"fake move of {entry.id}"

    def verdict(self, tally: Tally) -> bool | None:
        return tally.right

    def shown_trials(self, entry: CaseVerdict) -> list[TrialWords]:
        return [TrialWords(f"fake trial of {entry.id}", ("fake failure",), ("fake detail",))]

    def said(self, trial: Trial) -> TrialWords | None:
        return TrialWords(f"fake outcome of #{trial.index}")


class FakeView:
    case = FakeCase()
    tests_body = True
    recall = False

    def cells(self, report: Report) -> str:
        return "k/n = fake cells"

    def routes(self, report: Report) -> bool:
        return False

    def terminal_cases(self, report: Report, entries: list[CaseVerdict]) -> RenderableType:
        table = Table(title="Fake cases")
        table.add_column("fake id")
        for entry in entries:
            table.add_row(f"fake-{entry.id}")
        return table

    def terminal_sections(self, report: Report, entries: list[CaseVerdict]) -> list[RenderableType]:
        return [Text("a fake section")]

    def terminal_figures(self, report: Report) -> Text:
        return Text("fake figures\n")

    def markdown_figures(self, report: Report) -> list[str]:
        return ["**fake figures**"]

    def properties(self, report: Report) -> dict[str, str]:
        return {"fake": "yes"}

    def case_lines(self, report: Report, entry: CaseVerdict) -> list[str]:
        return [f"fake line of {entry.id}"]

    def extra_tests(self, report: Report) -> tuple[ExtraTest, ...]:
        return (ExtraTest("fake", "fake-test", "fake text\n", ("FAKE", "a fake failure")),)

    def page_figures(self, report: Report) -> PageFigures | None:
        return PageFigures("_recall.html.j2")

    def rate_word(self, report: Report) -> str:
        return "fakeword"

    def gate_reason(self, report: Report) -> str | None:
        return "FAILED: a fake reason."

    def blind(self, report: Report) -> str | None:
        return None

    def arms(self, report: Report) -> str | None:
        return "fake arms"

    def lift_line(self, report: Report) -> str | None:
        return None

    def plan_cases(self, inputs: Inputs) -> str:
        return "fake cases"

    def detectable_hint(self) -> str:
        return "nowhere"

    def matrix_grid(self, cells: Sequence[Report]) -> tuple[tuple[str, ...], list[list[str]]]:
        return ("cell", "fake figure"), [[cell.cell, f"fake {cell.model}"] for cell in cells]

    def trend(self, report: Report) -> dict[str, Figure]:
        return {"pass_rate": Figure(0.25, None, None, "fake 1/4")}

    def judges(self, report: Report) -> Sequence[JudgeAgreement]:
        return (JudgeAgreement("checkout", "fake judge", 2, 1, 6, 1, (0.1, 0.9)),)


VIEW = FakeView()


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Report:
    """A Stage C report whose stage's view is the fake one (registered by its module)."""
    monkeypatch.setitem(views.VIEW_MODULES, "C", __name__)
    report = behavior_report()
    assert view_of(report) is VIEW
    return report


def test_the_terminal_draws_the_fake_view(fake: Report) -> None:
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(render_report(fake, "all"))
    text = console.export_text()
    assert "Fake cases" in text
    assert "fake-checkout" in text and "fake-refund" in text
    assert "a fake section" in text and "fake figures" in text and "fake arms" in text
    lines = text.splitlines()
    moved = lines.index(
        "  checkout 3/3 -> 0/3: fake move of checkout: add a checkout <page> & refunds"
    )
    assert lines[moved + 1 : moved + 4] == [
        "    fake trial of checkout",
        "      fake failure",
        "      fake detail",
    ]
    assert (
        behavior_words.PASSED_CELLS not in text and behavior_words.LEVELS not in text
    )  # Stage C's own
    assert "recall" not in text


def test_markdown_draws_the_fake_view(fake: Report) -> None:
    lines = render_markdown(fake).splitlines()
    assert "**fake figures**" in lines and "fake arms" in lines
    assert (
        "- `checkout` (baseline fake baseline cell, candidate fake candidate cell, q 0.047; "
        "fake move of checkout): add a checkout \\<page\\> &amp; refunds"
    ) in lines
    assert "  - fake trial of checkout; fake detail" in lines
    assert "| case | baseline | candidate | none | lift | status | broke first |" not in lines
    assert "| variant | recall | false positives |" not in lines


def test_junit_draws_the_fake_view(fake: Report) -> None:
    suite = ET.fromstring(render_junit(fake)).find("testsuite")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["fake"] == "yes" and "arms" not in properties and "lift" not in properties
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert "skill-lift" not in cases
    failure = cases["fake-test"].find("failure")
    assert failure is not None
    assert (failure.get("type"), failure.get("message"), failure.text) == (
        "FAKE",
        "a fake failure",
        "fake text\n",
    )
    regressed = cases["checkout"].find("failure")
    assert regressed is not None and regressed.text is not None
    assert regressed.get("message") == (
        "REGRESSED: baseline fake baseline cell, candidate fake candidate cell, q 0.047; "
        "fake move of checkout"
    )
    assert regressed.text.splitlines()[1:6] == [
        "expected: fake expectation",
        "baseline: fake baseline cell fakes",
        "candidate: fake candidate cell fakes",
        "baseline fake-routed to: billing:refunds 3/3",
        "candidate fake-routed to: billing:refunds 3/3",
    ]
    assert regressed.text.endswith("\nfake line of checkout\n")
    # the three cases and the fake test; the regression and the fake failure
    assert (suite.get("tests"), suite.get("failures")) == ("4", "2")


def test_the_page_and_the_legend_draw_the_fake_view(fake: Report) -> None:
    page = render_html(fake)
    assert "Fakeword rate per variant" in page and "<th>fakeword rate</th>" in page
    assert '<table id="figures">' in page  # the partial the fake view chose
    assert '<td class="expected" data-sort="fake expectation">fake expectation</td>' in page
    assert '<td class="num mono" data-sort="0.0">fake candidate cell</td>' in page
    assert "<title>candidate: 0/3 fake-counted (0%, 95% Wilson 0%-56%)</title>" in page
    assert '<li class="graded">fake outcome of #0 · files src/refund.ts, package.json · ' in page
    assert 'id="arm-rates"' not in page and 'id="routing"' not in page
    assert run_words.cells_legend(fake) == "k/n = fake cells"


def test_a_matrix_draws_the_fake_view(fake: Report) -> None:
    matrix = assembled((fake, replace(fake, model="claude-test-2")), "0.2.0", "fingerprint")
    lines = render_matrix_markdown(matrix).splitlines()
    assert lines[4:8] == [
        "| cell | fake figure |",
        "| --- | --- |",
        "| `C/claude-code/claude-test-1` | fake claude-test-1 |",
        "| `C/claude-code/claude-test-2` | fake claude-test-2 |",
    ]
    judged = (
        "judge agreement, checkout, 'fake judge': its samples split in 1/2 = 50% \\(95% Wilson "
        "10%-90%\\) of the trials; 1/6 samples against the majority"
    )
    assert lines[lines.index("Judge agreement per cell (--judge-samples):") + 2 :][:2] == [
        f"- C/claude-code/claude-test-1: {judged}",
        f"- C/claude-code/claude-test-2: {judged}",
    ]


def test_a_history_point_holds_the_fake_views_figures(fake: Report) -> None:
    """Recall and cost are every report's; the rest is what the view gives (no lift here,
    though the report's Stage C figures have one)."""
    assert fake.behavior is not None and fake.behavior.lift is not None
    found = figures_of(fake)
    assert list(found) == ["recall", "pass_rate", "cost_usd"]
    assert found["pass_rate"] == Figure(0.25, None, None, "fake 1/4")
    assert found["recall"].text == "2/3"
    assert found["cost_usd"].text == "$0.2600"
