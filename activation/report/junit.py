"""JUnit XML from a Report: what GitHub, GitLab and Jenkins show as test results.

One `testsuite` per run (per cell, for a run of several), its properties saying what was
measured; one `testcase` per case
(classname its group, the first tag; name its id). A REGRESSED case is a `failure` and an
ERROR case an `error`, as the gate counts them; each carries the counts, p, q and prompt in
its text, and every other case in `system-out`. Cases an interrupted run did not finish are
`skipped`. The shape follows the Jenkins JUnit schema (tests/fixtures/jenkins-junit.xsd).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from activation._models import VARIANTS, WEAKENED_FAILS, CaseVerdict, Status
from activation.report import phrases, run_words
from activation.report.matrix import Matrix
from activation.report.model import Report
from activation.report.views import CaseWords, ExtraTest, view_of

_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """XML 1.0 cannot carry some control characters at all: they become U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def _properties(report: Report) -> dict[str, str]:
    found = {
        "skill": report.skill.id,
        "skill_path": report.skill.path,
        "stage": report.stage,
        "measured": phrases.stage_text(report),
        "model": report.model or "the CLI's default",
        "trials": str(report.trials),
        "max_trials": str(report.max_trials),
        "alpha": str(report.alpha),
        "baseline": report.baseline.spec,
        "candidate": report.candidate.spec,
        "exit_code": str(report.exit_code),
        "verdict": run_words.verdict(report),
        "activation_version": report.version,
    }
    label = phrases.agent_label(report)
    if label is not None:
        found["agent"] = label
    found |= view_of(report).properties(report)
    if report.notice:
        found["notice"] = report.notice
    for name, line in (("against", run_words.against_line(report)),
                       ("errors", run_words.errors_line(report))):  # fmt: skip
        if line is not None:
            found[name] = line
    return found


def case_body(case: CaseWords, entry: CaseVerdict, extra: list[str]) -> str:
    """A case's verdict, its counts and why (as its stage says them), then the `extra` lines
    its stage's view adds."""
    counted = case.counted(entry)
    lines = [
        f"status: {entry.status.value}",
        f"expected: {case.expected(entry)}",
        f"baseline: {case.cell(entry, 'baseline')} {counted}",
        f"candidate: {case.cell(entry, 'candidate')} {counted}",
    ]
    lines += [
        f"{variant} {case.routes}: {phrases.route_text(entry.tally(variant))}"
        for variant in VARIANTS
        if entry.tally(variant).routes
    ]
    lines += [
        f"p: {phrases.number(entry.p_value) or '-'}",
        f"q: {phrases.number(entry.q_value) or '-'}",
        f"prompt: {entry.prompt}",
        f"why: {entry.why}",
    ]
    lines += [
        f"{variant} error: {reason}" for variant, reason in run_words.first_errors(entry.trials)
    ]
    return "\n".join(lines + extra) + "\n"


def failing(report: Report) -> tuple[Status, ...]:
    """The statuses that fail the gate, as JUnit failures."""
    weakened = (Status.WEAKENED,) if WEAKENED_FAILS in report.fail_on else ()
    return (Status.REGRESSED, *weakened)


def testcase(
    parent: ET.Element,
    entry: CaseVerdict,
    failures: tuple[Status, ...],
    report: Report,
    extra: list[str],
    classname: str,
) -> None:
    """One case as a testcase: an error, a failure (`failures`) or passing output, under
    `classname` (its group in `report`, its skill in `changed`'s)."""
    element = ET.SubElement(parent, "testcase", classname=classname, name=entry.id)
    kind = (
        "error"
        if entry.status is Status.ERROR
        else "failure"
        if entry.status in failures
        else "system-out"
    )
    child = ET.SubElement(element, kind)
    if kind != "system-out":
        child.attrib.update(type=entry.status.value, message=run_words.case_summary(report, entry))
    child.text = case_body(view_of(report).case, entry, extra)


def _suite(root: ET.Element, report: Report, cell: str | None = None) -> dict[str, int]:
    """One run's (or one cell's) testsuite; its counts, for the root's totals."""
    cases, unfinished = report.cases, report.summary.unfinished
    view = view_of(report)
    extras = view.extra_tests(report)
    counts = {
        "tests": len(cases) + len(unfinished) + len(extras) + len(report.less_visible),
        "failures": sum(report.count(status) for status in failing(report))
        + sum(extra.failure is not None for extra in extras)
        + len(report.less_visible),
        "errors": report.count(Status.ERROR),
        "skipped": len(unfinished),
    }
    name = f"activation {report.skill.id}" + (f" [{cell}]" if cell else "")
    suite = ET.SubElement(root, "testsuite", {"name": name, **count_texts(counts)})
    properties = ET.SubElement(suite, "properties")
    found = _properties(report) | ({"cell": cell} if cell else {})
    for key, value in found.items():
        ET.SubElement(properties, "property", name=key, value=value)
    for finding in report.less_visible:
        element = ET.SubElement(suite, "testcase", classname="visibility", name=finding.skill)
        ET.SubElement(element, "failure", type="LESS-VISIBLE", message=finding.line)
    for entry in cases:
        extra = view.case_lines(report, entry)
        testcase(suite, entry, failing(report), report, extra, entry.group)
    for test in extras:
        _extra_testcase(suite, test)
    for case_id in unfinished:
        left_out = ET.SubElement(suite, "testcase", classname="unfinished", name=case_id)
        ET.SubElement(left_out, "skipped").text = "not finished: the run was interrupted"
    return counts


def _extra_testcase(parent: ET.Element, test: ExtraTest) -> None:
    """A test of the stage's own: a failure when its view says it fails the gate."""
    element = ET.SubElement(parent, "testcase", classname=test.classname, name=test.name)
    child = ET.SubElement(element, "system-out" if test.failure is None else "failure")
    if test.failure is not None:
        child.attrib.update(type=test.failure[0], message=test.failure[1])
    child.text = test.text


def count_texts(counts: dict[str, int]) -> dict[str, str]:
    """A suite's counts as XML attributes."""
    return {key: str(value) for key, value in counts.items()}


def written(root: ET.Element) -> bytes:
    """The JUnit document, its text made XML-safe, indented, with a final newline."""
    for element in root.iter():
        if element.text:
            element.text = xml_text(element.text)
        for key, value in element.attrib.items():
            element.attrib[key] = xml_text(value)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _root(suites: list[dict[str, int]], root: ET.Element) -> ET.Element:
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(counts[key] for counts in suites)))
    return root


def render_junit(report: Report) -> bytes:
    root = ET.Element("testsuites", {"name": "activation"})
    return written(_root([_suite(root, report)], root))


def render_matrix_junit(matrix: Matrix) -> bytes:
    """One testsuite per cell, named by it, so CI shows which cell a failure is in."""
    root = ET.Element("testsuites", {"name": "activation"})
    suites = [_suite(root, cell, cell.cell) for cell in matrix.cells]
    return written(_root(suites, root))
