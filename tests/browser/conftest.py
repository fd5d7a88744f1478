"""Fixtures for tests that use the shared terminal through a real browser.

`shared_terminal` starts a private install (own socket, session, port) with
start.sh and ends it afterwards; `terminal_page` opens its page in headless
Chromium (Debian's /usr/bin/chromium; no browser is ever downloaded) and waits
until the page's terminal is connected. Both are meant for reuse: a test can
type as the person in the page (`BrowserTerminal.type`) while the tool works
on the same session through `shared_terminal.env`.

Every test here runs traced (tests/traces.py): the trace's path is in the
environment before an install starts, so the page server writes to it too
(each line names its process), and a failing test keeps it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_terminal import CHROMIUM, CHROMIUM_ARGS, BrowserTerminal, open_terminal_page
from playwright.sync_api import Browser, sync_playwright
from shared_terminal_harness import REPO, SharedTerminalApp

from tests.traces import pytest_runtest_makereport, traced  # noqa: F401 - every browser test runs traced

ARTIFACTS = REPO / "tests" / "artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Debian Chromium for one test module.

    Playwright's sync API keeps an event loop running in this thread while it
    is open; closing it with the module lets later tests use asyncio.
    """
    assert os.access(CHROMIUM, os.X_OK), (
        f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)"
    )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def shared_terminal(tmp_path: Path) -> Iterator[SharedTerminalApp]:
    """A running private install of the shared terminal, ended afterwards."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    app = SharedTerminalApp(runtime_dir=runtime)
    try:
        app.start()
        app.wait_for_prompt()
        yield app
    finally:
        app.cleanup()


@pytest.fixture
def terminal_page(browser: Browser, shared_terminal: SharedTerminalApp) -> Iterator[BrowserTerminal]:
    """The shared terminal's page in one tab, showing the session."""
    terminal = open_terminal_page(browser, shared_terminal)
    try:
        yield terminal
    finally:
        terminal.page.context.close()


@pytest.fixture
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
