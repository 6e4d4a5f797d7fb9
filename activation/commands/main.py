"""The `activation` command line: every subcommand runs inside the one `run_command` wrapper.

Only the standard library and the wrapper are imported here; each command's module is
imported when it runs, so `--help` and `--version` start in a blink.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn

from activation.commands.session import Command, Session, install_stop_signals, run_command
from activation.trials.stage import Stage

SUBCOMMANDS = (
    "behavior", "changed", "suggest", "lint", "visibility", "detect", "calibrate", "report",
    "diff", "merge", "cache", "schema", "import",
)  # fmt: skip
"""Each is `main_<name>(session, argv)` in `activation.commands.<name>`, or in the module
`MODULES` names."""
MODULES = {"import": "import_cases"}
"""The commands whose module is named otherwise (`import` is a Python keyword)."""
WITH_STAGES = frozenset({"run", "behavior", "changed", "calibrate", "suggest"})
"""The commands that run trials, and so take the stages."""


def loaded(name: str, stages: Mapping[str, Stage] | None) -> Command:
    """The command `name`, its module imported only when it runs."""

    def command(session: Session, argv: list[str]) -> int:
        module_name = MODULES.get(name, name)
        module = importlib.import_module(f"activation.commands.{module_name}")
        entry = getattr(module, f"main_{module_name}")
        return int(entry(session, argv, stages) if name in WITH_STAGES else entry(session, argv))

    return command


def console() -> NoReturn:
    """The console script: `main`, then an exit that does not pay for tearing down what a
    run imported (the SDK, scipy: up to half a second of collecting objects one by one).
    `gc.freeze` moves them out of the collector's way; every file and folder the command
    opened is already closed or removed, by `main`, on every way out."""
    code = main()
    gc.freeze()
    sys.exit(code)


def main(argv: Sequence[str] | None = None, stages: Mapping[str, Stage] | None = None) -> int:
    """Run one command; `stages` replaces the stages by name (tests pass in-memory fakes)."""
    install_stop_signals()
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return run_command(f"activation {args[0]}", loaded(args[0], stages), args[1:])
    return run_command("activation", loaded("run", stages), args)
