"""The `activation` command line: every subcommand runs inside the one `run_command` wrapper.

Only the standard library and the exit codes are imported here (the wrapper with the
command, each command's module when it runs), so `--help` and `--version` start in a blink,
and Ctrl-C while the command line is still loading is already answered by `console`.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, NoReturn

from activation._errors import ExitCode

if TYPE_CHECKING:
    from activation.commands.session import Command, Session
    from activation.trials.stage import Stage

SUBCOMMANDS = (
    "behavior", "changed", "suggest", "lint", "visibility", "detect", "calibrate", "report",
    "diff", "history", "merge", "cache", "schema", "import", "example", "init", "sandbox",
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
    opened is already closed or removed, by `main`, on every way out. Ctrl-C before the
    command's wrapper is in place (the first few tenths of a second go to imports) ends as
    the wrapper ends it: one line and exit 130, never a traceback.

    An interrupted command leaves by `os._exit` once its output is flushed: under `python -m`,
    CPython counts a KeyboardInterrupt raised inside code that `exec` runs (a dataclass's
    methods and a namedtuple are made so, as modules load) as unhandled even once caught,
    and ends the process by SIGINT instead of with the exit code."""
    try:
        load_orjson()
        code = main()
    except KeyboardInterrupt:
        print(f"{prog_of(sys.argv[1:])}: error: interrupted", file=sys.stderr)
        code = ExitCode.INTERRUPTED
    gc.freeze()
    if code == ExitCode.INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError):
                stream.flush()
        os._exit(code)
    sys.exit(code)


def load_orjson() -> None:
    """orjson, which every command uses, imports modules from its extension's own start-up
    and crashes the interpreter (SIGSEGV) when Ctrl-C raises KeyboardInterrupt in one of
    them: it loads with SIGINT and SIGTERM held back, and a signal that came meanwhile
    arrives the moment it has loaded."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        import orjson  # noqa: F401
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def prog_of(args: Sequence[str]) -> str:
    """The command's name in its messages: `activation` and the subcommand, if any."""
    return f"activation {args[0]}" if args and args[0] in SUBCOMMANDS else "activation"


def main(argv: Sequence[str] | None = None, stages: Mapping[str, Stage] | None = None) -> int:
    """Run one command; `stages` replaces the stages by name (tests pass in-memory fakes)."""
    from activation.commands.session import install_stop_signals, run_command

    install_stop_signals()
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return run_command(prog_of(args), loaded(args[0], stages), args[1:])
    return run_command(prog_of(args), loaded("run", stages), args)
