"""The two ways a run stops before it has evidence: both end in exit 2 with one clear line."""


class InputError(Exception):
    """Bad flag, file, ref or environment, found before any model call."""


class AuthError(Exception):
    """The API refused the credentials (401/403): no later call can succeed, so the run aborts."""
