"""An agent's executable, found and asked for its version before any run.

Runs start in a throwaway folder, so a relative path (`./claude`) is made absolute first;
`--version` runs in the same kind of isolated environment as a trial (the adapter's), so
the check never touches the user's own configuration of the agent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from activation._errors import InputError
from activation.trials.agent.adapter import RunDirs
from activation.trials.agent.env import scrub, secret_values

VERSION_TIMEOUT = 30.0
_DETAIL = 300
"""Characters of a failed `--version`'s stderr quoted."""


def resolve(executable: str) -> str:
    """An absolute path to the executable; unchanged when it cannot be found, so the run
    reports that."""
    found = shutil.which(executable)
    return str(Path(found).absolute()) if found else executable


def install_hint(package: str, flag: str) -> str:
    return (
        f"install it with `npm install -g {package}` (or into a folder with "
        f"`npm install --prefix DIR {package}`) and pass {flag} PATH if it is not on PATH"
    )


def check_version(
    executable: str,
    title: str,
    hint: str,
    env_for: Callable[[Mapping[str, str], RunDirs], dict[str, str]],
) -> str:
    """The first line `<executable> --version` prints; InputError (with `hint`) when the
    CLI cannot be found or run. `env_for(parent, dirs)` is the adapter's environment of a
    run in `dirs`, built from this process's."""
    if shutil.which(executable) is None:
        raise InputError(f"cannot find the {title} CLI {executable!r}: {hint}")
    path = resolve(executable)
    scratch = Path(tempfile.mkdtemp(prefix="activation-check-"))
    try:
        completed = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=env_for(os.environ, RunDirs(scratch, scratch, scratch)),
            cwd=scratch,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(
            f"{path} --version did not answer within {VERSION_TIMEOUT:g} s: {hint}"
        ) from None
    except OSError as error:
        raise InputError(f"cannot run {path}: {error.strerror}; {hint}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    version = completed.stdout.strip()
    if completed.returncode != 0 or not version:
        detail = scrub(completed.stderr.strip(), secret_values(os.environ))[:_DETAIL]
        raise InputError(
            f"{path} --version failed (exit {completed.returncode}"
            f"{': ' + detail if detail else ''}): {hint}"
        )
    return version.splitlines()[0]
