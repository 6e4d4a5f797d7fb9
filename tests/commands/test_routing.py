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
from typing import Any

import git
import junitparser
import orjson
import pytest

from activation._models import Status
from activation.commands.main import main
from activation.report.codec import parse_report
from tests.support.browser import ARTIFACTS, Launcher, visit
from tests.support.cli import read_report
from tests.support.skill_repo import SkillRepos, case, skill_text, write_cases

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
    assert "│ billing:disputes │ billing:disputes  │       30 │         3 │\n" in out
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
    # the disputes' own prompts moved: two went wholly elsewhere, bank-dispute ties its
    # new description with refunds' (the menu order decides) and lost half its trials
    assert report.ids_with(Status.REGRESSED) == ["chargeback-evidence", "bank-chargeback"]
    assert report.ids_with(Status.WEAKENED) == ["bank-dispute"]
    out = capsys.readouterr().out
    assert "entries that differ: billing:disputes\n" in out
    assert "  chargeback-evidence 9/9 -> 0/9: fired nothing 9/9: Payment 991" in out
    assert "  bank-dispute 21/21 -> 11/21: went to billing:refunds 10/21: The customer's" in out
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


def test_a_case_expecting_a_hidden_sibling_is_one_line_and_exit_2(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    invoices = billing / "plugins" / "billing" / "skills" / "invoices" / "SKILL.md"
    hidden = invoices.read_text().replace("\n---\n", "\ndisable-model-invocation: true\n---\n", 1)
    invoices.write_text(hidden)
    repo = git.Repo(billing)
    repo.git.add(A=True)
    repo.index.commit("invoices hidden from the model")
    repo.close()
    cases = orjson.loads((billing / "cases.json").read_bytes())
    expecting = [case["id"] for case in cases["cases"] if case.get("expect") == "invoices"]
    assert run() == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"activation: error: case {expecting[0]!r}: 'invoices' is hidden from the model (its "
        "SKILL.md says disable-model-invocation: true), so no prompt can make it fire"
    ]
    invoices.write_text(hidden.replace("disable-model-invocation: true\n", ""))
    assert run("--dry-run", "--only", expecting[0]) == 0


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
        "regressed": ["bank-dispute", "bank-chargeback", "chargeback-deadline"],
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


# --- a whole catalog ---------------------------------------------------------------------

SHOP = {
    "coupons": "Create discount coupons and promo codes with an expiry date.",
    "invoices": "Create, send and correct invoices with line items and due dates.",
    "refunds": "Refund a customer order to the card they paid with.",
    "shipping": "Book parcel shipping labels and track a courier delivery.",
    "taxes": "Compute sales tax and VAT rates for a country.",
}
INSTALLED = {
    "kafka": "Operate Kafka topics, partitions and consumer groups.",
    "terraform": "Plan and apply Terraform modules and state.",
}


def routing_case(case_id: str, prompt: str, expect: object) -> dict[str, object]:
    return {"id": case_id, "prompt": prompt, "expect": expect, "why": f"home of {case_id}"}


CATALOG_CASES = [
    routing_case("refund", "Refund order 7 to the customer card", "refunds"),
    routing_case("refund-paid", "The customer paid twice: refund the order", "refunds"),
    routing_case("coupon", "Make a promo code for the spring discount", "coupons"),
    routing_case("coupon-expiry", "Extend the expiry date of coupon SPRING", "coupons"),
    routing_case("invoice", "Send the invoice with its line items to Acme", "invoices"),
    # a due date belongs to invoices, but the words are the coupons' too: lost to coupons
    routing_case("due-date", "Change the expiry date to a new due date", "invoices"),
    routing_case("parcel", "Book a courier for this parcel", "shipping"),
    routing_case("vat", "What VAT rate applies in this country?", "taxes"),
    routing_case("topic", "Add partitions to the Kafka topic orders", "kafka"),
    routing_case("state", "Apply the Terraform modules to staging", "terraform"),
    # either skill is right: the tax of a refunded order
    routing_case(
        "refund-tax", "Compute the sales tax of the refund for this country", ["refunds", "taxes"]
    ),
    # no skill owns it, and the courier words take it to shipping
    routing_case("courier-joke", "Tell me a joke about a courier delivery", None),
    routing_case("weather", "What is the weather like in Lisbon today?", None),
]


@pytest.fixture
def catalog(skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A plugin of five shop skills (no `--skill-path`, no `skill` in the cases file: a
    routing suite measures the whole set), two installed skills in a `--catalog` folder."""
    files = {
        f"plugins/shop/skills/{name}/SKILL.md": skill_text(description, name)
        for name, description in SHOP.items()
        if name != "coupons"
    }
    repo = skill_repo(SHOP["coupons"], plugin_dir="plugins/shop", plugin_name="shop",
                      skill_name="coupons", files=files)  # fmt: skip
    for name, description in INSTALLED.items():
        (tmp_path / "installed" / name).mkdir(parents=True)
        (tmp_path / "installed" / name / "SKILL.md").write_text(skill_text(description, name))
    write_cases(repo.root / "routing.json", CATALOG_CASES)
    monkeypatch.chdir(repo.root)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return repo.root


def run_catalog(root: Path, *flags: str) -> int:
    return main(["--model", "mock", "--cases", "routing.json", "--catalog",
                 str(root.parent / "installed"), *flags])  # fmt: skip


def figures_of(data: dict[str, Any], variant: str) -> dict[str, tuple[object, ...]]:
    """Each skill's recall, precision, lost to and took from, as the JSON report has them."""
    return {
        entry["skill"]: (
            entry["recall"],
            entry["precision"],
            [(share["label"], share["count"]) for share in entry["lost_to"]],
            [(share["label"], share["count"]) for share in entry["took_from"]],
        )
        for entry in data["summary"][f"{variant}_routing"]["skills"]
    }


UNCHANGED_FIGURES = {
    "kafka": ([1, 1], [1, 1], [], []),
    "shop:coupons": ([2, 2], [2, 3], [], [("shop:invoices", 1)]),
    "shop:invoices": ([1, 2], [1, 1], [("shop:coupons", 1)], []),
    "shop:refunds": ([2, 2], [2, 2], [], []),
    "shop:shipping": ([1, 1], [1, 2], [], [("none", 1)]),
    "shop:taxes": ([1, 1], [2, 2], [], []),  # vat, and refund-tax, which may go there
    "terraform": ([1, 1], [1, 1], [], []),
}


def test_a_routing_suite_measures_every_skill_of_the_set_and_the_catalog(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No `--skill-path` in a set of five and no `skill` in the cases file: every case
    names its skill, so the whole set is measured (its first skill anchors the run)."""
    assert run_catalog(catalog, "--json", "r.json", "--markdown", "s.md", "--html", "r.html") == 0
    captured = capsys.readouterr()
    data = read_report(catalog / "r.json")
    assert data["skill"]["id"] == "shop:refunds"  # the skill most cases expect anchors it
    assert data["warnings"] == []  # a set with siblings and a catalog: no distractors
    assert "distractor" not in captured.err
    assert figures_of(data, "baseline") == figures_of(data, "candidate") == UNCHANGED_FIGURES
    assert data["summary"]["candidate_routing"]["ambiguous"] == [
        {
            "case": "refund-tax",
            "homes": ["shop:refunds", "shop:taxes"],
            "picked": [{"label": "shop:taxes", "count": 3}],
            "valid": 3,
        }
    ]
    kafka = next(e for e in data["summary"]["candidate_routing"]["skills"] if e["skill"] == "kafka")
    assert kafka["recall_interval"] == pytest.approx([0.20654931437723745, 1.0])
    out = captured.out
    for row in (
        "│ shop:coupons  │ 2/2 100% (34%-100%) │   2/3 67% (21%-94%) │ -              │ "
        "shop:invoices 1 │",
        "│ shop:invoices │    1/2 50% (9%-91%) │ 1/1 100% (21%-100%) │ shop:coupons 1 │ "
        "-               │",
        "│ shop:shipping │ 1/1 100% (21%-100%) │    1/2 50% (9%-91%) │ -              │ "
        "no skill 1      │",
        "│ shop:invoices              │ shop:coupons      │        3 │         3 │",
        "│ no skill                   │ shop:shipping     │        3 │         3 │",
        "│ refund-tax │ shop:refunds or shop:taxes │ shop:taxes 3/3  │ shop:taxes 3/3   │",
    ):
        assert row in out
    cells = [line for line in out.splitlines() if line.startswith("│ ") and " │ " in line]
    assert not any("│        0 │         0 │" in line for line in cells)  # non-empty cells only
    markdown = (catalog / "s.md").read_text()
    assert (
        "| `shop:invoices` | 50% (9%-91%) | 50% (9%-91%) | 100% (21%-100%) | 100% (21%-100%) "
        "| shop:coupons 1 | - |"
    ) in markdown
    assert (
        "| refund-tax | shop:refunds or shop:taxes | shop:taxes 3/3 | shop:taxes 3/3 |" in markdown
    )
    page = (catalog / "r.html").read_text()
    assert (
        "<tr><td><code>shop:invoices</code></td><td>50% (9%-91%)</td><td>50% (9%-91%)</td>"
        "<td>100% (21%-100%)</td><td>100% (21%-100%)</td><td>shop:coupons 1</td><td>-</td></tr>"
    ) in page
    assert (
        "<tr><td>refund-tax</td><td>shop:refunds or shop:taxes</td><td>shop:taxes 3/3</td>"
        "<td>shop:taxes 3/3</td></tr>"
    ) in page


def test_a_sibling_that_claims_a_shared_case_shows_in_the_picks_and_the_figures(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The candidate widens refunds to the tax of a refund: the case that may go to
    either now goes to refunds, and taxes keeps only its own."""
    refunds = catalog / "plugins/shop/skills/refunds/SKILL.md"
    refunds.write_text(
        skill_text(
            "Refund a customer order to the card they paid with; compute the sales tax of "
            "the refund for any country.",
            "refunds",
        )
    )
    assert run_catalog(catalog, "--json", "r.json") == 0
    out = capsys.readouterr().out
    data = read_report(catalog / "r.json")
    candidate = figures_of(data, "candidate")
    assert candidate["shop:refunds"] == ([2, 2], [3, 3], [], [])
    assert candidate["shop:taxes"] == ([1, 1], [1, 1], [], [])
    assert figures_of(data, "baseline") == UNCHANGED_FIGURES
    assert "│ refund-tax │ shop:refunds or shop:taxes │ shop:taxes 3/3  │ shop:refunds 3/3 │" in out
    assert "│ shop:refunds  │ 2/2 100% (34%-100%) │ 2/2 -> 3/3 100% (44%-100%) │" in out
    # refunds, the skill most cases expect, anchors the run: its own edit heads the report
    assert "baseline  git:HEAD  (51 chars)\n" in out
    assert f"candidate {refunds}  (104 chars)\n" in out


def test_the_dry_run_shows_the_listing_the_model_would_see(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_catalog(catalog, "--dry-run", "--show-listing", "--agent", "claude-code,codex") == 0
    out = capsys.readouterr().out
    assert "listing: shop:refunds, 4 sibling(s), 0 distractor(s), 2 catalog skill(s)" in out
    claude, codex = out.split("cell A/codex/mock")
    head = "listing as sent, baseline and candidate (identical): Claude Code's, 20 entries, "
    assert head in claude
    listing = claude.split(head)[1]
    assert "The following skills are available for use with the Skill tool:\n\n" in listing
    for name, description in SHOP.items():
        assert f"\n- shop:{name}: {description}\n" in listing
    for name, description in INSTALLED.items():
        assert f"\n- {name}: {description}\n" in listing
    assert "listing as sent, baseline and candidate (identical): Codex's, " in codex
    assert "<skills_instructions>" in codex
    assert f"- refunds: {SHOP['refunds']} (file: " in codex


def test_show_listing_goes_with_a_dry_run(
    catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_catalog(catalog, "--show-listing") == 2
    assert capsys.readouterr().err.strip() == (
        "activation: error: --show-listing goes with --dry-run"
    )


# --- distractors ---------------------------------------------------------------------------

GENERIC_NOTE = (
    "the menu adds 8 distractor skill(s) from the bundled generic set (common developer "
    "skills tied to no vendor); --distractors auth0, --distractors DIR for your own, "
    "--distractors none for none"
)


@pytest.fixture
def lone(skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A plugin of one skill (alone on the menu, but for the agent's built-ins)."""
    repo = skill_repo()
    cases = [case("refund", "refund order 7", True), case("chart", "plot chart 3", False)]
    write_cases(repo.root / "cases.json", cases)
    monkeypatch.chdir(repo.root)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return repo.root


def test_a_lone_skill_gets_the_generic_distractors_and_every_output_says_which(
    lone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone skill of any field gets company tied to no vendor (not the auth0 suite's),
    and every output names the set."""
    assert run("--json", "r.json", "--markdown", "s.md", "--html", "r.html") == 0
    out = capsys.readouterr().out
    data = read_report(lone / "r.json")
    assert data["distractors"] == GENERIC_NOTE
    assert f'<p class="warning" id="distractors">note: {GENERIC_NOTE}</p>' in (
        (lone / "r.html").read_text()
    )
    assert f"note: {GENERIC_NOTE}" in " ".join(out.split())
    assert "Routing per skill" not in out  # one skill: recall and false positives say it
    assert ("- note: the menu adds 8 distractor skill\\(s\\) from the bundled generic set") in (
        lone / "s.md"
    ).read_text()
    assert run("--dry-run") == 0
    plan = " ".join(capsys.readouterr().out.split())
    assert "1 sibling(s)" not in plan and "8 distractor(s)" in plan
    assert "13 of Claude Code's own" in plan  # no distractor hides a built-in
    assert f"note: {GENERIC_NOTE}" in plan
    assert "stripe-payments" not in plan


def test_the_auth0_set_is_kept_for_when_it_is_named(
    lone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--distractors", "auth0", "--json", "r.json") == 0
    assert read_report(lone / "r.json")["distractors"] == (
        "the menu adds 10 distractor skill(s) from the bundled auth0 set (auth0-adjacent on "
        "purpose, written for the bundled auth0 suite); --distractors generic, "
        "--distractors DIR for your own, --distractors none for none"
    )


def test_distractors_none_leaves_them_out(lone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--distractors", "none", "--json", "r.json") == 0
    out = capsys.readouterr().out
    assert read_report(lone / "r.json")["distractors"] is None
    assert "note:" not in out
    assert run("--distractors", "none", "--dry-run") == 0
    assert "0 distractor(s)" in capsys.readouterr().out


def test_a_set_with_siblings_lists_given_distractors_with_their_folder(
    billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = billing.parent / "mine"
    folder.mkdir()
    (folder / "charts.md").write_text(skill_text("Use when drawing charts.", "charts"))
    assert run("--distractors", str(folder), "--json", "r.json") == 0
    data = read_report(billing / "r.json")
    assert data["distractors"] == (
        f"the menu adds 1 distractor skill(s) from {folder} (--distractors; none: "
        "--distractors none)"
    )
    assert run("--json", "default.json") == 0
    assert read_report(billing / "default.json")["distractors"] is None
    capsys.readouterr()


# --- a large set, in a browser -------------------------------------------------------------

WIDE = {
    f"{area}-{task}": f"{task.capitalize()} the {area} records: {area} {task} ledger entries."
    for area, task in [
        ("payments", "reconcile"), ("invoices", "archive"), ("customers", "merge"),
        ("subscriptions", "renew"), ("warehouse", "restock"), ("shipping", "reroute"),
        ("accounting", "close"), ("payroll", "approve"), ("marketing", "schedule"),
        ("support", "escalate"),
    ]
}  # fmt: skip
"""Ten skills with long names: a routing matrix of ten columns, each prompt going home."""


def test_a_routing_matrix_of_ten_skills_fits_or_scrolls_in_a_browser(
    skill_repo: SkillRepos, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chromium: Launcher
) -> None:
    """Every column of a wide matrix can be seen: each map fits the page or scrolls within
    its own box, and the page itself never gets wider than the window. The page names no
    folder of the machine that ran it."""
    names = list(WIDE)
    files = {f"plugins/ops/skills/{name}/SKILL.md": skill_text(WIDE[name], name)
             for name in names[1:]}  # fmt: skip
    repo = skill_repo(WIDE[names[0]], plugin_dir="plugins/ops", plugin_name="ops",
                      skill_name=names[0], files=files)  # fmt: skip
    cases = [routing_case(f"c-{name}", f"{name.replace('-', ' ')} ledger entries now", name)
             for name in names]  # fmt: skip
    write_cases(repo.root / "routing.json", cases)
    monkeypatch.chdir(repo.root)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = main(["--model", "mock", "--cases", "routing.json", "--distractors", "none",
                 "--html", "r.html"])  # fmt: skip
    assert code == 0
    html = (repo.root / "r.html").read_text()
    assert str(tmp_path) not in html  # no runner path: the page is read on other machines
    assert str(Path.home()) + "/" not in html
    assert "<code>plugins/ops/skills/accounting-close/SKILL.md</code>" in html
    with chromium() as browser, visit(browser, repo.root / "r.html", width=1280) as seen:
        # At a laptop's width the case table fits whole: ids and homes wrap, prompts stay readable.
        fits = "t => [t.scrollWidth, t.parentElement.clientWidth]"
        width, shown = seen.page.locator("#cases").evaluate(fits)
        assert width <= shown
        box = seen.page.locator("#cases td.prompt").first.bounding_box()
        assert box is not None and box["width"] >= 224  # its 14rem at least
    with chromium() as browser, visit(browser, repo.root / "r.html", width=1000) as seen:
        page = seen.page
        assert page.locator("#heat-baseline thead th").count() == len(names) + 1
        assert page.evaluate("document.documentElement.scrollWidth") <= 1000
        for name in ("baseline", "candidate", "difference"):
            table = page.locator(f"#heat-{name}")
            box = page.locator(f"#heat-{name}").evaluate(
                "t => { const b = t.parentElement; const s = getComputedStyle(b);"
                " return [t.scrollWidth, b.clientWidth, b.scrollWidth, s.overflowX,"
                " b.getBoundingClientRect().right]; }"
            )
            width, shown, reachable, overflow, right = box
            assert right <= 1000
            assert width <= shown or (overflow == "auto" and reachable >= width)
            assert table.locator("thead th").last.inner_text() == "ops:warehouse-restock"
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("#routing").screenshot(path=str(ARTIFACTS / "routing-wide.png"))
        assert seen.errors == []


def test_a_settings_file_names_a_bundled_set_as_the_flag_does(
    lone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`distractors = "auth0"` is the set's name, not a folder beside the settings file."""
    (lone / "activation.toml").write_text('distractors = "auth0"\n')
    assert run("--json", "r.json") == 0
    assert "from the bundled auth0 set" in read_report(lone / "r.json")["distractors"]
