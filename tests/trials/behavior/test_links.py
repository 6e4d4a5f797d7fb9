"""A workspace never keeps a symbolic link that leads out of it: an agent that follows links
(OpenCode does) would write through one into the machine."""

from __future__ import annotations

from pathlib import Path

from activation.trials.behavior.backend import cut_links_out


def test_links_out_of_the_workspace_are_cut_and_links_inside_kept(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("no")
    work = tmp_path / "work"
    (work / "node_modules" / ".bin").mkdir(parents=True)
    (work / "tool.js").write_text("run()")
    (work / "node_modules" / ".bin" / "tool").symlink_to(work / "tool.js")
    (work / "escape").symlink_to(outside)
    (work / "node_modules" / "deep").symlink_to(outside / "secret.txt")
    (work / "dangling").symlink_to(tmp_path / "nowhere")
    cut_links_out(work)
    links = sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_symlink())
    assert links == ["node_modules/.bin/tool"]
    assert (outside / "secret.txt").read_text() == "no"
