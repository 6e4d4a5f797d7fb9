"""`activation lint`: each rule with its exact finding, the rendering, and the CLI end to end."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from activation.cases import Case
from activation.lint import (
    GROUPS,
    Finding,
    echo,
    lint,
    lint_exit_code,
    lint_raw,
    main_lint,
    render_findings,
)
from tests.skillrepo import SKILL_PATH, make_skill_repo

DESCRIPTION = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."


def raw(
    case_id: str,
    prompt: str,
    should_activate: bool = False,
    twin: str | None = None,
    why: str | None = "justified",
    tags: tuple[str, ...] = ("negative",),
) -> dict[str, object]:
    entry: dict[str, object] = {
        "id": case_id,
        "prompt": prompt,
        "should_activate": should_activate,
        "tags": list(tags),
    }
    if why is not None:
        entry["why"] = why
    if twin is not None:
        entry["twin"] = twin
    return entry


def typed(case_id: str, prompt: str, tags: tuple[str, ...] = (), why: str = "justified") -> Case:
    return Case(id=case_id, prompt=prompt, should_activate=False, why=why, tags=tags)


def only_rules(data: object, description: str | None = None) -> tuple[Finding, ...]:
    """Lint with the group check off, so a test sees only the rule it is about."""
    return lint_raw(data, description, groups=())


# --- errors ---------------------------------------------------------------------------------


def test_clean_cases_have_no_findings() -> None:
    data = [
        raw("pos", "refund order 1234", True, twin="neg", tags=("keyword-loss",)),
        raw("neg", "export orders to csv"),
    ]
    assert only_rules(data, DESCRIPTION) == ()


def test_duplicate_ids_are_one_error_per_id() -> None:
    data = [raw("a", "first prompt"), raw("a", "second prompt"), raw("a", "third one here")]
    assert only_rules(data) == (Finding("error", "a", "duplicate id: 3 cases share it"),)


def test_identical_prompts_ignore_case_and_whitespace() -> None:
    data = [raw("a", "Refund  order 12"), raw("b", "refund order 12 "), raw("c", "REFUND order 12")]
    assert only_rules(data) == (
        Finding("error", "b", "same prompt as 'a'"),
        Finding("error", "c", "same prompt as 'a'"),
    )


@pytest.mark.parametrize("why", [None, "", "   ", 7])
def test_missing_or_blank_why_is_an_error_not_a_crash(why: object) -> None:
    entry = raw("a", "refund order 12", why=None)
    if why is not None:
        entry["why"] = why
    assert only_rules([entry]) == (
        Finding("error", "a", "missing 'why': it is what makes the ground truth reviewable"),
    )


def test_twin_naming_no_case() -> None:
    data = [raw("pos", "refund order 12", True, twin="ghost")]
    assert only_rules(data) == (Finding("error", "pos", "twin 'ghost' names no case"),)


def test_twin_naming_a_positive() -> None:
    data = [
        raw("p1", "refund order 12", True, twin="p2"),
        raw("p2", "dispute for order 12", True, twin="neg"),
        raw("neg", "export orders to csv"),
    ]
    assert only_rules(data) == (Finding("error", "p1", "twin 'p2' is a positive, not a negative"),)


def test_positive_without_twin() -> None:
    data = [raw("pos", "refund order 12", True), raw("neg", "export orders to csv")]
    assert only_rules(data) == (
        Finding(
            "error", "pos", "positive without a twin: name a negative that shares its vocabulary"
        ),
    )


def test_one_negative_may_twin_several_positives() -> None:
    data = [
        raw("p1", "refund order 12", True, twin="neg"),
        raw("p2", "chargeback on order 9", True, twin="neg"),
        raw("neg", "export orders to csv"),
    ]
    assert only_rules(data) == ()


def test_description_over_the_limit() -> None:
    data = [raw("a", "refund order 12")]
    assert only_rules(data, "x" * 1024) == ()
    assert only_rules(data, "x" * 1025) == (
        Finding(
            "error",
            None,
            "the description is 1,025 characters, over the agent's 1,024-character limit",
        ),
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"tests": []}, Finding("error", None, "expected a 'cases' list or a bare list of cases")),
        ({"cases": "no"}, Finding("error", None, "'cases' must be a list")),
        ("text", Finding("error", None, "'cases' must be a list")),
        ([], Finding("error", None, "the case list is empty")),
        ([raw("a", "x"), 5], Finding("error", None, "case #2 is not an object")),
        (
            [raw("a", "x"), {"prompt": "y", "should_activate": False, "why": "w"}],
            Finding("error", None, "case #2: 'id' is missing or not a non-empty string"),
        ),
        (
            [{"id": "a", "should_activate": False, "why": "w"}],
            Finding("error", "a", "missing 'prompt'"),
        ),
        (
            [{"id": "a", "prompt": "x", "should_activate": "yes", "why": "w"}],
            Finding("error", "a", "'should_activate' must be true or false"),
        ),
    ],
)
def test_malformed_input_is_a_finding(data: object, expected: Finding) -> None:
    assert only_rules(data) == (expected,)


def test_a_malformed_case_does_not_hide_the_others() -> None:
    data = [{"id": "bad"}, raw("pos", "refund order 12", True)]
    assert only_rules(data) == (
        Finding("error", "bad", "missing 'prompt'"),
        Finding(
            "error", "pos", "positive without a twin: name a negative that shares its vocabulary"
        ),
    )


# --- warnings -------------------------------------------------------------------------------


def test_near_duplicate_prompts() -> None:
    data = [
        raw("a", "add login to my react app please"),
        raw("b", "add login to my react app pls"),
        raw("c", "add logout to my vue app"),
    ]
    assert only_rules(data) == (
        Finding("warning", "b", "prompt nearly duplicates 'a' (similarity 0.95)"),
    )


def test_echo_of_a_copied_phrase() -> None:
    description = "Use when debugging callback URL mismatch errors in any framework."
    data = [raw("a", "debugging callback url mismatch errors in my app")]
    assert only_rules(data, description) == (
        Finding(
            "warning",
            "a",
            "the prompt echoes the description (copies the phrase "
            "'debugging callback url mismatch error in'): that tests string matching, not intent",
        ),
    )


def test_echo_of_the_descriptions_vocabulary() -> None:
    description = "Use when adding login. Covers React, Vue, Angular, Svelte and more."
    data = [raw("a", "svelte or vue or react or angular, which has the easiest login")]
    assert only_rules(data, description) == (
        Finding(
            "warning",
            "a",
            "the prompt echoes the description (is built from its words angular, login, react, "
            "svelte, vue): that tests string matching, not intent",
        ),
    )


@pytest.mark.parametrize(
    "prompt",
    [
        "add login to my react app",  # one feature, one framework: a normal request
        "use the app to add a new thing for users",  # generic words never count
        "the react and vue and angular apps all have a slow build",  # 3 shared words only
    ],
)
def test_ordinary_prompts_do_not_echo(prompt: str) -> None:
    assert (
        echo(prompt, "Use when adding login. Covers React, Vue, Angular, Svelte and more.") is None
    )


def test_plural_and_case_do_not_hide_an_echo() -> None:
    description = "Use for Refunds, Chargebacks, Disputes and Invoices."
    assert echo("REFUND chargeback dispute invoice", description) is not None


def test_a_group_with_no_cases() -> None:
    cases = [typed("a", "export orders", tags=("negative",)), typed("b", "refund 12", tags=())]
    assert lint(cases, None) == (
        Finding("warning", None, "no case in group 'keyword-loss' (tag a case with it)"),
        Finding("warning", None, "no case in group 'framework-loss' (tag a case with it)"),
        Finding("warning", None, "no case in group 'indirect' (tag a case with it)"),
    )
    assert GROUPS == ("keyword-loss", "framework-loss", "indirect", "negative")


def test_errors_come_before_warnings() -> None:
    data = [
        raw("a", "add login to my react app please", tags=GROUPS),
        raw("b", "add login to my react app pls", True),
    ]
    findings = lint_raw(data, None)
    assert [finding.level for finding in findings] == ["error", "warning"]


def test_lint_checks_typed_cases_too() -> None:
    cases = [typed("a", "refund 12"), typed("a", "refund 13", why=" ")]
    assert lint(cases, None, groups=()) == (
        Finding("error", "a", "duplicate id: 2 cases share it"),
        Finding("error", "a", "missing 'why': it is what makes the ground truth reviewable"),
    )


# --- rendering and exit code ----------------------------------------------------------------


def test_render_findings() -> None:
    findings = (
        Finding("error", "kw-1", "same prompt as 'kw-0'"),
        Finding("warning", None, "no case in group 'indirect' (tag a case with it)"),
    )
    assert render_findings(findings) == (
        "error    kw-1  same prompt as 'kw-0'\n"
        "warning  -     no case in group 'indirect' (tag a case with it)\n"
        "lint: 1 error, 1 warning"
    )
    assert render_findings(()) == "lint: no problems found"


def test_exit_code_fails_only_on_errors() -> None:
    assert lint_exit_code(()) == 0
    assert lint_exit_code((Finding("warning", None, "w"),)) == 0
    assert lint_exit_code((Finding("warning", None, "w"), Finding("error", "a", "e"))) == 1


# --- the CLI end to end ---------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_skill_repo(tmp_path / "repo", DESCRIPTION).root


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main_lint(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_reports_errors_and_exits_1(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.json"
    cases.write_bytes(
        orjson.dumps(
            {
                "_comment": "broken on purpose",
                "cases": [
                    raw("pos", "refund order 12", True, twin="ghost", tags=GROUPS),
                    raw("pos", "chargeback on order 9", True, why=None),
                    raw("neg", "REFUND order 12"),
                ],
            }
        )
    )
    code, out, err = run(["--cases", str(cases), "--repo", str(repo)], capsys)
    assert code == 1
    assert err == ""
    assert out.splitlines() == [
        "error    pos  duplicate id: 2 cases share it",
        "error    pos  missing 'why': it is what makes the ground truth reviewable",
        "error    neg  same prompt as 'pos'",
        "error    pos  twin 'ghost' names no case",
        "error    pos  positive without a twin: name a negative that shares its vocabulary",
        "lint: 5 errors, 0 warnings",
    ]


def test_cli_warnings_alone_exit_0(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.json"
    cases.write_bytes(orjson.dumps([raw("neg", "export the orders table to csv")]))
    code, out, _ = run(["--cases", str(cases), "--repo", str(repo)], capsys)
    assert code == 0
    assert out.splitlines()[-1] == "lint: 0 errors, 3 warnings"


def test_cli_bundled_suite_passes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--repo", str(repo), "--skill-path", SKILL_PATH], capsys)
    assert (code, out, err) == (0, "lint: no problems found\n", "")


def test_cli_lints_the_candidate_description(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_skill = tmp_path / "SKILL.md"
    long_skill.write_text(f"---\nname: refunds\ndescription: {'refunds ' * 200}\n---\nbody\n")
    code, out, _ = run(["--repo", str(repo), "--candidate", str(long_skill)], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        "error    -  the description is 1,599 characters, over the agent's 1,024-character limit"
    )


def test_cli_reads_a_git_candidate(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--repo", str(repo), "--candidate", "git:HEAD"], capsys)
    assert (code, out) == (0, "lint: no problems found\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cases", "missing.json"], "activation lint: cannot read cases file missing.json: "),
        (["--cases", "bad.json"], "activation lint: bad.json: not valid JSON ("),
        (["--candidate", "nowhere/SKILL.md"], "activation lint: nowhere/SKILL.md: no such file"),
        (["--candidate", "git:no-such-ref"], "activation lint: git:no-such-ref: no commit"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    code, out, err = run([*args, "--repo", str(repo)], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_cli_outside_a_repo_lints_the_cases_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run([], capsys)
    assert code == 0
    assert out == "lint: no problems found\n"
    assert err.startswith("activation lint: no skill found here, so only the cases were checked")


def test_cli_candidate_path_needs_no_repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    skill = tmp_path / "SKILL.md"
    skill.write_text("---\nname: x\ndescription: " + "y" * 1100 + "\n---\n")
    code, out, _ = run(["--candidate", str(skill)], capsys)
    assert code == 1
    assert "the description is 1,100 characters" in out


def test_cli_explicit_repo_that_is_not_one_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["--repo", str(tmp_path)], capsys)
    assert code == 2
    assert err.startswith("activation lint: ")


def test_cli_bad_flag_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_lint(["--no-such-flag"]) == 2
    assert capsys.readouterr().err == (
        "activation lint: error: unrecognized arguments: --no-such-flag "
        "(see activation lint --help)\n"
    )
