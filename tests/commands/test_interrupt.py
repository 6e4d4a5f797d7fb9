"""Ctrl-C at any moment of the command line's life: one line and exit 130.

The signal is sent by the process itself at a chosen import, so the moment is exact: the
first tenths of a second of a command go to imports, where Python's own handling gives a
traceback, a crash inside orjson's start-up, or an exit by SIGINT under `python -m`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

INTERRUPT_AT_IMPORT = """
import importlib.abc, os, signal, sys

class Interrupts(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == {module!r} and not sent:
            sent.append(name)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sent = []
sys.meta_path.insert(0, Interrupts())
sys.argv = ["activation", *{argv!r}]
from activation.commands.main import console
console()
"""


def interrupted_at(module: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = INTERRUPT_AT_IMPORT.format(module=module, argv=argv)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("module", "argv", "prog"),
    [
        ("rich", ["lint"], "activation lint"),  # the command wrapper's own imports
        ("activation.commands.run", ["--model", "mock"], "activation"),  # the command's
        ("uuid", ["lint"], "activation lint"),  # inside orjson's extension start-up
    ],
    ids=["wrapper", "command", "orjson"],
)
def test_ctrl_c_while_the_command_line_loads_is_one_line_and_exit_130(
    module: str, argv: list[str], prog: str, tmp_path: Path
) -> None:
    """Once a traceback (exit 1 or death by SIGINT); orjson's extension crashed the
    interpreter (SIGSEGV) when the interrupt came in one of its own imports."""
    completed = interrupted_at(module, argv, tmp_path)
    assert (completed.returncode, completed.stdout) == (130, "")
    assert completed.stderr == f"{prog}: error: interrupted\n"


EXEC_INTERRUPTED = """
import builtins, dataclasses, os, runpy, signal

def interrupted_exec(source, *namespaces):
    del dataclasses.exec  # once: the module's own `exec` again
    sent = "__import__('os').kill(__import__('os').getpid(), 2)\\n"
    return builtins.exec(sent + source, *namespaces)

dataclasses.exec = interrupted_exec
runpy.run_module("activation", run_name="__main__", alter_sys=True)
"""


def test_ctrl_c_inside_code_that_exec_runs_still_exits_130_under_python_m(
    tmp_path: Path,
) -> None:
    """A dataclass's methods are made by `exec` as their module loads; a KeyboardInterrupt
    raised inside that code is counted unhandled by CPython under `python -m`, even once
    caught, and the process used to end by SIGINT (-2), not with exit 130."""
    (tmp_path / "interrupting.py").write_text(EXEC_INTERRUPTED)
    completed = subprocess.run(
        [sys.executable, "-m", "interrupting", "lint"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (completed.returncode, completed.stdout) == (130, "")
    assert completed.stderr == "activation lint: error: interrupted\n"
