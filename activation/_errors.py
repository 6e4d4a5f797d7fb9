"""The ways a run stops early, and the exit codes every command ends with.

Exit codes live here and nowhere else: CI systems read them, so each one means one thing.
"""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    REGRESSED = 1
    """A case regressed: the gate blocks the change."""
    CHECK_FAILED = 1
    """`lint` found errors, or `calibrate` found the suite blind: the same "no" to CI."""
    USAGE = 2
    """Bad input found before any model call, refused credentials or an unreachable API."""
    INCOMPLETE = 3
    """Nothing regressed but some evidence is missing, so the gate fails closed."""
    INTERNAL = 4
    """A bug or a broken machine (a full disk): never a verdict."""
    INTERRUPTED = 130


class InputError(Exception):
    """Bad flag, file, ref or environment, found before any model call."""


class AuthError(Exception):
    """The API refused the credentials (401/403): no later call can succeed, so the run aborts."""


class ApiUnreachable(Exception):
    """The API cannot be reached at all: retrying every trial would only report errors."""
