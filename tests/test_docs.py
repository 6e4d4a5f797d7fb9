"""The docs cannot drift: the site builds strictly and offline, its reference pages are the
code's own tables, every shell example marked runnable runs as shown, and the README stays a
short front page whose commands are the ones CI runs.

A runnable example is a ```sh block right after `<!-- runnable: [in DIR, ]exit N -->`; an
```text block right after `<!-- output -->` is what the runnable example before it prints
(docs/writing-docs.md says how to write them).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import yaml

import activation
from activation import _config
from activation._errors import ExitCode
from activation.commands.flags import COMMANDS
from activation.report.schemas import DOCUMENTS, shipped_schema
from tests.support.machine import PROGRAMS

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
INSTALL = "python3 -m venv .venv && .venv/bin/pip install -c constraints.txt -e '.[test]'"
TEST = ".venv/bin/pytest"
OFFLINE = "http://127.0.0.1:9"
"""A proxy nothing listens on: any fetch while building fails the build."""

MARKER = re.compile(
    r"<!-- (runnable(?:: (?P<options>[^>]*?))?|output) -->\n```(?P<lang>\w+)\n(?P<body>.*?)```",
    re.DOTALL,
)
OPTIONS = re.compile(r"(?:in (?P<folder>[\w./-]+), )?exit (?P<exit>\d+)")


@dataclass(frozen=True)
class Example:
    page: str
    index: int
    script: str
    folder: str
    exit_code: int
    shown: str | None


def examples_of(page: Path) -> list[Example]:
    """A page's runnable examples, in order, each with the output shown after it."""
    found: list[Example] = []
    shown_as_markdown = re.compile(r"^````.*?^````", re.DOTALL | re.MULTILINE)
    for match in MARKER.finditer(shown_as_markdown.sub("", page.read_text())):
        name = page.relative_to(REPO).as_posix()
        if match.group(1) == "output":
            assert found, f"{name}: an output block with no runnable example before it"
            assert match["lang"] == "text", f"{name}: an output block is ```text"
            last = found.pop()
            assert last.shown is None, f"{name}: two output blocks for one example"
            found.append(Example(**{**last.__dict__, "shown": match["body"]}))
            continue
        assert match["lang"] == "sh", f"{name}: a runnable example is ```sh"
        options = OPTIONS.fullmatch(match["options"] or "")
        assert options, f"{name}: write <!-- runnable: [in DIR, ]exit N -->"
        found.append(
            Example(
                name, len(found), match["body"], options["folder"] or ".",
                int(options["exit"]), None,
            )
        )  # fmt: skip
    return found


def runnable_pages() -> dict[str, list[Example]]:
    """Every page's runnable examples, the README's too, by path from the repository."""
    pages = {page: examples_of(page) for page in [README, *sorted(DOCS.rglob("*.md"))]}
    return {page.relative_to(REPO).as_posix(): found for page, found in pages.items() if found}


def flat(text: str) -> str:
    """Whitespace as one space: the terminal's wrapping is not part of what is shown."""
    return " ".join(text.split())


def shows(output: str, shown: str) -> bool:
    """The shown lines appear in the output in order, contiguous between `...` lines."""
    at = 0
    for chunk in re.split(r"^\.\.\.$", shown, flags=re.MULTILINE):
        if not flat(chunk):
            continue
        found = flat(output).find(flat(chunk), at)
        if found < 0:
            return False
        at = found + len(flat(chunk))
    return True


def test_shows_matches_in_order_and_between_gaps() -> None:
    output = "a b\nc d e\nf\ng\n"
    assert shows(output, "a b\nc d\n...\ng\n")
    assert shows(output, "b c\n")  # wrapped differently, the same words
    assert not shows(output, "g\n...\na b\n")
    assert not shows(output, "a b\nd e\n")


def test_examples_are_found_with_their_options_and_output(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- runnable: exit 0 -->\n```sh\ntrue\n```\n\ntext\n\n<!-- output -->\n```text\nok\n"
        "```\n\n```sh\nnot runnable\n```\n<!-- runnable: in demo, exit 1 -->\n```sh\nfalse\n```\n"
    )
    docs_page = DOCS / "page-under-test.md"
    shutil.copy(page, docs_page)
    try:
        found = examples_of(docs_page)
    finally:
        docs_page.unlink()
    assert [(e.script, e.folder, e.exit_code, e.shown) for e in found] == [
        ("true\n", ".", 0, "ok\n"),
        ("false\n", "demo", 1, None),
    ]


def test_the_docs_have_a_few_runnable_examples() -> None:
    pages = runnable_pages()
    assert 4 <= sum(len(found) for found in pages.values()) <= 12, pages
    assert {"README.md", "docs/getting-started.md"} <= set(pages)


@pytest.fixture
def venv_bin() -> Path:
    """This venv's programs folder (its `activation`, its `mkdocs`). A test that runs them
    starts fresh interpreters, which the fixture's name marks slow (tests/conftest.py)."""
    return Path(sys.executable).parent


def run_environment(root: Path, programs: Path) -> dict[str, str]:
    """A new user's shell: the venv's `activation` on PATH after `. .venv/bin/activate`, no
    API key, a home, cache and git identity of its own, a wide terminal."""
    return {
        "PATH": f"{programs}:/usr/bin:/bin",
        "HOME": str(root / "home"),
        "ACTIVATION_CACHE_DIR": str(root / "cache"),
        "COLUMNS": "120",
        "GIT_AUTHOR_NAME": "Docs", "GIT_AUTHOR_EMAIL": "docs@example.com",
        "GIT_COMMITTER_NAME": "Docs", "GIT_COMMITTER_EMAIL": "docs@example.com",
        "LANG": "C.UTF-8",
    }  # fmt: skip


@pytest.mark.parametrize("page", sorted(runnable_pages()))
def test_every_runnable_example_runs_as_shown(page: str, tmp_path: Path, venv_bin: Path) -> None:
    """A page's examples run in order in one folder holding a copy of examples/ and the venv
    (as `.venv`), the way a reader at the repository root would run them."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    (tmp_path / ".venv").symlink_to(venv_bin.parent)
    (tmp_path / "home").mkdir()
    for example in runnable_pages()[page]:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", example.script],
            cwd=tmp_path / example.folder, env=run_environment(tmp_path, venv_bin),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        where = f"{page}, example {example.index + 1}:\n{example.script}"
        assert done.returncode == example.exit_code, f"{where}\n{done.stdout}\n{done.stderr}"
        if example.shown is not None:
            assert shows(done.stdout, example.shown), f"{where}\nprinted:\n{done.stdout}"


def load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_reference_has_every_command_and_flag_with_its_settings_key() -> None:
    page = load_hooks().cli_reference()
    for command in COMMANDS.values():
        assert f"## `{command.prog}`" in page or f"### `{command.prog}`" in page
        for flag in command.flags:
            assert f"`{flag.name}" in page or f"`{flag.metavar}" in page, flag.name
        for action in command.actions.values():
            assert f"### `{action.prog}`" in page
    assert "| `--max-trials N` | trials per variant on escalation | 30 |" in page
    assert "| `rounds`, `ACTIVATION_ROUNDS` |" in page  # suggest's settings are keys too
    assert "| `baseline`, `ACTIVATION_BASELINE` |" in page


def test_the_report_reference_has_every_definition_and_field() -> None:
    schema = json.loads(shipped_schema("run"))
    page = load_hooks().report_reference(schema)
    for title, node in schema["$defs"].items():
        assert f"### {title}\n" in page
        for field in node.get("properties", {}):
            assert f"| `{field}` |" in page, (title, field)
    assert '| `schema` | `"activation-report/4"` | yes |' in page  # the stopped-early record


def test_the_documents_reference_lists_every_kind_and_its_records() -> None:
    page = load_hooks().documents_reference()
    on_report_page = set(json.loads(shipped_schema("run"))["$defs"])
    for kind, document in DOCUMENTS.items():
        ids = ", ".join(f"`{each}`" for each in document.ids)
        assert f"| [{kind}](#kind-{kind}) | {ids} | {document.writes} |" in page, kind
        assert f"`activation schema {kind}` |\n" in page
        assert f"\n## Kind: {kind}\n" in page
        if kind == "run":
            continue
        for title, node in json.loads(shipped_schema(kind))["$defs"].items():
            if title in on_report_page:
                continue
            assert f"### {title}\n" in page, title
            for field in node.get("properties", {}):
                assert f"| `{field}` |" in page, (title, field)
    assert "| [calibration](#kind-calibration) | `activation-calibration/1` |" in page
    assert "| `false_alarms` | array of string | yes |  |" in page
    assert "[Report](report.md#report)" in page


def test_the_import_rules_page_lists_every_layer() -> None:
    page = load_hooks().layers_reference()
    assert "1. `activation.commands`\n1. `activation.report`\n1. `activation.trials`\n" in page


def test_the_site_builds_strictly_offline(tmp_path: Path, venv_bin: Path) -> None:
    """As `.ci/run` builds it, behind a proxy nothing listens on."""
    site = tmp_path / "site"
    env = {**os.environ, "HTTP_PROXY": OFFLINE, "HTTPS_PROXY": OFFLINE, "ALL_PROXY": OFFLINE}
    env.pop("NO_PROXY", None)
    done = subprocess.run(
        [str(venv_bin / "mkdocs"), "build", "--strict", "--site-dir", str(site)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "activation suggest" in cli and "--max-cost-usd" in cli
    report = (site / "reference" / "report" / "index.html").read_text()
    assert "CaseVerdict" in report and "ceiling_hit" in report
    ci = (site / "ci" / "index.html").read_text()
    assert "ACTIVATION_INSTALL" in ci  # the workflow file, included when built
    for page in site.rglob("*.html"):
        assert "fonts.googleapis.com" not in page.read_text(), page


def test_the_readme_is_a_short_front_page_with_the_commands_ci_runs() -> None:
    readme = README.read_text()
    assert len(readme.splitlines()) <= 250
    assert f"```sh\n{INSTALL}\n```" in readme
    assert f"```sh\n{TEST}\n```" in readme
    ci_run = (REPO / ".ci" / "run").read_text().splitlines()
    assert INSTALL in ci_run and TEST in ci_run
    (packages,) = re.findall(r"^SYSTEM_PACKAGES=\(([^)]*)\)$", "\n".join(ci_run), re.MULTILINE)
    assert set(packages.split()) >= {"chromium", "ripgrep"}
    for page in (readme, (DOCS / "getting-started.md").read_text()):
        assert f"apt-get install {' '.join(packages.split())}" in page  # what .ci/run installs
    assert "--model mock" in readme


def test_the_readme_links_to_pages_that_exist() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert len(links) >= 8
    for link in links:
        assert (REPO / link).is_file(), link
    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"]
    assert "reference/cli.md" in json.dumps(nav)


def test_ci_builds_the_docs_strictly() -> None:
    ci_run = (REPO / ".ci" / "run").read_text().splitlines()
    build = ci_run.index(".venv/bin/mkdocs build --strict")
    assert build > ci_run.index(INSTALL)
    assert "site/" in (REPO / ".gitignore").read_text().splitlines()


TOOL_VERSION = re.compile(
    r"rev: v?(\d+\.\d+\.\d+)"  # a pre-commit pin
    r"|/activation(?:\.git)?@v?(\d+\.\d+\.\d+)"  # an install from git at a tag
    r"|\bactivation(?:\[[\w,-]+\])? ?(?:==|>=|~=) ?(\d+\.\d+\.\d+)"  # a requirement
    r"|\bactivation v?(\d+\.\d+\.\d+)"  # a version in prose, or as `--version` prints it
)
"""A version of this tool, however a page, the workflow or the hooks file names it."""


def tool_versions(text: str) -> list[str]:
    return ["".join(found) for found in TOOL_VERSION.findall(text)]


def test_every_version_of_the_tool_the_docs_name_is_the_package_version() -> None:
    """One place: pyproject.toml reads the version from `activation.__version__`, and every
    page, the example workflow and the pre-commit hooks file name that version only (a
    stale pin once sat beside the current `rev:`)."""
    assert tool_versions(
        "rev: v0.2.0, git+https://x/activation@v0.1.0, activation==0.4.1, activation 1.2.3"
    ) == ["0.2.0", "0.1.0", "0.4.1", "1.2.3"]
    assert 'version = { attr = "activation.__version__" }' in (REPO / "pyproject.toml").read_text()
    files = [*doc_pages(), *sorted((REPO / "examples").rglob("*.y*ml")),
             REPO / ".pre-commit-hooks.yaml"]  # fmt: skip
    named = {
        (path.relative_to(REPO).as_posix(), version)
        for path in files
        for version in tool_versions(path.read_text())
    }
    assert {version for _path, version in named} == {activation.__version__}, sorted(named)
    assert {path for path, _version in named} >= {
        "docs/ci.md", "examples/github-actions/activation.yml", ".pre-commit-hooks.yaml",
    }  # fmt: skip


DISTRIBUTION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]
"""The name the package index knows the tool by (its command and import stay `activation`)."""
BARE_NAME = re.compile(
    r"\b(?:pip|pipx|uv tool|uv pip) install\b[^\n`]*?(?<![\w./@-])['\"]?activation(?![\w-])"
    r"|(?<![\w-])activation\[\w+\]"
)
"""An install of the bare name `activation` (another project's on the package index), or an
extra named on it."""


def test_every_install_the_docs_show_is_of_the_distribution() -> None:
    """`pip install activation` installs a stranger's package: every install a page, the
    workflow or the hooks file shows names the distribution, at the package's version."""
    assert DISTRIBUTION == _config.DISTRIBUTION == "skill-activation"
    assert BARE_NAME.findall(
        "pip install activation; pipx install 'activation[openai]'; uv tool install activation"
    ) == ["pip install activation", "pipx install 'activation", "uv tool install activation"]
    assert not BARE_NAME.search("pip install skill-activation 'skill-activation[openai]' -e .")
    files = [*doc_pages(), *sorted((REPO / "examples").rglob("*.y*ml")),
             REPO / ".pre-commit-hooks.yaml",
             *sorted((REPO / "activation").rglob("*.py"))]  # fmt: skip
    found = [(path.name, hit) for path in files for hit in BARE_NAME.findall(path.read_text())]
    assert found == []
    for page in (README, DOCS / "getting-started.md"):
        text = page.read_text()
        assert f"pipx install {DISTRIBUTION}" in text
        assert f"uv tool install {DISTRIBUTION}" in text
    workflow = yaml.safe_load((REPO / "examples/github-actions/activation.yml").read_text())
    assert workflow["env"]["ACTIVATION_INSTALL"] == f"{DISTRIBUTION}=={activation.__version__}"


def doc_pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def test_the_pinned_agent_clis_the_docs_name_are_the_ones_the_tests_install() -> None:
    clis = [program.cli for program in PROGRAMS if program.cli is not None]
    pinned = {cli.spec for cli in clis}
    packages = "|".join(re.escape(cli.package) for cli in clis)
    named = set()
    for page in doc_pages():
        named |= set(re.findall(rf"(?:{packages})@[\w.-]*\w", page.read_text()))
    assert named == pinned


CODE_PATH = re.compile(
    r"`((?:activation|tests|benchmarks|examples|docs|\.ci|trials|commands|report|inputs"
    r"|verdicts)/[\w./-]*)`"
)
"""A path into this repository's code, as the docs write it: from the root or from
`activation/`."""
SHIPPED_FILE = re.compile(r"`([a-z_]+\.py|[a-z-]+-\d+\.\d+\.\d+\.toml)`")
"""A module or a listing's data file of the package, named alone (`flags.py`,
`codex-0.171.0.toml`)."""


def test_every_path_the_docs_name_exists() -> None:
    named = 0
    shipped = {path.name for path in (REPO / "activation").rglob("*.*")}
    for page in doc_pages():
        text = page.read_text()
        for path in CODE_PATH.findall(text):
            named += 1
            assert (REPO / path).exists() or (REPO / "activation" / path).exists(), (page, path)
        for name in SHIPPED_FILE.findall(text):
            named += 1
            assert name in shipped, (page, name)
    assert named >= 30


def test_the_exit_code_table_has_every_exit_code() -> None:
    page = (DOCS / "getting-started.md").read_text()
    table = page[page.index("## Exit codes") :]
    shown = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)}
    assert shown == {int(code) for code in ExitCode}
