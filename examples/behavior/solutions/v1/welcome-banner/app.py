"""The banner a user sees after signing in."""

import html

import greetlib


def welcome_banner(name: str) -> str:
    """An HTML <h1> with a formal greeting for `name`, a display name the user chose."""
    return f"<h1>{html.escape(greetlib.hello(name, polite=True))}</h1>"
