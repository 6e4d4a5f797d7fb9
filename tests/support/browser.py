"""Headless Chromium from Debian's `chromium` package, driven by Playwright.

Never `playwright install`: it downloads a browser build of its own. The flags keep the
browser off the network (no updates, sync or QUIC), so a page that fetches anything shows it
as a failed request the tests can see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

__all__ = ["ARTIFACTS", "CHROMIUM", "Browser", "Launcher", "Visit", "launch", "visit"]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
"""Screenshots a test run keeps (git-ignored)."""
Launcher = Callable[[], AbstractContextManager[Browser]]


@contextmanager
def launch() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Visit:
    """An open page and what it did: console errors, uncaught errors, every request."""

    page: Page
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")


@contextmanager
def visit(browser: Browser, path: Path, width: int = 1300) -> Iterator[Visit]:
    """`path` opened as a person would, from disk, watched from the first request."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    seen = Visit(page)
    page.on("console", seen.console)
    page.on("pageerror", lambda error: seen.errors.append(f"page: {error}"))
    page.on("request", lambda request: seen.requests.append(request.url))
    try:
        page.goto(path.as_uri())
        yield seen
    finally:
        context.close()
