"""`activation init` as a new user runs it: a two-skill repo and the bundled billing example
drafted with the mock and passed by `lint --strict`, a model's draft through the one `call`
(the scripted provider), no overwrite without `--force`, and bad input as one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation._errors import InputError
from activation.commands.init import chosen, set_of
from activation.commands.main import main
from activation.inputs import draft
from activation.inputs.changes import SkillPlace
from activation.trials.providers.asking import Reply
from activation.trials.providers.scripted import ANSWERED, message
from tests.support.cli import one_line_error
from tests.support.scripted_provider import registered
from tests.support.skill_repo import SkillRepos, skill_text

FOLDER = Path("plugins/payments/skills")
SIBLING = {
    "plugins/payments/skills/disputes/SKILL.md": skill_text(
        "Answer chargebacks and payment disputes opened by a customer's bank.", "disputes"
    )
}


@pytest.fixture
def repo(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Two sibling skills (refunds, disputes) committed, the cwd; the cache in the test's."""
    monkeypatch.setenv("ACTIVATION_CACHE_DIR", str(tmp_path / "cache"))
    root = skill_repo("Issue refunds for orders, whole or partial.", files=SIBLING).root
    monkeypatch.chdir(root)
    return root


def cases_of(root: Path, name: str) -> list[dict[str, Any]]:
    data = orjson.loads((root / FOLDER / name / "cases.json").read_bytes())
    assert isinstance(data, dict)
    return list(data["cases"])


def test_a_two_skill_repo_is_drafted_with_the_mock_and_passes_lint_strict(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--all", "--model", "mock", "--behavior"]) == 0
    said = capsys.readouterr().err
    assert f"refunds: drafted 8 case(s) into {FOLDER.as_posix()}/refunds/cases.json" in said
    assert "init: a draft to review, not to trust" in said
    refunds = cases_of(repo, "refunds")
    assert [(c["id"], c["expect"]) for c in refunds] == [
        ("refunds-keyword-loss-1", "refunds"),
        ("refunds-keyword-loss-1-twin", None),
        ("refunds-framework-loss-1", "refunds"),
        ("refunds-framework-loss-1-twin", None),
        ("refunds-indirect-1", "refunds"),
        ("refunds-indirect-1-twin", None),
        ("refunds-routes-disputes-1", "disputes"),
        ("refunds-none-1", None),
    ]
    assert all(c["prompt"].startswith(draft.PLACEHOLDER) for c in refunds)
    assert (repo / FOLDER / "disputes" / "evals" / "disputes_draft" / "PROMPT.md").is_file()
    capsys.readouterr()
    assert main(["lint", "--strict"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith("no problems found")
    assert "and 4 case files (" in out  # the two cases.json and the two behavior skeletons


def test_a_marketplace_serving_one_skills_folder_as_two_plugins_makes_two_sets() -> None:
    """anthropics/skills' layout: the siblings are the plugin's, not the whole folder's."""
    pdf = SkillPlace("skills/pdf/SKILL.md", "skills", "document-skills:pdf")
    docx = SkillPlace("skills/docx/SKILL.md", "skills", "document-skills:docx")
    art = SkillPlace("skills/art/SKILL.md", "skills", "example-skills:art")
    assert set_of(pdf) == set_of(docx) == ("skills", "document-skills")
    assert set_of(art) == ("skills", "example-skills")


def test_a_name_two_plugins_share_is_asked_for_by_its_id() -> None:
    found = [
        SkillPlace(f"{p}/skills/refunds/SKILL.md", f"{p}/skills", f"{p}:refunds") for p in "ab"
    ]
    places = {place.path: place for place in found}
    with pytest.raises(InputError) as raised:
        chosen(places, "refunds", False)
    assert (
        str(raised.value)
        == "--skill refunds: names several skills (a:refunds, b:refunds); pass its id"
    )
    assert [p.id for p in chosen(places, "b:refunds", False)] == ["b:refunds"]


def test_a_file_that_exists_stops_init_before_anything_unless_forced(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = repo / FOLDER / "refunds" / "cases.json"
    mine.write_text('{"cases": []}\n')
    assert main(["init", "--skill", "refunds", "--model", "mock"]) == 2
    assert one_line_error(capsys) == (
        f"activation init: error: {FOLDER.as_posix()}/refunds/cases.json: exists; "
        "pass --force to overwrite"
    )
    assert mine.read_text() == '{"cases": []}\n'
    assert not (repo / FOLDER / "disputes" / "cases.json").exists()
    assert main(["init", "--skill", "refunds", "--model", "mock", "--force"]) == 0
    assert len(cases_of(repo, "refunds")) == 8


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        ([], "2 skills (disputes, refunds): pass --skill NAME or --all"),
        (["--skill", "shipping"], "--skill shipping: no skill of the working tree "
         "(disputes, refunds)"),
        (["--skill", "refunds", "--all"], "--skill and --all: pass one of them"),
    ],
)  # fmt: skip
@pytest.mark.usefixtures("repo")
def test_which_skill_is_one_clear_line_when_it_is_not_said(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--model", "mock", *argv]) == 2
    assert one_line_error(capsys) == f"activation init: error: {error}"


def test_a_missing_key_names_inits_own_keyless_way(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["init", "--skill", "refunds", "--model", "claude-sonnet-4-5"]) == 2
    assert one_line_error(capsys) == (
        "activation init: error: no API key: set ANTHROPIC_API_KEY to draft cases "
        "(--model mock drafts placeholders offline)"
    )
    assert not (repo / FOLDER / "refunds" / "cases.json").exists()


def test_a_models_draft_is_asked_with_the_schema_and_its_echoes_left_out(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = registered(monkeypatch)
    answer = {
        "positives": [
            {"group": "keyword-loss", "prompt": "money back for order 41",
             "why": "a refund", "twin_prompt": "new address for order 41",
             "twin_why": "an order change"},
            {"group": "indirect", "prompt": "please issue refunds for orders, whole or partial",
             "why": "echoes", "twin_prompt": "ship orders", "twin_why": "shipping"},
        ],
        "siblings": [{"skill": "disputes", "prompt": "the bank pulled 40 euros",
                      "why": "a chargeback"}],
        "no_skill": [{"prompt": "rename the orders table", "why": "a schema change"}],
    }  # fmt: skip
    provider.script = [Reply(ANSWERED, message=message("{", "max_tokens")), json.dumps(answer)]
    assert main(["init", "--skill", "refunds", "--model", "scripted:drafter"]) == 0
    assert [(c["id"], c["prompt"]) for c in cases_of(repo, "refunds")] == [
        ("refunds-keyword-loss-1", "money back for order 41"),
        ("refunds-keyword-loss-1-twin", "new address for order 41"),
        ("refunds-routes-disputes-1", "the bank pulled 40 euros"),
        ("refunds-none-1", "rename the orders table"),
    ]
    assert len(provider.asked) == 2  # the cut answer asked once more
    request = provider.asked[0]
    assert request["output_config"]["format"]["schema"] == draft.SCHEMA
    assert "- disputes: Answer chargebacks" in request["messages"][0]["content"]
    said = capsys.readouterr().err
    assert "warning: refunds-indirect-1: left out, echoes refunds's description" in said
    written = (repo / FOLDER / "refunds" / "cases.json").read_bytes()
    (repo / FOLDER / "refunds" / "cases.json").unlink()
    assert main(["init", "--skill", "refunds", "--model", "scripted:drafter"]) == 0
    assert len(provider.asked) == 2  # a rerun is answered from the response cache
    assert (repo / FOLDER / "refunds" / "cases.json").read_bytes() == written


def test_no_usable_draft_writes_nothing_and_exits_3(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = registered(monkeypatch)
    provider.script = ['{"positives": []}', '{"positives": []}']
    assert main(["init", "--skill", "refunds", "--model", "scripted:drafter"]) == 3
    assert "activation init: error: refunds: no draft from scripted:drafter" in (
        capsys.readouterr().err
    )
    assert not (repo / FOLDER / "refunds" / "cases.json").exists()


@pytest.mark.parametrize("format", ["skill-creator", "jsonl", "yaml"])
def test_another_format_is_written_where_the_loader_finds_it_and_says_what_it_loses(
    repo: Path, format: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--all", "--model", "mock", "--format", format]) == 0
    assert f"warning: --format {format} has {draft.UNSAID}" in capsys.readouterr().err
    for name in ("refunds", "disputes"):
        for file in draft.file_names(name, format):
            assert (repo / FOLDER / name / file).is_file()
    assert main(["lint"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("error")] == []
    assert out.splitlines()[-1].startswith("lint: checked 2 skills in plugins/payments/skills/")


def test_the_bundled_billing_example_is_drafted_and_each_draft_passes_lint_strict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`activation example billing DIR` lays it out; its three skills each get a draft."""
    folder = tmp_path / "billing"
    assert main(["example", "billing", str(folder)]) == 1
    monkeypatch.chdir(folder)
    assert main(["init", "--all", "--model", "mock"]) == 0
    capsys.readouterr()
    for name in ("refunds", "disputes", "invoices"):
        path = f"plugins/billing/skills/{name}/cases.json"
        assert main(["lint", "--strict", "--cases", path]) == 0
        assert capsys.readouterr().out.strip().endswith(f"({path}): no problems found")
