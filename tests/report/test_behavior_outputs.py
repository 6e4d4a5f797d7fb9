"""Every output of a behavior run (Stage C): per case and arm the pass rate with its
interval and the status, per grader and level the pass rates per arm and the grader that
broke first, the skill's lift, loaded vs not, each trial's files, transcript and workspace;
the HTML's case x grader heat map per arm; `--fail-on no-lift`; and a saved Stage C report
read back by the codec, `activation report`, `diff` and `merge`.

The report is tests/support/behavior_reports.py's: `checkout` REGRESSED at its L2 grader,
`webhook` and `refund` PASS, a `none` arm beside them.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import junitparser
import markupsafe
import orjson
import pytest

from activation._errors import ExitCode
from activation._models import NO_LIFT_FAILS, Trial
from activation.commands.main import main
from activation.report import behavior_words, matrix_words, run_words
from activation.report.codec import parse_report, report_data, report_json
from activation.report.diff import compare
from activation.report.html import render_html
from activation.report.junit import render_junit
from activation.report.markdown import escape, render_markdown
from activation.report.matrix import assembled, of_report
from activation.report.matrix_markdown import render_matrix_markdown
from activation.report.merge import merge_saved
from activation.report.model import Report, build_report
from activation.report.schemas import report_schema
from activation.verdicts.judge import Evidence, judge_all
from tests.report.test_junit import SCHEMA as JUNIT_SCHEMA
from tests.support import behavior_reports
from tests.support.behavior_reports import behavior_report, shard_of
from tests.support.browser import ARTIFACTS, Launcher, visit

SNAPSHOTS = Path(__file__).parent / "snapshots"


def snapshot(name: str, text: str) -> None:
    """To accept an intended change, delete the snapshot and run the test once."""
    path = SNAPSHOTS / name
    if not path.exists():
        path.write_text(text)
        pytest.fail(f"wrote a new snapshot {path}: check it and commit it")
    assert text == path.read_text()


def saved(report: Report, path: Path) -> Path:
    """The whole record, every trial in detail (`--full-record`)."""
    path.write_bytes(report_json(report, full=True))
    return path


def shown(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What `activation report PATH` prints."""
    assert main(["report", str(path)]) == 0
    return capsys.readouterr().out


def test_the_terminal_shows_each_arm_grader_level_the_lift_and_loading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = shown(saved(behavior_report(), tmp_path / "c.json"), capsys)
    snapshot("behavior-terminal.txt", text)
    lines = [line.rstrip() for line in text.splitlines()]
    assert "arms: baseline, candidate, none (no skill of the set)" in lines
    assert (
        "Cases (k/n = passed of valid trials: a trial passes when every grader that applies does)"
        in lines
    )
    assert (
        "│ checkout │ 3/3 (44-100%) │   0/3 (0-56%) │        0/3 (0-56%) │ 0.016 │ 0.047 │ "
        "REGRESSED │ L2 no invented client.refunds.force() │"
    ) in lines
    assert (
        "│ refund   │ 3/3 (44-100%) │ 3/3 (44-100%) │ 0/2 (0-66%) +1 err │ 1.000 │ 1.000 │ "
        "PASS      │                                       │"
    ) in lines
    assert "│ L2 hallucination │      9/9 │       6/9 │ 1/1 (7 void) │" in lines
    assert (
        "│ checkout │ L2 no invented client.refunds.force()  │      3/3 │       0/3 │ void │"
    ) in lines
    assert (
        "passed over the suite: baseline 9/9 (70-100%), candidate 6/9 (35-88%), "
        "none 1/8 (2-47%) +1 err"
    ) in lines
    assert (
        "skill lift over the suite (first rounds): candidate 6/9 = 67% vs no skill 1/8 = 12%: "
        "+54 points (95% Newcombe +8 to +78), shown"
    ) in lines
    assert (
        "  candidate: passed 5/8 = 62%  (95% Wilson 31%-86%) where the skill loaded, "
        "1/1 = 100%  (95% Wilson 21%-100%) where it did not (1 trial(s) graded without the "
        "skill loading)"
    ) in lines
    regressed = lines.index("REGRESSED (1)")
    assert lines[regressed + 1 : regressed + 8] == [
        "  checkout 3/3 -> 0/3: broke first: L2 no invented client.refunds.force() 3/3 -> 0/3: "
        "add a checkout <page> & refunds",
        "    candidate #0 failed, skill loaded",
        "      L2 no invented client.refunds.force() failed: src/refund.ts: force(",
        "      final the judge: a working refund flow failed: NO: the refund is never awaited",
        "      files src/refund.ts, package.json",
        "      transcript /work/state/runs/checkout-candidate-0.jsonl",
        "      workspace /work/kept/checkout-candidate-0",
    ]
    assert lines[-1] == "FAILED: the candidate regressed."
    assert "activated" not in text
    assert "recall" not in text  # an activation figure: a behavior run shows pass rates


def test_the_markdown_shows_the_same(tmp_path: Path) -> None:
    text = render_markdown(behavior_report())
    snapshot("behavior.md", text)
    lines = text.splitlines()
    assert "| case | baseline | candidate | none | lift | status | broke first |" in lines
    assert (
        "| `checkout` | 3/3 (44-100%) | 0/3 (0-56%) | 0/3 (0-56%) | +0 (-56 to +56), not shown "
        r"| REGRESSED | L2 no invented client.refunds.force\(\) |"
    ) in lines
    assert "| L2 hallucination | 9/9 | 6/9 | 1/1 (7 void) |" in lines
    assert lines[lines.index(r"**Graders that changed \(baseline vs candidate\)**") + 4 :][:2] == [
        r"| `checkout` | L2 no invented client.refunds.force\(\) | 3/3 | 0/3 | void |",
        "| `checkout` | final the judge: a working refund flow | 3/3 | 0/3 | 0/3 |",
    ]
    assert (
        r"**skill lift over the suite \(first rounds\)**: candidate 6/9 = 67% vs no skill "
        r"1/8 = 12%: \+54 points \(95% Newcombe \+8 to \+78\), shown"
    ) in lines
    assert (
        "  - candidate \\#0 failed, skill loaded; files src/refund.ts, package.json; transcript "
        "/work/state/runs/checkout-candidate-0.jsonl; workspace /work/kept/checkout-candidate-0"
    ) in lines
    assert lines[-2] == "activation behavior --baseline git:main"
    assert "activated" not in text and "recall" not in text


def test_junit_carries_each_case_arms_graders_and_trials() -> None:
    xml = render_junit(behavior_report()).decode()
    JUNIT_SCHEMA.validate(xml)
    suite = next(iter(junitparser.JUnitXml.fromstring(xml)))
    properties = {p.name: p.value for p in suite.properties()}  # type: ignore[no-untyped-call]
    assert properties["arms"] == "baseline,candidate,none"
    assert properties["lift"] == (
        "candidate 6/9 = 67% vs no skill 1/8 = 12%: +54 points (95% Newcombe +8 to +78), shown"
    )
    cases = {case.name: case for case in suite}
    (failure,) = cases["checkout"].result
    assert failure.type == "REGRESSED"
    assert failure.message == (
        "REGRESSED: baseline 3/3, candidate 0/3, q 0.047; broke first: "
        "L2 no invented client.refunds.force() 3/3 -> 0/3"
    )
    body = failure.text.splitlines()
    assert body[:14] == [
        "status: REGRESSED",
        "expected: pass its graders",
        "baseline: 3/3 passed",
        "candidate: 0/3 passed",
        "baseline loaded: billing:refunds 3/3",
        "candidate loaded: billing:refunds 3/3",
        "p: 0.016",
        "q: 0.047",
        "prompt: add a checkout <page> & refunds",
        "why: body edit breaks it",
        "baseline pass rate: 3/3 (44-100%)",
        "candidate pass rate: 0/3 (0-56%)",
        "none pass rate: 0/3 (0-56%)",
        "grader L1 imports the payments SDK: baseline 3/3, candidate 3/3, none 0/3",
    ]
    assert "broke first: L2 no invented client.refunds.force()" in body
    assert (
        "trial candidate #2 failed, skill loaded; files src/refund.ts, package.json; transcript "
        "/work/state/runs/checkout-candidate-2.jsonl; workspace /work/kept/checkout-candidate-2"
    ) in body
    assert sum(line.startswith("trial ") for line in body) == 9
    assert (suite.tests, suite.failures) == (5, 1)  # the efficiency test beside the lift
    assert cases["skill-lift"].classname == "behavior"
    assert cases["skill-lift"].system_out.splitlines()[:2] == [
        "passed over the suite: baseline 9/9 (70-100%), candidate 6/9 (35-88%), "
        "none 1/8 (2-47%) +1 err",
        "skill lift over the suite (first rounds): candidate 6/9 = 67% vs no skill 1/8 = 12%: "
        "+54 points (95% Newcombe +8 to +78), shown",
    ]
    refund = cases["refund"].system_out.splitlines()
    assert "none pass rate: 0/2 (0-66%) +1 err" in refund
    assert "trial none #1 error: agent timed out after 600 s" in refund


class HeatMaps(HTMLParser):
    """The grader heat maps of a page: arm -> case -> [(level, grader, text, style)]."""

    def __init__(self) -> None:
        super().__init__()
        self.maps: dict[str, dict[str, list[tuple[str, str, str, str]]]] = {}
        self.arm: str | None = None
        self.case: str | None = None
        self.level: str | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        if tag == "table" and "grader-map" in found.get("class", ""):
            self.arm = found["data-arm"]
            self.maps[self.arm] = {}
        elif self.arm and tag == "tr" and "data-case" in found:
            self.case = found["data-case"]
            self.maps[self.arm][self.case] = []
        elif self.case and tag == "td":
            self.level = found["data-level"]
        elif self.level and tag == "span":
            self.cell = [self.level, found["data-grader"], "", found["style"]]

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[2] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self.cell is not None and self.arm and self.case:
            level, grader, text, style = self.cell
            self.maps[self.arm][self.case].append((level, grader, text, style))
            self.cell = None
        elif tag == "table":
            self.arm = self.case = self.level = None


GREEN, RED, GREY = (
    "background: hsl(120, 70%, 80%)",
    "background: hsl(0, 70%, 80%)",
    ("background: #e5e7eb"),
)
L1, L2, JUDGE = (
    "imports the payments SDK",
    "no invented client.refunds.force()",
    "the judge: a working refund flow",
)


def test_the_html_has_a_case_by_grader_heat_map_per_arm() -> None:
    page = render_html(behavior_report())
    parser = HeatMaps()
    parser.feed(page)
    assert list(parser.maps) == ["baseline", "candidate", "none"]
    assert all(list(cases) == ["checkout", "webhook", "refund"] for cases in parser.maps.values())
    assert parser.maps["candidate"]["checkout"] == [
        ("L1", L1, "3/3", GREEN),
        ("L2", L2, "0/3", RED),
        ("final", JUDGE, "0/3", RED),
    ]
    assert parser.maps["none"]["checkout"][1] == ("L2", L2, "void", GREY)
    assert parser.maps["none"]["webhook"] == [
        ("L1", L1, "1/3", "background: hsl(40, 70%, 80%)"),
        ("L2", L2, "1/1 (2 void)", GREEN),
        ("final", JUDGE, "1/3", "background: hsl(40, 70%, 80%)"),
    ]
    assert all(cell[3] == GREEN for cells in parser.maps["baseline"].values() for cell in cells)
    assert '<td class="broke">L2 no invented client.refunds.force()</td>' in page
    assert '<td class="num mono lift">+100 (+14 to +100), shown</td>' in page
    assert (
        '<p id="lift">skill lift over the suite (first rounds): candidate 6/9 = 67% vs no '
        "skill 1/8 = 12%: +54 points (95% Newcombe +8 to +78), shown</p>"
    ) in page
    assert (
        '<li class="graded">candidate #0 failed, skill loaded (L2 no invented '
        "client.refunds.force() failed: src/refund.ts: force(; final the judge: a working "
        "refund flow failed: NO: the refund is never awaited) · files src/refund.ts, "
        'package.json · <a class="transcript" href="file:///work/state/runs/'
        'checkout-candidate-0.jsonl">transcript</a> · <a class="workspace" '
        'href="file:///work/kept/checkout-candidate-0">workspace</a></li>'
    ) in page
    assert 'id="figures"' not in page  # recall and false positives are activation's


def test_the_json_holds_the_figures_and_reads_back_to_the_same_report() -> None:
    report = behavior_report()
    data = orjson.loads(report_json(report, full=True))
    jsonschema.Draft202012Validator(report_schema()).validate(data)
    figures = data["behavior"]
    assert set(figures) == {
        "arms",
        "suite",
        "cases",
        "levels",
        "lift",
        "loading",
        "k",
        "pass_k",
        "efficiency",
        "judges",
    }
    assert set(figures["cases"][0]) == {
        "id",
        "status",
        "arms",
        "graders",
        "broke",
        "lift",
        "pass_k",
    }
    assert figures["cases"][0]["arms"]["none"] == {
        "passed": 0,
        "applied": 3,
        "errors": 0,
        "void": 0,
        "interval": [0.0, pytest.approx(0.5614970317550454)],
    }
    assert figures["lift"]["shown"] is True
    assert figures["lift"]["difference"] == pytest.approx(13 / 24)
    assert figures["loading"][1]["not_loaded"]["applied"] == 1
    trial = data["cases"][0]["trials"][1]  # by index, then arm
    assert (trial["variant"], trial["files"], trial["workspace"]) == (
        "candidate",
        ["src/refund.ts", "package.json"],
        "/work/kept/checkout-candidate-0",
    )
    assert trial["grades"][1] == {
        "grader": L2,
        "type": "not_contains",
        "level": "L2",
        "outcome": "failed",
        "why": "src/refund.ts: force(",
        "follows": False,
    }
    again = parse_report(data, "c.json")
    assert again == report
    assert report_json(again, full=True) == report_json(report, full=True)
    assert report_data(replace(again, cases=again.cases[:1]))["behavior"]["lift"]["shown"] is False


def test_no_lift_fails_the_run_only_when_asked() -> None:
    assert behavior_report(broken=False).exit_code == ExitCode.OK
    asked = behavior_report((NO_LIFT_FAILS,), broken=False)
    assert asked.exit_code == ExitCode.OK  # 9/9 against 1/8: the lift is shown
    blind = behavior_report((NO_LIFT_FAILS,), without="none", broken=False)
    assert blind.behavior is not None and blind.behavior.lift is None
    assert blind.exit_code == ExitCode.REGRESSED
    assert run_words.verdict(blind) == (
        "FAILED: the skill's lift over no skill is not shown (--fail-on no-lift)."
    )
    assert behavior_report(without="none", broken=False).exit_code == ExitCode.OK
    xml = render_junit(blind).decode()
    JUNIT_SCHEMA.validate(xml)
    suite = next(iter(junitparser.JUnitXml.fromstring(xml)))
    assert (suite.tests, suite.failures) == (5, 1)  # the efficiency test beside the lift
    (lift,) = next(case for case in suite if case.name == "skill-lift").result
    assert (lift.type, lift.message) == ("NO-LIFT", behavior_words.NO_LIFT)
    matrix = assembled((blind,), "0.2.0", "fingerprint")
    assert matrix.exit_code == ExitCode.REGRESSED
    assert matrix_words.matrix_verdict(matrix) == (
        "FAILED: the skill's lift over no skill is not shown in C/claude-code/claude-test-1 "
        "(--fail-on no-lift)."
    )
    text = render_markdown(blind)
    assert text.splitlines()[0] == (
        "### ❌ activation: FAILED: the skill's lift over no skill is not shown \\(--fail-on "
        "no-lift\\)."
    )
    assert (
        "**skill lift over the suite \\(first rounds\\)**: not measured \\(no trial of the "
        "\\`none\\` arm to compare with\\)"
    ) in text


def test_diff_compares_two_saved_behavior_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = saved(behavior_report(broken=False), tmp_path / "old.json")
    new = saved(behavior_report(), tmp_path / "new.json")
    assert main(["diff", str(old), str(new)]) == ExitCode.REGRESSED
    lines = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert (
        "Cases, OLD and NEW (k/n = passed of valid trials: a trial passes when every grader "
        "that applies does)"
    ) in lines
    row = next(line for line in lines if line.startswith("│ checkout"))
    assert row.split("│")[2:9] == [
        "          3/3 ", "           3/3 ", "       PASS ", "          3/3 ", "           0/3 ",
        "  REGRESSED ", " regressed ",
    ]  # fmt: skip
    assert (
        "skill lift over the suite (first rounds) OLD: candidate 9/9 = 100% vs no skill "
        "1/8 = 12%: +88 points (95% Newcombe +42 to +98), shown"
    ) in lines
    assert lines[-1] == "FAILED: 1 case(s) that passed in OLD regressed in NEW."


def test_merge_puts_behavior_shards_back_together(tmp_path: Path) -> None:
    whole = behavior_report()
    first = shard_of(whole, 1, 2, ["checkout"])
    second = shard_of(whole, 2, 2, ["webhook", "refund"])
    merged = merge_saved([("s1", of_report(first)), ("s2", of_report(second))], "0.2.0").report
    cell = merged.single
    assert cell is not None
    assert [entry.status for entry in cell.cases] == [entry.status for entry in whole.cases]
    assert [entry.q_value for entry in cell.cases] == [entry.q_value for entry in whole.cases]
    assert cell.behavior == whole.behavior
    assert (cell.exit_code, merged.exit_code) == (ExitCode.REGRESSED, ExitCode.REGRESSED)
    paths = [saved(part, tmp_path / f"s{n}.json") for n, part in enumerate((first, second), 1)]
    out = tmp_path / "merged.json"
    assert main(["merge", *map(str, paths), "--json", str(out), "--full-record"]) == 1
    again = parse_report(orjson.loads(out.read_bytes()), "merged.json")
    assert again.behavior == whole.behavior
    assert again.cases == whole.cases
    compact = [tmp_path / f"c{n}.json" for n in (1, 2)]
    for path, part in zip(compact, (first, second), strict=True):
        path.write_bytes(report_json(part))
    assert main(["merge", *map(str, compact), "--json", str(out)]) == ExitCode.REGRESSED
    again = parse_report(orjson.loads(out.read_bytes()), "merged.json")
    assert again.behavior == whole.behavior  # figures come from what compact trials keep
    assert [(e.id, e.status, e.q_value) for e in again.cases] == [
        (e.id, e.status, e.q_value) for e in whole.cases
    ]


def test_merge_gates_on_the_lift_of_the_whole_run() -> None:
    """One shard alone shows no lift; the merged run does: the gate reads the whole."""
    whole = behavior_report((NO_LIFT_FAILS,), broken=False)
    first = shard_of(whole, 1, 2, ["webhook"])
    second = shard_of(whole, 2, 2, ["checkout", "refund"])
    assert first.behavior is not None and not first.behavior.lift_shown
    merged = merge_saved([("s1", of_report(first)), ("s2", of_report(second))], "0.2.0").report
    assert merged.exit_code == ExitCode.OK
    alone = merge_saved([("s1", of_report(first))], "0.2.0").report
    assert alone.exit_code == ExitCode.REGRESSED  # the lift is not shown (and a shard missing)


def test_a_matrix_of_behavior_cells_grids_their_pass_rates_and_lift() -> None:
    broken = behavior_report()
    steady = replace(behavior_report(broken=False), model="claude-test-2")
    matrix = assembled((broken, steady), "0.2.0", "fingerprint")
    assert matrix_words.matrix_columns(matrix) == (
        "cell", "passed (baseline)", "passed (candidate)", "passed (none)", "skill lift",
        "pass@k / pass^k (candidate)", "cost ÷ baseline", "listed / loaded / followed (candidate)",
        "judge samples split", "statuses",
    )  # fmt: skip
    assert matrix_words.matrix_rows(matrix) == [
        ["C/claude-code/claude-test-1", "9/9 (70-100%)", "6/9 (35-88%)", "1/8 (2-47%) +1 err",
         "+54 (+8 to +78), shown", "k=3: 67% / 67%", "not measured", "9 / 8 / n/a of 9",
         "not measured", "1 REGRESSED, 2 PASS"],
        ["C/claude-code/claude-test-2", "9/9 (70-100%)", "9/9 (70-100%)", "1/8 (2-47%) +1 err",
         "+88 (+42 to +98), shown", "k=3: 100% / 100%", "not measured", "9 / 8 / n/a of 9",
         "not measured", "3 PASS"],
    ]  # fmt: skip
    lines = render_matrix_markdown(matrix).splitlines()
    assert lines[4:7] == [
        "| cell | passed (baseline) | passed (candidate) | passed (none) | skill lift | "
        "pass@k / pass^k (candidate) | cost ÷ baseline | listed / loaded / followed (candidate) | "
        "judge samples split | statuses |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        "| `C/claude-code/claude-test-1` | 9/9 \\(70-100%\\) | 6/9 \\(35-88%\\) | 1/8 \\(2-47%\\) "
        "\\+1 err | \\+54 \\(\\+8 to \\+78\\), shown | k=3: 67% / 67% | not measured | "
        "9 / 8 / n/a of 9 | not measured | 1 REGRESSED, 2 PASS |",
    ]
    assert matrix_words.matrix_verdict(matrix) == (
        "FAILED: the candidate regressed in C/claude-code/claude-test-1."
    )


def sampled_thrice(report: Report, split: int) -> Report:
    """The report as if each judge question had been asked three times: its first `split`
    judge grades (in trial order) 2 YES to 1 NO, the others unanimous."""
    outcome = behavior_reports.behavior_outcome(broken=report.model == "claude-test-1")
    seen = iter(range(10_000))

    def voted(trial: Trial) -> Trial:
        return replace(trial, grades=tuple(
            replace(g, votes=(2, 1) if next(seen) < split else (3, 0)) if g.type == "judge" else g
            for g in trial.grades
        ))  # fmt: skip

    verdicts = tuple(replace(v, trials=tuple(map(voted, v.trials))) for v in outcome.verdicts)
    every = tuple(trial for verdict in verdicts for trial in verdict.trials)
    spec = replace(outcome.spec, model=report.model)
    return build_report(replace(outcome, spec=spec, verdicts=verdicts, trials=every), "0.2.0")


def test_a_matrix_shows_each_cells_judge_graders_split_samples_in_every_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--judge-samples` in a run of several cells: the grid gives each cell's trials whose
    judge samples split, and a line per cell and judge grader follows it in the terminal,
    Markdown and HTML, as a one-cell run's outputs give them; a cell of one sample per
    question says it was not measured."""
    from rich.console import Console

    from activation.report.matrix_html import render_matrix_html
    from activation.report.matrix_terminal import render_matrix

    split = sampled_thrice(behavior_report(), 2)
    steady = replace(behavior_report(broken=False), model="claude-test-2")
    matrix = assembled((split, steady), "0.2.0", "fingerprint")
    assert [row[-2] for row in matrix_words.matrix_rows(matrix)] == ["2/26 trials", "not measured"]
    (judge,) = {(j.case, j.grader) for j in split.behavior.judges if j.split}  # type: ignore[union-attr]
    line = (
        f"C/claude-code/claude-test-1: judge agreement, {judge[0]}, {judge[1]!r}: its samples "
        "split in 2/9 = 22%  (95% Wilson 6%-55%) of the trials; 2/27 samples against the majority"
    )
    assert line in matrix_words.judge_lines(matrix)
    assert all(text.startswith("C/claude-code/claude-test-1: ")
               for text in matrix_words.judge_lines(matrix))  # fmt: skip
    markdown = render_matrix_markdown(matrix)
    assert f"{matrix_words.JUDGES}\n\n- {escape(line)}\n" in markdown
    page = render_matrix_html(matrix)
    assert f"<li>{markupsafe.escape(line)}</li>" in page.split('<ul id="judges">')[1]
    console = Console(record=True, width=400, file=io.StringIO())
    console.print(render_matrix(matrix))
    out = "\n".join(text.rstrip() for text in console.export_text().splitlines())
    assert f"{matrix_words.JUDGES}\n  {line}\n" in out


def test_the_heat_maps_in_a_browser(chromium: Launcher, tmp_path: Path) -> None:
    """The maps render side by side, coloured by pass rate, with each grader named on hover,
    and nothing is fetched."""
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(behavior_report(), tmp_path))
    with chromium() as browser, visit(browser, page_file) as seen:
        page = seen.page
        maps = page.locator("table.grader-map")
        assert maps.evaluate_all("tables => tables.map(t => t.dataset.arm)") == [
            "baseline", "candidate", "none",
        ]  # fmt: skip
        cell = page.locator("#grader-map-candidate tr[data-case=checkout] td[data-level=L2] span")
        assert cell.inner_text() == "0/3"
        assert cell.get_attribute("title") == f"candidate: checkout: L2 {L2}: 0/3"
        colour = "span => getComputedStyle(span).backgroundColor"
        assert cell.evaluate(colour) == "rgb(240, 168, 168)"  # hsl(0, 70%, 80%)
        passed = page.locator("#grader-map-baseline tr[data-case=checkout] td[data-level=L2] span")
        assert passed.evaluate(colour) == "rgb(168, 240, 168)"  # hsl(120, 70%, 80%)
        boxes = [maps.nth(n).bounding_box() for n in range(3)]
        assert all(box is not None and box["width"] > 100 for box in boxes)
        assert page.inner_text("#arm-rates tr[data-case=checkout] td.broke") == (f"L2 {L2}")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "behavior-report.png"), full_page=True)
        assert seen.errors == []
        assert seen.requests == [page_file.as_uri()]


def test_diff_moves_a_graded_case_on_its_passes_not_on_its_loading() -> None:
    old = behavior_report(broken=False)
    webhook = old.cases[1]
    unloaded = tuple(
        replace(trial, activated=False, chose=()) if trial.variant == "candidate" else trial
        for trial in webhook.trials
    )
    (again,) = judge_all([Evidence(webhook.case, unloaded)], old.alpha)
    loaded = (webhook.candidate.activated, again.candidate.activated)
    assert loaded == (2, 0)
    assert (webhook.candidate.verdict, again.candidate.verdict) == (True, True)
    new = replace(old, cases=(old.cases[0], again, old.cases[2]))
    assert [change.movement for change in compare(old, new).changes] == ["", "", ""]
    broken = behavior_report()
    assert [change.movement for change in compare(old, broken).changes] == ["regressed", "", ""]


def test_the_report_carries_the_body_diff_that_was_tested() -> None:
    """The descriptions are the same: what the behavior gate tested is the body's edit (and
    the set's other files), which the JSON carries and the page shows line by line."""
    report = behavior_report()
    assert report.baseline.description == report.candidate.description
    assert report.body_diff == (
        "--- a/skills/refunds/SKILL.md\n"
        "+++ b/skills/refunds/SKILL.md\n"
        "@@ -3,4 +3,4 @@\n"
        " description: Use when issuing refunds.\n"
        " ---\n"
        " # Refunds\n"
        "-Call client.refunds.create().\n"
        "+Call client.refunds.force().\n"
        "Binary file skills/refunds/logo.png differs\n"
        "--- /dev/null\n"
        "+++ b/skills/refunds/reference.md\n"
        "@@ -0,0 +1 @@\n"
        "+Refund API notes.\n"
    )
    assert parse_report(orjson.loads(report_json(report)), "r.json").body_diff == report.body_diff
    page = render_html(report)
    assert '<span class="del">-Call client.refunds.create().</span>' in page
    assert '<span class="ins">+Call client.refunds.force().</span>' in page
    assert '<span class="file">+++ b/skills/refunds/reference.md</span>' in page


def errored_report(monkeypatch: pytest.MonkeyPatch, *case_ids: str) -> Report:
    """The report above with every trial of `case_ids` errored (the agent timed out)."""
    scripted = behavior_reports.scripted_trials

    def trials(broken: bool = True) -> dict[str, list[Trial]]:
        found = scripted(broken)
        for case in behavior_reports.CASES:
            if case.id in case_ids:
                found[case.id] = [
                    behavior_reports.graded(case, trial.variant, trial.index, None)
                    for trial in found[case.id]
                ]
        return found

    monkeypatch.setattr(behavior_reports, "scripted_trials", trials)
    return behavior_report()


def test_a_case_whose_every_trial_errored_is_said_as_stage_c_says_its_cases(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its stage's view says it, not its trials: no grade to read is no Stage A case."""
    report = errored_report(monkeypatch, "refund")
    text = shown(saved(report, tmp_path / "c.json"), capsys)
    lines = [line.rstrip() for line in text.splitlines()]
    at = lines.index("  refund: refund order 1234")
    assert lines[at - 1 : at + 3] == [
        "ERROR (1)",
        "  refund: refund order 1234",
        "    baseline #0 error: agent timed out after 600 s",
        "    candidate #0 error: agent timed out after 600 s",
    ]
    suite = junitparser.JUnitXml.fromstring(render_junit(report))
    refund = next(case for s in suite for case in s if case.name == "refund")
    body = refund.result[0].text.splitlines()
    assert body[1:4] == [
        "expected: pass its graders",
        "baseline: 0/0 +3 err passed",
        "candidate: 0/0 +3 err passed",
    ]
    assert "  - candidate \\#0 error: agent timed out after 600 s" in render_markdown(report)
    expected = '<td class="expected" data-sort="pass its graders">pass its graders</td>'
    assert render_html(report).count(expected) == 3


def test_a_run_with_no_graded_trial_draws_its_cases_as_stage_c_cases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = errored_report(monkeypatch, "checkout", "webhook", "refund")
    assert report.behavior is None
    assert run_words.cells_legend(report) == behavior_words.PASSED_CELLS
    page = render_html(report)
    assert "Pass rate per variant" in page and 'id="arm-rates"' not in page
    assert page.count('<td class="expected" data-sort="pass its graders">') == 3


def test_a_run_where_no_trial_passed_in_any_arm_says_it_measures_nothing() -> None:
    """The reported false comfort: a suite every arm fails (expectations about the agent's
    reply, which the judge never sees) read "OK: no case regressed" in every output."""
    outcome = behavior_reports.behavior_outcome(broken=False)
    evidence = [
        Evidence(case, [behavior_reports.graded(case, arm, index, behavior_reports.NOTHING)
                        for arm in ("baseline", "candidate", "none") for index in range(3)])
        for case in behavior_reports.CASES
    ]  # fmt: skip
    verdicts = judge_all(evidence, outcome.spec.alpha)
    every = tuple(trial for verdict in verdicts for trial in verdict.trials)
    report = build_report(replace(outcome, verdicts=verdicts, trials=every), "0.2.0")
    said = (
        "OK, but it measures nothing: no trial passed in any arm (baseline, candidate, none), "
        "so it cannot see a regression (see calibrate --behavior)."
    )
    assert (report.exit_code, run_words.verdict(report)) == (ExitCode.OK, said)
    assert render_markdown(report).splitlines()[0] == f"### ✅ activation: {said}".replace(
        "(", "\\("
    ).replace(")", "\\)")
    assert said in render_junit(report).decode()
    assert said in render_html(report)
    matrix = assembled((report, replace(report, model="claude-test-2")), "0.2.0", "fingerprint")
    assert matrix_words.matrix_verdict(matrix) == said.replace(
        "nothing:", "nothing in C/claude-code/claude-test-1, C/claude-code/claude-test-2:"
    )
    steady = assembled((behavior_report(broken=False),), "0.2.0", "fingerprint")
    assert matrix_words.matrix_verdict(steady) == "OK: no case regressed, no case errored."


def test_skill_creators_unlevelled_judges_are_reported_unlevelled_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """skill-creator's assertions are each one judge with no level: none of them is the
    case's one holistic judge, so every output says "unlevelled", never "final"."""
    outcome = behavior_reports.behavior_outcome()

    def asserted(trial: Trial) -> Trial:
        return replace(
            trial, grades=tuple(replace(g, type="judge", level=None) for g in trial.grades)
        )

    verdicts = tuple(
        replace(verdict, trials=tuple(asserted(trial) for trial in verdict.trials))
        for verdict in outcome.verdicts
    )
    every = tuple(trial for verdict in verdicts for trial in verdict.trials)
    report = build_report(replace(outcome, verdicts=verdicts, trials=every), "0.2.0")
    terminal = [line.rstrip() for line in shown(saved(report, tmp_path / "c.json"), capsys)
                .splitlines()]  # fmt: skip
    assert "│ unlevelled │    27/27 │     21/27 │ 3/17 (7 void) │" in terminal
    assert (
        "      unlevelled no invented client.refunds.force() failed: src/refund.ts: force("
    ) in terminal
    markdown = render_markdown(report).splitlines()
    assert "| unlevelled | 27/27 | 21/27 | 3/17 (7 void) |" in markdown
    assert "| `checkout` | unlevelled the judge: a working refund flow | 3/3 | 0/3 | 0/3 |" in (
        markdown
    )
    parser = HeatMaps()
    parser.feed(render_html(report))
    assert [cell[0] for cell in parser.maps["candidate"]["checkout"]] == ["unlevelled"] * 3
    data = orjson.loads(report_json(report, full=True))
    assert [level["level"] for level in data["behavior"]["levels"]] == ["unlevelled"]
    assert [g["level"] for g in data["behavior"]["cases"][0]["graders"]] == ["unlevelled"] * 3
    texts = (*terminal, *markdown, render_html(report))
    assert not any("final" in text for text in texts)


def test_the_html_and_json_hold_the_attribution_chain_per_arm() -> None:
    report = behavior_report()
    page = render_html(report)
    rows = re.findall(r'<tr data-arm="(\w+)">(.*?)</tr>', page.split('id="chain"')[1])
    cells = [(arm, re.findall(r">([^<]*)</td>", row)) for arm, row in rows[:2]]
    assert cells == [
        ("baseline", ["baseline", "listed whole", "9 (9 passed, 100%)", "9 (9 passed, 100%)",
                      "9 (9 passed, 100%)", "n/a"]),
        ("candidate", ["candidate", "listed whole", "9 (6 passed, 67%)", "9 (6 passed, 67%)",
                       "8 (5 passed, 62%)", "n/a"]),
    ]  # fmt: skip
    assert "followed: n/a, no grader of the suite is marked follows: true" in page
    data = orjson.loads(report_json(report, full=True))
    candidate = data["chain"][1]
    assert (candidate["arm"], candidate["listing"], candidate["followed"]) == (
        "candidate", "full", None,
    )  # fmt: skip
    assert [(candidate[step]["passed"], candidate[step]["applied"])
            for step in ("trials", "listed", "loaded")] == [(6, 9), (6, 9), (5, 8)]  # fmt: skip
