"""JUnit XML from a Report: what GitHub, GitLab and Jenkins show as test results.

One `testsuite` per run, its properties saying what was measured; one `testcase` per case
(classname its group, the first tag; name its id). A REGRESSED case is a `failure` and an
ERROR case an `error`, as the gate counts them; each carries the counts, p, q and prompt in
its text, and every other case in `system-out`. Cases an interrupted run did not finish are
`skipped`. The shape follows the Jenkins JUnit schema (tests/fixtures/jenkins-junit.xsd).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from activation._models import Status
from activation.report.data import CaseReport, Report
from activation.report.terminal import first_errors, number, tally_cell

UNTAGGED = "untagged"
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """XML 1.0 cannot carry some control characters at all: they become U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def _properties(report: Report) -> dict[str, str]:
    spec = report.spec
    found = {
        "skill": report.skill_id,
        "skill_path": report.skill_path,
        "stage": spec.stage,
        "model": spec.model or "the CLI's default",
        "trials": str(spec.trials),
        "max_trials": str(spec.max_trials),
        "alpha": str(spec.alpha),
        "baseline": report.baseline.spec,
        "candidate": report.candidate.spec,
        "exit_code": str(report.exit_code),
        "verdict": report.verdict,
        "activation_version": report.version,
    }
    if spec.agent is not None and spec.agent.version:
        found["claude_code_version"] = spec.agent.version
    return found


def case_body(entry: CaseReport) -> str:
    case = entry.case
    lines = [
        f"status: {entry.status.value}",
        f"expected: {'activate' if case.should_activate else 'stay quiet'}",
        f"baseline: {tally_cell(entry.baseline)} activated",
        f"candidate: {tally_cell(entry.candidate)} activated",
        f"p: {number(entry.p_value) or '-'}",
        f"q: {number(entry.q_value) or '-'}",
        f"prompt: {case.prompt}",
        f"why: {case.why}",
    ]
    lines += [f"{variant} error: {reason}" for variant, reason in first_errors(entry.trials)]
    return "\n".join(lines) + "\n"


def _summary_line(entry: CaseReport) -> str:
    q = f", q {number(entry.q_value)}" if entry.q_value is not None else ""
    return (
        f"{entry.status.value}: baseline {tally_cell(entry.baseline)}, "
        f"candidate {tally_cell(entry.candidate)}{q}"
    )


def _testcase(parent: ET.Element, entry: CaseReport) -> None:
    classname = entry.case.tags[0] if entry.case.tags else UNTAGGED
    element = ET.SubElement(parent, "testcase", classname=classname, name=entry.case.id)
    body = case_body(entry)
    kind = {Status.ERROR: "error", Status.REGRESSED: "failure"}.get(entry.status, "system-out")
    child = ET.SubElement(element, kind)
    if kind != "system-out":
        child.attrib.update(type=entry.status.value, message=_summary_line(entry))
    child.text = body


def render_junit(report: Report) -> bytes:
    cases = report.cases
    counts = {
        "tests": str(len(cases) + len(report.unfinished)),
        "failures": str(report.count(Status.REGRESSED)),
        "errors": str(report.count(Status.ERROR)),
        "skipped": str(len(report.unfinished)),
    }
    name = f"activation {report.skill_id}"
    root = ET.Element(
        "testsuites", name="activation", **{k: counts[k] for k in counts if k != "skipped"}
    )
    suite = ET.SubElement(root, "testsuite", name=name, **counts)
    properties = ET.SubElement(suite, "properties")
    for key, value in _properties(report).items():
        ET.SubElement(properties, "property", name=key, value=value)
    for entry in cases:
        _testcase(suite, entry)
    for case_id in report.unfinished:
        unfinished = ET.SubElement(suite, "testcase", classname="unfinished", name=case_id)
        ET.SubElement(unfinished, "skipped").text = "not finished: the run was interrupted"
    for element in root.iter():
        if element.text:
            element.text = xml_text(element.text)
        for key, value in element.attrib.items():
            element.attrib[key] = xml_text(value)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
