"""The `activation` command line: every subcommand runs inside the one `run_command` wrapper.

Only the standard library and the wrapper are imported here; each command imports what it
needs when it runs, so `--help` and `--version` start in a blink.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from activation.commands.backends import Backends, RealBackends
from activation.commands.session import Command, Session, install_stop_signals, run_command


def _run(backends: Backends) -> Command:
    def command(session: Session, argv: list[str]) -> int:
        from activation.commands.run import main_run

        return main_run(session, argv, backends)

    return command


def _calibrate(backends: Backends) -> Command:
    def command(session: Session, argv: list[str]) -> int:
        from activation.commands.calibrate import main_calibrate

        return main_calibrate(session, argv, backends)

    return command


def _lint(session: Session, argv: list[str]) -> int:
    from activation.commands.lint import main_lint

    return main_lint(session, argv)


def _merge(session: Session, argv: list[str]) -> int:
    from activation.commands.merge import main_merge

    return main_merge(session, argv)


def _detect(session: Session, argv: list[str]) -> int:
    from activation.commands.detect import main_detect

    return main_detect(session, argv)


def _cache(session: Session, argv: list[str]) -> int:
    from activation.commands.cache import main_cache

    return main_cache(session, argv)


def _report(session: Session, argv: list[str]) -> int:
    from activation.commands.report import main_report

    return main_report(session, argv)


def _diff(session: Session, argv: list[str]) -> int:
    from activation.commands.diff import main_diff

    return main_diff(session, argv)


def main(argv: Sequence[str] | None = None, backends: Backends | None = None) -> int:
    """Run one command; `backends` replaces the real stages (tests pass the in-memory fake)."""
    install_stop_signals()
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = backends or RealBackends()
    commands: dict[str, Command] = {
        "lint": _lint,
        "detect": _detect,
        "merge": _merge,
        "cache": _cache,
        "calibrate": _calibrate(chosen),
        "report": _report,
        "diff": _diff,
    }
    if args and args[0] in commands:
        return run_command(f"activation {args[0]}", commands[args[0]], args[1:])
    return run_command("activation", _run(chosen), args)
