"""Every command in every layout the agents load skills from (tests/support/layouts.py): a
plugin at the root, plugins in `plugins/`, a marketplace naming its plugins' skills, one of
plugins in folders under `skills/`, the three skills folders and a repo with several sets;
with the mock model, and Stage C on its scripted stand-in (tests/support/fake_behavior.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import git
import orjson
import pytest

from activation.commands.main import main
from activation.inputs.load import load_behavior_inputs, load_behavior_suite, load_inputs
from activation.inputs.variants import SKIPPED
from activation.trials.agent.plugin_copy import make_set_copy
from tests.support.cli import one_line_error, read_report
from tests.support.fake_behavior import FakeBehavior, passing
from tests.support.layouts import CANDIDATE, LAYOUTS, Layout, build_layout, skill_text

ALL = pytest.mark.parametrize("layout", LAYOUTS.values(), ids=list(LAYOUTS))
BROKEN = '---\nname: invoices\ndescription: "unclosed\n---\n# Invoices\n'
"""A SKILL.md whose frontmatter is not YAML: line 3 opens a list it never closes."""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    """The layout's repo, the test's own: for a test that changes it."""
    layout: Layout = request.getfixturevalue("layout")
    root = tmp_path / "repo"
    build_layout(root, layout)
    enter(root, monkeypatch)
    return root


@pytest.fixture(scope="module")
def built() -> dict[str, tuple[Path, str]]:
    """Each layout's repo built so far in this module, and its `git status` as built."""
    return {}


@pytest.fixture
def shared_repo(
    layout: Layout,
    built: dict[str, tuple[Path, str]],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Path]:
    """The layout's repo, built once for every test that only reads it (a repo's git init
    and commit are most of such a test's time); each test leaves it as it found it (a run
    writes its record in `.activation/`: a run's test takes `repo`)."""
    if layout.name not in built:
        root = tmp_path_factory.mktemp(layout.name) / "repo"
        built[layout.name] = (root, status(build_layout(root, layout)))
    root, as_built = built[layout.name]
    enter(root, monkeypatch)
    yield root
    assert status(git.Repo(root)) == as_built


def enter(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test runs in the repo, with no model API's credentials."""
    monkeypatch.chdir(root)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def status(repo: git.Repo) -> str:
    """Every change to the repo's working tree, untracked and ignored files included."""
    return str(repo.git.status("--porcelain", "--untracked-files=all", "--ignored"))


def sibling_path(layout: Layout) -> str:
    return layout.measured.replace("/refunds/", "/invoices/")


@ALL
def test_the_ids_and_the_set_are_the_agents(layout: Layout, shared_repo: Path) -> None:
    inputs = load_inputs(shared_repo, cases=Path("cases.json"))
    assert inputs.target.skill_id == layout.skill_id
    assert inputs.target.plugin_root == (shared_repo / layout.set_root).resolve()
    for variant in (inputs.baseline, inputs.candidate):
        assert [skill.name for skill in variant.siblings] == [layout.sibling]
    assert inputs.baseline.description.startswith("Use when issuing refunds, handling")
    assert inputs.candidate.description == CANDIDATE


@ALL
def test_lint_and_visibility(
    layout: Layout, shared_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--skill-path", layout.measured, "--cases", "cases.json"]) == 0
    capsys.readouterr()
    flags = ["--skill-path", layout.measured, "--agent", "claude-code", "--no-listing"]
    assert main(["visibility", *flags]) == 0
    out = capsys.readouterr().out
    assert f"  {layout.skill_id}: listed whole" in out
    assert f"  {layout.sibling}: listed whole" in out
    others = set(layout.skills.values()) - {layout.skill_id, layout.sibling}
    assert not [other for other in others if f"  {other}: " in out]


@ALL
def test_the_mock_run_measures_the_skill_by_its_id(
    layout: Layout, repo: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    flags = ["--cases", "cases.json", "--max-trials", "3", "--json", str(report)]
    code = main(["--model", "mock", *flags])
    data = read_report(report)
    assert code == data["exit_code"] == 1  # the narrower candidate loses the dispute prompt
    assert data["skill"] == {"id": layout.skill_id, "path": layout.measured}
    assert {case["id"]: case["status"] for case in data["cases"]}["dispute"] == "REGRESSED"


@ALL
def test_behavior_reads_the_set_at_head_and_in_the_working_tree(
    layout: Layout, shared_repo: Path, tmp_path: Path
) -> None:
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    report = tmp_path / "behavior.json"
    flags = ["--suite", "evals", "--baseline", "git:HEAD", "--json", str(report)]
    code = main(["behavior", *flags, "--trials", "3", "--max-trials", "3"], stages)
    assert code == 0
    (_spec, inputs, _backend), *_ = stages.opened
    below = Path(layout.measured).relative_to(layout.set_root).as_posix()
    for variant in (inputs.baseline, inputs.candidate):
        tree = dict(variant.tree)
        assert below in tree
        assert sibling_path(layout).removeprefix(f"{layout.set_root}/") in tree
    assert dict(inputs.candidate.tree)[below].decode() == skill_text("refunds", CANDIDATE)
    assert b"issuing refunds, handling" in dict(inputs.baseline.tree)[below]


@ALL
def test_calibrate_behavior_runs_its_controls(
    layout: Layout, shared_repo: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.md"
    broken.write_text(skill_text("refunds", CANDIDATE).replace("Steps for", "Never do"))
    stages = FakeBehavior(passing({"refund_note": {"baseline": 3, "candidate": 3}}))
    report = tmp_path / "calibration.json"
    code = main(["calibrate", "--behavior", "--suite", "evals", "--broken", str(broken),
                 "--json", str(report), "--trials", "3", "--max-trials", "3"], stages)  # fmt: skip
    data = orjson.loads(report.read_bytes())
    assert code == 1  # the scripted agent passes with the broken body too: not caught
    assert (data["quiet"], data["caught"]) == (True, False)
    assert {inputs.target.skill_id for _spec, inputs, _backend in stages.opened} == {
        layout.skill_id
    }


@ALL
def test_changed_names_the_skill_and_finds_its_cases(
    layout: Layout, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["changed", "--dry-run", "--base", "git:HEAD"]) == 0
    out = capsys.readouterr().out
    assert f"{layout.skill_id} ({layout.measured}): modified, description" in out
    assert (
        f"would run: activation gate of {layout.skill_id} on cases.json "
        f"(because of {layout.skill_id})"
    ) in out
    assert main(["changed", "--base", "git:HEAD", "--model", "mock", "--max-trials", "3"]) == 1


@ALL
def test_suggest_plans_a_search_for_the_skill_by_its_id(
    layout: Layout, shared_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite large enough for suggest's three splits (the proposer is a mock elsewhere)."""
    cases = [
        {
            "id": f"p{i}",
            "prompt": f"refund order {i} for the customer",
            "should_activate": True,
            "why": "a refund",
        }
        for i in range(20)
    ]
    cases += [{"id": f"n{i}", "prompt": f"plot chart number {i}", "should_activate": False,
               "why": "a chart"} for i in range(20)]  # fmt: skip
    suite = tmp_path / "suite.json"
    suite.write_bytes(orjson.dumps({"skill": layout.skill_id, "cases": cases}))
    assert main(["suggest", "--dry-run", "--model", "mock", "--cases", str(suite)]) == 0
    assert capsys.readouterr().out.startswith(f"Dry run: suggest for {layout.skill_id}\n")


@ALL
def test_import_keeps_the_skills_id(layout: Layout, shared_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "imported.json"
    assert main(["import", "cases.json", "--out", str(out)]) == 0
    assert orjson.loads(out.read_bytes())["skill"] == layout.skill_id


@ALL
def test_a_copy_of_the_set_is_what_the_agent_loads(
    layout: Layout, shared_repo: Path, tmp_path: Path
) -> None:
    inputs = load_inputs(shared_repo, cases=Path("cases.json"))
    copy = make_set_copy(inputs.target, inputs.candidate, tmp_path / "copy")
    found = sorted(path.relative_to(copy).as_posix() for path in copy.rglob("SKILL.md"))
    set_root = Path(layout.set_root)
    assert found == sorted(
        Path(path).relative_to(set_root).as_posix()
        for path in (layout.measured, sibling_path(layout))
    )
    if ":" in layout.skill_id:
        manifest = orjson.loads((copy / ".claude-plugin/plugin.json").read_bytes())
        assert manifest["name"] == layout.skill_id.partition(":")[0]


@ALL
def test_a_broken_sibling_stays_in_the_set_with_a_warning_and_is_a_lint_error(
    layout: Layout, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code lists a project skill whose frontmatter does not parse by its body's
    first line (a plugin's not at all), so the run keeps it in the set for each agent."""
    (repo / sibling_path(layout)).write_text(BROKEN)
    problem = f"{sibling_path(layout)}:3: the frontmatter is not valid YAML"
    assert main(["lint", "--skill-path", layout.measured, "--cases", "cases.json"]) == 1
    assert (
        f"error    -        {problem} (while scanning a quoted scalar)" in capsys.readouterr().out
    )
    report = tmp_path / "report.json"
    code = main(["--model", "mock", "--cases", "cases.json", "--max-trials", "3",
                 "--json", str(report)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1  # the sibling lost its description: less visible, or gone
    assert (
        f"warning: {problem} (while scanning a quoted scalar): kept in the set: each agent "
        "lists it or skips it as its own parser reads it (`activation visibility` says which)"
    ) in err
    data = read_report(report)
    assert data["skill"]["id"] == layout.skill_id
    inputs = load_inputs(repo, cases=Path("cases.json"))
    assert [skill.name for skill in inputs.candidate.siblings] == [layout.sibling]
    assert inputs.candidate.siblings[0].description is None
    assert inputs.candidate.unparsed == (
        (layout.sibling, f"{problem} (while scanning a quoted scalar)"),
    )
    assert [skill.name for skill in inputs.baseline.siblings] == [layout.sibling]
    assert inputs.baseline.unparsed == ()


@ALL
def test_a_copy_keeps_a_broken_sibling_as_it_is(layout: Layout, repo: Path, tmp_path: Path) -> None:
    (repo / sibling_path(layout)).write_text(BROKEN)
    inputs = load_inputs(repo, cases=Path("cases.json"))
    copy = make_set_copy(inputs.target, inputs.candidate, tmp_path / "copy")
    found = sorted(path.relative_to(copy).as_posix() for path in copy.rglob("SKILL.md"))
    sibling = sibling_path(layout).removeprefix(f"{layout.set_root}/").removeprefix("./")
    own = Path(layout.measured).relative_to(layout.set_root).as_posix()
    assert found == sorted([own, sibling])
    assert (copy / sibling).read_text() == BROKEN


@ALL
def test_the_measured_skills_own_broken_skill_md_stays_an_input_error(
    layout: Layout, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / layout.measured).write_text(BROKEN.replace("invoices", "refunds"))
    assert main(["--model", "mock", "--cases", "cases.json"]) == 2
    err = capsys.readouterr().err.strip()
    where = repo.resolve() / layout.measured
    assert err == (
        f"activation: error: {where}:3: the frontmatter is not valid YAML "
        "(while scanning a quoted scalar)"
    )


LATIN_1 = "---\nname: invoices\ndescription: Use for cr\xe8me invoices.\n---\n".encode("latin-1")
"""A SKILL.md in Latin-1: byte 42 (the `è`) is not UTF-8."""


@ALL
def test_a_sibling_that_is_not_utf8_is_left_out_at_both_specs_and_is_a_lint_error(
    layout: Layout, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In the working tree and at the ref: a warning naming the file, the run goes on."""
    (repo / sibling_path(layout)).write_bytes(LATIN_1)
    git.Repo(repo).git.commit("-qam", "a Latin-1 sibling")
    problem = f"{sibling_path(layout)}: not UTF-8 text (byte 42)"
    assert main(["lint", "--skill-path", layout.measured, "--cases", "cases.json"]) == 1
    assert f"error    -        {problem}" in capsys.readouterr().out
    code = main(["--model", "mock", "--cases", "cases.json", "--baseline", "git:HEAD",
                 "--max-trials", "3"])  # fmt: skip
    warnings = [line for line in capsys.readouterr().err.splitlines() if "UTF-8" in line]
    assert (code, warnings) == (0, [
        f"warning: git:HEAD:{problem}: left out of the set ({SKIPPED})",
        f"warning: {problem}: left out of the set ({SKIPPED})",
    ])  # fmt: skip
    inputs = load_inputs(repo, cases=Path("cases.json"), baseline="git:HEAD")
    assert (inputs.baseline.siblings, inputs.candidate.siblings) == ((), ())


@ALL
def test_the_measured_skills_own_skill_md_not_utf8_stays_an_input_error(
    layout: Layout, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / layout.measured).write_bytes(LATIN_1.replace(b"invoices", b"refunds"))
    assert main(["--model", "mock", "--cases", "cases.json"]) == 2
    where = repo.resolve() / layout.measured
    assert one_line_error(capsys) == f"activation: error: {where}: not UTF-8 text (byte 41)"


def test_behavior_inputs_of_a_root_plugin_are_read_from_git(tmp_path: Path) -> None:
    """The reported bug: the set's root is the repo's, which git's tree has no entry for."""
    layout = LAYOUTS["root-plugin"]
    build_layout(tmp_path / "repo", layout)
    inputs = load_behavior_inputs(tmp_path / "repo", load_behavior_suite(tmp_path / "repo/evals"),
                                  repo=tmp_path / "repo", baseline="git:HEAD")  # fmt: skip
    tree = dict(inputs.baseline.tree)
    assert orjson.loads(tree[".claude-plugin/plugin.json"]) == {"name": "billing",
                                                                 "version": "1.0.0"}  # fmt: skip
    assert "skills/refunds/SKILL.md" in tree and "cases.json" in tree


def test_lint_names_a_sibling_with_no_description(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agents cannot list it: an error in lint, while the run goes on without it."""
    layout = LAYOUTS["root-plugin"]
    build_layout(tmp_path / "repo", layout)
    monkeypatch.chdir(tmp_path / "repo")
    Path("skills/invoices/SKILL.md").write_text("---\nname: invoices\n---\n# Invoices\n")
    assert main(["lint", "--skill-path", layout.measured, "--cases", "cases.json"]) == 1
    out = capsys.readouterr().out
    assert "error    -        skills/invoices/SKILL.md: the frontmatter has no 'description'" in out


@pytest.mark.parametrize(
    "layout",
    [LAYOUTS["marketplace-nested"], LAYOUTS["marketplace-folder"]],
    ids=["marketplace-nested", "marketplace-folder"],
)
def test_a_marketplaces_plugins_in_any_folder_are_found_with_no_flag(
    layout: Layout, shared_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported bugs (dbt Labs' skills): plugins served from `./skills/<plugin>` were
    never linted, shown or seen as changed, and `changed` said "no skill changed"; served
    from `./<plugin>` at the root, `changed` still said so."""
    folders = {"marketplace-nested": "skills/", "marketplace-folder": ""}[layout.name]
    assert main(["lint"]) == 0
    out = capsys.readouterr().out
    checked = f"{folders}billing/skills/, {folders}manuals/skills/"
    assert f"lint: checked 3 skills in {checked} (" in out
    assert main(["visibility", "--agent", "claude-code", "--no-listing"]) == 0
    out = capsys.readouterr().out
    assert f"plugin billing ({folders}billing/skills/)" in out
    assert f"plugin manuals ({folders}manuals/skills/)" in out
    for id in ("billing:refunds", "billing:invoices", "manuals:notes"):
        assert f"  {id}: listed whole" in out
    assert main(["changed", "--base", "git:HEAD", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"{layout.skill_id} ({layout.measured}): modified, description" in out
    assert "would run: activation gate of billing:refunds on cases.json" in out


@pytest.mark.parametrize("layout", [LAYOUTS["marketplace-nested"]], ids=["marketplace-nested"])
def test_a_case_expecting_another_plugins_skill_runs_with_that_plugin_as_catalog(
    layout: Layout, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported bug (nownabe's marketplace): such a case stopped the run, the line did
    not say how to list the other plugin, and `--catalog <plugin folder>` was refused."""
    cases = orjson.loads(Path("cases.json").read_bytes())
    notes = {"id": "notes", "prompt": "write the release notes", "expect": "manuals:notes",
             "why": "release notes are the manuals plugin's"}  # fmt: skip
    cases["cases"].append(notes)
    Path("cases.json").write_bytes(orjson.dumps(cases))
    assert main(["--model", "mock", "--cases", "cases.json"]) == 2
    assert one_line_error(capsys) == (
        "activation: error: case 'notes': 'manuals:notes' names no skill of the menu: "
        "manuals:notes is a skill of another plugin of this repo's marketplace; "
        "pass --catalog skills/manuals to list it"
    )
    flags = ["--model", "mock", "--cases", "cases.json", "--catalog", "skills/manuals"]
    assert main([*flags, "--json", "out.json"]) in (0, 1)
    report = read_report(Path("out.json"))
    assert [case["id"] for case in report["cases"]] == ["dispute", "refund", "charts", "notes"]
