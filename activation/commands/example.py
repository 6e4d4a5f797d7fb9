"""`activation example NAME DIR`: a first verdict in one command, right after the install.

It lays a bundled example out in DIR as its author would have it (a git repository whose
last commit is the skill set, with an edit to a description in the working tree, not
committed), then runs the gate on it with the mock model, as printed, so the verdict a new
user sees is a real run's, and the commands to go on from it are theirs to copy.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from activation._errors import InputError
from activation.commands.flags import EXAMPLE
from activation.commands.session import Session
from activation.inputs.suite import BUNDLED_SUITE

BUNDLED_EXAMPLES = BUNDLED_SUITE / "examples"
"""The examples the package ships (`activation/suite/examples/billing` links the
repository's `examples/billing`)."""
AUTHOR = ("activation example", "example@localhost")
"""Who commits the example's skill set: a new user may have no git identity yet."""


@dataclass(frozen=True)
class Example:
    """A bundled example: its edit (a SKILL.md of `edits/`) and the skill file it replaces."""

    about: str
    edit: str
    skill: str
    cases: str


EXAMPLES = {
    "billing": Example(
        about="a plugin of three overlapping skills (refunds, disputes, invoices) and a "
        "12-case routing suite; the edit widens the refunds description to chargebacks and "
        "disputes",
        edit="edits/refunds-takes-disputes.md",
        skill="plugins/billing/skills/refunds/SKILL.md",
        cases="cases.json",
    ),
}
"""Every example by the name the command takes (flags.py's EXAMPLE_NAMES, kept equal)."""


def run_argv(example: Example, folder: str) -> list[str]:
    """The gate on the laid-out example, from where the user is: the working tree (the
    edit) against its last commit, with the mock model."""
    return ["--model", "mock", "--repo", folder, "--cases", str(Path(folder) / example.cases)]


def next_steps(folder: str, example: Example) -> list[str]:
    """What to type next, each with what it shows."""
    run = f"activation --model mock --cases {example.cases}"
    steps = [
        (f"cd {shlex.quote(folder)}", ""),
        ("git diff", "the edit the gate judged"),
        (run, "this run again"),
        (f"git checkout -- {example.skill}", "undo the edit: the run then exits 0"),
        (f"activation --cases {example.cases}", "a real model (ANTHROPIC_API_KEY)"),
    ]
    width = max(len(command) for command, _why in steps)
    return [f"  {command:<{width}}  # {why}" if why else f"  {command}" for command, why in steps]


def lay_out(example: Path, folder: Path, chosen: Example) -> None:
    """The example's files in `folder`, committed as one commit, then the edit in the
    working tree."""
    import git

    shutil.copytree(example, folder, dirs_exist_ok=True)
    repo = git.Repo.init(folder)
    try:
        repo.git.add(A=True)
        author = git.Actor(*AUTHOR)
        repo.index.commit("The example skill set", author=author, committer=author)
    finally:
        repo.close()
    shutil.copyfile(folder / chosen.edit, folder / chosen.skill)


def main_example(session: Session, argv: list[str]) -> int:
    args = EXAMPLE.parse(argv)
    session.debug = session.debug or args.debug
    chosen = EXAMPLES[args.name]
    folder: Path = args.dir
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{folder}: exists and is not an empty folder; name a new one")
    lay_out(BUNDLED_EXAMPLES / args.name, folder, chosen)
    argv_run = run_argv(chosen, str(folder))
    for line in (
        f"The {args.name} example, laid out in {folder}: {chosen.about}.",
        "It is a git repository; the edit is in its working tree, not committed. The gate:",
        f"$ {shlex.join(['activation', *argv_run])}",
    ):
        session.out.print(line, markup=False, soft_wrap=True)
    from activation.commands.run import main_run

    code = main_run(session, argv_run, None)
    session.out.print("Next:", *next_steps(str(folder), chosen), sep="\n", markup=False,
                      soft_wrap=True)  # fmt: skip
    return code
