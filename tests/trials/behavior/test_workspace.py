"""What the graders see of a workspace: never lockfiles, dependencies, .git, binaries, links,
or the installed skill's own files."""

from __future__ import annotations

from pathlib import Path

from activation._config import BEHAVIOR_MAX_FILE_BYTES
from activation.trials.behavior.workspace import (
    Workspace,
    is_lockfile,
    read_workspace,
    workspace_of,
    write_scaffold,
)


def test_lockfiles_by_name_and_suffix() -> None:
    for name in (
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "Podfile.lock",
        "poetry.lock",
        "Cargo.lock",
        "composer.lock",
        "Gemfile.lock",
        "go.sum",
        "ios/Podfile.lock",
        "any.lock",
        "uv.lock",
    ):
        assert is_lockfile(name), name
    for name in ("package.json", "lock.py", "go.mod", "locks/a.txt", "yarn.lock.md"):
        assert not is_lockfile(name), name


def test_workspace_of_applies_every_rule() -> None:
    files: list[tuple[str, bytes | str]] = [
        ("src/app.py", "import greetlib\n"),
        ("package-lock.json", '{"greetlib": "1"}'),
        ("node_modules/greetlib/index.js", "greet()"),
        ("web/node_modules/x.js", "greet()"),
        (".git/HEAD", "ref: main"),
        ("logo.png", b"\x89PNG\r\n\x1a\n\0\0"),
        ("latin1.txt", "caf\xe9".encode("latin-1")),
        ("big.txt", "x" * (BEHAVIOR_MAX_FILE_BYTES + 1)),
        (".claude/skills/greetlib/references/api.md", "greetlib.greet(name)"),
        ("README.md", b"# Hello\n"),
    ]
    workspace = workspace_of(files, excluded=[".claude/skills/greetlib"])
    assert workspace == Workspace(
        files=(("README.md", "# Hello\n"), ("src/app.py", "import greetlib\n")),
        skipped=(
            ("big.txt", f"over {BEHAVIOR_MAX_FILE_BYTES:,} bytes"),
            ("latin1.txt", "binary"),
            ("logo.png", "binary"),
            ("package-lock.json", "lockfile"),
        ),
    )
    assert workspace.paths == ("README.md", "src/app.py")


def test_an_excluded_file_and_a_prefix_that_is_not_a_folder(tmp_path: Path) -> None:
    files: list[tuple[str, bytes | str]] = [("skill.md", "a"), ("skills/x.md", "b")]
    assert workspace_of(files, excluded=["skill.md"]).paths == ("skills/x.md",)
    assert workspace_of(files, excluded=["skill"]).paths == ("skill.md", "skills/x.md")


def test_read_workspace_walks_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for path, content in {
        "app.py": b"print(1)\n",
        "pkg/mod.py": b"x = 1\n",
        "node_modules/a/index.js": b"x",
        "dist/bundle.js": b"x",
        ".git/config": b"x",
        "Cargo.lock": b"x",
        "img.bin": b"\0\1",
        ".claude/skills/greetlib/SKILL.md": b"greetlib.greet(",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    outside = tmp_path / "outside.py"
    outside.write_text("secret = 1\n")
    (root / "link.py").symlink_to(outside)
    (root / "linked").symlink_to(tmp_path / "ws" / ".claude")
    workspace = read_workspace(root, excluded=[Path(".claude/skills/greetlib"), tmp_path / "x"])
    assert workspace == Workspace(
        files=(("app.py", "print(1)\n"), ("pkg/mod.py", "x = 1\n")),
        skipped=(
            ("Cargo.lock", "lockfile"),
            ("img.bin", "binary"),
            ("link.py", "symbolic link"),
            ("linked", "symbolic link"),
        ),
    )
    absolute = read_workspace(root, excluded=[root / ".claude"])
    assert absolute.paths == ("app.py", "pkg/mod.py")
    assert read_workspace(root).paths == (
        ".claude/skills/greetlib/SKILL.md",
        "app.py",
        "pkg/mod.py",
    )


def test_write_scaffold_lays_text_and_bytes(tmp_path: Path) -> None:
    write_scaffold((("src/app.py", "print(1)\n"), ("logo.png", b"\x89PNG\0")), tmp_path)
    assert (tmp_path / "src" / "app.py").read_text() == "print(1)\n"
    assert (tmp_path / "logo.png").read_bytes() == b"\x89PNG\0"
    assert read_workspace(tmp_path) == Workspace(
        (("src/app.py", "print(1)\n"),), (("logo.png", "binary"),)
    )
