"""The invocable id must come out as the agent derives it, for any plugin layout, not only auth0."""

from __future__ import annotations

from pathlib import Path, PurePath

import orjson
import pytest

from activation._errors import InputError
from activation._models import Target
from activation.inputs.load import resolve_target
from activation.inputs.target import (
    MarketplacePlugin,
    SetRoot,
    choose_default_skill,
    fallback_plugin_root,
    marketplace_plugin,
    marketplace_plugins,
    plugin_name_from_manifest,
    plugin_root_candidates,
    refused_plugins,
    set_root,
)
from tests.support.skill_repo import SkillRepos

SKILL = "---\nname: s\ndescription: Use it.\n---\n"


def write(root: Path, relative: str, text: str = SKILL) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def manifest(root: Path, plugin_dir: str, data: object) -> None:
    write(root, f"{plugin_dir}/.claude-plugin/plugin.json", orjson.dumps(data).decode())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Resolved, because resolve_target returns resolved paths (/tmp is a symlink on macOS)."""
    path = tmp_path.resolve() / "repo"
    path.mkdir()
    return path


# --- defaults ----------------------------------------------------------------------------


def test_default_repo_is_the_git_root_and_default_skill_path_wins(
    root: Path, skill_repo: SkillRepos
) -> None:
    skill_repo(
        root=root,
        plugin_dir="plugins/auth0",
        plugin_name="auth0",
        skill_name="auth0",
        text=SKILL,
        files={"plugins/other/skills/other/SKILL.md": SKILL},
        commit=None,
    )
    cwd = root / "plugins" / "other"

    target = resolve_target(None, None, cwd)

    assert target == Target(
        repo=root,
        skill_path=Path("plugins/auth0/skills/auth0/SKILL.md"),
        plugin_root=root / "plugins/auth0",
        plugin_name="auth0",
        skill_name="auth0",
    )
    assert target.skill_id == "auth0:auth0"
    assert target.skill_file == root / "plugins/auth0/skills/auth0/SKILL.md"


def test_default_repo_outside_git_says_to_pass_repo(root: Path) -> None:
    with pytest.raises(InputError) as error:
        resolve_target(None, None, root)
    assert str(error.value) == f"{root} is not inside a git repository: pass --repo DIR"


def test_the_only_skill_under_plugins_is_the_default(root: Path) -> None:
    write(root, "plugins/payments/skills/refunds/SKILL.md")
    write(root, "tools/elsewhere/SKILL.md")  # not under plugins/: not a candidate
    manifest(root, "plugins/payments", {"name": "billing"})

    target = resolve_target(root, None, Path("/"))

    assert target == Target(
        repo=root,
        skill_path=Path("plugins/payments/skills/refunds/SKILL.md"),
        plugin_root=root / "plugins/payments",
        plugin_name="billing",
        skill_name="refunds",
    )
    assert target.skill_id == "billing:refunds"


def test_the_only_skill_may_be_nested_anywhere_under_plugins(root: Path) -> None:
    write(root, "plugins/group/deep/p/skills/s/SKILL.md")
    target = resolve_target(root, None, root)
    assert target.skill_path == Path("plugins/group/deep/p/skills/s/SKILL.md")
    assert target.plugin_root == root / "plugins/group/deep/p"
    assert target.skill_id == "p:s"


def test_no_skill_under_plugins(root: Path) -> None:
    write(root, "tools/x/skills/y/SKILL.md")
    (root / "plugins" / "empty").mkdir(parents=True)
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        "no plugins/auth0/skills/auth0/SKILL.md and no SKILL.md under plugins/, "
        ".claude/skills/, skills/, .agents/skills/, .github/skills/, .opencode/skills/, "
        ".codex/skills/, .gemini/skills/, or at the repo's root: pass --skill-path"
    )


def test_no_plugins_folder(root: Path) -> None:
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        "no plugins/auth0/skills/auth0/SKILL.md and no SKILL.md under plugins/, "
        ".claude/skills/, skills/, .agents/skills/, .github/skills/, .opencode/skills/, "
        ".codex/skills/, .gemini/skills/, or at the repo's root: pass --skill-path"
    )


def test_skills_in_several_sets_are_named(root: Path) -> None:
    write(root, "plugins/b/skills/two/SKILL.md")
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, "plugins/a/skills/three/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        "found 3 skills in 2 sets: plugins/a/skills/ (one, three), plugins/b/skills/ (two); "
        "pass --skill-path (relative to --repo) to choose one, or --cases with a file that "
        'names it ("skill": "<id>")'
    )


def test_several_skills_of_one_set_are_named(root: Path) -> None:
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, "plugins/a/skills/three/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        "found 2 skills in 1 set: plugins/a/skills/ (one, three); "
        "pass --skill-path (relative to --repo) to choose one, or --cases with a file that "
        'names it ("skill": "<id>")'
    )


@pytest.mark.parametrize("written_for", ["a:three", "three"])
def test_the_cases_files_skill_picks_one_of_a_set(root: Path, written_for: str) -> None:
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, "plugins/a/skills/three/SKILL.md")
    target = resolve_target(root, None, root, written_for)
    assert target.skill_id == "a:three"


def test_skills_in_a_plugin_and_a_skills_folder_are_two_places(root: Path) -> None:
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, ".claude/skills/notes/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        "found 2 skills in 2 sets: .claude/skills/ (notes), plugins/a/skills/ (one); "
        "pass --skill-path (relative to --repo) to choose one, or --cases with a file that "
        'names it ("skill": "<id>")'
    )


@pytest.mark.parametrize(("written_for", "chosen"), [("b:two", "b:two"), ("notes", "notes")])
def test_the_cases_files_skill_picks_one_of_several_sets(
    root: Path, written_for: str, chosen: str
) -> None:
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, "plugins/b/skills/two/SKILL.md")
    write(root, ".claude/skills/notes/SKILL.md")
    assert resolve_target(root, None, root, written_for).skill_id == chosen


def test_a_name_in_two_sets_chooses_none(root: Path) -> None:
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, "plugins/b/skills/one/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root, "one")
    assert str(error.value).startswith(
        "found 2 skills in 2 sets: plugins/a/skills/ (one), plugins/b/skills/ (one); pass"
    )


# --- skills folders: a project's, a user's, the Agent Skills layouts ---------------------


@pytest.mark.parametrize("folder", [".claude/skills", "skills", ".agents/skills"])
def test_a_skills_folder_is_found_and_its_skills_have_bare_ids(root: Path, folder: str) -> None:
    write(root, f"{folder}/pdf/SKILL.md")
    target = resolve_target(root, None, root)
    assert target == Target(
        repo=root,
        skill_path=Path(f"{folder}/pdf/SKILL.md"),
        plugin_root=root / folder,
        plugin_name=None,
        skill_name="pdf",
    )
    assert (target.skill_id, target.in_plugin, target.in_set) == ("pdf", False, True)


def test_a_project_skill_by_skill_path_is_its_bare_name(root: Path) -> None:
    write(root, ".claude/skills/notes/SKILL.md")
    write(root, ".claude/skills/todo/SKILL.md")
    target = resolve_target(root, ".claude/skills/notes/SKILL.md", root)
    assert (target.skill_id, target.plugin_root) == ("notes", root / ".claude/skills")


def test_a_nested_project_skills_folder_is_a_skills_folder(root: Path) -> None:
    write(root, "app/.claude/skills/notes/SKILL.md")
    target = resolve_target(root, "app/.claude/skills/notes/SKILL.md", root)
    assert (target.skill_id, target.plugin_root) == ("notes", root / "app/.claude/skills")


def test_a_skills_folder_under_plugins_is_a_plugins_skills(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(root, "plugins/p/skills/s/SKILL.md", root)
    assert (target.skill_id, target.in_plugin) == ("p:s", True)


def test_several_skills_do_not_matter_when_skill_path_is_given(root: Path) -> None:
    write(root, "plugins/a/skills/one/SKILL.md")
    write(root, "plugins/a/skills/two/SKILL.md")
    target = resolve_target(root, "plugins/a/skills/two/SKILL.md", root)
    assert target.skill_id == "a:two"


# --- --repo and --skill-path ---------------------------------------------------------------


def test_explicit_repo_need_not_be_git_and_is_relative_to_cwd(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(Path("repo"), None, root.parent)
    assert target.repo == root
    assert target.skill_file == root / "plugins/p/skills/s/SKILL.md"


def test_explicit_repo_must_exist(root: Path) -> None:
    with pytest.raises(InputError) as error:
        resolve_target(Path("nope"), None, root)
    assert str(error.value) == "--repo nope: no such directory"


def test_skill_not_under_plugins_by_skill_path(root: Path) -> None:
    write(root, "tools/my-plugin/skills/x/SKILL.md")
    target = resolve_target(root, "tools/my-plugin/skills/x/SKILL.md", root)
    assert target == Target(
        repo=root,
        skill_path=Path("tools/my-plugin/skills/x/SKILL.md"),
        plugin_root=root / "tools/my-plugin",
        plugin_name="my-plugin",
        skill_name="x",
    )
    assert target.skill_id == "my-plugin:x"


def test_skill_path_is_relative_to_the_repo_not_cwd(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(root, "plugins/p/skills/s/SKILL.md", root / "plugins" / "p")
    assert target.skill_path == Path("plugins/p/skills/s/SKILL.md")


def test_absolute_skill_path_inside_the_repo(root: Path) -> None:
    path = write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(root, str(path), Path("/"))
    assert target.skill_path == Path("plugins/p/skills/s/SKILL.md")


def test_skill_path_is_normalised(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(root, "plugins/q/../p/./skills/s/SKILL.md", root)
    assert target.skill_path == Path("plugins/p/skills/s/SKILL.md")
    assert target.skill_id == "p:s"


def test_skill_path_outside_the_repo(root: Path) -> None:
    write(root.parent, "outside/skills/s/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, "../outside/skills/s/SKILL.md", root)
    assert str(error.value) == (
        f"--skill-path ../outside/skills/s/SKILL.md: not inside the repo {root} "
        "(--skill-path is relative to --repo, not to the current folder)"
    )


def test_skill_path_may_be_the_skills_folder(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(root, "plugins/p/skills/s", root)
    assert (target.skill_path, target.skill_name) == (PurePath("plugins/p/skills/s/SKILL.md"), "s")


def test_skill_path_that_is_a_folder_without_a_skill(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, "plugins/p/skills", root)
    assert str(error.value) == "--skill-path plugins/p/skills: a folder with no SKILL.md in it"


def test_skill_path_missing_from_the_working_tree_is_not_an_error_here(root: Path) -> None:
    """It may exist only at the baseline ref; the file is checked where it is read."""
    target = resolve_target(root, "plugins/gone/skills/old/SKILL.md", root)
    assert target.skill_id == "gone:old"
    assert target.plugin_root == root / "plugins/gone"


def test_skill_at_the_repo_root_is_a_set_of_its_own_named_by_its_name(root: Path) -> None:
    """A one-skill repo (skill-creator's layout) is the skill's folder, placed as one: no
    plugin, no siblings, and the id is its frontmatter `name`, not the checkout's folder
    (changed behaviour: it was `repo:repo`)."""
    write(root, "SKILL.md", "---\nname: tailwind-style\ndescription: Use when styling.\n---\n")
    write(root, "helpers/SKILL.md")
    for skill_path in ("SKILL.md", None):
        target = resolve_target(root, skill_path, root)
        assert (target.plugin_root, target.plugin_name) == (root, None)
        assert (target.skill_id, target.members) == ("tailwind-style", (Path("SKILL.md"),))


def test_a_root_skill_beside_a_skills_folder_is_a_set_of_its_own(root: Path) -> None:
    write(root, "SKILL.md")
    write(root, "skills/two/SKILL.md")
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value).startswith(
        "found 2 skills in 2 sets: the root (SKILL.md), skills/ (two); pass --skill-path"
    )


def test_a_root_skill_without_a_name_is_named_by_its_folder(root: Path) -> None:
    write(root, "SKILL.md", "---\ndescription: Use when styling.\n---\n")
    assert resolve_target(root, None, root).skill_id == "repo"


# --- plugin root and name ----------------------------------------------------------------


def test_manifest_name_wins_over_folder_name(root: Path) -> None:
    write(root, "plugins/folder-name/skills/s/SKILL.md")
    manifest(root, "plugins/folder-name", {"name": "manifest-name"})
    target = resolve_target(root, None, root)
    assert (target.plugin_name, target.skill_id) == ("manifest-name", "manifest-name:s")


def test_manifest_without_name_falls_back_to_folder_name(root: Path) -> None:
    write(root, "plugins/folder-name/skills/s/SKILL.md")
    manifest(root, "plugins/folder-name", {"version": "1.0.0"})
    assert resolve_target(root, None, root).skill_id == "folder-name:s"


def test_plugin_root_without_manifest_is_the_folder_above_skills(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    target = resolve_target(root, None, root)
    assert (target.plugin_root, target.plugin_name) == (root / "plugins/p", "p")


def test_plugin_root_without_manifest_or_skills_folder_is_the_skill_folders_parent(
    root: Path,
) -> None:
    write(root, "plugins/p/s/SKILL.md")
    target = resolve_target(root, None, root)
    assert (target.plugin_root, target.skill_id) == (root / "plugins/p", "p:s")


def test_the_nearest_manifest_wins(root: Path) -> None:
    write(root, "plugins/outer/inner/skills/s/SKILL.md")
    manifest(root, ".", {"name": "whole-repo"})
    manifest(root, "plugins/outer", {"name": "outer"})
    target = resolve_target(root, None, root)
    assert (target.plugin_root, target.skill_id) == (root / "plugins/outer", "outer:s")


def test_manifest_at_the_repo_root_makes_the_repo_the_plugin(root: Path) -> None:
    write(root, "skills/s/SKILL.md")
    manifest(root, ".", {"name": "single"})
    target = resolve_target(root, "skills/s/SKILL.md", root)
    assert (target.plugin_root, target.skill_id) == (root, "single:s")


def test_manifest_that_is_not_json(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    write(root, "plugins/p/.claude-plugin/plugin.json", '{"name": "p",}')
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        f"{root}/plugins/p/.claude-plugin/plugin.json: the plugin manifest is not valid JSON "
        "(trailing comma is not allowed: line 1 column 13 (char 12))"
    )


def test_manifest_that_is_not_an_object(root: Path) -> None:
    write(root, "plugins/p/skills/s/SKILL.md")
    manifest(root, "plugins/p", ["p"])
    with pytest.raises(InputError) as error:
        resolve_target(root, None, root)
    assert str(error.value) == (
        f"{root}/plugins/p/.claude-plugin/plugin.json: the plugin manifest is not a JSON object"
    )


# --- pure helpers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"name": "billing"}, "billing"),
        ({"name": ""}, "folder"),
        ({"name": None}, "folder"),
        ({}, "folder"),
    ],
)
def test_plugin_name_from_manifest(data: object, expected: str) -> None:
    assert plugin_name_from_manifest(data, "folder") == expected


@pytest.mark.parametrize("data", [{"name": 3}, {"name": ["a"]}])
def test_plugin_name_that_is_not_a_string(data: object) -> None:
    with pytest.raises(InputError) as error:
        plugin_name_from_manifest(data, "folder", "m.json")
    assert str(error.value) == "m.json: the plugin manifest's 'name' is not a string"


@pytest.mark.parametrize(
    ("skill_path", "expected"),
    [
        ("plugins/p/skills/s/SKILL.md", "plugins/p"),
        ("skills/s/SKILL.md", "."),
        ("plugins/p/s/SKILL.md", "plugins/p"),
        ("s/SKILL.md", "."),
        ("SKILL.md", "."),
    ],
)
def test_fallback_plugin_root(skill_path: str, expected: str) -> None:
    assert fallback_plugin_root(PurePath(skill_path)) == PurePath(expected)


def test_plugin_root_candidates_are_nearest_first() -> None:
    assert plugin_root_candidates(PurePath("a/skills/s/SKILL.md")) == [
        PurePath("a/skills/s"),
        PurePath("a/skills"),
        PurePath("a"),
        PurePath(),
    ]


def test_set_root_reads_the_marketplace_only_past_a_project_skills_folder() -> None:
    asked: list[bool] = []

    def served() -> list[MarketplacePlugin]:
        asked.append(True)
        return marketplace_plugins({"plugins": [{"name": "kit", "source": "./tools/kit"}]})

    def found(skill_path: str) -> SetRoot:
        return set_root(PurePath(skill_path), served, {PurePath("plugins/p")}.__contains__)

    nested = found("tools/kit/.claude/skills/s/SKILL.md")
    assert (nested, asked) == (SetRoot(PurePath("tools/kit/.claude/skills"), plugin=False), [])
    kit = MarketplacePlugin("kit", PurePath("tools/kit"), (), True)
    assert found("tools/kit/skills/s/SKILL.md") == SetRoot(kit.root, plugin=True, served=kit)
    assert found("plugins/p/skills/s/SKILL.md") == SetRoot(PurePath("plugins/p"), plugin=True)
    assert found("skills/s/SKILL.md") == SetRoot(PurePath("skills"), plugin=False)
    assert found("plugins/q/skills/s/SKILL.md") == SetRoot(PurePath("plugins/q"), plugin=True)


def test_choose_default_skill_takes_the_only_one() -> None:
    only = PurePath("plugins/p/SKILL.md")
    assert choose_default_skill([only], None) == only
    assert choose_default_skill([only], "elsewhere:x") == only


def test_a_marketplace_serves_the_plugins_whose_source_is_in_the_repo() -> None:
    data = {
        "plugins": [
            {"name": "docs", "source": "./", "strict": False,
             "skills": ["./skills/pdf", "./skills/xlsx"]},
            {"name": "all", "source": "./", "skills": ["./skills"]},
            {"name": "sub", "source": "./plugins/sub", "skills": "./extra"},
            {"name": "plain", "source": "./plugins/plain"},
            {"name": "remote", "source": {"source": "github", "repo": "o/r"}},
            {"name": "outside", "source": "../elsewhere"},
            {"name": "", "source": "./"},
            "not an entry",
        ]
    }  # fmt: skip
    assert marketplace_plugins(data) == [
        MarketplacePlugin("docs", PurePath(), (PurePath("skills/pdf"), PurePath("skills/xlsx")),
                          default=False),
        MarketplacePlugin("all", PurePath(), (), default=True),
        MarketplacePlugin("sub", PurePath("plugins/sub"), (PurePath("plugins/sub/extra"),),
                          default=True),
        MarketplacePlugin("plain", PurePath("plugins/plain"), (), default=True),
    ]  # fmt: skip


def test_a_marketplace_plugin_holds_the_skills_its_entry_names() -> None:
    docs, sub = marketplace_plugins(
        {"plugins": [{"name": "docs", "source": "./", "skills": ["./skills/pdf", "./more"]},
                     {"name": "sub", "source": "./plugins/sub"}]}
    )  # fmt: skip
    assert docs.holds(PurePath("skills/pdf/SKILL.md"))
    assert docs.holds(PurePath("more/charts/SKILL.md"))  # a folder of skill folders
    assert not docs.holds(PurePath("skills/xlsx/SKILL.md"))
    assert sub.holds(PurePath("plugins/sub/skills/a/SKILL.md"))
    assert marketplace_plugin(PurePath("skills/xlsx/SKILL.md"), [docs, sub]) is None
    assert marketplace_plugin(PurePath("skills/pdf/SKILL.md"), [docs, sub]) == docs


def test_an_entry_whose_skills_are_objects_serves_none_as_claude_code_stubs_it() -> None:
    """heygen-com/heygen-stack lists `skills: [{name, path}]`. Claude Code's marketplace
    schema takes a path or a list of paths there; an entry that does not parse is kept as
    an unsupported plugin that cannot be installed, so none of its skills load."""
    heygen, plain = marketplace_plugins(
        {"plugins": [{"name": "heygen", "source": "./",
                      "skills": [{"name": "avatar", "path": "heygen-avatar"},
                                 {"name": "video", "path": "./heygen-video"}, {"name": "x"}]},
                     {"name": "plain", "source": "./plugins/plain"}]}
    )  # fmt: skip
    why = (
        "its 'skills' item 1 is an object (name, path), and Claude Code reads only paths "
        '("./my-skill") there: it keeps the plugin as unsupported, which cannot be '
        "installed, so none of its skills load"
    )
    assert heygen == MarketplacePlugin(
        "heygen", PurePath(), (), False, why, (PurePath("heygen-avatar"), PurePath("heygen-video"))
    )
    assert heygen.folders == ()
    assert not heygen.holds(PurePath("heygen-avatar/SKILL.md"))
    assert refused_plugins([heygen, plain]) == [
        f".claude-plugin/marketplace.json: the plugin heygen: {why}"
    ]
    (mixed,) = marketplace_plugins(
        {"plugins": [{"name": "m", "source": "./m", "skills": ["./a", 3]}]}
    )
    assert mixed.refused is not None and mixed.refused.startswith(
        "its 'skills' item 2 is not a path"
    )
    assert mixed.folders == ()


def test_a_marketplace_file_with_no_plugins_list_is_one_line() -> None:
    with pytest.raises(InputError, match=r"^M: a marketplace file needs a 'plugins' list$"):
        marketplace_plugins({"name": "m"}, "M")


def test_a_marketplace_skill_is_named_by_its_entry_with_only_the_named_siblings(
    root: Path,
) -> None:
    marketplace = {"name": "m", "plugins": [
        {"name": "docs", "source": "./", "skills": ["./skills/pdf", "./skills/xlsx"]},
        {"name": "art", "source": "./", "skills": ["./skills/canvas"]},
    ]}  # fmt: skip
    write(root, ".claude-plugin/marketplace.json", orjson.dumps(marketplace).decode())
    for name in ("pdf", "xlsx", "canvas"):
        write(root, f"skills/{name}/SKILL.md")
    target = resolve_target(root, "skills/pdf", root)
    assert target == Target(
        root, Path("skills/pdf/SKILL.md"), root, "docs", "pdf",
        members=(Path("skills/pdf/SKILL.md"), Path("skills/xlsx/SKILL.md")),
    )  # fmt: skip
    assert resolve_target(root, "skills/canvas", root).skill_id == "art:canvas"


def test_several_skills_of_a_marketplace_are_said_plugin_by_plugin() -> None:
    served = marketplace_plugins(
        {"plugins": [{"name": "docs", "source": "./", "skills": ["./skills/pdf"]},
                     {"name": "art", "source": "./", "skills": ["./skills/canvas"]}]}
    )  # fmt: skip
    found = [PurePath("skills/canvas/SKILL.md"), PurePath("skills/pdf/SKILL.md"),
             PurePath(".claude/skills/notes/SKILL.md")]  # fmt: skip
    with pytest.raises(InputError) as error:
        choose_default_skill(found, None, served=served)
    assert str(error.value).startswith(
        "found 3 skills in 3 sets: .claude/skills/ (notes), plugin art (canvas), "
        "plugin docs (pdf); pass --skill-path"
    )
    assert choose_default_skill(found, "docs:pdf", served=served) == found[1]


def test_a_routing_suite_is_anchored_on_the_skill_most_of_its_cases_expect() -> None:
    """Not the set's first skill, which no case may be about (calibrate and suggest act on
    the anchor); a tie goes to the name first in order, and no expected skill of the set
    leaves the set's first."""
    found = [PurePath(f"skills/{name}/SKILL.md") for name in ("add-backlog", "commit", "site")]
    assert choose_default_skill(found, None, ("commit", "site")) == found[1]
    assert choose_default_skill(found, None, ("p:site", "commit")) == found[2]
    assert choose_default_skill(found, None, ("elsewhere",)) == found[0]
