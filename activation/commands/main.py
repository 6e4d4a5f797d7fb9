"""The `activation` command line: every subcommand runs inside the one `run_command` wrapper.

Only the standard library and the wrapper are imported here; each command's module is
imported when it runs, so `--help` and `--version` start in a blink.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from activation.commands.backends import Backends, RealBackends
from activation.commands.session import Command, Session, install_stop_signals, run_command

SUBCOMMANDS = ("lint", "detect", "calibrate", "report", "diff", "merge", "cache")
"""Each is `main_<name>(session, argv)` in `activation.commands.<name>`."""
WITH_BACKENDS = frozenset({"run", "calibrate"})
"""The commands that run trials, and so take the backends."""


def loaded(name: str, backends: Backends) -> Command:
    """The command `name`, its module imported only when it runs."""

    def command(session: Session, argv: list[str]) -> int:
        module = importlib.import_module(f"activation.commands.{name}")
        entry = getattr(module, f"main_{name}")
        return int(
            entry(session, argv, backends) if name in WITH_BACKENDS else entry(session, argv)
        )

    return command


def main(argv: Sequence[str] | None = None, backends: Backends | None = None) -> int:
    """Run one command; `backends` replaces the real stages (tests pass the in-memory fake)."""
    install_stop_signals()
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = backends or RealBackends()
    if args and args[0] in SUBCOMMANDS:
        return run_command(f"activation {args[0]}", loaded(args[0], chosen), args[1:])
    return run_command("activation", loaded("run", chosen), args)
