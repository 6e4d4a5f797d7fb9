"""The banner a user sees after signing in."""


def welcome_banner(name: str) -> str:
    """An HTML <h1> with a formal greeting for `name`, a display name the user chose."""
    # TODO: make the greeting with greetlib
    raise NotImplementedError
