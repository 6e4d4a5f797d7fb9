"""Whose an error trial is: the classes of `ErrorClass`, said once for every backend.

Each class is given where the fact is known, never read back from an error's words: a
backend that knows why a trial failed says so where it makes the trial (a grader, an
unusable answer, the cost ceiling); an agent's stream reader says whose its run's error is
(`Reading.error_class`: the model's API, or the agent's setup); the agent backend knows a
budget it enforced ran out and a signal it did not send; and a backend that cannot start a
trial's environment (a sandbox, a container, the proxy, a lost worker) raises
`InfrastructureFailure`, which the run's slots turn into an infrastructure error and retry
(trials/schedule.py).
"""

from __future__ import annotations

from activation._models import ErrorClass

TIME_BUDGET = "time budget"
"""The prefix of the error of a trial the tool stopped at its time budget."""


class InfrastructureFailure(Exception):
    """A trial's environment could not be had (the sandbox or container did not start, the
    proxy failed, the worker was lost): an infrastructure error, retried, never a vote."""


def run_failure_class(error: BaseException) -> ErrorClass:
    """The class of a run that could not be had at all: the CLI missing or not executable
    is the agent's setup; a pipe, a file or a folder failing is infrastructure."""
    if isinstance(error, FileNotFoundError | PermissionError):
        return ErrorClass.AGENT_SETUP
    return ErrorClass.INFRASTRUCTURE


def ended_class(read: ErrorClass | None, returncode: int | None) -> ErrorClass:
    """The class of an agent run that ended in an error: killed by a signal the tool did not
    send (`returncode` < 0; None when the tool ended it) is infrastructure, whatever the
    stream shows; else what its reader found (`read`), the agent's setup when it found
    nothing."""
    if returncode is not None and returncode < 0:
        return ErrorClass.INFRASTRUCTURE
    return read or ErrorClass.AGENT_SETUP
