"""Other tools' case files end to end, as a new user runs them: `--cases` on each
hand-written format (tests/fixtures/formats) in a real git repo of three sibling skills on
the offline mock model, `--cases-format`, one line for a file of no format, `lint` on them,
`behavior --suite` on a per-skill JSON file, and `activation import` writing our format."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.commands.main import main
from activation.inputs.load import read_cases
from tests.support.cli import one_line_error, read_report
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.skill_repo import SKILL_PATH, SkillRepos, skill_text

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
SIBLINGS = {
    "plugins/payments/skills/disputes/SKILL.md": skill_text(
        "Answer chargebacks and payment disputes opened by a customer's bank.", "disputes"
    ),
    "plugins/payments/skills/invoices/SKILL.md": skill_text(
        "Create, send and correct invoices, with tax and due dates.", "invoices"
    ),
}


@pytest.fixture
def repo(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The billing plugin's refunds skill and two siblings, committed; the cwd."""
    made = skill_repo("Issue refunds for orders, whole or partial.", files=SIBLINGS)
    monkeypatch.chdir(made.root)
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return made.root


def run(tmp_path: Path, cases: Path, *flags: str) -> tuple[int, dict[str, object]]:
    report = tmp_path / "report.json"
    code = main(["--model", "mock", "--cases", str(cases), "--json", str(report), *flags])
    return code, read_report(report) if report.exists() else {}


def ids_and_expect(report: dict[str, object]) -> list[tuple[str, bool, object]]:
    cases = report["cases"]
    assert isinstance(cases, list)
    return [(entry["id"], entry["should_activate"], entry["expect"]) for entry in cases]


@pytest.mark.usefixtures("repo")
def test_skill_creators_trigger_eval_set_runs_with_its_siblings_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = FORMATS / "skill-creator" / "trigger-eval.json"
    code, report = run(tmp_path, path, "--skill-path", SKILL_PATH)
    assert code == 0
    assert ids_and_expect(report) == [
        ("trigger-eval-1", True, None),
        ("trigger-eval-2", True, None),
        ("trigger-eval-3", False, ["billing:disputes"]),
        ("trigger-eval-4", False, ["billing:invoices"]),
        ("trigger-eval-5", False, None),
        ("trigger-eval-6", False, []),
    ]
    line = "6 cases have no 'why': their ground truth cannot be reviewed"
    assert report["warnings"] == [line]
    assert f"warning: {line}" in capsys.readouterr().err


@pytest.mark.usefixtures("repo")
def test_a_jsonl_positives_file_runs_with_the_shared_negatives_beside_it(tmp_path: Path) -> None:
    code, report = run(tmp_path, FORMATS / "prompts-jsonl" / "refunds.jsonl")
    assert code == 0
    assert report["skill"] == {  # named by the file: no --skill-path
        "id": "billing:refunds",
        "path": "plugins/payments/skills/refunds/SKILL.md",
    }
    assert ids_and_expect(report) == [
        ("refunds-001", True, None),
        ("refunds-002", True, None),
        ("refunds-003", True, None),
        ("neg-001", False, []),
        ("neg-002", False, []),
        ("neg-003", False, ["billing:invoices"]),
    ]


@pytest.mark.usefixtures("repo")
def test_yaml_trigger_tests_run_and_keep_their_reasons(tmp_path: Path) -> None:
    code, report = run(tmp_path, FORMATS / "trigger-yaml" / "trigger_tests.yaml")
    assert code == 0
    cases = report["cases"]
    assert isinstance(cases, list)
    assert [(entry["id"], entry["why"]) for entry in cases] == [
        ("refunds-should-1", "A plain refund of an order"),
        ("refunds-should-2", "A partial refund is still a refund"),
        ("refunds-should-3", ""),
        ("refunds-should-not-1", "A chargeback is answered with evidence, not refunded"),
        ("refunds-should-not-2", "Completely off-domain"),
    ]
    assert report["warnings"] == ["1 case has no 'why': its ground truth cannot be reviewed"]


@pytest.mark.usefixtures("repo")
def test_a_per_skill_json_files_trigger_part_runs_forced_or_detected(tmp_path: Path) -> None:
    path = FORMATS / "skill-json" / "refunds.json"
    code, report = run(tmp_path, path, "--cases-format", "skill-json")
    assert code == 0
    assert ids_and_expect(report) == [
        ("refunds-positive-1", True, None),
        ("refunds-positive-2", True, None),
        ("refunds-negative-1", False, ["billing:disputes"]),
        ("refunds-negative-2", False, ["billing:invoices"]),
        ("refunds-negative-3", False, []),
    ]


@pytest.mark.usefixtures("repo")
def test_a_file_of_no_format_or_not_the_forced_one_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evals.json"
    path.write_bytes(orjson.dumps([{"query": "refund order 12"}]))
    message = (
        f"{path}: matches no cases format; the nearest is skill-creator's trigger eval set "
        "(--cases-format skill-creator), and it lacks 'should_trigger' in item 1"
    )
    code, report = run(tmp_path, path)
    assert (code, report["exit_code"], report["error"]) == (2, 2, message)
    assert one_line_error(capsys) == f"activation: error: {message}"
    yaml_file = FORMATS / "trigger-yaml" / "trigger_tests.yaml"
    code, report = run(tmp_path, yaml_file, "--cases-format", "prompts-jsonl")
    assert code == 2
    assert one_line_error(capsys) == (
        f"activation: error: {yaml_file}: not per-skill JSON Lines prompts "
        "(--cases-format prompts-jsonl): it lacks JSON Lines of {id, prompt}"
    )
    assert not (tmp_path / "cache").exists()  # refused before any model call


@pytest.mark.usefixtures("repo")
def test_lint_names_the_cases_without_a_why_and_the_files_a_duplicate_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / "refunds.jsonl").write_text('{"id": "r1", "prompt": "Refund order 12"}\n')
    (folder / "negatives.jsonl").write_text(
        '{"id": "n1", "prompt": "refund  order 12", "expected_skill": ""}\n'
    )
    assert main(["lint", "--cases", str(folder / "refunds.jsonl")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("error    n1  same prompt as 'r1' (in refunds.jsonl and negatives.jsonl)")
    assert out[1] == (
        "warning  r1  no 'why' (the file gives none): say why this is the right answer, "
        "so it can be reviewed"
    )


@pytest.mark.usefixtures("repo")
def test_behavior_runs_a_per_skill_json_files_evals(tmp_path: Path) -> None:
    stages = FakeBehavior(passing({"refunds-1": {"baseline": 3, "candidate": 3}}))
    report = tmp_path / "behavior.json"
    suite = FORMATS / "skill-json" / "refunds.json"
    flags = ["--json", str(report), "--trials", "3", "--max-trials", "3", "--no-control"]
    code = main(["behavior", "--suite", str(suite), "--skill-path", SKILL_PATH, *flags], stages)
    assert code == 0
    data = read_report(report)
    assert [(entry["id"], entry["status"]) for entry in data["cases"]] == [
        ("refunds-1", "PASS"),
        ("refunds-2", "FAIL"),
    ]
    (_spec, inputs, _backend) = stages.opened[0]
    assert inputs.cases[1].scaffold == (
        ("evals/files/order-4417.csv", b"order,amount,currency\n4417,129.90,EUR\n"),
    )


def test_import_merges_per_skill_files_and_the_result_runs(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = FORMATS / "prompts-jsonl"
    files = [
        jsonl / "refunds.jsonl",
        jsonl / "disputes.jsonl",
        FORMATS / "skill-json" / "refunds.json",
    ]
    out = repo / "cases.json"
    assert main(["import", *map(str, files), "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"wrote 9 case(s) from 3 file(s) (prompts-jsonl, skill-json) to {out}",
        "merged the copies of 'refunds-001' from refunds.jsonl, refunds.json",
        "merged the copies of 'refunds-002' from refunds.jsonl, refunds.json",
        "merged the copies of 'neg-001' from negatives.jsonl, refunds.json",
        "merged the copies of 'disputes-001' from disputes.jsonl, refunds.json",
        "warning: 9 cases have no 'why': their ground truth cannot be reviewed",
    ]
    written = orjson.loads(out.read_bytes())
    assert "skill" not in written  # several skills: a routing suite
    assert written["cases"][0] == {
        "id": "refunds-001",
        "prompt": "Refund order 4417, the customer wants the whole amount back",
        "expect": "refunds",
        "why": None,
        "tags": ["positive"],
    }
    again = read_cases(out)
    assert (again.format, again.problems) == ("activation", ())
    assert [(case.id, case.expect, case.must_not) for case in again.cases] == [
        ("refunds-001", ("refunds",), ()),
        ("refunds-002", ("refunds",), ()),
        ("refunds-003", ("refunds",), ()),
        ("neg-001", (), ()),
        ("neg-002", (), ()),
        ("neg-003", ("invoices",), ()),
        ("disputes-001", ("disputes",), ()),
        ("disputes-002", ("disputes",), ()),
        ("refunds-negative-2", ("invoices",), ()),
    ]
    code, report = run(tmp_path, out, "--skill-path", SKILL_PATH)
    assert code == 0
    assert [entry[0] for entry in ids_and_expect(report)] == [case.id for case in again.cases]


@pytest.mark.usefixtures("repo")
def test_import_refuses_copies_that_contradict_each_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text("skill: refunds\nshould_trigger_prompts:\n  - refund order 12\n")
    two.write_text("skill: refunds\nshould_not_trigger_prompts:\n  - Refund order 12\n")
    out = tmp_path / "cases.json"
    assert main(["import", str(one), str(two), "--out", str(out)]) == 2
    assert one_line_error(capsys) == (
        f"activation import: error: {one}, {two}: case 'refunds-should-1': one copy says the "
        "skill should fire, another that it should not (one.yaml, two.yaml)"
    )
    assert not out.exists()


@pytest.mark.usefixtures("repo")
def test_import_never_writes_over_a_file_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "trigger_tests.yaml"
    source.write_bytes((FORMATS / "trigger-yaml" / "trigger_tests.yaml").read_bytes())
    assert main(["import", str(source), "--out", str(source)]) == 2
    assert (
        one_line_error(capsys)
        == f"activation import: error: --out {source}: is one of the files read"
    )
    assert source.read_bytes() == (FORMATS / "trigger-yaml" / "trigger_tests.yaml").read_bytes()


def test_import_in_the_skills_folder_keeps_its_skill_and_the_file_runs_back(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = repo / "plugins/payments/skills/refunds"
    (skill / "evals").mkdir()
    (skill / "evals/trigger-eval.json").write_text(
        '[{"query": "refund order 4417 in full", "should_trigger": true},'
        ' {"query": "draft an invoice for acme", "should_trigger": false}]'
    )
    monkeypatch.chdir(skill)
    assert main(["import", "evals/trigger-eval.json", "--out", "imported.json"]) == 0
    written = orjson.loads((skill / "imported.json").read_bytes())
    assert written["skill"] == "refunds"
    assert [entry["id"] for entry in written["cases"]] == [
        "refunds-trigger-eval-1",
        "refunds-trigger-eval-2",
    ]
    capsys.readouterr()
    code, report = run(tmp_path, skill / "imported.json", "--skill-path", SKILL_PATH)
    assert code == 0
    assert ids_and_expect(report) == [
        ("refunds-trigger-eval-1", True, None),
        ("refunds-trigger-eval-2", False, None),
    ]
