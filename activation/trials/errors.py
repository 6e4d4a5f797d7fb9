"""Whose an error trial is: the classes of `ErrorClass`, said once for every backend.

A backend that knows why a trial failed says so where it makes the trial (a grader, an
unusable answer, the cost ceiling); an agent CLI's run is classified here from what the run
ended with (its reason and exit code), and a backend that cannot start a trial's
environment (a sandbox, a container, the proxy, a lost worker) raises `InfrastructureFailure`,
which the run's slots turn into an infrastructure error and retry (trials/schedule.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from activation._models import ErrorClass

AUTH = frozenset({401, 403})
"""HTTP statuses that say the credentials were refused: the agent's setup, not the model."""
REFUSED = "refused the credentials"
"""How every agent reader says the API refused the key (Gemini's answer to one is a 400)."""
_STATUS = re.compile(r"\b(?:API error|HTTP|status:?|\"code\":) ?(\d{3})\b", re.IGNORECASE)
_MODEL_WORDS = ("api error", "the turn failed", "overloaded", "rate limit", "too many", "budget")
"""What a run's reason says when the model's API (or a budget on it) ended it."""
TIME_BUDGET = "time budget"
"""The prefix of the error of a trial the tool stopped at its time budget."""
LABELS: Mapping[str, str] = {
    ErrorClass.INFRASTRUCTURE: "infrastructure",
    ErrorClass.AGENT_SETUP: "agent setup",
    ErrorClass.MODEL: "model",
    ErrorClass.GRADER: "grader",
}
"""How every output names each class (a report's counts are keyed by the class's value)."""


class InfrastructureFailure(Exception):
    """A trial's environment could not be had (the sandbox or container did not start, the
    proxy failed, the worker was lost): an infrastructure error, retried, never a vote."""


def run_failure_class(error: BaseException) -> ErrorClass:
    """The class of a run that could not be had at all: the CLI missing or not executable
    is the agent's setup; a pipe, a file or a folder failing is infrastructure."""
    if isinstance(error, FileNotFoundError | PermissionError):
        return ErrorClass.AGENT_SETUP
    return ErrorClass.INFRASTRUCTURE


def classify_run(reason: str, returncode: int | None = None) -> ErrorClass:
    """The class of an agent CLI run that ended in an error: killed by a signal the tool
    did not send (`returncode` < 0) is infrastructure; refused credentials (or a 401/403)
    are the agent's setup; any other API status, a failed turn, an overloaded or
    rate-limited API or a budget is the model's; anything else (the CLI missing, refusing
    a load, behind a login wall, not a run of it) is the agent's setup."""
    if returncode is not None and returncode < 0:
        return ErrorClass.INFRASTRUCTURE
    if REFUSED in reason:
        return ErrorClass.AGENT_SETUP
    found = _STATUS.search(reason)
    if found is not None:
        return ErrorClass.AGENT_SETUP if int(found.group(1)) in AUTH else ErrorClass.MODEL
    lowered = reason.lower()
    if any(word in lowered for word in _MODEL_WORDS):
        return ErrorClass.MODEL
    return ErrorClass.AGENT_SETUP
