"""Case files written by hand in each format's own conventions (tests/fixtures/formats),
read from disk as `--cases` reads them: the file's parsing, its skill, the negatives files
beside a JSON Lines file, and one line for a file that cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation._errors import InputError
from activation.inputs.formats import PROMPTS_JSONL, SKILL_CREATOR, SKILL_JSON, TRIGGER_YAML
from activation.inputs.load import load_behavior_suite, load_cases, read_cases, skipped_warning

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def summary(path: Path) -> list[tuple[str, bool, tuple[str, ...] | None, str]]:
    return [(c.id, c.should_activate, c.expect, c.why) for c in read_cases(path).cases]


def test_skill_creator_trigger_eval_set() -> None:
    path = FORMATS / "skill-creator" / "trigger-eval.json"
    checked = read_cases(path)
    assert (checked.format, checked.written_for, checked.problems) == (SKILL_CREATOR, None, ())
    assert summary(path) == [
        ("trigger-eval-1", True, None, ""),
        ("trigger-eval-2", True, None, ""),
        ("trigger-eval-3", False, ("disputes",), ""),
        ("trigger-eval-4", False, ("invoices",), ""),
        ("trigger-eval-5", False, None, ""),
        ("trigger-eval-6", False, (), ""),
    ]


def test_a_jsonl_positives_file_is_read_with_the_negatives_file_beside_it() -> None:
    path = FORMATS / "prompts-jsonl" / "refunds.jsonl"
    checked = read_cases(path)
    assert (checked.format, checked.written_for, checked.problems) == (PROMPTS_JSONL, "refunds", ())
    assert summary(path) == [
        ("refunds-001", True, None, ""),
        ("refunds-002", True, None, ""),
        ("refunds-003", True, None, ""),
        ("neg-001", False, (), ""),
        ("neg-002", False, (), ""),
        ("neg-003", False, ("invoices",), ""),
    ]
    assert read_cases(FORMATS / "prompts-jsonl" / "negatives.jsonl").written_for is None


def test_yaml_trigger_tests_keep_their_reasons() -> None:
    path = FORMATS / "trigger-yaml" / "trigger_tests.yaml"
    checked = read_cases(path)
    assert (checked.format, checked.written_for, checked.unexplained) == (
        TRIGGER_YAML,
        "refunds",
        ("refunds-should-3",),
    )
    assert summary(path)[0] == ("refunds-should-1", True, None, "A plain refund of an order")
    assert summary(path)[3] == (
        "refunds-should-not-1",
        False,
        None,
        "A chargeback is answered with evidence, not refunded",
    )


def test_a_per_skill_json_file_gives_routing_cases_and_behavior_cases() -> None:
    path = FORMATS / "skill-json" / "refunds.json"
    checked = read_cases(path)
    assert (checked.format, checked.written_for) == (SKILL_JSON, "refunds")
    assert summary(path) == [
        ("refunds-positive-1", True, None, ""),
        ("refunds-positive-2", True, None, ""),
        ("refunds-negative-1", False, ("disputes",), ""),
        ("refunds-negative-2", False, ("invoices",), ""),
        ("refunds-negative-3", False, (), ""),
    ]
    suite = load_behavior_suite(path)
    assert [(case.id, case.manual) for case in suite.cases] == [
        ("refunds-1", False),
        ("refunds-2", False),
    ]
    assert suite.cases[1].scaffold == (
        ("evals/files/order-4417.csv", b"order,amount,currency\n4417,129.90,EUR\n"),
    )


def test_a_file_in_a_skill_folder_is_that_skills(tmp_path: Path) -> None:
    folder = tmp_path / "refunds"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: refunds\ndescription: Use when refunding.\n---\n")
    path = folder / "evals" / "trigger-eval.json"
    path.write_text('[{"query": "refund 12", "should_trigger": true}]')
    assert read_cases(path).written_for == "refunds"


def test_json_lines_in_a_json_file_are_read_as_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "refunds.json"
    path.write_text('{"id": "1", "prompt": "refund 12"}\n{"id": "2", "prompt": "undo 3"}\n')
    assert [case.id for case in read_cases(path).cases] == ["1", "2"]


def test_a_csv_of_trigger_prompts_is_read_for_its_folders_skill(tmp_path: Path) -> None:
    """`id,should_trigger,prompt` rows, as the field keeps trigger prompts beside evals.json."""
    folder = tmp_path / "refunds"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: refunds\ndescription: Use when refunding.\n---\n")
    path = folder / "prompts.csv"
    path.write_text(
        'id,should_trigger,prompt\nr-1,true,"refund order 12, please"\nr-2,FALSE,bake\n'
    )
    read = read_cases(path)
    assert read.written_for == "refunds"
    assert [(case.id, case.prompt, case.should_activate) for case in read.cases] == [
        ("r-1", "refund order 12, please", True),
        ("r-2", "bake", False),
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "r.jsonl",
            '{"id": "1", "prompt": "a"}\n{"id": 2,\n',
            r"r\.jsonl: line 2 is not valid JSON \(",
        ),
        ("r.jsonl", '{"id": "1", "prompt": "a"}\n[1]\n', r"r\.jsonl: line 2 is not a JSON object$"),
        ("t.yaml", "should_trigger_prompts: [a\n", r"t\.yaml: not valid YAML \("),
        ("c.json", '{"cases": [', r"c\.json: not valid JSON at line 1"),
        (
            "scores.csv",
            "run,score\n1,3\n",
            r"scores\.csv: not read: a CSV of cases has the header id,should_trigger,prompt "
            r"\(this one has run,score\)$",
        ),
    ],
    ids=["jsonl-syntax", "jsonl-not-object", "yaml", "json", "csv-header"],
)
def test_a_file_that_cannot_be_parsed_is_one_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=f"^{tmp_path}/{message}"):
        read_cases(path)


def test_a_run_refuses_the_first_problem_of_any_format(tmp_path: Path) -> None:
    path = tmp_path / "trigger-eval.json"
    path.write_text('[{"query": "refund 12", "should_trigger": "yes"}]')
    with pytest.raises(InputError) as raised:
        load_cases(path)
    assert str(raised.value) == (
        f"{path}: case 'trigger-eval-1': 'should_trigger' must be true or false"
    )


def test_a_suite_folder_leaves_a_trigger_eval_set_beside_its_evals_to_cases(tmp_path: Path) -> None:
    (tmp_path / "evals.json").write_text(
        '{"skill_name": "refunds", "evals": [{"id": 1, "prompt": "Refund 12", '
        '"expectations": ["refund.md names order 12"]}]}'
    )
    (tmp_path / "trigger-eval.json").write_text('[{"query": "refund 12", "should_trigger": true}]')
    assert [case.id for case in load_behavior_suite(tmp_path).cases] == ["refunds-1"]
    with pytest.raises(
        InputError,
        match=r"trigger-eval\.json: trigger cases, not behavior cases: pass it to --cases$",
    ):
        load_behavior_suite(tmp_path / "trigger-eval.json")


def test_a_suite_folder_leaves_a_trigger_file_of_either_form_to_cases(tmp_path: Path) -> None:
    (tmp_path / "evals.json").write_text(
        '{"skill_name": "palette", "evals": [{"id": 1, "prompt": "Pick accents", '
        '"assertions": ["theme.css defines --accent"]}]}'
    )
    (tmp_path / "trigger-eval.json").write_text(
        '{"skill_name": "palette", "queries": [{"query": "pick accents", "should_trigger": true}]}'
    )
    # named as skill-creator names its trigger set, but broken: --cases says what is wrong
    (tmp_path / "trigger_eval_old.json").write_text('[{"query": "pick accents"}]')
    assert [case.id for case in load_behavior_suite(tmp_path).cases] == ["palette-1"]


def test_a_file_in_a_suite_folder_that_is_neither_is_named_and_skipped(tmp_path: Path) -> None:
    """A JSON schema or a notes file beside evals.json (as the field keeps them) holds no
    cases: the suite is read and the file named, never refused for it."""
    (tmp_path / "evals.json").write_text(
        '{"skill_name": "palette", "evals": [{"id": 1, "prompt": "Pick accents"}]}'
    )
    (tmp_path / "notes.json").write_text('{"title": "palette notes", "queries": 3}')
    (tmp_path / "rubric.schema.json").write_text('{"type": "object"}')
    suite = load_behavior_suite(tmp_path)
    assert ([case.id for case in suite.cases], suite.skipped) == (
        ["palette-1"],
        ("notes.json", "rubric.schema.json"),
    )
    assert skipped_warning(tmp_path, suite.skipped) == [
        f"{tmp_path}: not read (no behavior or trigger cases in them): notes.json, "
        "rubric.schema.json"
    ]


def test_a_single_file_that_is_neither_says_what_it_lacks(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text('{"title": "palette notes", "queries": 3}')
    with pytest.raises(InputError) as raised:
        load_behavior_suite(tmp_path / "notes.json")
    assert str(raised.value) == (
        f"{tmp_path / 'notes.json'}: not behavior cases (a seeds' case file has a 'slug', "
        "skill-creator's evals.json 'evals' of prompts), matches no cases format; the nearest "
        "is this tool's cases file (--cases-format activation), and it lacks a 'cases' list"
    )


def test_evals_files_are_read_from_the_skill_folder_however_the_suite_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "evals/files").mkdir(parents=True)
    (tmp_path / "SKILL.md").write_text("---\nname: palette\ndescription: Use for colours.\n---\n")
    (tmp_path / "evals/files/theme.css").write_text(":root {}\n")
    (tmp_path / "evals/evals.json").write_text(
        '{"evals": [{"id": 1, "prompt": "Add an accent", "files": ["evals/files"]}]}'
    )
    monkeypatch.chdir(tmp_path)
    (case,) = load_behavior_suite(Path("evals")).cases
    assert (case.id, case.scaffold) == (
        f"{tmp_path.name}-1",
        (("evals/files/theme.css", b":root {}\n"),),
    )
