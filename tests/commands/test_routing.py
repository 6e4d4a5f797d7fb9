"""Several skills, end to end as a new user runs them: the example billing plugin
(examples/billing, three skills that overlap on purpose) and its routing suite, in a git
repo of its own, on the offline mock model.

Unchanged, every case goes home. The example edit makes `refunds` claim the disputes'
territory, and the run catches the steal in every output: the REGRESSED cases, where their
prompts went, the routing matrix and the per-skill figures, the heat map in a browser.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import git
import junitparser
import orjson
import pytest

from activation._models import Status
from activation.commands.main import main
from activation.report.codec import parse_report
from tests.support.browser import ARTIFACTS, Launcher, visit
from tests.support.cli import read_report

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "billing"
STOLEN = ["chargeback-evidence", "bank-dispute", "bank-chargeback"]


@pytest.fixture
def billing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "billing"
    shutil.copytree(EXAMPLE, root)
    repo = git.Repo.init(root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "t").set_value("user", "email", "t@example.com")
    repo.git.add(A=True)
    repo.index.commit("the billing plugin")
    repo.close()
    monkeypatch.chdir(root)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return root


def run(*flags: str) -> int:
    return main(["--model", "mock", "--cases", "cases.json", *flags])


def test_the_unchanged_plugin_routes_every_case_home(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--json", "report.json") == 0
    data = read_report(billing / "report.json")
    assert {entry["status"] for entry in data["cases"]} == {"PASS"}
    dispute = next(entry for entry in data["cases"] if entry["id"] == "bank-dispute")
    assert dispute["expect"] == ["billing:disputes"]
    assert dispute["should_activate"] is False
    assert dispute["baseline"]["routes"] == {"billing:disputes": 3}
    assert dispute["baseline"]["correct"] == 3
    assert [t["chose"] for t in dispute["trials"]] == [["billing:disputes"]] * 6
    entries = {entry["id"]: entry for entry in data["baseline"]["skills"]}
    assert list(entries) == ["billing:refunds", "billing:disputes", "billing:invoices"]
    assert entries["billing:invoices"]["entry"] == (
        "Create, send and correct invoices, with line items, tax and due dates. - When an "
        "invoice needs a credit note, a new tax rate or another recipient."
    )
    assert not any(entry["changed"] for entry in data["baseline"]["skills"])
    cells = {
        (c["expected"], c["went"]): c["trials"]
        for c in data["summary"]["baseline_routing"]["cells"]
    }
    assert cells == {
        ("billing:disputes", "billing:disputes"): 12,
        ("billing:invoices", "billing:invoices"): 9,
        ("billing:refunds", "billing:refunds"): 9,
        ("none", "none"): 6,
    }
    out = capsys.readouterr().out
    assert "where the prompts went" not in out


def test_a_description_that_claims_a_siblings_prompts_is_caught_taking_them(
    billing: Path, chromium: Launcher, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = {"json": "r.json", "junit": "junit.xml", "markdown": "summary.md", "html": "r.html"}
    flags = [item for name, path in outputs.items() for item in (f"--{name}", path)]
    assert run("--candidate", "edits/refunds-takes-disputes.md", *flags) == 1
    out = capsys.readouterr().out
    data = read_report(billing / "r.json")
    report = parse_report(data, "r.json")
    assert (
        report.ids_with(*[s for s in {e.status for e in report.cases} if s.value == "REGRESSED"])
        == STOLEN
    )
    dispute = next(entry for entry in report.cases if entry.id == "bank-dispute")
    assert (dispute.baseline.correct, dispute.candidate.correct) == (9, 0)
    assert dispute.candidate.routes == {"billing:refunds": 9}
    assert "  bank-dispute 9/9 -> 0/9: went to billing:refunds 9/9: The customer's bank" in out
    assert "│ billing:disputes │ billing:refunds   │        0 │        27 │\n" in out
    assert "│ billing:disputes │ billing:disputes  │       33 │         6 │\n" in out
    assert "where the prompts went, baseline -> candidate" not in out  # said once, in the table
    changed = {entry.id: entry.changed for entry in report.candidate.skills}
    assert changed == {
        "billing:refunds": True,
        "billing:disputes": False,
        "billing:invoices": False,
    }

    markdown = (billing / "summary.md").read_text()
    assert "| billing:disputes | billing:refunds | 0 | 27 |" in markdown
    assert "; went to billing:refunds 9/9)" in markdown
    assert (
        "| `billing:refunds` | 100% (44%-100%) | 100% (44%-100%) | 100% (44%-100%) "
        "| 50% (19%-81%) | - | billing:disputes 3 |"  # 3 of the 6 that went to refunds belong there
    ) in markdown

    (suite,) = list(junitparser.JUnitXml.fromfile(str(billing / "junit.xml")))
    failures = {case.name: case.result[0] for case in suite if case.result}
    assert sorted(failures) == sorted(STOLEN)
    assert failures["bank-dispute"].message == (
        "REGRESSED: baseline 9/9, candidate 0/9, q 2e-05; went to billing:refunds 9/9"
    )
    assert "candidate went to: billing:refunds 9/9" in (failures["bank-dispute"].text or "")

    with chromium() as browser, visit(browser, billing / "r.html") as seen:
        page = seen.page
        difference = page.locator("#heat-difference")
        header = difference.locator("thead th").all_inner_texts()
        row = difference.locator("tbody tr", has_text="billing:disputes").first
        cells = row.locator("td").all_inner_texts()
        stolen = cells[header.index("billing:refunds") - 1]
        assert stolen == "+27"
        style = row.locator("td").nth(header.index("billing:refunds") - 1).get_attribute("style")
        assert style is not None and "220, 38, 38" in style  # red: more went astray
        kept = row.locator("td").nth(header.index("billing:disputes") - 1)
        assert kept.inner_text() == "-27"
        assert "220, 38, 38" in (kept.get_attribute("style") or "")  # fewer went home: red
        assert page.locator("#heat-baseline tbody tr").count() == 4
        assert page.locator("#skill-figures tbody tr").count() == 3
        assert page.locator(".entry-diff").count() == 0  # only the measured description moved
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("#routing").screenshot(path=str(ARTIFACTS / "routing-heat-map.png"))
        assert seen.errors == []
        assert seen.requests == [(billing / "r.html").as_uri()]
    assert orjson.loads((billing / "r.json").read_bytes())["schema"] == "activation-report/4"


def test_an_edit_to_a_sibling_is_compared_too(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The baseline is the plugin at HEAD, the candidate the working tree: a sibling's new
    description is what changed, and its own prompts are what moved."""
    disputes = billing / "plugins/billing/skills/disputes/SKILL.md"
    disputes.write_text(
        disputes.read_text().replace(
            "Answer chargebacks and payment disputes opened by a customer's bank",
            "Answer letters from a customer's lawyer",
        )
    )
    assert run("--json", "r.json", "--markdown", "s.md") == 1
    report = parse_report(read_report(billing / "r.json"), "r.json")
    changed = [entry.id for entry in report.candidate.skills if entry.changed]
    assert changed == ["billing:disputes"]
    regressed = report.ids_with(Status.REGRESSED)
    assert regressed == STOLEN
    out = capsys.readouterr().out
    assert "entries that differ: billing:disputes\n" in out
    assert "  chargeback-evidence 9/9 -> 0/9: fired nothing 9/9: Payment 991" in out
    markdown = (billing / "s.md").read_text()
    assert "**Entry of `billing:disputes`** (baseline → candidate)" in markdown
    assert "~~chargebacks and payment disputes opened by~~" in markdown


def test_an_id_that_names_no_skill_is_one_line_and_exit_2(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = orjson.loads((billing / "cases.json").read_bytes())
    cases["cases"][0]["expect"] = "refund"
    (billing / "cases.json").write_bytes(orjson.dumps(cases))
    assert run() == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "activation: error: case 'refund-order': 'refund' names no skill of the menu "
        "(did you mean billing:refunds?)"
    ]


NARROW = "Use only when the user asks for the refunds skill by name."
BROAD = "Use for any work on orders, tables, columns, exports, CSV files, customers and more."


def control(folder: Path, description: str) -> Path:
    path = folder / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: refunds\ndescription: {description}\n---\n# Control\n")
    return path


def calibrate(tmp_path: Path, *flags: str) -> int:
    narrow, broad = control(tmp_path / "narrow", NARROW), control(tmp_path / "broad", BROAD)
    return main(
        ["calibrate", "--model", "mock", "--narrow", str(narrow), "--broad", str(broad), *flags]
    )


def test_calibrate_catches_the_sibling_control_taking_the_disputes(
    tmp_path: Path, billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Disputes has the most cases of the siblings, so the control is refunds' description
    claiming the disputes' territory; its cases' prompts go to refunds and REGRESS."""
    code = calibrate(tmp_path, "--cases", "cases.json", "--json", "calibration.json")
    out = capsys.readouterr().out
    data = orjson.loads((billing / "calibration.json").read_bytes())
    assert code == 0, out
    assert data["sibling"] == {
        "skill": "billing:disputes",
        "detected": True,
        "regressed": [*STOLEN, "chargeback-deadline"],
    }
    assert data["problems"] == []
    control_entry = data["reports"]["sibling"]["candidate"]
    assert control_entry["spec"] == "the sibling control (claims billing:disputes)"
    assert control_entry["description"] == (
        "Issue refunds for orders, whole or partial, and reverse a payment the customer asked "
        "to undo. Also use it for what billing:disputes covers: Answer chargebacks and payment "
        "disputes opened by a customer's bank, with evidence, before the deadline."
    )
    assert "The suite caught every control and raised no A/A alarm." in out


def test_sibling_cases_that_never_go_home_leave_the_suite_blind_on_routing(
    tmp_path: Path, billing: Path
) -> None:
    cases = orjson.loads((billing / "cases.json").read_bytes())
    mislabelled = {
        "id": "mislabelled",
        "prompt": "Email Acme their April invoice, with the new tax",
        "expect": "disputes",
        "why": "labelled for a sibling that never takes it",
    }
    kept = [c for c in cases["cases"] if c["expect"] in ("refunds", None)] + [mislabelled]
    (billing / "blind.json").write_bytes(orjson.dumps({**cases, "cases": kept}))
    code = calibrate(tmp_path, "--cases", "blind.json", "--json", "calibration.json")
    data = orjson.loads((billing / "calibration.json").read_bytes())
    assert code == 1
    assert data["sibling"] == {"skill": "billing:disputes", "detected": False, "regressed": []}
    assert data["problems"] == [
        "blind on routing: the sibling control (which claims the territory of "
        "billing:disputes) regressed no case whose home is billing:disputes (add cases that "
        "belong to billing:disputes and share words with the measured skill)"
    ]


def test_without_cases_for_a_sibling_there_is_no_sibling_control(
    tmp_path: Path, billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = orjson.loads((billing / "cases.json").read_bytes())
    kept = [c for c in cases["cases"] if c["expect"] in ("refunds", None)]
    (billing / "own.json").write_bytes(orjson.dumps({**cases, "cases": kept}))
    code = calibrate(tmp_path, "--cases", "own.json", "--json", "calibration.json")
    out = capsys.readouterr().out
    data = orjson.loads((billing / "calibration.json").read_bytes())
    assert code == 0, out
    assert data["sibling"] is None
    assert set(data["reports"]) == {"narrow", "broad", "self"}
    assert "no sibling control: no case expects a sibling skill of the measured one" in out
