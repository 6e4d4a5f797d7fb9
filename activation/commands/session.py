"""One wrapper around every command: how it ends is always one of the exit codes, never a
traceback, and never exit 1 for a crash (1 means "a case regressed" to every CI system).

Bad input, refused credentials and an unreachable API are exit 2; Ctrl-C and SIGTERM are 130;
anything unexpected is exit 4 with one line (the traceback only with `--debug` or
ACTIVATION_DEBUG=1). With `--json`, the report is written on every way out, carrying its
`exit_code` and, when the run could not finish, an `error`.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from rich.measure import Measurement

from activation import __version__
from activation._config import DEBUG_ENV, SUMMARY_ENV
from activation._errors import ApiUnreachable, AuthError, ExitCode, InputError
from activation._files import write_atomically

if TYPE_CHECKING:
    from activation.report.matrix import Matrix

StopRecord = Callable[[ExitCode, str], bytes]
"""What a command's JSON file holds when the command stops before its result: its own
schema, the exit code and one line saying why."""

LOG_WIDTH = 160
"""Output to a file or a CI log is not wrapped at rich's default of 80 columns."""
WIDEST = 10_000


def consoles() -> tuple[Console, Console]:
    """The report on stdout; progress, warnings and errors on stderr. No `:name:` becomes
    an emoji: what a user wrote (`--model scripted:m`, a case id) prints as written.

    A terminal's width (or COLUMNS) is used as rich finds it; a pipe or file gets LOG_WIDTH.
    """
    sized = "COLUMNS" in os.environ
    out = Console(
        highlight=False, emoji=False, width=None if sized or sys.stdout.isatty() else LOG_WIDTH
    )
    err = Console(
        stderr=True,
        highlight=False,
        emoji=False,
        width=None if sized or sys.stderr.isatty() else LOG_WIDTH,
    )
    return out, err


def interrupt(_signum: int, _frame: FrameType | None) -> None:
    """SIGINT and SIGTERM (a CI cancel, `timeout`) raise KeyboardInterrupt wherever the
    command is. Python's own SIGINT handler does too, but asyncio's runner (under the run's
    event loop) takes that one over, to cancel its main task instead, until the run's own
    handlers are in place: with this one, both signals stop a command the same way."""
    raise KeyboardInterrupt


def check_writable(path: Path, flag: str = "--json") -> None:
    """Refuse an output path before any model call, rather than lose the run's report."""
    if path.is_dir():
        raise InputError(f"{flag} {path}: is a directory")
    if not path.parent.is_dir():
        raise InputError(f"{flag} {path}: the folder {path.parent} does not exist")
    existed = path.exists()
    try:
        with path.open("ab"):
            pass
    except OSError as error:
        raise InputError(f"{flag} {path}: cannot be written ({error.strerror})") from None
    if not existed:
        path.unlink()


def headline(error: BaseException) -> str:
    """The first line of what went wrong, reaching into an exception group for the cause."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class Session:
    """What a command run needs around it: its consoles, its output paths, how it ends."""

    def __init__(self, prog: str, debug: bool) -> None:
        self.prog = prog
        self.debug = debug
        self.out, self.err = consoles()
        self.json_path: Path | None = None
        self.full_record = False
        """Every trial's detail in the JSON report (`--full-record`), not only flagged cases'."""
        self.report: Matrix | None = None
        self.stop_record: StopRecord = run_stop_record

    def adopt(
        self,
        debug: bool,
        json_path: Path | None,
        stop_record: StopRecord | None = None,
        full_record: bool = False,
    ) -> None:
        """The options every run-like command shares: `--debug` (also from the settings
        file) and the JSON file's path, checked before any model call; `stop_record` is what
        that file holds if the command stops early (a run's report by default)."""
        self.debug = self.debug or debug
        self.stop_record = stop_record or run_stop_record
        self.full_record = full_record
        if json_path is not None:
            check_writable(json_path)
            self.json_path = json_path

    def show(self, renderable: RenderableType) -> None:
        """Print at the renderable's natural width when the terminal is narrower, so case ids
        and commands stay whole (the terminal wraps the long lines; a copy keeps them one)."""
        natural = Measurement.get(self.out, self.out.options.update_width(WIDEST), renderable)
        width = self.out.width
        self.out.width = max(width, natural.maximum)
        try:
            self.out.print(renderable, crop=False)
        finally:
            self.out.width = width

    def say(self, message: str) -> None:
        """A line about a choice the run made (stderr, never wrapped)."""
        self.err.print(message, markup=False, soft_wrap=True)

    def error_line(self, message: str) -> None:
        self.err.print(f"{self.prog}: error: {message}", markup=False, soft_wrap=True)

    def warn(self, warnings: Sequence[str]) -> None:
        for warning in warnings:
            self.err.print(f"warning: {warning}", style="yellow", markup=False, soft_wrap=True)

    def write_file(self, path: Path, data: bytes, what: str) -> bool:
        """One output file, whole or not at all; a failure is one line, never a change of
        verdict."""
        try:
            write_atomically(path, data)
        except OSError as error:
            self.error_line(f"cannot write the {what} {path}: {error.strerror}")
            return False
        return True

    def append_summary(self, path: Path, markdown: bytes) -> bool:
        """The Markdown report appended to the job summary (one write of the whole)."""
        try:
            with path.open("ab") as summary:
                summary.write(markdown + b"\n")
        except OSError as error:
            self.error_line(f"cannot append the summary to {SUMMARY_ENV} {path}: {error.strerror}")
            return False
        return True

    def write_json(self, data: bytes) -> bool:
        """The command's JSON file, if asked for; gzipped when its name ends in `.gz`."""
        if self.json_path is None:
            return True
        if self.json_path.suffix == ".gz":
            import gzip

            data = gzip.compress(data, mtime=0)
        return self.write_file(self.json_path, data, "report")

    def write_report(self, report: Matrix) -> bool:
        """A run's JSON report, if asked for (also what a later failure writes)."""
        from activation.report.codec import report_json

        self.report = report
        return self.write_json(report_json(report, self.full_record))

    def fail(self, code: ExitCode, message: str) -> ExitCode:
        self.error_line(message)
        if self.json_path is None:
            return code
        from activation.report.codec import report_json

        data = self.stop_record(code, message)
        if self.report is not None:
            with suppress(Exception):  # the report writer may be what broke
                data = report_json(self.report.stopped(int(code), message), self.full_record)
        self.write_json(data)
        return code


def run_stop_record(code: ExitCode, message: str) -> bytes:
    from activation.report.codec import failure_json

    return failure_json(code, message, __version__)


def stop_record_of(schema: str) -> StopRecord:
    """The stop record of a command whose JSON file has a schema of its own."""

    def record(code: ExitCode, message: str) -> bytes:
        from activation.report.codec import failure_json

        return failure_json(code, message, __version__, schema)

    return record


Command = Callable[[Session, list[str]], int]


def run_command(prog: str, command: Command, argv: list[str]) -> int:
    debug = "--debug" in argv or os.environ.get(DEBUG_ENV) == "1"
    argv = [item for item in argv if item != "--debug"]
    session = Session(prog, debug)
    try:
        return command(session, argv)
    except SystemExit as exit_:  # argparse: --help, --version, or a bad flag (its own line)
        return exit_.code if isinstance(exit_.code, int) else ExitCode.USAGE
    except (InputError, AuthError, ApiUnreachable) as error:
        return session.fail(ExitCode.USAGE, str(error))
    except KeyboardInterrupt:
        return session.fail(ExitCode.INTERRUPTED, "interrupted")
    except Exception as error:
        if session.debug:
            traceback.print_exception(error, file=sys.stderr)
        return session.fail(
            ExitCode.INTERNAL,
            f"internal error: {headline(error)}; please report it"
            + ("" if session.debug else f" (--debug or {DEBUG_ENV}=1 shows where)"),
        )


def install_stop_signals() -> None:
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
