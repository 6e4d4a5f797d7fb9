"""The live progress bar: trials done of planned (escalated rounds add to the plan as they
come), errors so far, time elapsed; and a second bar for a batch's requests."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from activation._models import Trial


class TrialProgress:
    """A context manager, and the engine's `Progress`."""

    def __init__(self, console: Console, total: int, label: str) -> None:
        self.errors = 0
        self.total = total
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors: {task.fields[errors]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task = self._progress.add_task(label, total=total, errors=0)
        self._batch_task: TaskID | None = None

    def __enter__(self) -> TrialProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def trial(self, trial: Trial) -> None:
        self.errors += trial.is_error
        self._progress.update(self._task, advance=1, errors=self.errors)

    def planned(self, more: int) -> None:
        self.total += more
        self._progress.update(self._task, total=self.total)

    def batch(self, done: int, total: int) -> None:
        """Message Batches: requests finished of submitted, from the batches' own counts."""
        if self._batch_task is None:
            self._batch_task = self._progress.add_task("batch requests", total=total, errors=0)
        self._progress.update(self._batch_task, completed=done, total=total)
